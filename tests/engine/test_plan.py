"""engine.plan: `Plan.clean` (the sentence fast path, read in the text itself) never says a text
is clean where `Plan.active` (read in the views) would run a detector, and find() on short texts
built from the characters detectors read equals a whole-text scan (hypothesis)."""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine import DETECTORS, Detector, find, validators
from replyguard.engine.plan import Plan
from replyguard.engine.tuning import UNTUNED, Tuning, tuning_of
from replyguard.engine.views import Views
from tests.engine.test_find import _whole_text_scan

PLAN = importlib.import_module("replyguard.engine.find")._PLANS[id(DETECTORS)]
IBAN = next(d for d in DETECTORS if d.id == "iban")
PHONE = next(d for d in DETECTORS if d.id == "phone_number")

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
    digit: a keyword without one could never be seen there. The refusal is the declaration's
    (`keywords`, `keywords_in`), whatever the search: a detector derived from the IBAN one
    under an id of its own has no entry in the planner's table and is searched untuned."""
    detector = replace(IBAN, id="lettered", keywords=("AA",))
    assert tuning_of(detector) == UNTUNED
    with pytest.raises(ValueError, match=r"^lettered: shape keyword 'AA' holds no digit$"):
        Plan.of([detector])


@pytest.mark.parametrize(("detector", "tuning"), [
    (IBAN, Tuning(reach=(0, 72))),
    (PHONE, Tuning(min_digits=8, unmarked_digits=("+", 10), reach=(2, 3), number_start=True)),
    # another validator (phone numbers read in other regions): the same regex, the same search
    (replace(PHONE, validate=partial(validators.phone, regions=("BR",))),
     Tuning(min_digits=8, unmarked_digits=("+", 10), reach=(2, 3), number_start=True)),
    # a validator of one's own: every run its regex may match in
    (replace(PHONE, validate=bool), Tuning(min_digits=8, reach=(2, 3), number_start=True)),
    (replace(IBAN, id="my_iban"), UNTUNED),  # an id the table does not hold
    (replace(IBAN, regex=re.compile(IBAN.regex.pattern + "(?!x)")), UNTUNED),  # another regex
    (replace(IBAN, keywords=("AA00",)), UNTUNED),  # other keywords
    (replace(IBAN, keywords_in="text"), UNTUNED),  # keywords read elsewhere
])
def test_a_detector_is_tuned_only_as_the_built_in_of_its_id(detector: Detector,
                                                            tuning: Tuning) -> None:
    """The planner's table is keyed by detector id, and an entry holds only for the regex and
    keywords it was made for: any other detector is searched untuned (over the whole text
    where one of its keywords occurs, always without keywords), never in windows made for
    another pattern."""
    assert tuning_of(detector) == tuning


TUNED_TEXT = ("Card 4111 1111 1111 1111 12/26, IBAN GB82 WEST 1234 5698 7654 32, SSN 123-45-6789, "
              "+44 20 7946 0123, 203.0.113.42 and fe80::1, jane.doe@example.com, "
              "password: hunter2Secret!, AKIAIOSFODNN7EXAMPLE, postgres://admin:s3cr3t@db/x.")


def test_untuned_detectors_find_what_the_built_in_ones_find() -> None:
    """Each built-in detector copied under an id of its own (untuned) finds what it finds."""
    own = [replace(d, id=f"own_{d.id}") for d in DETECTORS]
    assert {tuning_of(d) for d in own} == {UNTUNED}
    assert [(f.cls, f.detector, TUNED_TEXT[f.start:f.end]) for f in find(TUNED_TEXT, own)] == [
        (f.cls, f"own_{f.detector}", TUNED_TEXT[f.start:f.end]) for f in find(TUNED_TEXT)]
    assert [TUNED_TEXT[f.start:f.end] for f in find(TUNED_TEXT, own)] == [
        "4111 1111 1111 1111", "GB82 WEST 1234 5698 7654 32", "123-45-6789", "+44 20 7946 0123",
        "203.0.113.42", "fe80::1", "jane.doe@example.com", "hunter2Secret!",
        "AKIAIOSFODNN7EXAMPLE", "s3cr3t"]
