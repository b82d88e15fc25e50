"""Values typed with other separators, groupings, letters and labels, and what stays no value:
digit groups separated by typography's dots and bullets, underscores, commas, colons or the
braille blank; cards grouped a digit, two or three at a time; small capitals and modifier
letters; a labelled SSN without separators; a TSV's password column; an address's `(at)` and
`(dot)`; a count under a token's name; a tag's name as a label. Each case is checked with its
exact released text on the request side, in a whole reply and in a reply streamed in random
cuts (`_released`)."""

from __future__ import annotations

import unicodedata

import pytest
from released import every_way
from released import released as _released

from replyguard.engine import find, split_sentences
from replyguard.engine.chars import ONE_FOR_ONE, _letter_forms
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules

REDACT_ALL = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")




#: The separators read between a value's groups besides a space and a hyphen.
SEPARATORS = ["\u00b7", "\u2022", "\u2027", "\u2219", "\u22c5", "\u2024", "\u2800", "_", ",",
              ":", ".", "/"]


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_a_card_with_any_separator_between_its_groups(sep: str) -> None:
    text = f"Card {sep.join(['4111', '1111', '1111', '1111'])} ok."
    assert _released(text) == "Card **** 1111 ok."


#: Those of an SSN: a table's or a list's (a comma, a colon, an underscore, a bar) set cells
#: apart, not an SSN's groups.
SSN_SEPARATORS = [s for s in SEPARATORS if s not in ",:_"]


@pytest.mark.parametrize("sep", SSN_SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SSN_SEPARATORS])
def test_an_ssn_with_a_separator_of_its_groups(sep: str) -> None:
    assert _released(f"SSN {sep.join(['123', '45', '6789'])} ok.") == "SSN ***6789 ok."


@pytest.mark.parametrize("text", ["| Item | Qty | Total |\n|---|---|---|\n| 120 | 45 | 5400 |",
                                  "Top speeds 210 | 85 | 1200 km", "Values 120 -- 45 -- 5400",
                                  "rows 120:45:5400 and 120_45_5400", "101,12,4500"])
def test_cells_of_a_table_or_list_are_no_ssn(text: str) -> None:
    assert _released(text) == text


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_an_iban_with_any_separator_between_its_groups(sep: str) -> None:
    text = f"IBAN {sep.join(['GB82', 'WEST', '1234', '5698', '7654', '32'])} ok."
    assert _released(text) == "IBAN GB** **** 5432 ok."


#: Minus signs and the horizontal bar between a value's groups: the modifier letter minus
#: (U+02D7), the superscript and subscript minus (U+207B, U+208B), the horizontal bar
#: (U+2015, between digits as the em dash).
DASHES = ["\u02d7", "\u207b", "\u208b", "\u2015"]


@pytest.mark.parametrize("sep", DASHES, ids=[f"U+{ord(s):04X}" for s in DASHES])
def test_an_ssn_or_a_card_with_a_minus_sign_or_bar_between_its_groups(sep: str) -> None:
    assert _released(f"SSN {sep.join(['536', '22', '8841'])} ok.") == "SSN ***8841 ok."
    text = f"Card {sep.join(['4539', '1488', '0343', '6467'])} ok."
    assert _released(text) == "Card **** 6467 ok."


@pytest.mark.parametrize("text", ["Error 10\u207b\u00b3 to 10\u207b\u2076 and 2\u208b1 ok.",
                                  "Years 1996\u20152001 and page 12 \u2015 14."])
def test_a_minus_sign_or_bar_where_no_value_is(text: str) -> None:
    assert _released(text) == text


@pytest.mark.parametrize(("text", "released"), [
    ("IBAN GB82|WEST|1234|5698|7654|32 ok.", "IBAN GB** **** 5432 ok."),
    ("IBAN GB82 | WEST | 1234 | 5698 | 7654 | 32 ok.", "IBAN GB** **** 5432 ok."),
    ("IBAN GB82~WEST~1234~5698~7654~32 ok.", "IBAN GB** **** 5432 ok."),
    ("Card 4539|1488|0343|6467 ok.", "Card **** 6467 ok."),
    ("IBAN GB82WE ST1234 569876 5432 ok.", "IBAN GB** **** 5432 ok."),
    ("IBAN GB82WEST 1234 56 98765432 ok.", "IBAN GB** **** 5432 ok."),
    ("IBAN DE8937 04004405 32013000 ok.", "IBAN DE** **** 3000 ok."),
    ("IBANs GB82WE ST1234 569876 5432 DE89 3704 0044 0532 0130 00 ok.",
     "IBANs GB** **** 5432 DE** **** 3000 ok."),
    ("| 120 | 45 | 5400 |", "| 120 | 45 | 5400 |"),
    ("IBAN GB82WE ST1234 569876 5433 ok.", "IBAN GB82WE ST1234 569876 5433 ok."),
])
def test_an_iban_with_bars_or_grouped_irregularly(text: str, released: str) -> None:
    assert _released(text) == released


