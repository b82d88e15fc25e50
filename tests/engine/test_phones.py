"""Phone numbers by their numbering plan: libphonenumber for the regions the rules read
national numbers in (by language, or as set), `+` numbers by their own country code, digit
runs the text before them marks as ids, times, ISBNs or references refused; detector sets per
region set, each planned once; the hard negatives left as they are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replyguard.engine import DETECTORS, Finding, ReplyRules, compile_rules, find, screen_text
from replyguard.engine.context_marks import Refusing, marked_as_other
from replyguard.engine.detector_sets import PHONE_REGIONS_BY_LANGUAGE, detectors_for
from replyguard.engine.plan import DetectorSet, Plan
from replyguard.engine.rules import CLASSES, CompiledRules, Language

HARD_NEGATIVES = Path(__file__).parents[1] / "data" / "hard_negatives.txt"


def _redact_all(language: Language = "en", regions: list[str] | None = None) -> CompiledRules:
    return compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), language,
                         regions)


EN, PT = _redact_all("en"), _redact_all("pt-BR")


def _phones(text: str, rules: CompiledRules) -> list[tuple[int, int]]:
    return [(f.start, f.end) for f in find(text, rules.detectors) if f.cls == "phone"]


@pytest.mark.parametrize(("text", "en", "pt"), [
    # National numbers: valid in the regions' plans, written as those regions write them.
    ("call (202) 555-0143 now", [(5, 19)], []),
    ("call 202-555-0143 now", [(5, 17)], []),
    ("call 1-202-555-0143 now", [(5, 19)], []),
    ("call 2025550143 now", [(5, 15)], []),
    ("call 020 7946 0123 now", [(5, 18)], []),
    ("call 0161 496 0123 now", [(5, 18)], []),
    ("call 07400 123456 now", [(5, 17)], []),
    ("ligue (11) 98765-4321 já", [], [(6, 21)]),
    ("ligue 11 98765-4321 já", [], [(6, 19)]),
    ("ligue (11) 3456-7890 já", [], [(6, 20)]),
    ("ligue 011 98765-4321 já", [], [(6, 20)]),   # the trunk 0 before the area code
    # `+` numbers: by their own country code, whatever the regions.
    ("call +44 20 7946 0123 now", [(5, 21)], [(5, 21)]),
    ("ligue +55 11 98765-4321 já", [(6, 23)], [(6, 23)]),
    ("call +1 202 555 0143 now", [(5, 20)], [(5, 20)]),
    ("call +49 30 1234567 now", [(5, 19)], [(5, 19)]),
    # Not valid in the plans read: no area 555 in the US, 07700 900 unassigned, GB written
    # without its trunk 0 (`1755302400` is a Unix time, not 01755 302400).
    ("call (555) 123-4567 now", [], [(5, 19)]),   # (55) 5123-4567 is a number in Brazil
    ("call 07700 900123 now", [], []),
    ("at 1755302400 it ran", [], [(3, 13)]),   # (17) 5530-2400 is a number in Brazil
    ("call +1 555 012 3456 now", [], []),
    ("call +12345 now", [], []),
])
def test_phone_numbers_by_numbering_plan(text: str, en: list, pt: list) -> None:
    assert (_phones(text, EN), _phones(text, PT)) == (en, pt)


@pytest.mark.parametrize(("text", "released"), [
    ("Call (202) 555-0143 or +44 20 7946 0123.", "Call ***0143 or ***0123."),
    ("Call 020 7946 0123, not (11) 98765-4321.", "Call ***0123, not (11) 98765-4321."),
])
def test_phone_masks_in_english(text: str, released: str) -> None:
    assert screen_text(text, EN, "reply").text == released


def test_phone_masks_in_portuguese() -> None:
    assert screen_text("Ligue (11) 98765-4321 ou (202) 555-0143.", PT, "reply").text == (
        "Ligue ***4321 ou (202) 555-0143.")


def test_regions_from_the_setting_replace_the_languages() -> None:
    rules = _redact_all("en", ["br", "GB", "BR"])
    assert (rules.phone_regions, screen_text("(11) 98765-4321, 020 7946 0123, 202-555-0143",
                                             rules).text) == (
        ("BR", "GB"), "***4321, ***0123, 202-555-0143")


@pytest.mark.parametrize(("text", "marked"), [
    ('{"product_id": 3074185296}', True),
    ('{"product_id": "3074185296"}', True),
    ("created_at=1755302400", True),
    ("'timestamp' => '1755302400'", True),
    ("userId: 2025550143", True),
    ("ISBN 0-306-40615-2", True),
    ("ISBN-10: 0306406152", True),
    ("order no. 2025550143", True),
    ("Order #2025550143", True),
    ("invoice 2025550143", True),
    ("tracking number: 2025550143", True),
    ("ref. 2025550143", True),
    ("Reference 2025550143", True),
    ("Unix time 1755302400", True),
    ("(Unix time 1755302400)", True),
    ("(order 2025550143)", True),
    ("the nota fiscal 3074185296", True),
    ("at lunch time 2025550143", False),
    ("pedido nº 11987654321", True),
    ("protocolo 1198765432", True),
    ('{"phone_number": "2025550143"}', False),
    ("phone: 2025550143", False),
    ("call 2025550143", False),
    ("the order: call 2025550143", False),
    ("paid: 2025550143", False),
    ("reorder 2025550143", False),
    ('{"order": 2025550143', True),  # a key named after the kind of number
    ('{"orderNumber": 2025550143', True),
    ('{"order_no": "2025550143"', True),
    ('{"pedido": 2025550143', True),
    ('{"iat": 2025550143', True),  # a JWT's claims are times
    ('{"phone_number": "2025550143"', False),
    ('{"phone": 2025550143', False),
])
def test_marked_as_other(text: str, marked: bool) -> None:
    start = re.search(r"[0-9]", text).start()  # type: ignore[union-attr]
    assert marked_as_other(text, start, len(text)) is marked


@pytest.mark.parametrize("text", [
    '{"product_id": 3074185296, "order_id": "2025550143"}',
    "Invoice 2025550143 and tracking number: 2025550143 are both in the email.",
    "ISBN 020 7946 0123",
    '"created_at": 2025550143',
])
def test_numbers_marked_as_other_are_no_phone(text: str) -> None:
    assert (_phones(text, EN), screen_text(text, EN).text) == ([], text)


def test_a_refused_run_does_not_hide_the_next() -> None:
    text = "order 2025550143, or call 2025550143"
    assert find(text, EN.detectors) == [Finding("phone", 26, 36, "phone_number")]


def test_refusing_reads_like_the_pattern_without_refused_matches() -> None:
    finder = Refusing(re.compile(r"\d+"), lambda text, start, end: text[start] == "1")
    text = "12 34 15 56"

    def found(match: re.Match[str] | None) -> str | None:
        return match.group() if match is not None else None

    assert ([m.group() for m in finder.finditer(text)], found(finder.search(text)),
            found(finder.search(text, 6)), found(finder.match(text)),
            found(finder.match(text, 3)), found(finder.search(text, 0, 5))) == (
        ["34", "56"], "34", "56", None, "34", "34")


def _hard_negatives() -> list[str]:
    text = HARD_NEGATIVES.read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_every_hard_negative_comes_back_unchanged(language: str) -> None:
    rules = EN if language == "en" else PT
    changed = [line for line in _hard_negatives()
               if screen_text(line, rules, "reply").text != line
               or screen_text(line, rules, "turn").text != line]
    assert changed == []


@pytest.mark.parametrize("text", [
    "Call 555-123-4567 for the recorded demo line.",   # (55) 5123-4567 in Brazil
    "Dial 1755302400 in the lab simulator.",            # (17) 5530-2400 in Brazil
])
def test_numbers_of_no_english_plan_come_back_unchanged_in_english(text: str) -> None:
    assert screen_text(text, EN).text == text


def test_default_regions_by_language() -> None:
    assert (dict(PHONE_REGIONS_BY_LANGUAGE), EN.phone_regions, PT.phone_regions) == (
        {"en": ("US", "GB"), "pt-BR": ("BR",)}, ("US", "GB"), ("BR",))


def test_detector_sets_are_built_once_per_region_set() -> None:
    br = detectors_for(["BR"])
    assert (detectors_for(("us", "gb")) is DETECTORS, detectors_for(["br"]) is br,
            compile_rules(ReplyRules(), "pt-BR").detectors is br, type(br) is DetectorSet,
            Plan.of(br) is Plan.of(br), [d.id for d in br] == [d.id for d in DETECTORS]) == (
        True, True, True, True, True, True)


@pytest.mark.parametrize(("regions", "message"), [
    (["XX"], "phone_regions: 'XX' is not a region with a phone numbering plan (ISO 3166-1 "
             "alpha-2 codes: US, GB, BR, ...)"),
    (["US", "gbr"], "phone_regions: 'gbr' is not a region with a phone numbering plan "
                    "(ISO 3166-1 alpha-2 codes: US, GB, BR, ...)"),
    ([], "phone_regions: names no region"),
])
def test_unknown_regions_are_refused(regions: list[str], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        compile_rules(ReplyRules(), "en", regions)
    assert str(caught.value) == message
