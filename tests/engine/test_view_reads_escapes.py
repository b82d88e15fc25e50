"""Values typed so that a reader sees them but a plain reading does not: an invisible
character written as a character reference, a JSON escape or a URL's percent-encoding, a
line break written as a reference; a value wrapped after its own hyphen (or a group) then
another sentence; separators between groups of typography, of CJK text, padded by spaces or
doubled; quoted-printable's soft line break; combining marks of any script on digits; other
printed groupings of IBANs and CPFs, two bare CPFs in a row, a second card after a grouped
one; phones with a slash, a padded hyphen or an extension; IPv4 octets with leading zeros.
Each case is checked with its exact released text on the request side, in a whole reply and
in a reply streamed in random cuts (`test_view_reads_through._released`); what holds no
value stays unfound however it is typed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from released import cases, every_way

from replyguard.engine import find
from replyguard.engine.reply import screen_reply
from replyguard.engine.screen import screen_text
from tests.engine.test_view_reads_through import REDACT_ALL, _released

REFERENCES = [
    ('Card 4539&#8203;1488&#8203;0343&#8203;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&#x200B;1488&#x200b;0343&ZeroWidthSpace;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&shy;1488&shy0343&#173;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&zwj;1488&zwnj;0343&lrm;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&#8203; 1488 &#x200B;0343&#8203;<wbr>6467 ok.',
     'Card **** 6467 ok.'),
    ('Mail jane.doe&#8203;@example.com ok.',
     'Mail j***@example.com ok.'),
    ('SSN 536-22&shy;-8841 ok.',
     'SSN ***8841 ok.'),
    ('NI AB12&zwj;3456C ok.',
     'NI ***456C ok.'),
    ('IBAN GB82 WEST&#8203; 1234 5698 7654 32 ok.',
     'IBAN GB** **** 5432 ok.'),
    ('Key sk-proj-4fJk29&#8203;sLqPz8XvTn7mWbQ1cD ok.',
     'Key sk-proj-****Q1cD ok.'),
    ('pass&shy;word: Qz7xK2mP9w ok.',
     'pass&shy;word: **** ok.'),
    ('Mail jane.doe\\u200b@example.com ok.',
     'Mail j***@example.com ok.'),
    ('Key sk-proj-4fJk29\\u200bsLqPz8XvTn7mWbQ1cD ok.',
     'Key sk-proj-****Q1cD ok.'),
    ('Key sk-proj-4fJk29%E2%80%8BsLqPz8XvTn7mWbQ1cD ok.',
     'Key sk-proj-****Q1cD ok.'),
    ('pass%E2%80%8Bword: Qz7xK2mP9w ok.',
     'pass%E2%80%8Bword: **** ok.'),
    ('Card 4539&#10;1488&NewLine;0343&#13;&#10;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&emsp;1488&Tab;0343&#x3000;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&#x3164;1488&#12644;0343&#x3164;6467 ok.',
     'Card **** 6467 ok.'),
]
#: A separator between a value's groups, or the brackets of an address's `(at)`, written as
#: a character reference, a JSON escape or a percent-encoding: read as the character typed is.
CONTEXT_CHARACTERS_WRITTEN = [
    ('Card 4539&bull;1488&bull;0343&bull;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&middot;1488&middot;0343&middot;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&#183;1488&#183;0343&#183;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&#x2022;1488&#X2022;0343&#x2022;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539&#12539;1488&#12539;0343&#12539;6467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539 &bull; 1488 &bull; 0343 &bull; 6467 ok.',
     'Card **** 6467 ok.'),
    ('番号は4539&#12539;1488&#12539;0343&#12539;6467です。',
     '番号は**** 6467です。'),
    ('{"card": "4539\\u20221488\\u20220343\\u20226467"}',
     '{"card": "**** 6467"}'),
    ('{"card": "4539\\u00b71488\\u00B70343\\u00b76467"}',
     '{"card": "**** 6467"}'),
    ('{"card": "4539\\u30fb1488\\u30fb0343\\u30fb6467"}',
     '{"card": "**** 6467"}'),
    ('Card 4539%C2%B71488%C2%B70343%c2%b76467 ok.',
     'Card **** 6467 ok.'),
    ('Card 4539%E2%80%A21488%E2%80%A20343%E2%80%A26467 ok.',
     'Card **** 6467 ok.'),
    ('IBAN GB82&bull;WEST&bull;1234&bull;5698&bull;7654&bull;32 ok.',
     'IBAN GB** **** 5432 ok.'),
    ('SSN 536&mdash;22&mdash;8841 ok.',
     'SSN ***8841 ok.'),
    ('<p>Card&nbsp;4539&bull;1488&bull;0343&bull;6467</p>&bull; ok',
     '<p>Card&nbsp;**** 6467</p>&bull; ok'),
    ('Mail jane.doe&#40;at&#41;example.com ok.',
     'Mail j***@example.com ok.'),
    ('Mail jane.doe&lpar;at&rpar;example&lpar;dot&rpar;com ok.',
     'Mail j***@example.com ok.'),
    ('Mail jane.doe &#x28;at&#x29; example.com ok.',
     'Mail j***@example.com ok.'),
]
#: The same characters written so where no value is: the text comes back as it is.
CONTEXT_CHARACTERS_NO_VALUE = [
    'Rooms 101&middot;102&middot;103 ok.',
    'l&middot;l and f&#40;x&#41; = 3 &bull; 4.',
    'Scores 12&#x2022;14&#x2022;15 and 1&hellip;10 points.',
    'Versions 1.2.3&#8212;1.2.4 at $12&middot;99.',
    'See \\u00b7 and %C2%B7 alone, and &lpar;at&rpar; too.',
]
WRAPS = [
    ('SSN: 536-22-\n8841. Next sentence.',
     'SSN: ***8841. Next sentence.'),
    ('Your SSN is 123-45-\n6789. Let me know if that helps.',
     'Your SSN is ***6789. Let me know if that helps.'),
    ('SSN 536 22\n8841. Thanks.',
     'SSN ***8841. Thanks.'),
    ('Call (202) 555-\n0143. Thanks.',
     'Call ***0143. Thanks.'),
    ('Call +44 20 7946-\n0123. Thanks.',
     'Call ***0123. Thanks.'),
    ('CPF 529.982.247-\n25. Obrigado.',
     'CPF ***4725. Obrigado.'),
    ('Steps in 1990\n2. Next one.',
     'Steps in 1990\n2. Next one.'),
]
SEPARATORS = [
    ('Cards: 4539-1488-0343-6467 5500-0055-5555-5559 ok.',
     'Cards: **** 6467 **** 5559 ok.'),
    ('Cards: 4539148803436467-5500005555555559 ok.',
     'Cards: **** 6467-**** 5559 ok.'),
    ('Cards: 4539148803436467.5500005555555559 ok.',
     'Cards: **** 6467.**** 5559 ok.'),
    ('Your card 4539ㅤ1488ㅤ0343ㅤ6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539ﾠ1488ᅟ0343ᅠ6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539឴1488឴0343឴6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('番号は4539・1488・0343・6467です。',
     '番号は**** 6467です。'),
    ('番号は4539ー1488ー0343ー6467です。',
     '番号は**** 6467です。'),
    ('卡号为4539、1488、0343、6467。',
     '卡号为**** 6467。'),
    ('Your card 4539〜1488〜0343〜6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539 / 1488 / 0343 / 6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539 — 1488 — 0343 — 6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539 . 1488 . 0343 . 6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539--1488--0343--6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539|1488|0343|6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539 | 1488 | 0343 | 6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539…1488…0343…6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539\\1488\\0343\\6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4539~1488~0343~6467 is on file.',
     'Your card **** 6467 is on file.'),
    ("Your card 4539'1488'0343'6467 is on file.",
     'Your card **** 6467 is on file.'),
    ('Cards: 4539 1488 0343 6467\t5500 0055 5555 5559 ok.',
     'Cards: **** 6467\t**** 5559 ok.'),
    ('Your card 4539 1488 =\n0343 6467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 45391488=\r\n03436467 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4҃5҃3҃9҃1҃4҃8҃8҃0҃3҃4҃3҃6҃4҃6҃7 is on file.',
     'Your card **** 6467 is on file.'),
    ('Your card 4҉5҉3҉9 1֑4֑8֑8 0़3़4़3़ 6゙4゙6゙7゙ is on file.',
     'Your card **** 6467゙ is on file.'),
    ('The SSN 536 — 22 — 8841 is on file.',
     'The SSN ***8841 is on file.'),
    ('The SSN 536ㅤ22ㅤ8841 is on file.',
     'The SSN ***8841 is on file.'),
]
IDS = [
    ('Pay to BR15 0000 0000 0000 1093 2840 814 P2 today.',
     'Pay to BR** **** 14P2 today.'),
    ('Pay to GB82 WEST 123456 98765432 today.',
     'Pay to GB** **** 5432 today.'),
    ('IBANs GB82 WEST 1234 5698 7654 32 DE89 3704 0044 0532 0130 00 ok.',
     'IBANs GB** **** 5432 DE** **** 3000 ok.'),
    ('Pay to GB82 - WEST - 1234 - 5698 - 7654 - 32 today.',
     'Pay to GB** **** 5432 today.'),
    ('Pay to GB82 / WEST / 1234 / 5698 / 7654 / 32 today.',
     'Pay to GB** **** 5432 today.'),
    ('Seu CPF 529-982-247-25 está cadastrado.',
     'Seu CPF ***4725 está cadastrado.'),
    ('Seu CPF 529 982 247-25 está cadastrado.',
     'Seu CPF ***4725 está cadastrado.'),
    ('Seu CPF 529.982.247/25 está cadastrado.',
     'Seu CPF ***4725 está cadastrado.'),
    ('Seu CPF 529,982,247-25 está cadastrado.',
     'Seu CPF ***4725 está cadastrado.'),
    ('CPFs 52998224725 11144477735 ok',
     'CPFs ***4725 ***7735 ok'),
    ('Your NI number AB.12.34.56.C is on file.',
     'Your NI number ***456C is on file.'),
    ('Your NI number AB/12/34/56/C is on file.',
     'Your NI number ***456C is on file.'),
    ('Your NI number AB123456Ⅽ is on file.',
     'Your NI number ***456C is on file.'),
]
PHONES = [
    ('Call 415/867-5309 today.',
     'Call ***5309 today.'),
    ('Call +1 (415) 867 - 5309 today.',
     'Call ***5309 today.'),
    ('Call +1 415 867 5309x12 today.',
     'Call ***5309x12 today.'),
    ('Call 202-555-0143x12 today.',
     'Call ***0143x12 today.'),
    ('Call +44 20 7946 0958 ext 204 today.',
     'Call ***0958 ext 204 today.'),
    ('Call +44 20 7946 0958;ext=204 today.',
     'Call ***0958;ext=204 today.'),
    ('Server 203.000.113.042 is up.',
     'Server ***.***.***.042 is up.'),
]


@pytest.mark.parametrize("text", CONTEXT_CHARACTERS_NO_VALUE)
def test_a_separator_or_bracket_written_so_where_no_value_is(text: str) -> None:
    assert find(text) == []
    assert _released(text) == text


#: A bullet or middle dot however written: typed, as a reference, an escape, an encoding.
_SEPARATOR_WRITTEN = ["\u2022", "&bull;", "&#8226;", "&#x2022;", "&middot;", "&#183;",
                      "\\u00b7", "\\u30FB", "%C2%B7", "%E2%80%A2", "&#12539;", "\u30fb"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_SEPARATOR_WRITTEN), min_size=3, max_size=3))
def test_a_card_with_bullets_written_any_way_between_its_groups(seps: list[str]) -> None:
    groups = ["4539", "1488", "0343", "6467"]
    value = groups[0] + "".join(sep + group for sep, group in zip(seps, groups[1:], strict=True))
    assert _released(f"Card {value} ok.") == "Card **** 6467 ok."


@pytest.mark.parametrize(("text", "released"), [
    ("Card 4539&bull;1488&bull;0343&bull;6467 ok.", "Card **** 6467 ok."),
    ("Mail jane&#40;at&#41;example.com ok.", "Mail j***@example.com ok."),
])
def test_a_reference_read_by_its_neighbours_cut_anywhere(text: str, released: str) -> None:
    assert every_way(text) == {released}


def test_a_decoded_separator_maps_back_onto_its_reference() -> None:
    """The view reads a reference as its character, and maps each character back onto the
    whole reference: the value's span is the whole of what it was typed as."""
    from replyguard.engine.canon import canonical
    text = "x &lpar;4539&bull;1488&bull;0343&bull;6467&rpar; y"
    view = canonical(text)
    start = view.text.index("4539")
    end = view.text.index("6467") + 4
    assert view.span(start, end) == (text.index("4539"), text.index("6467") + 4)
    assert view.span(0, 2) == (0, 2)
    assert view.span(end, len(view.text)) == (text.index("6467") + 4, len(text))


