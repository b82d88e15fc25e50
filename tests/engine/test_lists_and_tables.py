"""Numbers laid out in a list or a table are no value: groups that a list separator sets apart
(a line break, a tab, a comma or a semicolon, `、`, a table's cell, a padded ` · ` ` — `) are
one value only after a name of its class, in the value's line, the line above it or its
table's header (engine/lists.py); four dotted numbers after `version`, `build`... are a
version, no IPv4 address (`code_marks.a_version`). Each text comes back exactly as
expected on the request side, as a whole reply and streamed cut anywhere."""

from __future__ import annotations

import json

import pytest
from released import every_way, released

from replyguard.engine import find

#: Numbers in lists and tables, every class set to redact: each comes back byte for byte.
HARD_NEGATIVES = [
    "4111, 1111, 1111, 1111",
    "Ports: 4003, 4004, 4005, 4006.",
    "x 4111;1111;1111;1111",
    "Counts 4003; 4004; 4005; 4006",
    "We have 123, 45, 6789 items",
    "| 123 | 45 | 6789 |",
    "123;45;6789",
    # number cells that read as an SSN's groups
    "Counts: 120 \u00b7 45 \u00b7 5400",
    "Counts: 120 \u2014 45 \u2014 5400",
    "Counts: 120\u300145\u30015400",
    "Counts: 120\t45\t5400",
    "Counts: 120, 45, 5400",
    "Counts: 120; 45; 5400",
    "<table><tr><td>120</td><td>45</td><td>5400</td></tr></table>",
    "<table>\n<tr><th>a</th><th>b</th><th>c</th></tr>\n"
    "<tr><td>120</td><td>45</td><td>5400</td></tr>\n</table>",
    "<ul><li>120</li><li>45</li><li>5400</li></ul>",
    "Counts:\n120\n45\n5400\n",
    "| a | b | c |\n|---|---|---|\n| 120 | 45 | 5400 |",
    "a\tb\tc\n120\t45\t5400\n",
    "a,b,c\n120,45,5400\n",
    # four Luhn-valid groups with an issuer's prefix
    "[4003,4004,4005,4006]",
    '{"ports": [4003,4004,4005,4006]}',
    '{"ports": [4003, 4004, 4005, 4006]}',
    "4003,4004,4005,4006",
    "port,a,b,c\n4003,4004,4005,4006\n",
    "4003;4004;4005;4006",
    "4003\t4004\t4005\t4006",
    "4003\n4004\n4005\n4006",
    "| 4003 | 4004 | 4005 | 4006 |",
    "| a | b | c | d |\n|---|---|---|---|\n| 4003 | 4004 | 4005 | 4006 |",
    "<table><tr><td>4003</td><td>4004</td><td>4005</td><td>4006</td></tr></table>",
    "- 4003\n- 4004\n- 4005\n- 4006",
    "1. 4003\n2. 4004\n3. 4005\n4. 4006",
    "Ports:\n* 4003\n* 4004\n* 4005\n* 4006\n",
    "Open ports: 4003 \u2022 4004 \u2022 4005 \u2022 4006.",
    "Open ports: 4003 | 4004 | 4005 | 4006.",
    # a phone's groups in a list
    "Sizes: 202, 555, 0143",
    "202\n555\n0143",
    # versions
    "version 4.5.3.9",
    "Version: 10.0.0.1",
    '{"version": "10.0.0.1"}',
    "{'ver': '10.0.0.1'}",
    "v1.2.3.4",
    "Build 10.0.19041.1",
    "build 10.2.3.4 is out",
    "release 10.2.3.4",
    "Firmware 192.168.1.1",
    "kernel 5.15.0.91",
    "ver 10.0.0.1",
    "Vers\u00e3o 10.2.3.4",
]


@pytest.mark.parametrize("text", HARD_NEGATIVES, ids=[t[:32] for t in HARD_NEGATIVES])
def test_numbers_in_lists_and_tables_come_back_byte_for_byte(text: str) -> None:
    assert (find(text), every_way(text)) == ([], {text})


