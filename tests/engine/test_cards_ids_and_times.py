"""What makes a run of digits a card (an issuer's prefix at a length that issuer uses, Luhn
holding), what marks a run of digits alone as an id, a time, a barcode or a SIM card's number
instead, the words that mark a number as no phone, and a masked JSON number written as a JSON
string: exact screened text on the request side, in a whole reply and in a reply streamed cut
at every position."""

from __future__ import annotations

import json

import pytest
from released import every_way as _every_way
from stdnum import luhn

from replyguard.engine import find
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules
from replyguard.engine.validators import card

RULES = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")
RULES_PT = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "pt-BR")






def _luhn(body: str) -> str:
    return body + luhn.calc_check_digit(body)


# -- an issuer's prefix at a length that issuer uses ------------------------------------------

@pytest.mark.parametrize(("body", "is_card"), [
    ("411111111111111", True),          # Visa, 16
    ("555555555555444", True),          # Mastercard 51-55, 16
    ("222100000000000", True),          # Mastercard 2-series, 16
    ("220000000000000", True),          # Mir, 16
    ("601100000000000", True),          # Discover, 16
    ("352800000000000", True),          # JCB, 16
    ("620000000000000", True),          # UnionPay, 16
    ("810000000000000", True),          # UnionPay's 81, 16
    ("630400000000000000", True),       # Maestro, 19
    ("400000000000000000", True),       # Visa, 19
    ("220000000000000000", True),       # Mir, 19
    ("173301120012345", False),         # 16 digits from 1: a Unix time in microseconds
    ("179876543210987654", False),      # 19 digits from 17: a snowflake id
    ("112233445566778899", False),      # 19 digits from 11: a Discord id
    ("894450010219830482", False),      # 19 digits from 89: an ICCID (ITU-T E.118)
    ("012345678901234", False),         # 16 digits from 0
    ("210000000000000000", False),      # 19 digits from 21: Mastercard's 2-series is 16 only
    ("510000000000000000", False),      # 19 digits from 51: Mastercard is 16 only
    ("340000000000000", False),         # 16 digits from 34: American Express is 15 only
])
def test_a_card_starts_as_its_issuer_numbers_cards_of_its_length(body: str, is_card: bool) -> None:
    assert card(_luhn(body)) is is_card


# -- runs of digits that are no card ------------------------------------------------------------

UNCHANGED = [
    "Created at 1733011200123452 (microseconds).",
    "time_ns=1733011200123456780",
    '{"created_at_us": 1733011200123452}',
    "https://twitter.com/jack/status/1798765432109876548",
    '{"id": 1798765432109876548, "text": "hello"}',
    "Discord user ID 1122334455667788990",
    "<@1122334455667788990> joined.",
    "ICCID 8944500102198304826",
    "SIM 8944500102198304826",
    "SIM card number 89445001021983048265",   # 20 digits: an ICCID's longest
    "JAN 4901234567894",
    "EAN-13: 4901234567894",
    "GTIN 4006381333931 is on the box.",
    "UPC code 4901234567894",
    '{"id": 4539148803436467}',
    "It happened at 4539148803436467 µs since epoch.",
    "time 2025550143",
    "Horário: 2025550143",
    "Order 4539148803436467 shipped.",
    "Invoice #4111111111111111",
    "Tracking number 4539148803436467",
    # Nine digits in groups no SSN is printed in, with no label: no SSN.
    "Call 536 228 841 now.",
    "Ref 53622-8841 is closed.",
    # An id after `ID` (`Caller ID` names a phone), a model's code shaped as a NINO.
    "Call ID 2025550143",
    "Call id: 2025550143 was dropped.",
    "Model AB123456C",
    "Model: AB 123 456 C is in stock.",
    "SKU AB123456C",
    # Labels that name other numbers, and eleven digits in 4-4-3 with no CPF's name.
    "Pedido 5299 8224 725",
    "mini number AB 12 34 56",
    # A quantity and a unit: digits alone or in thousands.
    "took 7 266 106 890 ms",
]


@pytest.mark.parametrize("text", UNCHANGED)
def test_ids_times_barcodes_and_sim_numbers_are_left_as_they_are(text: str) -> None:
    assert _every_way(text) == {text}


def test_a_product_code_is_no_phone_in_portuguese() -> None:
    text = "Código do produto: 11987654321"
    assert _every_way(text, RULES_PT) == {text}


@pytest.mark.parametrize(("text", "released"), [
    # The country code without its `+`, in groups; digits alone are an id.
    ("Ligue 55 11 98765-4321 hoje", "Ligue ***4321 hoje"),
    ("Ligue 5511987654321 hoje", "Ligue 5511987654321 hoje"),
    ("Ligue 55 11 98765-4320 9 hoje", "Ligue 55 11 98765-4320 9 hoje"),
])
def test_a_country_code_without_its_plus_in_portuguese(text: str, released: str) -> None:
    assert _every_way(text, RULES_PT) == {released}


