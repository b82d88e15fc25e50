"""engine.plan: `Plan.clean` (the sentence fast path, read in the text itself) never says a text
is clean where `Plan.active` (read in the views) would run a detector, and find() on short texts
built from the characters detectors read equals a whole-text scan (hypothesis)."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DETECTORS, find
from engine.views import Views
from tests.engine.test_find import _whole_text_scan

PLAN = importlib.import_module("engine.find")._PLANS[id(DETECTORS)]

#: Digits, separators, the letters of shape and text keywords, `@`, `:`, `_`, `=`.
ALPHABET = "0123456789 .-()/+:@_=AaBGKSPIeyJkxsoRWT\n"
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
    ("Ref GB 82 here", False),  # a shape keyword (AA 00)
    ("The PASSWORD is here", False),  # a lower-case keyword
    ("write to me@example.com", False),  # a text keyword
    ("at 10:30:00", False),  # the IPv6 gate (two colons)
])
def test_clean(text: str, clean: bool) -> None:
    assert PLAN.clean(text) is clean