def test_a_phone_with_bullets_reads_as_with_spaces() -> None:
    assert _released("Call +44\u202220\u20227946\u20220123 now.") == "Call ***0123 now."


NOT_VALUES = [
    "We processed 1,234,567 orders last year.",
    "The clock read 12:30:45 when it stopped.",
    "A total of 1,234,567,890,123,456 units.",
    "Row 101,12,4500 of the export.",
    "Use 1_000_000 as the limit.",
    "Catalan writes intel\u00b7ligent with a middle dot.",
    "Card 4111\u00b71111\u00b71111\u00b71111\u00b71111 is five groups.",
    "Card 4111_1111_1111_1112 fails the checksum.",
]


@pytest.mark.parametrize("text", NOT_VALUES)
def test_numbers_with_separators_that_are_no_value(text: str) -> None:
    assert (find(text), _released(text)) == ([], text)


GROUPINGS = [
    ("Card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 ok.", "Card **** 1111 ok."),
    ("Card 41 11 11 11 11 11 11 11 ok.", "Card **** 1111 ok."),
    ("Card 411 111 111 111 1111 ok.", "Card **** 1111 ok."),
    ("Card 4-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1 ok.", "Card **** 1111 ok."),
    ("Card 55 00 00 55 55 55 55 59 ok.", "Card **** 5559 ok."),
    ("Amex 37 82 82 24 63 10 00 5 ok.", "Amex **** 0005 ok."),
    ("Card 4\u20221\u20221\u20221\u20221\u20221\u20221\u20221\u20221\u20221\u20221\u20221\u2022"
     "1\u20221\u20221\u20221 ok.", "Card **** 1111 ok."),
    ("Card 41\n11 11 11 11 11 11 11 ok.", "Card **** 1111 ok."),
]


@pytest.mark.parametrize(("text", "released"), GROUPINGS)
def test_a_card_in_groups_of_one_two_or_three(text: str, released: str) -> None:
    assert _released(text) == released


NOT_CARDS = [
    "Call 01 23 45 67 89 for the front desk.",
    "Steps 1 2 3 4 5 6 7 8 9 10 11 12 13 are done.",
    "The numbers 4 8 15 16 23 42 came up.",
    "Card 41 11 11 11 11 11 11 12 fails the checksum.",
    "Pairs 99 11 11 11 11 11 11 11 start with no issuer's prefix.",
    "Digits 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 run on.",
]


@pytest.mark.parametrize("text", NOT_CARDS)
def test_lists_of_small_numbers_are_no_card(text: str) -> None:
    assert (find(text), _released(text)) == ([], text)


LETTERS = [
    ("Mail \u1d0a\u1d00\u0274\u1d07@example.com ok.", "Mail \u1d0a***@example.com ok."),
    ("Mail jane@\u1d07x\u1d00\u1d0d\u1d18\u029f\u1d07.com ok.",
     "Mail j***@\u1d07x\u1d00\u1d0d\u1d18\u029f\u1d07.com ok."),
    ("Mail \u02b2\u1d43\u207f\u1d49@example.com ok.", "Mail \u02b2***@example.com ok."),
    ("Key s\u1d0b-proj-4fJk29sLqPz8XvTn7mWbQ1cD ok.", "Key ****Q1cD ok."),
    ("\u1d18\u1d00ss\u1d21\u1d0f\u0280\u1d05: S3cret!x",
     "\u1d18\u1d00ss\u1d21\u1d0f\u0280\u1d05: ****"),
]


@pytest.mark.parametrize(("text", "released"), LETTERS)
def test_small_capitals_and_modifier_letters_read_as_their_letter(text: str, released: str
                                                                   ) -> None:
    assert _released(text) == released


def test_letter_forms_fold_letters_to_ascii_letters_only() -> None:
    forms = _letter_forms()
    wrong = {chr(code): letter for code, letter in forms.items()
             if chr(code).isascii() or not unicodedata.category(chr(code)).startswith("L")
             or not (letter.isascii() and letter.isalpha() and len(letter) == 1)}
    changed_ascii = {chr(code): ONE_FOR_ONE[code] for code in range(128)
                     if code in ONE_FOR_ONE and ONE_FOR_ONE[code] not in " \n"}
    digits = {c for c, letter in ONE_FOR_ONE.items() if letter.isdigit() and chr(c).isalpha()}
    assert (wrong, changed_ascii, digits, len(forms) > 60) == ({}, {}, set(), True)


