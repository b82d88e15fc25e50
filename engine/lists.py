"""Values read across a list's separators: numbers laid out in a list or a table are no value
unless the text names the value's class beside them.

The view reads every separator between digit groups as a space, so that a value is found
however its groups are set apart. Some separators join the groups of one value anywhere
(value separators: a space, a hyphen, a dot, a slash, `_`, an unpadded `·` `•` `・`, markup
inside a line, a line wrapped right after a hyphen); the others are what lists and tables are
made of (list separators: a line break, a tab, `,` `;` `、`, a table cell's border `|`
`<td>` `<li>`, and the typographic separators padded by spaces ` · ` ` — ` ` • `). A value
whose groups a list separator sets apart is kept only where a name of its class stands before
it in its line, in the line above it, or in the header of the table or CSV it is a row of
(`Card number:` then one group a line); otherwise its groups are read each on its own, and a
number on its own is no value (`120\\t45\\t5400`, `[4003,4004,4005,4006]`).
"""

from __future__ import annotations

import re

from replyguard.engine.context_marks import CARD_NAMES

#: The classes whose values are digit groups a list could set apart.
_GROUPED = ("card", "national_id", "iban", "phone", "ip_address")

#: The names of each class that may stand before its value (the words the detectors and their
#: context marks read: `context_marks.CARD_NAMES`, `SSN`, `social security`, `NHS`...; and
#: in Chinese, Japanese and Korean: `卡号`, `カード`, `电话`...),
#: matched as words of their own in any case, a plural or a camel-cased next word allowed
#: (`cards`, `cardNumber`, `credit_card`).
_NAMES = {
    "card": (*CARD_NAMES, "creditcard", "credit", "cr\u00e9dito", "credito", "debit",
             "d\u00e9bito", "debito", "visa", "mastercard", "amex", "\u5361\u53f7", "\u5361\u865f",
             "\u4fe1\u7528\u5361", "\u94f6\u884c\u5361", "\u30ab\u30fc\u30c9", "\uce74\ub4dc"),
    "national_id": ("ssn", "social security", "nino", "national insurance", "nhs", "cpf",
                    "national id", "tax id", "itin", "\u8eab\u4efd\u8bc1",
                    "\u30de\u30a4\u30ca\u30f3\u30d0\u30fc"),
    "iban": ("iban", "account", "acct", "bank", "conta", "konto", "compte", "cuenta"),
    "phone": ("phone", "telephone", "tel", "telefone", "tel\u00e9fono", "mobile", "cell",
              "cellphone", "celular", "fax", "whatsapp", "\u7535\u8bdd", "\u96fb\u8a71",
              "\u624b\u673a", "\u643a\u5e2f", "\uc804\ud654"),
    "ip_address": ("ip", "ipv4", "ipv6", "address", "host", "server"),
}

#: A character that may be (or start) a list separator: the quick test before `_LIST_SEPARATOR`.
_MAY_LIST = re.compile("[\n\r\t\x0b\x0c\x85\u2028\u2029,;|<&\\\\\u3001\uff64\uff0c\uff1b\uff5c"
                       "\u2014\u00b7\u2022\u2027\u2219\u22c5\u30fb\uff65\u2043]")
#: A list separator: a line break not right after a hyphen (`123-45-` then `6789` is a value
#: wrapped), JSON's escaped line break or tab, a tab, `,` `;` `|` and their full-width and
#: CJK forms (`、`), a tag of a table's cell or row, a list item, a line or a block, a
#: reference to a line break or a tab, or a typographic separator padded by spaces.
_LIST_SEPARATOR = re.compile(
    "(?<!-)(?:\r\n?|[\n\x0b\x0c\x85\u2028\u2029]|\\\\[nr])|\\\\t|\t"
    "|[,;|\u3001\uff64\uff0c\uff1b\uff5c]"
    r"|</?(?i:td|th|tr|li|br|p|div|dd|dt|table|tbody|thead|tfoot|ul|ol|h[1-6]|hr|pre|caption"
    r"|blockquote|section|article)(?![A-Za-z0-9-])"
    r"|&(?:#0*(?:9|1[0-3])(?![0-9])|#[xX]0*[9a-dA-D](?![0-9A-Fa-f])|NewLine;|Tab;)"
    "|(?<=\\s)[\u2014\u00b7\u2022\u2027\u2219\u22c5\u30fb\uff65\u2043](?=\\s)"
)