MASKED = [
    # A card typed in groups is a card, whatever the words before it say.
    ('{"id": "4539 1488 0343 6467"}', '{"id": "**** 6467"}'),
    ("Discord user ID 4539-1488-0343-6467", "Discord user ID **** 6467"),
    # Words naming a card win over those naming an id.
    ("card ID 4539148803436467", "card ID **** 6467"),
    ("Order 4539 1488 0343 6467 paid", "Order **** 6467 paid"),
    ("card for order: 4539148803436467", "card for order: **** 6467"),
    ('{"card_id": 4539148803436467}', '{"card_id": "**** 6467"}'),
    # `sim` is Portuguese's yes, `Jan` a month: only `SIM` and `JAN` name other numbers.
    ("Sim 4539148803436467", "Sim **** 6467"),
    ("Jan 4539148803436467", "Jan **** 6467"),
    # A time word is a label only first in its phrase: `any time` is prose.
    ("Call any time 2025550143", "Call any time ***0143"),
    # and only before a number written as one run of digits.
    ("time (202) 555-0143", "time ***0143"),
    # After its label, an SSN's nine digits however grouped (the SSA's rules holding).
    ("My SSN: 536-228841 is on file.", "My SSN: ***8841 is on file."),
    ("SSN 53622-8841 please", "SSN ***8841 please"),
    ("SSN: 536~22~8841", "SSN: ***8841"),
    ("SSN 536 228 841", "SSN ***8841"),
    ("social security number 5362 28841.", "social security number ***8841."),
    ("SSN: 536-22-8841", "SSN: ***8841"),
    ("SSN 666 228 841", "SSN 666 228 841"),
    ("SSN 536 228 8410", "SSN 536 228 8410"),
    # A NINO in threes, and after its name without its suffix letter.
    ("NINO AB 123 456 C here", "NINO ***456C here"),
    ("My NI number is AB 12 34 56.", "My NI number is ***3456."),
    ("NI number: AB 12 34 56", "NI number: ***3456"),
    ("NI No: ab 123456 now", "NI No: ***3456 now"),
    ('{"ssn": "536-228841"}', '{"ssn": "***8841"}'),
    ("Please type AB123456C here", "Please type ***456C here"),
    ("National Insurance number: JG 103 759", "National Insurance number: ***3759"),
    ("NI number: GB 12 34 56", "NI number: GB 12 34 56"),
    # A CPF after its name, in any groups.
    ("CPF: 5299 8224 725", "CPF: ***4725"),
    ("O CPF \u00e9 52998-224725.", "O CPF \u00e9 ***4725."),
    ("CPF: 5299 8224 726", "CPF: 5299 8224 726"),
    # An IBAN whose last group is short.
    ("IBAN GB82 WEST 1234 5698 7654 3 2", "IBAN GB** **** 5432"),
    # A unit after a `+` number or a phone's groups: a phone still.
    ("Call +44 20 7946 0123 GB office", "Call ***0123 GB office"),
    ("Call +1 202 555 0143 ms", "Call ***0143 ms"),
    ("Call +1 202 555 0143 MB", "Call ***0143 MB"),
    ("Call 202 555 0143 ms", "Call ***0143 ms"),
    ("Call [202] 555-0143", "Call ***0143"),
    ("Caller ID 2025550143", "Caller ID ***0143"),
    # A card's name wins over a unit after it.
    ("Card 4539148803436467 ms", "Card **** 6467 ms"),
]


@pytest.mark.parametrize(("text", "released"), MASKED)
def test_cards_and_phones_beside_such_words(text: str, released: str) -> None:
    assert _every_way(text) == {released}


# -- a JSON number's mask ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "released"), [
    ('{"card": 4111111111111111, "n": 2}', '{"card": "**** 1111", "n": 2}'),
    ('{"phone": 2025550143}', '{"phone": "***0143"}'),
    ('[{"a": 1, "card": 4111111111111111}]', '[{"a": 1, "card": "**** 1111"}]'),
    ('{\n  "card": 4111111111111111\n}', '{\n  "card": "**** 1111"\n}'),
    ('{"card": "4111111111111111"}', '{"card": "**** 1111"}'),
    ("card: 4111111111111111", "card: **** 1111"),
    ('"card": 4111111111111111.', '"card": **** 1111.'),
])
def test_a_masked_json_number_is_written_as_a_json_string(text: str, released: str) -> None:
    assert _every_way(text) == {released}


def test_a_json_document_stays_valid_json_once_masked() -> None:
    document = {"id": 1798765432109876548, "card": 4111111111111111, "phone": 2025550143,
                "ts_us": 1733011200123452, "text": "hello"}
    text = json.dumps(document, indent=2)
    [released] = _every_way(text)
    assert json.loads(released) == {**document, "card": "**** 1111", "phone": "***0143"}


def test_the_marks_are_read_around_runs_of_digits_alone() -> None:
    text = "Tweet id 1798765432109876548, card 4539148803436467, EAN 4901234567894."
    assert [(f.cls, text[f.start:f.end]) for f in find(text)] == [("card", "4539148803436467")]