LABELLED_SSN = [
    ("SSN: 123456789", "SSN: ***6789"),
    ("Your social security number 123456789 is on file.",
     "Your social security number ***6789 is on file."),
    ('{"ssn": "123456789"}', '{"ssn": "***6789"}'),
    ("SSN #123456789.", "SSN #***6789."),
    ("SSN: 666123456", "SSN: 666123456"),
    ("SSN: 912345678", "SSN: 912345678"),
    ("Order 123456789 has shipped.", "Order 123456789 has shipped."),
]


@pytest.mark.parametrize(("text", "released"), LABELLED_SSN)
def test_a_labelled_ssn_without_separators(text: str, released: str) -> None:
    assert _released(text) == released


COLUMNS = [
    ("user\tpassword\trole\nalice\thunter2!x\tadmin",
     "user\tpassword\trole\nalice\t****\tadmin"),
    ("Accounts:\nuser\tpassword\trole\tteam\nalice\thunter2!x\tadmin\tops\n"
     "bob\tQz7xK2mP9w\tuser\tsales\n",
     "Accounts:\nuser\tpassword\trole\tteam\nalice\t****\tadmin\tops\nbob\t****\tuser\tsales\n"),
    ("user,password,role\nalice,hunter2!x,admin", "user,password,role\nalice,****,admin"),
    ("| user | password | role |\n|---|---|---|\n| alice | hunter2!x | admin |",
     "| user | password | role |\n|---|---|---|\n| alice | **** | admin |"),
    ("name\tscore\trole\nalice\tHunter22\tadmin", "name\tscore\trole\nalice\tHunter22\tadmin"),
]


@pytest.mark.parametrize(("text", "released"), COLUMNS)
def test_a_password_column_of_a_table_of_any_width(text: str, released: str) -> None:
    assert _released(text) == released


ADDRESSES = [
    ("Mail jane(at)example(dot)com ok.", "Mail j***@example.com ok."),
    ("Mail jane [at] example [dot] com ok.", "Mail j***@example.com ok."),
    ("Mail JANE{AT}EXAMPLE{DOT}CO{DOT}UK ok.", "Mail J***@EXAMPLE.CO.UK ok."),
    ("Mail jane.doe (at) example.com ok.", "Mail j***@example.com ok."),
    ("Write to support at example dot com ok.", "Write to support at example dot com ok."),
    ("We meet (at) noon, see you.", "We meet (at) noon, see you."),
]


@pytest.mark.parametrize(("text", "released"), ADDRESSES)
def test_an_address_with_at_and_dot_in_brackets(text: str, released: str) -> None:
    assert _released(text) == released


COUNTS = [
    ("Set max token: 4096 for long replies.", "Set max token: 4096 for long replies."),
    ("token: 128,000", "token: 128,000"),
    ("Limits:\nmax token: 4096\n", "Limits:\nmax token: 4096\n"),
    ("| model | max token |\n|---|---|\n| gpt | 4096 |",
     "| model | max token |\n|---|---|\n| gpt | 4096 |"),
    ("token: Qz7xK2mP9w", "token: ****"),
    ("password: 4096", "password: ****"),
    ("| user | password |\n|---|---|\n| bob | 40961 |",
     "| user | password |\n|---|---|\n| bob | **** |"),
]


@pytest.mark.parametrize(("text", "released"), COUNTS)
def test_a_count_is_no_token(text: str, released: str) -> None:
    assert _released(text) == released


PHONES = compile_rules(ReplyRules(personal_data={"phone": "redact"}), "en")
TAGS = [
    ("<order> 2025550143 has shipped.", "<order> 2025550143 has shipped."),
    ("<order>2025550143</order>", "<order>2025550143</order>"),
    ("<phone> 2025550143", "<phone> ***0143"),
    ("Call <phone>2025550143</phone> now.", "Call <phone>***0143</phone> now."),
    ("Card 4111 <x>1111</x> 1111 1111 ok.", "Card **** 1111 ok."),
]


@pytest.mark.parametrize(("text", "released"), TAGS)
def test_a_tag_of_no_html_element_reads_as_a_label(text: str, released: str) -> None:
    rules = REDACT_ALL if "Card" in text else PHONES
    assert _released(text, rules) == released


@pytest.mark.parametrize(("text", "released"), [
    ('Set it in your config:\n\npassword = "Horse. Battery9!"\n\nThen restart.',
     'Set it in your config:\n\npassword = "****"\n\nThen restart.'),
    ('{"password": "Qz7x. K2mP9w"}', '{"password": "****"}'),
    ('DB_PASSWORD="Qz7x! K2mP9w"', 'DB_PASSWORD="****"'),
    ("password = 'Qz7x? K2mP9w' ok. Next.", "password = '****' ok. Next."),
    ('password = "Qz7x\u2026 K2mP9w"', 'password = "****"'),
])
def test_a_quoted_password_holding_a_sentence_end_is_one_value(text: str, released: str) -> None:
    """The sentence end inside the quotes ends no piece: each half alone reads as no
    password, so a reply cut there released it."""
    assert _released(text) == released