#: Each table of values as written, by what it holds: (the text, the reply as released).
RELEASED = {
    "an invisible character or a line break however written": REFERENCES,
    "a separator or bracket written as a reference or escape": CONTEXT_CHARACTERS_WRITTEN,
    "a value wrapped inside itself then another sentence": WRAPS,
    "separators between groups": SEPARATORS,
    "printed groupings of ibans, cpfs and ninos": IDS,
    "phones and addresses as written": PHONES,
}


@pytest.mark.parametrize(("text", "released"), cases(RELEASED))
def test_each_value_is_released_masked_however_it_is_written(text: str, released: str) -> None:
    assert _released(text) == released


#: How an invisible character (a zero-width space, a soft hyphen, a joiner) is written in
#: text a reader sees it through: typed, as a character reference (numeric or named, with or
#: without its `;`), as a JSON escape, percent-encoded in a URL.
_INVISIBLE_WRITTEN = ["\u200b", "&#8203;", "&#x200B;", "&ZeroWidthSpace;", "&shy;", "&shy",
                      "&#173;", "&zwj;", "&zwnj;", "&NoBreak;", "&#65279;", "\\u200b",
                      "\\u00ad", "%E2%80%8B", "%C2%AD", "&#x3164;"]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 18), st.sampled_from(_INVISIBLE_WRITTEN)),
                min_size=1, max_size=4))
