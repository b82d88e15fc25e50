"""What a gap between two characters reads as in the canonical view (whitespace, line breaks
and line prefixes, tags, references): one space, nothing (a value wrapped or marked up inside
itself), a line break, or a name and its value (`</dt><dd>`)."""

from __future__ import annotations

import re

from replyguard.engine.marks import KEY_START
from replyguard.engine.markup import (
    BLOCK_NAMES,
    INLINE_TAGS,
    LINE_BREAK_REF,
    TAG_NAME,
    TAG_NAMES,
    alternation,
)
from replyguard.engine.secret_wraps import (
    in_password_value,
    key_goes_on,
    more_of_a_key,
    password_goes_on,
    token_after,
    token_before,
)

#: A numbered list item's marker at a line's start (`8841. `), after the line break.
_NUMBER_MARKER = re.compile(r"[ \t]{0,3}([0-9]{1,9})[.)][ \t]")


def no_item_after_wrap(one: str, start: int, end: int) -> int:
    """Where a gap `one[start:end]` ends when the next line starts with what reads as a
    numbered item's marker but goes on with the value the line before ends in: before that
    marker, which is the rest of the value. So it is after a point where a value wraps (its
    own hyphen, an address's `@`, a dot in dotted digits: `_wrap_point`; `536-22-\n8841.
    Next`) and after a digit when the marker's number has three digits or more (`536 22\n8841.
    Thanks`: `engine.segment` reads the same; `1990\n2. Next` is an item)."""
    if start < 2 or not one[end - 1].isspace():
        return end
    brk = max(one.rfind("\n", start, end), one.rfind("\\n", start, end) + 1)
    if brk < start:
        return end
    item = _NUMBER_MARKER.match(one, brk + 1)
    if item is None or item.end() != end or not (
            _wrap_point(one, start) or (one[start - 1].isdigit() and len(item.group(1)) > 2)):
        return end
    return item.start(1)


def _wrap_point(one: str, at: int) -> bool:
    """Does a line that ends at `at` end where a value wraps: after its own hyphen or an
    address's `@` (a letter or digit before), or after a dot in a number in dotted groups
    (`529.982.`)? (`_wrapped` reads what follows too.)"""
    before = one[at - 1]
    if before in "-@":
        return one[at - 2].isalnum()
    return before == "." and _DOTTED.search(token_before(one, at - 1)) is not None


def joins_numbers(written: str, one: str, start: int, end: int) -> bool:
    """Does a gap read as `written` join two numbers or a value wrapped after its hyphen?"""
    return written == "" or (written == " " and _numbers_on_both_sides(one, start, end))


#: A description list's term ending and its description starting (`</dt><dd>`): the view
#: reads a gap holding them (and inline tags around: `</b></dt><dd><code>`) as `: `, as a
#: name and its value are written, or as a space after a term's own `:` (`read_gap`).
_TERM_THEN_DESCRIPTION = re.compile(r"</[dD][tT][ \t\n]*>[ \n]*<[dD][dD][ \t\n]*>")


def read_gap(gap: str, start: int, end: int, one: str, join: bool, shown: bool, glue: bool = False
         ) -> str | None:
    """What the view holds for a gap (`EDIT`), None for the gap as it reads: one space,
    or (`join` false) a line break where the gap holds a line break or a tag, and the gap
    as it is where it is whitespace alone. Whitespace at an end of the text stays. A `+`
    between digits reads as a space in a URL's query only (`_in_query`), and a description
    list's term and description between two words as a name and its value (`: `). (Groups
    that a line break or a list item's marker sets apart, `- 8080\n- 8443`, are one value
    only after a name of its class: `engine.lists`.)"""
    if gap == " " or (gap == "+" and not _in_query(one, start)):
        return None
    if gap.rstrip("\n") in ("=", " =") and gap.endswith("\n"):  # (`=\r\n` reads `=\n\n`)
        return gap.rstrip("\n")[:-1]  # (a quoted-printable soft line break: nothing)
    blank = gap.isspace()
    if blank and (start == 0 or end == len(one)):
        return None
    breaks = ("\n" in gap or "<" in gap or "\\n" in gap or "\\r" in gap
              or ("&" in gap and LINE_BREAK_REF.search(gap) is not None))
    if not shown and 0 < start and end < len(one) and not one[start - 1].isspace() and (
            not one[end].isspace()):
        if _TERM_THEN_DESCRIPTION.search(gap) is not None:  # (`<dt>Password</dt><dd>…`)
            return " " if one[start - 1] in ":=" else ": "
        if not blank and INLINE_TAGS.fullmatch(gap) and (
                not _ends_element(gap, one, start, end)
                or (glue and _glued_word(gap, one, start, end))
                or in_password_value(one, start)):
            return ""  # (inline tags between two characters show as nothing: `45<b>67`)
        if join and breaks and _wrapped(gap, one, start, end):
            return ""  # (`123-45-\n6789`: a value wrapped inside itself)
    if join:
        space = " "
    elif blank:
        return None
    else:
        space = "\n" if breaks else " "
    names = "" if shown or blank else _label_names(gap, one, start, end)
    if names:  # (`<order> 2025550143` reads `order 2025550143`)
        return (space if start > 0 else "") + names + (space if end < len(one) else "")
    return space