def test_a_quotation_that_names_a_password_still_ends_its_sentences() -> None:
    assert split_sentences('He said "the password. Then" and left. Next one.') == [
        'He said "the password. ', 'Then" and left. ', "Next one."]


@pytest.mark.parametrize("whose", ["Mr. Smith", "J. Smith", "the U.S. office", "ACME Inc. Staff"])
def test_a_password_for_someone_named_in_up_to_three_words(whose: str) -> None:
    assert _released(f"Password for {whose}: Qz7xK2mP9w") == f"Password for {whose}: ****"


@pytest.mark.parametrize("text", ["config = {password: Qz7xK2mP9w}", "[password: Qz7xK2mP9w]",
                                  "<password: Qz7xK2mP9w>", '{"password":Qz7xK2mP9w}'])
def test_an_unquoted_password_ends_before_a_closing_bracket(text: str) -> None:
    assert _released(text) == text.replace("Qz7xK2mP9w", "****")


#: Every Unicode dash between a value's groups (category Pd): the hyphens of other scripts
#: (Armenian, Hebrew maqaf, Canadian syllabics, Mongolian, Yezidi), the double, oblique and
#: diaeresis hyphens, the vertical en dash, read as a hyphen one for one; the long dashes (two-
#: and three-em, small and vertical em dashes, the wavy dash, the double hyphen, box-drawing
#: horizontals) read as the em dash is, between digits.
ALL_DASHES = ["\u058a", "\u05be", "\u1400", "\u1806", "\u2e17", "\u2e1a", "\u2e3a", "\u2e3b",
              "\u2e40", "\u2e5d", "\u3030", "\u30a0", "\ufe31", "\ufe32", "\ufe58",
              "\U00010ead", "\u2500", "\u2501", "\u2012\u2012", "\u2015\u2015", "---"]


@pytest.mark.parametrize("sep", ALL_DASHES, ids=[f"U+{ord(s[0]):04X}x{len(s)}" for s in ALL_DASHES])
def test_every_dash_between_a_values_groups_reads_as_a_hyphen(sep: str) -> None:
    text = f"Card {sep.join(['4539', '1488', '0343', '6467'])} ok."
    assert every_way(text) == {"Card **** 6467 ok."}
    if len(sep) == 1:
        assert _released(f"SSN {sep.join(['536', '22', '8841'])} ok.") == "SSN ***8841 ok."


def test_a_doubled_dash_and_spaces_mixed_in_a_card() -> None:
    assert _released("Card 4539\u2012\u20121488 0343 6467 ok.") == "Card **** 6467 ok."
    assert _released("Card 4539\u2015\u20151488 0343 6467 ok.") == "Card **** 6467 ok."


@pytest.mark.parametrize("text", [
    "IBAN GB82\u2014WEST\u20141234\u20145698\u20147654\u201432 ok.",
    "IBAN GB82 \u2014 WEST \u2014 1234 \u2014 5698 \u2014 7654 \u2014 32 ok.",
    "IBAN GB82\u2e3aWEST\u2e3a1234\u2e3a5698\u2e3a7654\u2e3a32 ok.",
])
def test_an_iban_with_em_dashes_between_its_groups(text: str) -> None:
    assert every_way(text) == {"IBAN GB** **** 5432 ok."}


@pytest.mark.parametrize("text", [
    "Years 1996\u2015\u20152001, the 1990s\u2014and 2000 \u2014 all of them.",
    "In 1990\u2014A new era; PASSWORD\u201412345678 is a label, not a dash.",
    "A rule \u2500\u2500\u2500\u2500 and a wave \u3030 and "
    "\u30b8\u30e7\u30f3\u30a0\u30b9\u30df\u30b9.",
    "The Hebrew maqaf \u05d1\u05be\u05d9\u05ea and the Armenian \u0561\u058a\u0562 hyphens.",
])
def test_a_dash_where_no_value_is(text: str) -> None:
    expected = text.replace("12345678", "****")
    assert every_way(text) == {expected}


PT_BR = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "pt-BR")


@pytest.mark.parametrize("cpf", ["529.982.247.25", "529_982_247_25", "529.982.247 - 25",
                                 "529.982.247\ufe5825", "529\u2e3a982\u2e3a247\u2e3a25"])
def test_a_cpf_with_other_separators(cpf: str) -> None:
    assert every_way(f"Seu CPF {cpf} ok.", PT_BR) == {"Seu CPF ***4725 ok."}


@pytest.mark.parametrize("text", ["versão 529.982.247.26 ok.", "ids 529.982.247.25.1 ok."])
def test_dotted_numbers_that_are_no_cpf(text: str) -> None:
    assert every_way(text, PT_BR) == {text}
