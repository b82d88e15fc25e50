"""Contacts and numbers as people type them: e-mail addresses with a spaced, defanged,
percent-encoded or tagged `@` or dot, phone numbers with a trunk prefix, a carrier's code or
an international call prefix, IPv4 addresses written in hex or octal, cards in other groups,
in quoted strings joined by code or in a JSON list or object; and what stays unmasked (a
count of cards sold, a ratio). Each released on the request side, as a whole reply and
streamed in cuts (`released`)."""

from __future__ import annotations

import pytest
from released import every_way, released

from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules

PT_BR = compile_rules(ReplyRules(personal_data=dict.fromkeys(CLASSES, "redact")), "pt-BR")


@pytest.mark.parametrize(("text", "expected"), [
    # A trunk prefix before the area code, a carrier's code after it, `xx` in its place.
    ("Ligue 011 98765-4321 hoje.", "Ligue ***4321 hoje."),
    ("Ligue (011) 98765-4321 hoje.", "Ligue ***4321 hoje."),
    ("Ligue 0xx11 98765-4321 hoje.", "Ligue ***4321 hoje."),
    ("Ligue (0XX11) 98765-4321 hoje.", "Ligue ***4321 hoje."),
    ("Ligue 0 21 11 98765-4321 hoje.", "Ligue ***4321 hoje."),
    ("Ligue 00 1 202 555 0143 hoje.", "Ligue ***0143 hoje."),
    ("Ligue + 55 11 98765-4321 hoje.", "Ligue ***4321 hoje."),
    # Not a number in the plan after the prefix: kept.
    ("Ligue 011 12345-678 hoje.", "Ligue 011 12345-678 hoje."),
])
def test_brazilian_numbers_with_a_trunk_or_carrier_prefix(text: str, expected: str) -> None:
    assert released(text, PT_BR) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # After an international call prefix: `00`, or North America's `011`.
    ("Call 00 1 202 555 0143 today.", "Call ***0143 today."),
    ("Call 0044 20 7946 0123 today.", "Call ***0123 today."),
    ("Call 011 44 20 7946 0123 today.", "Call ***0123 today."),
    ("Call 011 1 202 555 0143 today.", "Call ***0143 today."),
    ("Call (00) 44 20 7946 0123 today.", "Call ***0123 today."),
    # `+1` spaced as people type it.
    ("Call + 1 (202) 555-0143 today.", "Call ***0143 today."),
    ("Call +1- 202 -555- 0143 today.", "Call ***0143 today."),
    ("Call +1  202  555 0143 today.", "Call ***0143 today."),
    ("Call +1 20 25 55 01 43 today.", "Call ***0143 today."),
    # Digits alone after `00` are an id padded with zeros; a label keeps its meaning.
    ("Ref 0012025550143 is closed.", "Ref 0012025550143 is closed."),
    ("Case 0012025550143 is closed.", "Case 0012025550143 is closed."),
    ("order 00 1 202 555 0143", "order 00 1 202 555 0143"),
    ("Call 00 1 555 012 3456 today.", "Call 00 1 555 012 3456 today."),
])
def test_phone_numbers_after_a_call_prefix_or_spaced(text: str, expected: str) -> None:
    assert released(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # Parts in hex or octal, as `inet_aton` and browsers read them.
    ("Host 0xC0.0xA8.0x01.0x0A now.", "Host ***.***.***.0x0A now."),
    ("Host 0xc0.168.1.10 now.", "Host ***.***.***.10 now."),
    ("Host 0300.0250.0001.0012 now.", "Host ***.***.***.0012 now."),
    ("Host 192.168.001.010 now.", "Host ***.***.***.010 now."),
    # One 32-bit hex number: an address after a name of one or in a URL, else a constant.
    ("Host 0xC0A8010A now.", "Host 0x******0A now."),
    ("Open http://0xC0A8010A/admin now.", "Open http://0x******0A/admin now."),
    ("Set x = 0xC0A8010A; now.", "Set x = 0xC0A8010A; now."),
    ("mask = 0xDEADBEEF", "mask = 0xDEADBEEF"),
    # Loopback however written names no one's host; an octet over 255 is no address.
    ("Host 0x7F.0.0.1 now.", "Host 0x7F.0.0.1 now."),
    ("Host 0x7F000001 now.", "Host 0x7F000001 now."),
    ("Host 0x100.0xA8.0x01.0x0A now.", "Host 0x100.0xA8.0x01.0x0A now."),
    ("Host 0400.0250.0001.0012 now.", "Host 0400.0250.0001.0012 now."),
])
def test_ipv4_addresses_in_other_bases(text: str, expected: str) -> None:
    assert released(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # A name of things counted: the numbers a list sets apart after it are counts.
    ("Cards sold per month: 4539, 1488, 0343, 6467",
     "Cards sold per month: 4539, 1488, 0343, 6467"),
    ("Cards sold per month:\t4539\t1488\t0343\t6467",
     "Cards sold per month:\t4539\t1488\t0343\t6467"),
    ("Cards sold per month:\n4539\n1488\n0343\n6467",
     "Cards sold per month:\n4539\n1488\n0343\n6467"),
    ("| Region | Cards sold per month |\n|---|---|\n| 4539 | 1488 | 0343 | 6467 |",
     "| Region | Cards sold per month |\n|---|---|\n| 4539 | 1488 | 0343 | 6467 |"),
    ("Number of cards: 4539, 1488, 0343, 6467", "Number of cards: 4539, 1488, 0343, 6467"),
    ("Cartões vendidos por mês: 4539, 1488, 0343, 6467",
     "Cartões vendidos por mês: 4539, 1488, 0343, 6467"),
    ("Phones shipped:\n202\n555\n0143", "Phones shipped:\n202\n555\n0143"),
    # A name of one value still names it.
    ("Card: 4539, 1488, 0343, 6467", "Card: **** 6467"),
    ("Cards: 4539, 1488, 0343, 6467", "Cards: **** 6467"),
    ("Card used: 4539, 1488, 0343, 6467", "Card used: **** 6467"),
    ("The number of the card: 4539, 1488, 0343, 6467", "The number of the card: **** 6467"),
    # Groups a value's separators join are a card whatever the label.
    ("Cards sold per month: 4539 1488 0343 6467", "Cards sold per month: **** 6467"),
    # Colon groups: a card, but a ratio's parts after a word naming a ratio.
    ("4111:1111:1111:1111", "**** 1111"),
    ("Card: 4111:1111:1111:1111", "Card: **** 1111"),
    ("The ratio was 4111:1111:1111:1111 today.", "The ratio was 4111:1111:1111:1111 today."),
    ("Mix 4539:1488:0343:6467 by weight.", "Mix 4539:1488:0343:6467 by weight."),
    ("A proporção é 4111:1111:1111:1111.", "A proporção é 4111:1111:1111:1111."),
    ("Ratio 4111 1111 1111 1111", "Ratio **** 1111"),
])
def test_counts_and_ratios_are_no_cards(text: str, expected: str) -> None:
    assert released(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # A space beside the `@` or the dots of an address, inline tags around its `@`.
    ("Mail jane.doe @ example.com today.", "Mail j***@example.com today."),
    ("Mail jane.doe @example.com today.", "Mail j***@example.com today."),
    ("Mail jane.doe@ example.com today.", "Mail j***@example.com today."),
    ("Mail jane . doe@example . com today.", "Mail j***@example.com today."),
    ("Mail jane . doe @ example . com today.", "Mail j***@example.com today."),
    ("Mail ana_silva @ empresa.com.br hoje.", "Mail a***@empresa.com.br hoje."),
    ("Mail jane<b>@</b>example.com today.", "Mail j***@example.com today."),
    ("Mail jane <b>@</b> example.com today.", "Mail j***@example.com today."),
    # What has no address's shape on both sides of its `@` is prose.
    ("Let us meet @ noon.", "Let us meet @ noon."),
    ("Ping me @ slack.com for it.", "Ping me @ slack.com for it."),
    ("Mail jane @ example today.", "Mail jane @ example today."),
    ("Write to jane@example . Then wait.", "Write to jane@example . Then wait."),
    ("Starts @ 5.30 sharp.", "Starts @ 5.30 sharp."),
])
def test_addresses_with_spaces_beside_their_signs(text: str, expected: str) -> None:
    assert released(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # A card's groups in strings of their own: each masked in its string.
    ('{"card": ["4539","1488","0343","6467"]}', '{"card": ["****","****","****","6467"]}'),
    ('{"card": ["4539", "1488", "0343", "6467"]}',
     '{"card": ["****", "****", "****", "6467"]}'),
    ('{"card": {"a": "4539", "b": "1488", "c": "0343", "d": "6467"}}',
     '{"card": {"a": "****", "b": "****", "c": "****", "d": "6467"}}'),
    ('x = "4539" + "1488" + "0343" + "6467"', 'x = "****" + "****" + "****" + "6467"'),
    ("x = '4539' '1488' '0343' '6467'", "x = '****' '****' '****' '6467'"),
    ('x = "45391488" "03436467";', 'x = "********" "****6467";'),
    # A list's strings with no name of a card are numbers; Luhn failing, no card.
    ('x = ["4539","1488","0343","6467"]', 'x = ["4539","1488","0343","6467"]'),
    ('x = "4539" + "1488" + "0343" + "6468"', 'x = "4539" + "1488" + "0343" + "6468"'),
    # Other groupings, and a name followed by `, `.
    ("Card 45391488 03436467 ok.", "Card **** 6467 ok."),
    ("Card 4539 14 88 0343 6467 ok.", "Card **** 6467 ok."),
    ("Card 4111 1111 1111 1111 1111 is five groups.",
     "Card 4111 1111 1111 1111 1111 is five groups."),
    ("Card, 4539 1488 0343 6467", "Card, **** 6467"),
    ("Phone, 202-555-0143", "Phone, ***0143"),
    ("SSN, 123-45-6789", "SSN, ***6789"),
])
def test_cards_in_other_groups_and_strings(text: str, expected: str) -> None:
    assert released(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # Defanged: the `@` or a dot in brackets, between two of the address's letters.
    ("Mail jane[.]doe@example[.]com today.", "Mail j***@example.com today."),
    ("Mail jane(@)example.com today.", "Mail j***@example.com today."),
    ("Mail jane[@]example.com today.", "Mail j***@example.com today."),
    ("Mail jane{@}example{.}com today.", "Mail j***@example.com today."),
    ("Mail jane [@] example [.] com today.", "Mail j***@example.com today."),
    # Percent-encoded: `%40` for the `@`, `%2E` for a dot between letters or digits.
    ("Mail jane%2Edoe%40example.com today.", "Mail j***@example.com today."),
    ("Mail jane.doe%40example%2Ecom today.", "Mail j***@example.com today."),
    ("Mail jane%2edoe%40example%2ecom today.", "Mail j***@example.com today."),
    # A bracketed sign or an encoded dot elsewhere is left as it is.
    ("Match a[.]b in the regex.", "Match a[.]b in the regex."),
    ("See the face (@) here.", "See the face (@) here."),
    ("GET /files/report%2Epdf", "GET /files/report%2Epdf"),
])
def test_defanged_and_encoded_addresses(text: str, expected: str) -> None:
    assert released(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # RFC 5322's `*`, `'` and `~` in a local part, a quoted local part, `_` in a domain.
    ("Mail jane*doe@example.com today.", "Mail j***@example.com today."),
    ("Mail 'jane.doe'@example.com today.", "Mail 'j***@example.com today."),
    ("Mail o'brien@example.com today.", "Mail o***@example.com today."),
    ('Mail "jane doe"@example.com today.', 'Mail "***@example.com today.'),
    ("Mail jane.doe@exa_mple.com today.", "Mail j***@exa_mple.com today."),
    # A query's key stays; a mask is no address; scp's remote is a host and a path.
    ("Open https://x.example/?email=jane@example.com now.",
     "Open https://x.example/?email=j***@example.com now."),
    ("Mail j***@example.com today.", "Mail j***@example.com today."),
    ('Run git clone "git"@github.com:org/repo.git now.',
     'Run git clone "git"@github.com:org/repo.git now.'),
    ('He said "hi" @ noon.', 'He said "hi" @ noon.'),
])
def test_addresses_with_other_local_parts_and_domains(text: str, expected: str) -> None:
    assert every_way(text) == {expected}