#: What a number starts with (`_label_names`).
_NUMBER_STARTS = frozenset("0123456789+(")


#: The name of a tag of no HTML element (`<order>`, `</my-id>`): `_label_names`.
_UNKNOWN_NAME = re.compile(
    rf"</?(?!{alternation(TAG_NAMES)}[ \t\n/>])({TAG_NAME})[ \t\n]*/?>")


def _label_names(gap: str, one: str, start: int, end: int) -> str:
    """The names of the tags of no HTML element in a gap before a number, as words (`<order>`
    as `order`): angle-bracketed words label the number they hold or stand before in
    XML-like data, as a word before it does (`<order> 2025550143` is an order's number, no
    phone). Not between two digits (`4111 <x>1111</x> 1111 1111`: one number), nor before
    anything else (`password: <your-password>` is a placeholder, no value)."""
    if ("<" not in gap or end == len(one) or one[end] not in _NUMBER_STARTS
            or (0 < start and one[start - 1].isdigit())):
        return ""
    return " ".join(m.group(1) for m in _UNKNOWN_NAME.finditer(gap))


def _ends_element(gap: str, one: str, start: int, end: int) -> bool:
    """Do inline tags `one[start:end]` between two characters start by ending an element,
    before a letter, a digit, a tag or another element (`</b>1990`, `</span><span>12/26`)?
    They then read as a space, so that a value ends there and its mask covers no tag after
    it (but see `_glued_word`). (An element opened and closed in them, `4539<b></b>1488`,
    ends nothing: it shows as nothing; nor does one that holds letters alone from a tag
    on, the word going on after it: `<b>pass</b>word`, `<b>Pass</b><i>word</i>`,
    `p<b>ass</b>word` read `password`.)"""
    after = one[end]
    return gap.startswith("</") and (after.isalnum() or after == "<"
                                     or _OPENING_TAG.search(gap) is not None) and not (
        after.isalpha() and _letters_in_element(one, start))


def _letters_in_element(one: str, at: int) -> bool:
    """Do the characters before `at` since the last tag (a `>`) hold letters alone (up to 32
    of them): an element opened at a word's start that ends inside it?"""
    word = at
    floor = max(0, at - 32)
    while word > floor and one[word - 1].isalpha():
        word -= 1
    return word < at and word > 0 and one[word - 1] == ">"


def _glued_word(gap: str, one: str, start: int, end: int) -> bool:
    """Do closing tags alone (`</b>`) end an inline element holding one word and stand
    glued to a letter or digit after them? The two words show as one (`<b>AKIA</b>IOSF…`,
    `<b>4539</b>148803436467`, and inside a known key's token, `sk-proj-ab<b>cd</b>4fJk…`):
    the text is read with them as nothing too (`Canonical.glued`)."""
    return (gap.startswith("</") and end < len(one) and one[end].isalnum()
            and _OPENING_TAG.search(gap) is None and INLINE_TAGS.fullmatch(gap) is not None
            and _ONE_WORD_ELEMENT.fullmatch(token_before(one, start).lstrip("([{\"'"))
            is not None)


#: An inline element's opening tag and one word after it, a token's start or after a known
#: key's start (a tag or CJK text before the key too: `<b>sk-proj-ab<i>cd`, `是sk-…`;
#: `_glued_word`).
_ONE_WORD_ELEMENT = re.compile(r"(?:\S*?(?<![A-Za-z0-9-])" + KEY_START + r"[\w+/=.-]*)?"
                               r"<[A-Za-z][A-Za-z0-9]{0,31}>[\w+/=.-]+")


#: Such an element glued to a letter or digit after its closing tag, at a token's start or
#: inside a known key (`sk-proj-ab<b>cd</b>4fJk…`: `Canonical.glued`).
GLUED_ELEMENT = re.compile(r"(?:(?<![^\s(\[{\"'])|(?<![A-Za-z0-9-])" + KEY_START
                           + r"[\w+/=.-]{0,256}?)<([A-Za-z][A-Za-z0-9]{0,31})>[\w+/=.-]+"
                           r"</\1[ \t\n]*>(?=[A-Za-z0-9])")


