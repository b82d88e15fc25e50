"""What the text around a digit run says it is: an id, a time, an ISBN or a reference, not a
phone number (`"product_id": 3074185296`, `ISBN 0-306-40615-2`, `order 2025550143`); an id, a
time, a barcode or a SIM card's number, not a card's (`"id": 4539148803436467`,
`JAN 4901234567894`). Plain functions beside the detectors, not inside their regexes;
`Refusing` hands a detector's matches to one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from replyguard.engine.chars import in_word
from replyguard.engine.id_names import (
    ID_WORDS,
    NUMBER_WORDS,
    OPENING,
    clause_words,
    column_named_as_id,
    in_an_id_link,
    named_as_id,
)
from replyguard.engine.layout import PASSWORD_NAME
from replyguard.engine.validators import small_number

if TYPE_CHECKING:
    from replyguard.engine.layout import AtLineStarts

#: How far back the marks are read, in characters.
LOOK_BACK = 48
#: How far back the header of a table's column is read, in characters (a reply's screen keeps
#: as much of what came before a piece: `engine.reply`).
READ_BACK = 1024
#: Keys that name an id or a time (`"id": `, `timestamp=`), or end so (`product_id`,
#: `created_at`, `userId`, `createdAt`; not `paid`).
_ID_KEYS = frozenset({"id", "ts", "timestamp", "epoch", "time", "date", "isbn", "sku", "iat",
                      "exp", "nbf", "created", "updated", "modified", "size", "bytes", "count",
                      "pid", "port", "uid", "gid", "seq", "offset", "length", "total"})
_ID_KEY_END = re.compile(r"(?:_(?:id|ID|Id|at|AT|ts|TS|time|TIME|ref|REF|[mun]s|[MUN]S"
                         r"|[mun]sec|[MUN]SEC)|[a-z0-9](?:Id|ID|At|Ts|Time|Ref|[MUN]s))\Z")
#: A key's first word (`order` of `order_no`, `orderNumber`, `ORDER_REF`).
_KEY_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])")
#: A key's name, read backwards from its end.
_NAME_BACKWARDS = re.compile(r"[A-Za-z0-9_]{1,48}")
#: Words that name a time, and label a number only when they stand as a label (first on their
#: line, after punctuation, or before `:` or `=`: `time 2025550143`, `Horário: 1755302400`;
#: not `call any time 2025550143`), and only a number written as one run of digits (a phone
#: is written in groups; a time never is).
_TIME_WORDS = frozenset("time date datetime created updated modified hora hor\u00e1rio "
                        "horario data".split())
def marked_as_other(text: str, start: int, end: int) -> bool:
    """Whether the text before `text[start:end]` marks it as something other than a phone
    number: a key naming an id or a time (`"product_id": `, `"created_at": `, `timestamp=`,
    `'ts' => '`), a word naming the kind of number (`ISBN`, `ISBN-13:`, `order no.`,
    `invoice #`, `tracking number:`, `ref.`, `Unix time`, `pedido nº`, `protocolo`, ...),
    past a verb (`Your order number is`, `O número do seu pedido é`) and on the line above
    (`Tracking number:` then a blank line), where no phone's name stands in its clause
    (`engine.id_names`); or a link's path (`/orders/`, `/pull/`). Reads the `LOOK_BACK`
    characters before `start` with string operations (~1 µs: a regex searched for a mark at
    the text's end cost ~8)."""
    tail = text[max(0, start - LOOK_BACK):start].rstrip(" \t\r\n\"'`#")
    if tail[-1:] in (":", "=", ">") and _id_key(tail):
        return True
    if tail[-1:] == "/":
        return in_an_id_link(tail)
    words = clause_words(tail)
    if not words:
        return False
    named = named_as_id(words)
    if named is None and words[-1].lower().lstrip(OPENING) in _TIME_WORDS:
        return _a_label(tail, words[-1]) and text[start:end].isdigit()
    return bool(named)


def id_as_written(text: str, start: int, end: int, before: str = "") -> bool:
    """Whether the phone number found at `text[start:end]` is marked as something else in the
    text as written, after `before` (a reply's earlier pieces, of which the last `READ_BACK`
    characters are read): `marked_as_other` (a reply's piece may start with the number its
    label ends the piece before with, `Tracking number:` then a blank line), or the header
    of its Markdown table's column names an id (`| Order |`; a view reads a table's rows
    as a line). With no `before` (a whole text), the label was read already, on the view the
    phone was found in: only the column is read."""
    if not before:
        return column_named_as_id(text, start, READ_BACK)
    before = before[-READ_BACK:]
    text, start, end = before + text, start + len(before), end + len(before)
    return marked_as_other(text, start, end) or column_named_as_id(text, start, READ_BACK)


def _a_label(tail: str, word: str) -> bool:
    """Does `word`, the last word of `tail`, stand as a label: before `:` or `=`, or first in
    its phrase (first in what was read or on its line, after punctuation or markup, or
    after CJK text: not after a word of prose, `any time`)?"""
    if tail[-1:] in (":", "="):
        return True
    before = tail[:tail.rfind(word)].rstrip(" \t")
    return not before or not in_word(before[-1])


def _key_before(tail: str) -> str | None:
    """The key `tail` ends in, before `:` `=` `:=` or `=>` (`"created_at":` -> `created_at`)."""
    before = tail.rstrip(":=>")
    if len(tail) - len(before) > 2:
        return None
    name = _NAME_BACKWARDS.match(before.rstrip(" \t").rstrip("]").rstrip("\"'`")[::-1])
    return None if name is None else name.group()[::-1]


def _names_id_or_time(key: str) -> bool:
    """Does a key name an id or a time (`id`, `timestamp`, `product_id`, `created_at`,
    `userId`, `time_ns`)?"""
    return key.lower() in _ID_KEYS or (len(key) > 3 and _ID_KEY_END.search(key) is not None)


def _id_key(tail: str) -> bool:
    """`tail` ends in a key naming an id or a time, then `:` `=` `:=` or `=>`."""
    key = _key_before(tail)
    if key is None:
        return False
    if _names_id_or_time(key):
        return True
    first = _KEY_WORD.match(key)  # a key named after the kind of number (`order_no`, `orderNumber`)
    return first is not None and first.group().lower() in ID_WORDS


#: A unit or a count after a digit run: it measures something (`7266106890 bytes`, `… ms`).
_UNIT_AFTER = re.compile(r"[ \t]?(?:bytes?|[KMGT]i?B|ms|ns|\u00b5s|us|secs?|seconds|tokens"
                         r"|rows|records|items|chars|characters|words|lines|views|downloads)"
                         r"(?![A-Za-z])")
#: What a unit of `_UNIT_AFTER` starts with (a space or a tab before it, or its first letter).
_UNIT_FIRST = frozenset(" \tbKMGTmn\u00b5ustricwlvd")


def _unit_after(text: str, end: int) -> bool:
    """Does a unit or a count follow `text[:end]` (`_UNIT_AFTER`)? Its first character is
    tested first: after most numbers (`.`, `,`) the pattern is not tried."""
    return text[end:end + 1] in _UNIT_FIRST and _UNIT_AFTER.match(text, end) is not None


def not_a_phone(text: str, start: int, end: int) -> bool:
    """Whether the digit run `text[start:end]` is no phone number: the text before it marks
    it as something else (`marked_as_other`), a unit follows a number written as a quantity
    is (`7266106890 bytes`, `_a_quantity`; `+1 202 555 0143 ms` and `+44 20 7946 0123 GB`
    are phones), or it is a version (`124.0.6367.207`: three dots or more, a group of one
    digit after the first or a last group of other than four digits; `1.800.555.0143` is a
    phone)."""
    if text.count(".", start, end) >= 3 and _version(text[start:end]):
        return True
    if _unit_after(text, end) and _a_quantity(text[start:end]):
        return True
    return marked_as_other(text, start, end)


def _a_quantity(run: str) -> bool:
    """Is `run` written as a quantity may be: no `+` or bracket, one run of digits or
    thousands in groups of three (`7266106890`, `7 266 106 890`)? A phone's groups are
    its plan's (`202 555 0143`)."""
    if "+" in run or "(" in run or "[" in run:
        return False
    return all(len(group) == 3 for group in _NON_DIGITS.split(run)[1:])


_NON_DIGITS = re.compile(r"\D+")


def _version(run: str) -> bool:
    groups = run.split(".")
    return len(groups[-1]) != 4 or any(len(group) < 2 for group in groups[1:])


def bare_and_marked(text: str, start: int, end: int) -> bool:
    """Whether the run `text[start:end]` is digits alone and the text before it marks it as
    something else (`Ticket 72360589121`): an ungrouped number is read by its label."""
    return text[start:end].isdigit() and marked_as_other(text, start, end)


#: What names a card in the words before a number: it is a card's whatever else they say
#: (`card_id: 4111…`, `card ID 4111…`).
CARD_NAMES = ("card", "cart\u00e3o", "cartao", "tarjeta", "karte", "carte")
#: Words that name a number that is no card's: an id, a time, a product's barcode (EAN/JAN,
#: GTIN, UPC: GS1's numbers, whose check digit may pass Luhn's too), a SIM card's or a
#: device's number (ITU-T E.118's ICCID, IMEI, IMSI). `SIM` and `JAN` in capitals only
#: (`sim` is Portuguese's yes, `Jan` a month).
_NOT_CARD_WORDS = frozenset(
    "id ids ean ean-13 ean13 gtin gtin-13 gtin-14 gtin13 gtin14 upc upc-a barcode iccid imei "
    "imsi meid isbn isbn-13 issn snowflake epoch timestamp order invoice tracking shipment "
    "parcel ticket".split())
_NOT_CARD_ACRONYMS = frozenset({"SIM", "JAN"})
#: What a number follows in a link or a chat's markup where it is an id: a post's
#: (`/status/1798765432109876548`), a mention's (`<@1122334455667788990>`, `<#…>`).
_ID_BEFORE = ("status/", "statuses/", "<@", "<@!", "<@&", "<#")


def not_a_card(text: str, start: int, end: int) -> bool:
    """Whether the card candidate `text[start:end]`, a run of digits alone (a card typed in
    groups is a card however it is labelled), is marked as no card's number: by a key naming
    an id or a time before it (`"id": `, `"created_at_us": `, `time_ns=`), by a word naming
    an id, a barcode, a SIM card's number or an order's (`Discord user ID`, `EAN`, `JAN`,
    `GTIN`, `UPC`, `ICCID`, `SIM`, `IMEI`, `Order`, `Invoice #`, `Tracking number`), by a
    link's or a mention's markup (`status/`, `<@`), or by a unit after it (`… µs`); not
    where the words before it name a card (`card_id`, `card ID`, `Card 4539… ms`). Groups
    set apart by colons are a ratio where a word before them names one (`a_ratio`)."""
    if not text[start:end].isdigit():
        return text.find(":", start, end) != -1 and a_ratio(text, start)
    tail = text[max(0, start - LOOK_BACK):start]
    if tail.endswith(_ID_BEFORE):
        return True
    tail = tail.rstrip(" \t\"'`#")
    if any(name in tail[-24:].lower() for name in CARD_NAMES):
        return False
    if _unit_after(text, end):
        return True
    key = _key_before(tail) if tail[-1:] in (":", "=", ">") else None
    if key is not None and _names_id_or_time(key):
        return True
    words = tail.rstrip(":#.=-").rsplit(None, 2)
    if words and words[-1].lower() in NUMBER_WORDS:  # `EAN code`, `ICCID number`
        words.pop()
    last = words[-1].lstrip(OPENING) if words else ""
    return last.lower() in _NOT_CARD_WORDS or last in _NOT_CARD_ACRONYMS


#: Words that name numbers set apart by colons as parts of a whole (`The ratio was 4:1:1`).
_RATIO = re.compile(r"(?<![^\W\d_])(?:ratios?|proportions?|odds|mix|mixture|aspect|scale|split"
                    r"|raz\u00e3o|propor\u00e7\u00e3o|propor\u00e7\u00f5es)(?![^\W\d_])")


def a_ratio(text: str, start: int) -> bool:
    """Whether a word naming a ratio stands in the 32 characters before `text[start]`
    (`ratio`, `proportion`, `odds`, `mix`, `aspect`, `scale`, `split`, `razão`, `proporção`,
    any case): `4111:1111:1111:1111` after it is a ratio's parts, no card's groups."""
    return _RATIO.search(text.lower(), max(0, start - 32), start) is not None


#: Words that make `pass` a ticket's name, not a password's (`season pass: Gold2025`).
_TICKETS = frozenset(
    "season boarding bus day week weekly month monthly annual year ski travel rail train "
    "metro subway transit tram ferry parking park gym museum zoo festival event concert "
    "guest visitor vip backstage press hall library student fast express".split())


def a_ticket_pass(text: str, start: int, end: int) -> bool:
    """Whether the password label matched at `text[start:end]` is the word `pass` after a
    word that makes it a ticket (`Season pass:`, `boarding-pass =`, `Bus Pass:`); `pass`
    after another word still names a password (`wifi pass:`, `db pass:`)."""
    if text[start + 4:start + 5].isalpha() or text[start:start + 4].lower() != "pass":
        return False
    before = text[max(0, start - 24):start]
    if not before or before[-1] not in " \t-_":
        return False
    words = before[:-1].rsplit(None, 1)
    return bool(words) and words[-1].lower().lstrip("\"'`([{*_") in _TICKETS


#: The word `pass` in a line (`a_ticket_pass_in_line`).
_PASS_WORD = re.compile(r"(?i:(?<![A-Za-z])pass)(?![A-Za-z])")


def a_ticket_pass_in_line(text: str, start: int, end: int) -> bool:
    """Whether a line matched at `text[start:end]` names a password by the word `pass` after
    a word that makes it a ticket (`Season pass: Gold2025`): `a_ticket_pass` at its `pass`."""
    found = _PASS_WORD.search(text, start, end)
    return found is not None and a_ticket_pass(text, found.start(), end)


def a_count_in_line(text: str, start: int, end: int) -> bool:
    """Whether a line matched at `text[start:end]` gives a count under a secret's or a
    token's name, no password's (`max token: 4096`): its value, the line's last word, is a
    small number (`validators.small_number`)."""
    words = text[start:end].split()
    return (bool(words) and small_number(words[-1])
            and PASSWORD_NAME.search(text, start, end) is None)


def a_ticket_or_a_count(text: str, start: int, end: int) -> bool:
    """`a_ticket_pass_in_line` or `a_count_in_line`."""
    return a_ticket_pass_in_line(text, start, end) or a_count_in_line(text, start, end)


def no_password_named_before(text: str, start: int, end: int) -> bool:
    """Whether the member right before a `"confirm": "..."` field at `text[start:end]` gives
    no password (`_PASSWORD_MEMBER`, in the `LOOK_FOR_PASSWORD` characters before it): the
    field is a password's confirmation only next to one (`{"new_password": "...",
    "confirm": "..."}`), not because a password is named elsewhere in the text (`Forgot
    password?` a sentence before, another object's `"password"`)."""
    floor = max(0, start - LOOK_FOR_PASSWORD)
    before = text[floor:start].lower()
    if "pass" not in before and "pwd" not in before and "senha" not in before:
        return True
    return _PASSWORD_MEMBER.search(text, floor, start) is None


#: How far back a password's name is looked for (`no_password_named_before`).
LOOK_FOR_PASSWORD = 256
#: A member naming a password (`"new_password": "..."`, `'pwd' => '...'`) and the comma after
#: it, up to a `"confirm"` field's key (`no_password_named_before`).
_PASSWORD_MEMBER = re.compile(
    r"[\"'][\w.-]{0,32}(?i:pass(?!port)|pwd|senha)[\w.-]{0,32}[\"'][ \t]*(?::|=>?)[ \t]*"
    r"(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[^\s,\"']{1,200})[ \t]*,\s{0,64}\Z")


class Refusing:
    """A compiled pattern whose matches `refuse(text, start, end)` turns down are skipped:
    `search`, `match` and `finditer` behave as the pattern's own would if those matches did
    not exist (a refused match's text is passed over as `finditer` passes over a match), so
    where a detector runs and what overlaps what are unchanged (`engine.find`). `pattern` is
    the compiled pattern itself."""

    __slots__ = ("pattern", "refuse")

    def __init__(self, pattern: re.Pattern[str] | AtLineStarts,
                 refuse: Callable[[str, int, int], bool]) -> None:
        self.pattern = pattern
        self.refuse = refuse

    def search(self, text: str, pos: int = 0, endpos: int | None = None
               ) -> re.Match[str] | None:
        end = len(text) if endpos is None else endpos
        match = self.pattern.search(text, pos, end)
        while match is not None and self.refuse(text, match.start(), match.end()):
            match = self.pattern.search(text, match.end(), end)
        return match

    def match(self, text: str, pos: int = 0, endpos: int | None = None
              ) -> re.Match[str] | None:
        match = self.pattern.match(text, pos, len(text) if endpos is None else endpos)
        if match is not None and self.refuse(text, match.start(), match.end()):
            return None
        return match

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        for match in self.pattern.finditer(text, pos, len(text) if endpos is None else endpos):
            if not self.refuse(text, match.start(), match.end()):
                yield match

    def __repr__(self) -> str:
        return f"Refusing({self.pattern!r}, {getattr(self.refuse, '__name__', self.refuse)})"