#: The same groups after a name of their class, in the line, the line above or the header.
NAMED = [
    ("Card: 4003,4004,4005,4006", "Card: **** 4006"),
    ("card number 4003\t4004\t4005\t4006", "card number **** 4006"),
    ("Your card 4003\n4004\n4005\n4006 is on file.", "Your card **** 4006 is on file."),
    ("Card number:\n4003\n4004\n4005\n4006", "Card number:\n**** 4006"),
    ("Card numbers:\n- 4003\n- 4004\n- 4005\n- 4006", "Card numbers:\n- **** 4006"),
    ("| card | | | |\n|---|---|---|---|\n| 4003 | 4004 | 4005 | 4006 |",
     "| card | | | |\n|---|---|---|---|\n| **** 4006 |"),
    ("card,a,b,c\n4003,4004,4005,4006\n", "card,a,b,c\n**** 4006\n"),
    ("<table><tr><th>Card</th></tr><tr><td>4003</td><td>4004</td><td>4005</td><td>4006</td>"
     "</tr></table>", "<table><tr><th>Card</th></tr><tr><td>**** 4006</td></tr></table>"),
    ('{"card": [4003,4004,4005,4006]}', '{"card": ["**** 4006"]}'),
    ('{"card": 4003,4004,4005,4006}', '{"card": "**** 4006"}'),
    ("Cart\u00e3o:\n4003\n4004\n4005\n4006", "Cart\u00e3o:\n**** 4006"),
    ("SSN: 120 \u00b7 45 \u00b7 5400", "SSN: ***5400"),
    ("SSN: 120 \u2014 45 \u2014 5400", "SSN: ***5400"),
    ("SSN\uff1a120\u300145\u30015400", "SSN\uff1a***5400"),
    ("SSN: 120\t45\t5400", "SSN: ***5400"),
    ("SSN:\n120\n45\n5400\n", "SSN:\n***5400\n"),
    ("social security number <td>120</td><td>45</td><td>5400</td>",
     "social security number <td>***5400</td>"),
    ("SSN\tx\ty\n120\t45\t5400\n", "SSN\tx\ty\n***5400\n"),
    ("CPF: 529,982,247-25", "CPF: ***4725"),
    ("Phone:\n202\n555\n0143", "Phone:\n***0143"),
    ("Phone: 202\t555\t0143", "Phone: ***0143"),
    ("Server 10.0.0.1 runs version 4.5.3.9", "Server ***.***.***.1 runs version 4.5.3.9"),
    ('{"host": "10.0.0.1", "version": "4.5.3.9"}',
     '{"host": "***.***.***.1", "version": "4.5.3.9"}'),
    # a comma or a semicolon and a space, and a bar between an SSN's groups
    ("Card: 4111, 1111, 1111, 1111", "Card: **** 1111"),
    ("Card: 4111; 1111; 1111; 1111", "Card: **** 1111"),
    ("Card: 4111;1111;1111;1111", "Card: **** 1111"),
    ("SSN: 123, 45, 6789", "SSN: ***6789"),
    ("SSN: 123; 45; 6789", "SSN: ***6789"),
    ("SSN: 123 | 45 | 6789", "SSN: ***6789"),
    ("| SSN |\n|---|\n| 123 | 45 | 6789 |", "| SSN |\n|---|\n| ***6789 |"),
]


@pytest.mark.parametrize(("text", "expected"), NAMED, ids=[n[0][:32] for n in NAMED])
def test_the_same_groups_after_their_class_name_are_masked(text: str, expected: str) -> None:
    assert every_way(text) == {expected}


#: Groups set apart by value separators are a value wherever they stand, named or not.
VALUE_SEPARATED = [
    ("4003 4004 4005 4006", "**** 4006"),
    ("4003-4004-4005-4006", "**** 4006"),
    ("4003.4004.4005.4006", "**** 4006"),
    ("4003/4004/4005/4006", "**** 4006"),
    ("4003\u00b74004\u00b74005\u00b74006", "**** 4006"),
    ("4003 <b>4004</b> 4005 4006", "**** 4006"),
    ("4003&nbsp;4004&nbsp;4005&nbsp;4006", "**** 4006"),
    ("Counts: 120 45 5400", "Counts: ***5400"),
    ("Counts: 120-45-\n5400 ok", "Counts: ***5400 ok"),
    ("- 4003 4004 4005 4006\n- 5400", "- **** 4006\n- 5400"),
    ("a,b\n4003 4004 4005 4006,5400\n", "a,b\n**** 4006,5400\n"),
]


@pytest.mark.parametrize(("text", "expected"), VALUE_SEPARATED,
                         ids=[v[0][:32] for v in VALUE_SEPARATED])
def test_groups_a_value_separator_joins_are_a_value_however_listed(text: str,
                                                                   expected: str) -> None:
    assert released(text) == expected


def test_a_masked_list_of_numbers_leaves_json_valid() -> None:
    text = '{"card": [4003,4004,4005,4006],\n"id": 7,\n"ports": [4003,4004,4005,4006]}'
    out = released(text)
    assert (out, json.loads(out)) == (
        '{"card": ["**** 4006"],\n"id": 7,\n"ports": [4003,4004,4005,4006]}',
        {"card": ["**** 4006"], "id": 7, "ports": [4003, 4004, 4005, 4006]})


@pytest.mark.parametrize(("text", "expected"), [
    ('[4539148803436467, 5500005555555559]', '["**** 6467", "**** 5559"]'),
    ('{"ids": [4539148803436467]}', '{"ids": ["**** 6467"]}'),
    ('{"password": -12345678}', '{"password": "****"}'),
    ('{"password": 1e10}', '{"password": "****"}'),
])
def test_a_masked_json_number_is_a_json_string(text: str, expected: str) -> None:
    assert every_way(text) == {expected}
    json.loads(expected)


def test_a_reply_reads_the_name_in_the_pieces_before() -> None:
    text = ("Here are the numbers you asked for.\n\nCard number:\n\n4003\n4004\n4005\n4006\n\n"
            "Ports:\n\n4003\n4004\n4005\n4006\n")
    assert every_way(text) == {
        "Here are the numbers you asked for.\n\nCard number:\n\n**** 4006\n\n"
        "Ports:\n\n4003\n4004\n4005\n4006\n"}