def test_an_invisible_character_written_anywhere_inside_a_card(
        inserts: list[tuple[int, str]]) -> None:
    value = "4111 1111 1111 1111"
    for at, written in sorted(inserts, reverse=True):
        value = value[:at] + written + value[at:]
    assert _released(f"Card {value} ok.") == "Card **** 1111 ok."


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([w for w in _INVISIBLE_WRITTEN if w != "&shy"]), st.integers(1, 7))
def test_an_invisible_character_written_inside_an_address(written: str, at: int) -> None:
    # (`&shy` without its `;` before a letter is no reference: `&shyness=1` in a URL)
    text = f"Mail {'jane.doe'[:at]}{written}{'jane.doe'[at:]}@example.com ok."
    assert _released(text) == "Mail j***@example.com ok."


#: What holds no value, typed with the separators and escapes read above: each stays
#: unfound, and is released as it is.
NO_VALUE = [
    "Due 12/31/2025, or 12 / 31 / 2025 at the latest.",
    "A ratio of 415/867 and 3 / 4 of the votes.",
    "Versions 1.2.3 . 1.2.4 and 10.0.1 — 10.0.2 are out.",
    "Scores: 12 | 14 | 15 | 18 and 1…10 points.",
    "It costs 1,299.00 or 1.234.567,89 in all.",
    "The meeting is at 10:30 — 11:45 on 2025-01-31.",
    "Rooms 101・102・103 are booked.",
    "1、2、3、4 then 5 ー 6.",
    "Total =\n42 items and 7 =\n8 more.",
    "Call extension x12 or x204.",
    "Take 2 . 5 mg twice.",
    "Order 4411\u31642200 and 10\u0483 copies.",
    "See &#8203;the list&#10;of 12 items.",
    "Lines 1\n2. Two\n3. Three",
    "It costs 1'234'567 francs, 12'500 more.",
    "Path C:\\2024\\0115\\report and ~12~ items.",
    "Row 4411\t2025\t1990\t12 of the sheet.",
]