def listed_unnamed(text: str, cls: str, start: int, end: int, before: str = "") -> bool:
    """Whether the value of class `cls` at `text[start:end]` has groups a list separator sets
    apart (`_LIST_SEPARATOR`) and no name of its class stands before it in `before + text`
    (`named_before`): its groups are then a list's or a table's numbers, no value. A value
    typed with value separators alone is never one (one search of its span: the cost of
    the check)."""
    if cls not in _NAMES or _MAY_LIST.search(text, start, end) is None:
        return False
    if not any(_a_list_separator(text, cls, m)
               for m in _LIST_SEPARATOR.finditer(text, start, end)):
        return False
    if cls == "card" and _tabbed_in_prose(text, start, end):
        return False
    if before:
        return not named_before(before + text, cls, len(before) + start)
    return not named_before(text, cls, start)


#: A card's four groups of four digits, tabs between them (`_tabbed_in_prose`).
_TABBED_CARD = re.compile(r"[0-9]{4}(?:\t[0-9]{4}){3}")


def _tabbed_in_prose(text: str, start: int, end: int) -> bool:
    """Is the card at `text[start:end]` four groups of four digits set apart by a tab each
    (`4539\t1488\t0343\t6467`) in a line of prose: words before or after it and no other
    tab in the line? A row of a table of numbers (TSV: a tab before or after the groups, or
    a line of nothing else) is no such line."""
    if _TABBED_CARD.fullmatch(text, start, end) is None:
        return False
    line = text.rfind("\n", 0, start) + 1
    stop = text.find("\n", end)
    stop = len(text) if stop == -1 else stop
    if "\t" in text[line:start] or "\t" in text[end:stop]:
        return False
    return any(c.isalpha() for c in text[line:start]) or any(c.isalpha() for c in text[end:stop])


#: A character reference before a `;` that ends it (`&#52;`, `&nbsp;`: no list separator).
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31})\Z")


def _a_list_separator(text: str, cls: str, match: re.Match[str]) -> bool:
    """Is `match` of `_LIST_SEPARATOR` one: not the `;` that ends a character reference, nor
    a `|` glued to an IBAN's groups (`GB82|WEST|1234|…`: a country code and letters no
    table of numbers holds)?"""
    at = match.start()
    char = text[at]
    if char == "|":
        return cls != "iban" or text[at - 1:at].isspace() or text[at + 1:at + 2].isspace()
    return char != ";" or _REFERENCE.search(text, max(0, at - 34), at) is None


#: How far back a name is looked for, in characters: in the value's line, the line above it
#: and the header of its table (a reply's screen keeps as much of what came before a piece:
#: `engine.reply`).
READ_BACK = 1024
#: A table's separator line (`|---|:--:|`).
_RULE_LINE = re.compile(r"[ \t|:+-]*-[ \t|:+-]*")
#: How many lines back a table's or a CSV's header is looked for.
_HEADER_REACH = 200


def named_before(text: str, cls: str, start: int) -> bool:
    """Whether a name of class `cls` (`_NAMES`) stands before `text[start]` in its line, in
    the line above it (past a blank line or a table's separator line), or in the header
    (the first line) of the table or CSV whose row its line is; in the `READ_BACK`
    characters before it."""
    names = _NAMES[cls]
    stop = text.find("\n", start, start + READ_BACK)
    rest = text[start:start + READ_BACK] if stop == -1 else text[start:stop]
    text = text[max(0, start - READ_BACK):start]
    low = text.lower()
    line = text.rfind("\n") + 1
    if _named(text, low, names, line, len(text)):
        return True
    if line == 0:
        return False
    above = _line_above(text, line)
    if above is not None and _named(text, low, names, *above):
        return True
    header = _header(text, line, text[line:] + rest)
    return header is not None and _named(text, low, names, *header)


