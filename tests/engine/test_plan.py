"""engine.plan: `Plan.clean` (the sentence fast path, read in the text itself) never says a text
is clean where `Plan.active` (read in the views) would run a detector, and find() on short texts
built from the characters detectors read equals a whole-text scan (hypothesis)."""

from __future__ import annotations

import importlib
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine import DETECTORS, find
from replyguard.engine.plan import Plan
from replyguard.engine.views import Views
from tests.engine.test_find import _whole_text_scan

PLAN = importlib.import_module("replyguard.engine.find")._PLANS[id(DETECTORS)]

#: Digits, separators, the letters of shape and text keywords (shapes in either case), `@`,
#: `:`, `_`, `=`.
ALPHABET = "0123456789 .-()/+:@_=AaBbGgcdKSPIeyJkxsoRWT\n"
SHORT_TEXTS = st.text(alphabet=ALPHABET, min_size=1, max_size=60)


@settings(max_examples=600, deadline=None)
@given(SHORT_TEXTS)
def test_clean_only_where_no_detector_is_active(text: str) -> None:
    assert not (PLAN.clean(text) and PLAN.active(Views(text)))


@settings(max_examples=600, deadline=None)
@given(SHORT_TEXTS)
def test_find_equals_whole_text_scan_on_short_texts(text: str) -> None:
    assert find(text) == _whole_text_scan(text)


@pytest.mark.parametrize(("text", "clean"), [
    ("Thanks for waiting, we will look into it and reply here shortly.", True),
    ("Your order 4412 shipped on Tuesday and should arrive by Friday.", True),
    ("Call 0800 now", True),  # a run of digits too short to be one (Views.runs: 6 or more)
    ("Call 0800 123 now", False),  # a run
    ("See ...... and ------ here", True),  # runs of separators, but no digit in the text
    ("Ref GB82 here", False),  # a shape keyword (AA00)
    ("ref gb82 here", False),  # the same, in lower case (shapes read letters of any case)
    ("Ref AB 12 34 56 C here", False),  # a shape keyword (AA 00 00)
    ("Ref AB 123456 C here", False),  # a shape keyword (AA 000000)
    ("Ref AB 1234 56 C here", False),  # a shape keyword (AA 0000 00)
    ("Ref GB 82 here", True),  # a word and a number: no shape keyword (AA 00 is none)
    ("Paid in 2024 and on 12 May", True),
    ("see postgres://db", False),  # a text keyword (://)
    ("The PASSWORD is here", False),  # a lower-case keyword
    ("write to me@example.com", False),  # a text keyword
    ("at 10:30:00", False),  # the IPv6 gate (two colons)
])
def test_clean(text: str, clean: bool) -> None:
    assert PLAN.clean(text) is clean


def test_a_shape_keyword_without_a_digit_is_refused() -> None:
    """`Plan.clean` reads shape keywords only in a text holding a digit, from their first
    digit: a keyword without one could never be seen there."""
    detector = replace(next(d for d in DETECTORS if d.id == "iban"), id="lettered",
                       keywords=("AA",))
    with pytest.raises(ValueError, match=r"^lettered: shape keyword 'AA' holds no digit$"):
        Plan.of([detector])
