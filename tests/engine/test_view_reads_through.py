"""What the canonical view reads through (engine.canon, engine.text, engine.find): format
characters, combining marks, compatibility forms of digits and letters, inline tags glued to
a value, line prefixes, encodings. Each case is checked with its exact released text on the
request side, in a whole reply and in a reply streamed in random cuts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from released import every_way
from released import released as _released

from replyguard.engine.reply import screen_reply
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules
from replyguard.engine.text import INVISIBLE

REDACT_ALL = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")
NEVER_SAY = compile_rules(ReplyRules(never_say=["guaranteed refund"]), "en")




FORMAT_CHARACTERS = [
    ("Card 4111\u200e1111\u200e1111\u200e1111 ok.", "Card **** 1111 ok."),
    ("Card 4111\u200f 1111\u200f 1111 1111 ok.", "Card **** 1111 ok."),
    ("Card 4111\u061c1111 1111\u20661111\u2069 ok.", "Card **** 1111\u2069 ok."),
    ("Card \u202a4111 1111 1111 1111\u202c ok.", "Card \u202a**** 1111\u202c ok."),
    ("Card 4111\u20621111\u20631111\u20641111 ok.", "Card **** 1111 ok."),
    ("Card 4111\u180e1111\u034f1111\ufe0f1111 ok.", "Card **** 1111 ok."),
    ("Card 4\U000e0034111\U000e0031 1111 1111 1111 ok.", "Card **** 1111 ok."),
    ("SSN 123\u200e-45-\u206a6789 ok.", "SSN ***6789 ok."),
    ("Mail jane\u200e.doe@example\u2068.com ok.", "Mail j***@example.com ok."),
]


@pytest.mark.parametrize(("text", "released"), FORMAT_CHARACTERS)
def test_format_characters_are_read_through(text: str, released: str) -> None:
    assert _released(text) == released


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 18), st.sampled_from(INVISIBLE.replace("\u202e", ""))),
                max_size=4))
def test_format_characters_and_marks_anywhere_inside_a_card(inserts: list[tuple[int, str]]
                                                            ) -> None:
    value = "4111 1111 1111 1111"
    for at, char in sorted(inserts, reverse=True):
        value = value[:at] + char + value[at:]
    assert _released(f"Card {value} ok.") == "Card **** 1111 ok."


def test_a_right_to_left_override_is_read_as_shown_and_masked_as_shown() -> None:
    """`\u202e1111 1111 1111 1114` shows as the card 4111 1111 1111 1111: it is read in the
    order it shows, and its mask written so that it shows as a mask does."""
    text = "Card \u202e1111 1111 1111 1114\u202c ok."
    assert _released(text) == "Card \u202e1111 ****\u202c ok."


def test_an_override_to_the_end_of_the_line() -> None:
    text = "Mail \u202emoc.elpmaxe@eod.enaj\nok"
    assert _released(text) == "Mail \u202emoc.elpmaxe@***j\nok"


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u2066", "\u202e", "\ufe0f", "\u034f"])
def test_never_say_reads_through_a_format_character(mark: str) -> None:
    text = f"You get a guaranteed{mark} refund."
    whole, events = screen_reply(text, NEVER_SAY)
    streams = {screen_reply(text, NEVER_SAY, chunks=9, seed=seed)[0] for seed in range(3)}
    assert (whole, events, streams) == ("", {"reply_wording_removed": 1}, {""})


COMBINING_MARKS = [
    ("Card 411\u0332\u0031 1111 1111 1111 ok", "Card **** 1111 ok"),
    ("Card 4\u03011\u030111 1111 1111 1111 ok", "Card **** 1111 ok"),
    ("Card 4\u03361\u0336\u03361\u03361 1111 1111 1111 ok", "Card **** 1111 ok"),
    ("IBAN GB8\u03362 WEST 1234 5698 7654 32 ok", "IBAN GB** **** 5432 ok"),
    ("Mail jane\u0301.doe@example.com ok", "Mail j***@example.com ok"),
]


@pytest.mark.parametrize(("text", "released"), COMBINING_MARKS)
def test_combining_marks_are_read_through(text: str, released: str) -> None:
    assert _released(text) == released


COMPATIBILITY_FORMS = [
    ("Card \u2074\u00b9\u00b9\u00b9 \u00b9\u00b9\u00b9\u00b9 1111 1111 ok", "Card **** 1111 ok"),
    ("Card \u2084\u2081\u2081\u2081 1111 1111 1111 ok", "Card **** 1111 ok"),
    ("Card ④①①① ①①①① ①①①① ①①①① ok", "Card **** 1111 ok"),
    ("Card ⑷⑴⑴⑴ 1111 1111 1111 ok", "Card **** 1111 ok"),
    ("Card ⒋⒈⒈⒈ 1111 1111 1111 ok", "Card **** 1111 ok"),
    ("Card ➃➀➀➀ ➀➀➀➀ 1111 1111 ok", "Card **** 1111 ok"),
    ("Card 4\ufe0f\u20e31\ufe0f\u20e31\ufe0f\u20e31\ufe0f\u20e3 1111 1111 1111 ok",
     "Card **** 1111 ok"),
    ("IBAN ⒼⒷ82 ⓌⒺⓈⓉ 1234 5698 7654 32 ok", "IBAN GB** **** 5432 ok"),
    ("Area 12 m² and 3³ ok", "Area 12 m² and 3³ ok"),
]


@pytest.mark.parametrize(("text", "released"), COMPATIBILITY_FORMS)
def test_compatibility_forms_read_as_the_digit_or_letter(text: str, released: str) -> None:
    assert _released(text) == released


KEY = "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD"
ELEMENT_ENDS = [
    ("<span>4111 1111 1111 1111</span><span>12/26</span>",
     "<span>**** 1111</span><span>12/26</span>"),
    ('<span>4111 1111 1111 1111</span><span class="d">12/26</span>',
     '<span>**** 1111</span><span class="d">12/26</span>'),
    ("SSN: <b>123-45-6789</b>1990 born", "SSN: <b>***6789</b>1990 born"),
    ("Key <b>AKIAIOSFODNN7EXAMPLE</b>s", "Key <b>AKIA****MPLE</b>s"),
    (f"Key <b>{KEY}</b>" + "x" * 200, "Key <b>sk-proj-****Q1cD</b>" + "x" * 200),
    (f"Key <b>{KEY}</b>xx ok", "Key <b>sk-proj-****Q1cD</b>xx ok"),
    ("SSN 123-45-<b>6789</b> ok", "SSN ***6789 ok"),
]


@pytest.mark.parametrize(("text", "released"), ELEMENT_ENDS)
def test_an_element_ending_before_a_word_ends_the_value(text: str, released: str) -> None:
    assert _released(text) == released


#: An inline element of one word glued to the rest of a value (`<b>AKIA</b>IOSF…`) shows as
#: one word: the value is read whole, its mask over the element whole (its opening tag too,
#: so that no tag is left unclosed); the same
#: element before a word that makes no value with it is read as a label and a value.
ELEMENT_GLUED = [
    ("Key <b>AKIA</b>IOSFODNN7EXAMPLE ok.", "Key AKIA****MPLE ok."),
    ("Key (<b>AKIA</b>IOSFODNN7EXAMPLE) ok.", "Key (AKIA****MPLE) ok."),
    ("Card <b>4539</b>148803436467 ok.", "Card **** 6467 ok."),
    (f"Key <code>sk-proj-</code>{KEY[8:]} ok.", "Key sk-proj-****Q1cD ok."),
    ("IBAN <i>GB82</i>WEST12345698765432 ok.", "IBAN GB** **** 5432 ok."),
    ("Call <b>Phone</b>2025550143 ok.", "Call <b>Phone</b>***0143 ok."),
    ("Card: <b>4539 1488 0343 6467</b>12/26 ok", "Card: <b>**** 6467</b>12/26 ok"),
    ("Version <b>v1</b>2 and <i>Total</i>42 ok", "Version <b>v1</b>2 and <i>Total</i>42 ok"),
]


@pytest.mark.parametrize(("text", "released"), ELEMENT_GLUED)
def test_an_element_of_one_word_glued_to_a_value(text: str, released: str) -> None:
    assert _released(text) == released


LINE_PREFIXES = [
    ("// Card 4111 1111\n// 1111 1111\n", "// Card **** 1111\n"),
    ("-- SSN 123-45-\n-- 6789\n", "-- SSN ***6789\n"),
    ("; Card 4111 1111\n; 1111 1111\n", "; Card **** 1111\n"),
    ("% Card 4111 1111\n% 1111 1111\n", "% Card **** 1111\n"),
    ("' Card 4111 1111\n' 1111 1111\n", "' Card **** 1111\n"),
    (":: Card 4111 1111\n:: 1111 1111\n", ":: Card **** 1111\n"),
    ("rem Card 4111 1111\nREM 1111 1111\n", "rem Card **** 1111\n"),
    ("#Card 4111 1111\n#1111 1111\n", "#Card **** 1111\n"),
    ("Card 4111 1111 \\\n1111 1111", "Card **** 1111"),
    ("Card 4111 1111\\\n1111 1111", "Card **** 1111"),
    ("Card 4111 1111 1111 1111\n// 5500 0055 5555 5559\n", "Card **** 1111\n// **** 5559\n"),
]


@pytest.mark.parametrize(("text", "released"), LINE_PREFIXES)
def test_a_value_across_commented_or_continued_lines(text: str, released: str) -> None:
    assert _released(text) == released


ENCODINGS = [
    ("v=3D4111111111111111", "v=3D**** 1111"),
    ("v=3d4111111111111111 ok", "v=3d**** 1111 ok"),
    ("Mail jane.doe%40example.com ok", "Mail j***@example.com ok"),
    ("Mail jane.doe%2540example.com ok", "Mail j***@example.com ok"),
    ("Mail jane.doe\\x40example.com ok", "Mail j***@example.com ok"),
    ("Mail jane.doe\ufe6bexample.com ok", "Mail j***@example.com ok"),
    ("Key sk-proj-4fJk29sLqPz8XvTn7mWbQ1c\u03b5 ok", "Key sk-proj-****Q1c\u03b5 ok"),
    ("Discount 50%40 off, x=3 and 100%", "Discount 50%40 off, x=3 and 100%"),
]


@pytest.mark.parametrize(("text", "released"), ENCODINGS)
def test_encoded_signs_and_look_alikes(text: str, released: str) -> None:
    assert _released(text) == released


OTHER_SEPARATORS = [
    ("Card 4111.1111.1111.1111 ok", "Card **** 1111 ok"),
    ("Card 4111/1111/1111/1111 ok", "Card **** 1111 ok"),
    ("v 4111.1111.1111.1111.1111 ok", "v 4111.1111.1111.1111.1111 ok"),
    ("v 4111.1111/1111.1111 ok", "v 4111.1111/1111.1111 ok"),
    ("SSN 123.45.6789 ok", "SSN ***6789 ok"),
    ("SSN 123 - 45 - 6789 ok", "SSN ***6789 ok"),
    ("NINO AB-12-34-56-C ok", "NINO ***456C ok"),
    ("IBAN GB82.WEST.1234.5698.7654.32 ok", "IBAN GB** **** 5432 ok"),
    ("CPF 529 982 247 25 ok", "CPF ***4725 ok"),
    ("n 529 982 247 25 1 ok", "n 529 982 247 25 1 ok"),
    ("pay @4111 1111 1111 1111 ok", "pay @**** 1111 ok"),
]


@pytest.mark.parametrize(("text", "released"), OTHER_SEPARATORS)
def test_values_grouped_with_dots_slashes_or_spaced_hyphens(text: str, released: str) -> None:
    assert _released(text) == released


#: Variation selectors: Mongolian U+180B-180F, and the supplement's U+E0100-E01EF.
SELECTORS = ["\u180b", "\u180f", "\U000e0100", "\U000e01ef"]


@pytest.mark.parametrize("selector", SELECTORS, ids=[f"U+{ord(s):04X}" for s in SELECTORS])
def test_a_variation_selector_reads_as_any_invisible_character(selector: str) -> None:
    assert every_way(f"Card 4539{selector}1488 0343 6467 ok.") == {"Card **** 6467 ok."}
    assert _released(f"SSN 536{selector}-22-8841 ok.") == "SSN ***8841 ok."
    assert _released(f"Key AKIA{selector}IOSFODNN7EXAMPLE ok.") == "Key AKIA****MPLE ok."
    assert every_way(f"pass{selector}word: Qz7xK2mP9w") == {f"pass{selector}word: ****"}


def test_a_variation_selector_after_a_keycap_digit_still_shows_the_digit() -> None:
    text = "Card 4\ufe0f\u20e35\U000e01003\ufe0f9 1488 0343 6467 ok."
    assert _released(text) == "Card **** 6467 ok."


@pytest.mark.parametrize(("text", "expected"), [
    ("host 2001\ua789db8\ua78985a3\ua789\ua7898a2e\ua789370\ua7897334 up", "host ****::7334 up"),
    ("ratio 1\u22362 and 12\u223630", "ratio 1\u22362 and 12\u223630"),
])
def test_a_colons_look_alike_reads_as_a_colon(text: str, expected: str) -> None:
    assert every_way(text) == {expected}