def _named(text: str, low: str, names: tuple[str, ...], start: int, end: int) -> bool:
    """Does one of `names` stand as a word in `text[start:end]` (`low` is `text` in lower
    case): no letter before it, no small letter after it but a plural's `s` or `es`, and
    naming things counted (`counted`: `Cards sold per month:`) no value? Each
    name is looked for with `str.find` (a regex of them all, tried at each character, cost
    50 times as much on a long line)."""
    for name in names:
        at = low.find(name, start, end)
        while at != -1:
            after = at + len(name)
            if low.startswith("es", after):
                after += 2
            elif low.startswith("s", after):
                after += 1
            if (not (at and text[at - 1].isascii() and text[at - 1].isalpha())
                    and not (after < len(text) and "a" <= text[after] <= "z")
                    and not counted(low, at, after, end)):
                return True
            at = low.find(name, at + 1, end)
    return False


#: Words after a name that make it name things counted (`Cards sold per month:`, `phones
#: shipped`, `accounts per day`, `card count`), and before it (`Number of cards:`). (Not a
#: verb a card's own label may hold: `Card used:`, `Card declined:` name one card.)
_COUNTED_AFTER = re.compile(
    r"[\s_-]*(?:[a-z]+\s+){0,2}?(?:sold|shipped|processed|returned|printed|per|count"
    r"|counts|total|totals|vendidos?|vendidas?|por)(?![a-z])")
_COUNTED_BEFORE = re.compile(r"(?:number|no\.|count|total|how many|n\u00famero|quantidade)"
                             r"\s+(?:of\s+|de\s+)?(?:[a-z]+\s+)?\Z")


def counted(low: str, at: int, after: int, end: int) -> bool:
    """Whether the name at `low[at:after]` (a text in lower case) names things counted, so
    that the numbers after it are counts, no value of its class: a verb or a word of a
    count or a rate within three words after it (`Cards sold per month:`, `Phones shipped:`,
    `card count`, `cartões vendidos`), or a word of a count before it in the plural
    (`Number of cards:`, `total cards`, `quantidade de cartões`; `the number of the card:`
    names one)."""
    if _COUNTED_AFTER.match(low, after, min(end, after + 48)) is not None:
        return True
    return low[after - 1] == "s" and _COUNTED_BEFORE.search(low, max(0, at - 32), at) is not None


def _line_above(text: str, line: int) -> tuple[int, int] | None:
    """The span of the line above the one starting at `line`, past blank lines and a table's
    separator line; None at the text's start."""
    end = line - 1
    while end > 0:
        begin = text.rfind("\n", 0, end) + 1
        stripped = text[begin:end].strip()
        if stripped and _RULE_LINE.fullmatch(stripped) is None:
            return begin, end
        if begin == 0:
            return None
        end = begin - 1
    return None


def _header(text: str, line: int, row: str) -> tuple[int, int] | None:
    """The span of the first line of the block of table rows or CSV records the line
    `row`, starting at `line`, belongs to, when it is one (else None): a Markdown table's
    lines start with `|`; a CSV's or a TSV's records hold as many of its separator (a
    tab, `;` or `,`) as `row` does."""
    stripped = row.lstrip(" \t>")
    cell = "|" if stripped.startswith("|") else next((c for c in "\t;," if c in row), None)
    if cell is None:
        return None
    cells = row.count(cell)
    first = None
    end = line - 1
    for _ in range(_HEADER_REACH):
        if end < 0:
            break
        begin = text.rfind("\n", 0, end) + 1
        record = text[begin:end]
        if (not record.lstrip(" \t>").startswith("|") if cell == "|"
                else record.count(cell) != cells):
            break
        first = (begin, end)
        end = begin - 1
    return first


def an_unnamed_number(text: str, start: int, end: int) -> bool:
    """Whether the IPv4 address written as one number at `text[start:end]` (`0xC0A8010A`,
    no dot in it) has nothing saying it is one: no name of an address before it
    (`named_before`: `IP`, `host`, `server`, `address`) and no URL's `//` or `@` right
    before it. A 32-bit number in code is a constant (`0xDEADBEEF`), no address."""
    if text.find(".", start, end) != -1:
        return False
    if text.endswith(("//", "@"), max(0, start - 2), start):
        return False
    return not named_before(text, "ip_address", start)