@pytest.mark.parametrize(("text", "expected"), [
    # Spaced dots, ideographic full stops, octets of three digits.
    ("Host 8 . 8 . 4 . 4 is up.", "Host ***.***.***.4 is up."),
    ("Host 8\u30028\u30024\u30024 is up.", "Host ***.***.***.4 is up."),
    ("DNS\u306f8\u30028\u30024\u30024\u3067\u3059\u3002",
     "DNS\u306f***.***.***.4\u3067\u3059\u3002"),
    ("Host 008.008.004.004 is up.", "Host ***.***.***.004 is up."),
    ("Host 192.168.1.10/24 is up.", "Host ***.***.***.10/24 is up."),
    # A network with its prefix length names no host; sections and parts are no address.
    ("Route 10.0.0.0/8 and 192.168.0.0/16 here.", "Route 10.0.0.0/8 and 192.168.0.0/16 here."),
    ("Route 2001:db8::/32 here.", "Route 2001:db8::/32 here."),
    ("Section 001.002.003.004 applies.", "Section 001.002.003.004 applies."),
    ("Part no. 012.034.056.078", "Part no. 012.034.056.078"),
    ("Steps 1 . 2 . 3 in order.", "Steps 1 . 2 . 3 in order."),
    ("Host 127 . 0 . 0 . 1 is local.", "Host 127 . 0 . 0 . 1 is local."),
    # Spaced, four numbers are an address only after a name of one in their sentence.
    ("Ping 8 . 8 . 4 . 4 now.", "Ping ***.***.***.4 now."),
    ("The DNS server is at 8 . 8 . 4 . 4 today.", "The DNS server is at ***.***.***.4 today."),
    ("My IP: 8\u30028\u30024\u30024", "My IP: ***.***.***.4"),
    ("Connect to 8 . 8 . 4 . 4 now.", "Connect to ***.***.***.4 now."),
    ("O endere\u00e7o \u00e9 8 . 8 . 4 . 4.", "O endere\u00e7o \u00e9 ***.***.***.4."),
    ("Use o servidor 8 . 8 . 4 . 4 hoje.", "Use o servidor ***.***.***.4 hoje."),
    ("\u30b5\u30fc\u30d0\u30fc\u306f8\u30028\u30024\u30024\u3067\u3059\u3002",
     "\u30b5\u30fc\u30d0\u30fc\u306f***.***.***.4\u3067\u3059\u3002"),
    ("Steps 1 . 2 . 3 . 4 in order.", "Steps 1 . 2 . 3 . 4 in order."),
    ("Rate 8 . 5 . 3 . 1 percent", "Rate 8 . 5 . 3 . 1 percent"),
    ("score 9 . 1 . 7 . 3", "score 9 . 1 . 7 . 3"),
    ("Rate 8\u30025\u30023\u30021 percent", "Rate 8\u30025\u30023\u30021 percent"),
    ("The ship left. Score 9 . 1 . 7 . 3 today.", "The ship left. Score 9 . 1 . 7 . 3 today."),
    ("Check the host. Then 9 . 1 . 7 . 3 is the score.",
     "Check the host. Then 9 . 1 . 7 . 3 is the score."),
    # Unspaced, as before: an address without a name.
    ("Rate 8.5.3.1 percent", "Rate ***.***.***.1 percent"),
])
def test_ipv4_addresses_with_other_dots(text: str, expected: str) -> None:
    assert every_way(text) == {expected}
