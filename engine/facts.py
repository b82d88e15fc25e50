"""Facts: the values a reply states (money, numbers, dates, identifiers, personal data),
traced to the call and field that hold them (docs/actions.md; counted as `reply_facts_*`).

Values compare by kind: numbers numerically ("12.50" == 12.5 == "12,50" in pt-BR), dates as
ISO dates, everything else in compact form (`engine.context.compact`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from replyguard.engine.context import ToolCall, compact
from replyguard.engine.find import Finding, apply_masks, find

FACTS_TRACED = "reply_facts_traced"
FACTS_UNTRACED = "reply_facts_untraced"
FACTS_CONFLICT = "reply_facts_conflict"
FACTS_STALE = "reply_facts_stale"
FACTS_OUT_OF_RANGE = "reply_facts_out_of_range"
PERSONAL = frozenset({"email", "iban", "national_id", "card", "phone"})
_MONTHS = {**{m: i for i, m in enumerate(
    "january february march april may june july august september october november december"
    .split(), 1)}, **{m: i for i, m in enumerate(
    "janeiro fevereiro marco março abril maio junho julho agosto setembro outubro novembro "
    "dezembro".split(), 1)}}
_MONTHS["março"] = 3
_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_NUM = r"\d+(?:[.,]\d+)*"
_CURRENCY = r"R\$|US\$|[$£€¥]|(?<![A-Za-z])(?:USD|EUR|GBP|BRL)(?![A-Za-z])"
_UNIT = r"(?:pounds?|dollars?|euros?|reais|real|cents?|pence|centavos|USD|EUR|GBP|BRL)(?!\w)|[$£€]"
_VALUES = re.compile(
    r"(?P<iso>(?<!\d)\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?(?!\d))"
    r"|(?P<dmy>(?<![\d/])\d{1,2}/\d{1,2}/\d{2,4}(?![\d/]))"
    rf"|(?P<named>(?<!\d)\d{{1,2}}(?:st|nd|rd|th)?\s+(?:de\s+)?(?:{_NAMES})(?:,?\s+(?:de\s+)?\d{{4}})?"
    rf"|(?:{_NAMES})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?(?!\d))"
    r"|(?P<masked>(?<![\w*])(?:[A-Z]{2})?\*{2,}(?:\s?\*{2,})*\s?[0-9A-Z]{3,4}(?!\w))"
    rf"|(?P<money>(?:{_CURRENCY})\s?{_NUM}|(?<![\w.,]){_NUM}\s?(?:{_UNIT}))"
    r"|(?P<token>#?(?<![\w.,-])(?:[A-Za-z][A-Za-z_.-]*)?\d[\w.,-]*)",
    re.IGNORECASE,
)
_MAY_HOLD = re.compile(r"[0-9@]")
_UNIT_SUFFIX = re.compile(r"\d+(?:st|nd|rd|th|am|pm|h|hs|min|s|x|kg|km|g|ml|l|mb|gb|kb|k|m)",
                          re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Value:
    """One value stated at `text[start:end]`: `kind` ("number", "date", "id", "personal"),
    and its comparison keys (`number` for numbers and money; `keys`: dates as ISO
    `YYYY-MM-DD` or `MM-DD`, others compact)."""

    kind: str
    start: int
    end: int
    number: Decimal | None
    keys: tuple[str, ...]


def parse_number(text: str, language: str) -> Decimal | None:
    """A number as written in `language`: `1,234.50` (en), `1.234,50` / `12,50` (pt-BR);
    `12.50` is 12.5 in both. Returns None for what is not one number (`2.4.1`)."""
    text = text.strip()
    if not text or not (text[0].isdigit() or text[0] in "+-"):
        return None
    dots, commas = text.count("."), text.count(",")
    if dots and commas:
        decimal = "." if text.rfind(".") > text.rfind(",") else ","
        thousands = "," if decimal == "." else "."
        if text.count(decimal) > 1:
            return None
        text = text.replace(thousands, "").replace(decimal, ".")
    elif dots + commas:
        sep = "." if dots else ","
        groups = text.split(sep)
        grouped = all(len(g) == 3 for g in groups[1:])
        if len(groups) > 2 and not grouped:
            return None
        local_thousands = "," if language == "en" else "."
        if len(groups) > 2 or (grouped and sep == local_thousands):
            text = text.replace(sep, "")
        else:
            text = text.replace(sep, ".")
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _date_keys(match: re.Match[str], kind: str, language: str) -> tuple[str, ...]:
    text = match.group()
    if kind == "iso":
        return (text[:10], text[5:10])
    if kind == "dmy":
        a, b, y = (int(p) for p in text.split("/"))
        year = y + 2000 if y < 100 else y
        orders = [(b, a)] if language == "pt-BR" else [(b, a), (a, b)]
        return tuple(f"{year:04d}-{m:02d}-{d:02d}" for m, d in orders if m <= 12 and d <= 31)
    words = re.findall(r"\w+", text.lower())
    month = next(_MONTHS[w] for w in words if w in _MONTHS)
    numbers = [int(re.sub(r"\D", "", w)) for w in words if w[0].isdigit()]
    day = next(n for n in numbers if n <= 31)
    when = next((n for n in numbers if n > 31), None)
    return (f"{when:04d}-{month:02d}-{day:02d}",) if when else (f"{month:02d}-{day:02d}",)


def stated_values(text: str, language: str) -> list[Value]:
    """The values `text` states, in order, none overlapping: personal data (`engine.find`:
    email, iban, national_id, card, phone), masked values (`**** 1111`), dates (ISO,
    `29/11/2024`, `29 November 2024`, `29 de novembro`), money (`£12.50`, `12.50 pounds`,
    `R$ 12,50`), numbers of 3 or more digits or with decimals, identifiers with letters and
    digits (`ORD-4412`, `#4412`)."""
    if _MAY_HOLD.search(text) is None:
        return []  # every value has a digit, or an "@" (an email)
    out: list[Value] = []
    taken: list[tuple[int, int]] = []
    for f in find(text):
        if f.cls in PERSONAL:
            out.append(Value("personal", f.start, f.end, None, (compact(text[f.start:f.end]),)))
            taken.append((f.start, f.end))
    for match in _VALUES.finditer(text):
        start, end = match.span()
        if any(s < end and start < e for s, e in taken):
            continue
        kind = match.lastgroup or ""
        value = _value(match, kind, language)
        if value is not None:
            out.append(value)
    out.sort(key=lambda v: v.start)
    return out


def _value(match: re.Match[str], kind: str, language: str) -> Value | None:
    start, end = match.span()
    text = match.group()
    if kind in ("iso", "dmy", "named"):
        keys = _date_keys(match, kind, language)
        return Value("date", start, end, None, keys) if keys else None
    if kind == "masked":
        return Value("id", start, end, None, (compact(text),))
    if kind == "money":
        found = re.search(_NUM, text)
        number = parse_number(found.group(), language) if found else None
        return Value("number", start, end, number, (compact(text),)) if number is not None \
            else None
    token = text.rstrip("._,-")
    end = start + len(token)
    token = token.lstrip("#")
    if token.isdigit() or "." in token or "," in token:
        number = parse_number(token, language)
        if number is None:
            return Value("id", start, end, None, (compact(token),))
        digits = sum(c.isdigit() for c in token)
        if digits < 3 and "." not in token and "," not in token:
            return None
        return Value("number", start, end, number, (compact(token),))
    if len(token) < 4 or _UNIT_SUFFIX.fullmatch(token):
        return None
    return Value("id", start, end, None, (compact(token),))


@dataclass(frozen=True, slots=True, eq=False)
class Source:
    """Where a value is held: the call, "arguments" or "result", and the field name (the
    last key on the way to it; "" for a result that is not JSON)."""

    call: ToolCall
    part: str
    field: str


def _leaves(value: object, name: str = "", depth: int = 0) -> Iterator[tuple[str, object]]:
    if depth > 32:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, str(key), depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item, name, depth + 1)
    elif value is not None and not isinstance(value, bool):
        yield name, value


def leaf_keys(value: object, language: str) -> tuple[set[Decimal], set[str]]:
    """The comparison keys of one leaf: its numbers, and its compact forms (the whole, each
    value stated inside a text, each personal-data value found and its mask, date keys)."""
    numbers: set[Decimal] = set()
    keys: set[str] = set()
    if isinstance(value, int | float):
        numbers.add(Decimal(repr(value)) if isinstance(value, float) else Decimal(value))
        keys.add(compact(str(value)))
        return numbers, keys
    text = str(value)
    keys.add(compact(text))
    keys.add(compact(text.lstrip("#")))
    number = parse_number(text, language)
    if number is not None:
        numbers.add(number)
    for f in find(text):
        if f.cls in PERSONAL:
            keys.add(compact(text[f.start:f.end]))
            keys.add(compact(apply_masks(text[f.start:f.end],
                                         [Finding(f.cls, 0, f.end - f.start, f.detector)],
                                         {f.cls: True})))
    for stated in stated_values(text, language):
        keys.update(stated.keys)
        if stated.number is not None:
            numbers.add(stated.number)
    keys.discard("")
    return numbers, keys


class SourceIndex:
    """Every leaf of every call's arguments and result, indexed by its comparison keys.
    Built once per reply from the conversation's calls."""

    def __init__(self, calls: Iterable[ToolCall], language: str) -> None:
        self.numbers: dict[Decimal, list[Source]] = {}
        self.keys: dict[str, list[Source]] = {}
        self.fields: dict[tuple[int, str], list[tuple[set[Decimal], set[str]]]] = {}
        for call in calls:
            for part, value in (("arguments", call.arguments), ("result", call.result)):
                for name, leaf in _leaves(value):
                    numbers, keys = leaf_keys(leaf, language)
                    source = Source(call, part, name)
                    for n in numbers:
                        self.numbers.setdefault(n, []).append(source)
                    for k in keys:
                        self.keys.setdefault(k, []).append(source)
                    if part == "result":
                        self.fields.setdefault((id(call), name), []).append((numbers, keys))

    def sources(self, value: Value) -> list[Source]:
        """The sources holding `value`, oldest call first, without repeats."""
        found: list[Source] = []
        if value.number is not None:
            found += self.numbers.get(value.number, ())
        for key in value.keys:
            found += self.keys.get(key, ())
        return list(dict.fromkeys(found))

    def differs(self, call: ToolCall, name: str, value: Value) -> bool:
        """Does `call`'s result give field `name` a value other than `value`?"""
        for numbers, keys in self.fields.get((id(call), name), ()):
            same = (value.number is not None and value.number in numbers) or any(
                k in keys for k in value.keys)
            if not same:
                return True
        return False


def read_time(result: Any) -> float | None:
    """A result's `as_of` / `retrieved_at` as epoch seconds (ISO 8601, `Z` allowed, naive
    read as UTC; or epoch seconds), None when absent or unreadable."""
    if not isinstance(result, Mapping):
        return None
    for key in ("as_of", "retrieved_at"):
        stamp = result.get(key)
        if isinstance(stamp, int | float) and not isinstance(stamp, bool):
            return float(stamp)
        if isinstance(stamp, str):
            try:
                when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                continue
            return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()
    return None