#: The start of an opening tag (`_ends_element`).
_OPENING_TAG = re.compile("<[A-Za-z]")


#: A known secret's start and 6 characters of it at least, ending a token (`_wrapped`):
#: `sk-`, `ghp_`, `eyJ`... as `engine.detectors` finds them.
_SECRET_HEAD = re.compile(r"(?<![A-Za-z0-9])" + KEY_START + r"[\w.-]{6,}\Z")


def _wrapped(gap: str, one: str, start: int, end: int) -> bool:
    """Does a line break (or `<br>`) between two characters that are no space wrap a value
    inside itself, a letter or digit after it: after a hyphen inside a word or number
    (`123-45-\n6789`, `GB82-WEST-<br>1234`), after the `@` of an address
    (`zelda.quux@\nexample.org`), after a dot between digits ending a token that holds a
    dot already (`529.982.\n247-25`; not `in 1990.\n2001`; `engine.segment` reads the
    same), or inside a known secret's token, when what
    follows reads as more of it, not as a word (`sk-proj-4fJk29\nPz8XvTn7`, `AKIAIOSFOD\nNN7…`,
    a JWT's part after its dot, `eyJ….\neyJ…`, and its signature, `eyJ….\ndozj…`; not
    `...\nThen`)?
    Read joined, and apart too (`Canonical.joined`)."""
    before, after = one[start - 1], one[end]
    if after == "@" and start >= 2 and before.isalnum():  # (`jane.doe\n@example.com`)
        return "\n" in gap or "\\n" in gap or _LINE_BREAK_TAG.search(gap) is not None
    if start < 1:
        return False
    if not after.isalnum():  # (a key's own `-`, `_` or a JWT's `.` starting the next line)
        return after in "-_." and before.isalnum() and (
            "\n" in gap or "\\n" in gap) and key_goes_on(one, start, end)
    if before == "-":
        return start >= 2 and one[start - 2].isalnum()
    if not ("\n" in gap or "\\n" in gap or _LINE_BREAK_TAG.search(gap) is not None):
        return False  # (a tag that ends no line: `report@2x.png.</b> ok`)
    if before == "@":
        return start >= 2 and one[start - 2].isalnum()
    if before == ".":
        if one.startswith("eyJ", end):  # (a token's next part: `eyJ….` / `eyJ….sig`)
            return _SECRET_HEAD.search(token_before(one, start)) is not None
        if _TOKEN_PART.search(token_before(one, start)) is not None:  # (`eyJ….` / `sig`)
            return more_of_a_key(token_after(one, end))
        return after.isdigit() and _DOTTED.search(token_before(one, start - 1)) is not None
    if not (before.isalnum() or before in "_-/"):
        return False
    return key_goes_on(one, start, end) or password_goes_on(one, start, end)




#: A JWT's part and its dot ending a token (`eyJ….`): a signature may follow on the next line.
_TOKEN_PART = re.compile(r"(?<![\w-])eyJ[\w-]{4,}\.\Z|\.eyJ[\w-]{4,}\.\Z")




#: A number in dotted groups (`529.982`, before the dot that ends its line: `_wrapped`).
_DOTTED = re.compile(r"[0-9]\.[0-9]+\Z")


#: A tag that breaks a line (`<br>`, `<br/>`, `</p>`, `<div>`...): any block element's.
_LINE_BREAK_TAG = re.compile(rf"</?{alternation(BLOCK_NAMES)}[ \t\n/>]")




def _in_query(one: str, start: int) -> bool:
    """Is the `+` at `start` in a URL's query or a form's fields, after `?name=` or `&name=`
    in the same token (`?card=4111+1111+...`, where it stands for a space)?"""
    floor = max(0, start - 256)
    equals = one.rfind("=", floor, start)
    field = max(one.rfind("?", floor, equals), one.rfind("&", floor, equals))
    return field != -1 and equals != -1 and not any(c.isspace() for c in one[field:start])


def _numbers_on_both_sides(one: str, start: int, end: int) -> bool:
    """Does a gap read as one space join two digits (two groups of a number, or two numbers)
    across more than one space?"""
    if (end - start < 2 and one[start] == " ") or one[start:end] in ("+", "%20"):
        return False  # (one space, or what encodes one)
    return one[start - 1].isdigit() and end < len(one) and one[end].isdigit()