@pytest.mark.parametrize("text", NO_VALUE)
def test_no_value_typed_with_these_separators_is_found(text: str) -> None:
    assert find(text) == []
    assert screen_text(text, REDACT_ALL, "turn").text == text
    assert screen_reply(text, REDACT_ALL)[0] == text


@pytest.mark.parametrize(("text", "released"), WRAPS + SEPARATORS[:12])
def test_cut_at_every_character(text: str, released: str) -> None:
    # (every character a chunk of its own: each cut of the stream falls somewhere)
    assert screen_reply(text, REDACT_ALL, chunks=len(text), seed=0)[0] == released


#: A hyphen or a space encoded between a value's groups: URL-encoded (`%2D`, `%2d`, as `%20`
#: is), quoted-printable (`=2D`, `=20`), escaped as code writes it (`\x2d`, `\x20`,
#: `\u{20}`, octal `\055`, `\040`).
ENCODED_SEPARATORS = [
    ("Card 4539%2D1488%2D0343%2D6467 ok.", "Card **** 6467 ok."),
    ("card=4539%2d1488%2d0343%2d6467&x=1", "card=**** 6467&x=1"),
    ("SSN 536%2D22%2D8841 ok.", "SSN ***8841 ok."),
    ("SSN 536=2D22=2D8841 ok.", "SSN ***8841 ok."),
    ("Card 4539=201488=200343=206467 ok.", "Card **** 6467 ok."),
    ("Card 4539\\x201488\\x200343\\x206467 ok.", "Card **** 6467 ok."),
    ("Card 4539\\x2D1488\\x2d0343\\x2D6467 ok.", "Card **** 6467 ok."),
    ("Card 4539\\u{20}1488 0343 6467 ok.", "Card **** 6467 ok."),
    ("Card 4539\\u{2d}1488\\u{2d}0343\\u{2d}6467 ok.", "Card **** 6467 ok."),
    ("Card 4539\\0401488\\0400343\\0406467 ok.", "Card **** 6467 ok."),
    ("Card 4539\\0551488\\0550343\\0556467 ok.", "Card **** 6467 ok."),
]


@pytest.mark.parametrize(("text", "released"), ENCODED_SEPARATORS)
def test_an_encoded_separator_between_a_values_groups(text: str, released: str) -> None:
    assert every_way(text) == {released}


@pytest.mark.parametrize("text", ["width=200 height=20 x=2D", "see my%2Dpage and a\\x2dB",
                                  "printf(\"a\\040b\") and 10=2000"])
def test_an_encoded_separator_where_no_value_is(text: str) -> None:
    assert every_way(text) == {text}
