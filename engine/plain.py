"""Quick answers before the canonical view is read: is a text its own view (`plain`: most
sentences are), and a text that is not ASCII read one character for one, with whether the
view's edits may find work in it (`read_one`)."""

from __future__ import annotations

import re
import unicodedata

from replyguard.engine.chars import (
    ASCII_ONE,
    BULLETS,
    FORMS_ONLY,
    LONG_DASHES,
    NO_SPACES_HERE,
    ONE_FOR_ONE,
    OTHER_DIGIT,
    other_digits,
)
from replyguard.engine.markup import OBFUSCATION

#: The ASCII characters that never call for an edit (all but control characters and
#: `*_~` ` ``<&`), deleted by `plain`'s one translation: what is left is work.
NO_WORK = bytes(b for b in range(128) if b >= 32 and b != 127 and chr(b) not in "*_~`<&\\")


def plain(text: str) -> bool:
    """Is `text` its own canonical view: ASCII with nothing to undo (most sentences), or
    Latin-1 whose characters above ASCII all read as themselves (prose with accents:
    `joão`, `Müller`)? Passes in C: a translation, a copy, and `in` tests. Spaces and line
    breaks at the end are passed over (a piece ending a paragraph or a line, `Done.\n\n`):
    whitespace at a text's end is never edited, and a line break reads as itself."""
    if text[-1:] == "\n":  # (a reply's pieces: fed in 4-character deltas 6.90M -> 5.45M a KB)
        text = text.rstrip(" \n")
    if text.isascii():
        return (not text.encode("ascii").translate(None, NO_WORK) and "  " not in text
                and not _url_space(text) and not ("+" in text and ("=" in text
                                                                 or _joined_strings(text)))
                and not _encoded(text) and not _obfuscated(text))
    try:
        rest = text.encode("latin-1").translate(None, NO_WORK)
    except UnicodeEncodeError:
        return False
    return (not rest.translate(None, _LATIN_AS_ITSELF) and "  " not in text
            and not _url_space(text) and not ("+" in text and ("=" in text
                                                                 or _joined_strings(text)))
            and not _encoded(text) and not _obfuscated(text))


#: A code's strings joined (`"…" + "…"`): the view may read them as one
#: (`secret_wraps.strings_joined`).
_STRINGS = re.compile(r"[\"'][ \t]*\+[ \t]*[\"']")


def _joined_strings(text: str) -> bool:
    """Does `text` hold a code's strings joined (`_STRINGS`)? Each `+` is looked for with
    `str.find` and what stands around it checked (a search for `_STRINGS` itself reads every
    character: 1.1 ms on 34 KB of the realistic corpus); where they are dense, searched for."""
    at = text.find("+")
    for _ in range(64):
        if at == -1:
            return False
        if (text[max(0, at - 3):at].rstrip(" \t")[-1:] in _QUOTES
                and text[at + 1:at + 4].lstrip(" \t")[:1] in _QUOTES):
            return True
        at = text.find("+", at + 1)
    return _STRINGS.search(text) is not None


_QUOTES = frozenset("\"'")


def _url_space(text: str) -> bool:
    """Does `text` hold `%20`? Looked for only where it holds a `%` (a `memchr`: a search for
    `%20` itself reads every character, ~3.5k instructions a KB of prose)."""
    return "%" in text and "%20" in text


#: How `=`, `:`, `@` and `&` are encoded where the view reads them as those (`EDIT`'s
#: `encoded`: quoted-printable `=3D`, URL-encoded `%3D` `%3A` `%40` `%26`, twice too:
#: `%253D`; a letter or digit URL-encoded, `%41`, `%6A`): a sign, and what follows it.
_ENCODINGS = (("=", ("3D", "3d", "20", "2D", "2d")),
              ("%", ("2540", "253A", "253a", "253D", "253d", "26", "2526", "2D", "2d", "2E", "2e",
                     "252E", "252e", "3", "4", "5", "6", "7", "C", "D", "E", "F", "c", "d", "e",
                     "f")))


def _encoded(text: str) -> bool:
    """Does `text` hold `=` quoted-printable or `=`, `:`, `@`, `&` URL-encoded
    (`_ENCODINGS`)? (`\\x40` is looked for with every backslash.) Each sign is looked for
    with `str.find` (a `memchr`) and what follows each checked: a search for `=3D` itself
    reads every character (6 ns each, 2.5% of the realistic corpus's cost with the four);
    where the signs are dense, the encodings are searched for."""
    for sign, codes in _ENCODINGS:
        at = text.find(sign)
        for _ in range(64):
            if at == -1:
                break
            if text[at + 1:at + 2] in _CODE_STARTS and text.startswith(codes, at + 1):
                return True
            at = text.find(sign, at + 1)
        else:
            if any(sign + code in text for code in codes):
                return True
    return False


#: What every code of `_ENCODINGS` starts with: a sign followed by another character (`15%
#: off`) is passed over with one test.
_CODE_STARTS = frozenset(code[0] for _, codes in _ENCODINGS for code in codes)


#: The closing brackets of an address's `(at)` and `(dot)` (`_obfuscated`), and what a
#: bracket holds before one.
_OBFUSCATION_CLOSERS = ")]}"


_OBFUSCATION_WORDS = frozenset({"(at", "[at", "{at", "(dot", "[dot", "{dot", "(@", "[@", "{@",
                                "(.", "[.", "{."})


def _obfuscated(text: str) -> bool:
    """Does `text` hold an address's `@` or `.` written as a word in brackets (`(at)`,
    `[dot]`, any case) or as itself in brackets (`[.]`, `(@)`: `EDIT`'s `obfuscated`)? Each
    closing bracket is looked for with `str.find` and the bracket's words checked (each ends
    in `t`, `@` or `.`); where they are dense, the pattern is searched for."""
    for close in _OBFUSCATION_CLOSERS:
        at = text.find(close)
        for _ in range(64):
            if at == -1:
                break
            last = text[at - 1:at]
            if ((last in "tT" and (text[at - 3:at].lower() in _OBFUSCATION_WORDS
                                   or text[at - 4:at].lower() in _OBFUSCATION_WORDS))
                    or (last in "@." and text[at - 2:at] in _OBFUSCATION_WORDS)):
                return True
            at = text.find(close, at + 1)
        else:
            if OBFUSCATION.search(text) is not None:
                return True
    return False


def _as_itself(char: str) -> bool:
    """Does a character above ASCII read as itself in every view (`canonical`, with and
    without look-alike letters): no form, space, dash, look-alike, invisible character or
    other script's digit?"""
    code = ord(char)
    return (ONE_FOR_ONE.get(code, char) == char and FORMS_ONLY.get(code, char) == char
            and unicodedata.category(char) != "Cf" and OTHER_DIGIT.match(char) is None
            and char.isprintable() and not char.isspace() and char not in BULLETS)


#: The Latin-1 characters above ASCII that read as themselves (`plain`), as bytes.
_LATIN_AS_ITSELF = bytes(code for code in range(128, 256) if _as_itself(chr(code)))


def read_one(text: str, table: dict[int, str]) -> tuple[str, bool, bool]:
    """A text that is not ASCII read one character for one (`table`, and other scripts'
    digits: `other_digits`); whether `EDIT` may find work in it; whether it holds a letter of a
    script written without spaces. A text of few characters that are not ASCII (prose with
    a few accents: `_not_ascii`) has only those looked up in `table` and tested, its ASCII
    read as bytes: a tenth of the cost of reading every character."""
    found = _not_ascii(text)
    if found is None:
        if OTHER_DIGIT.search(text) is not None:
            table = other_digits(text, table)
        one = text.translate(table)
        return (one, any(mark in one for mark in _EDIT_STARTS) or _encoded(one)
                or _obfuscated(one) or _SEPARATOR.search(one) is not None,
                NO_SPACES_HERE.search(one) is not None)
    runs, marks = found
    wide = "".join([text[start:end] for start, end in runs])
    if OTHER_DIGIT.search(wide) is not None:
        table = other_digits(wide, table)
    controls = bool(marks.translate(None, _NOT_CONTROL))
    parts: list[str] = []
    pos = 0
    for start, end in runs:
        stretch = text[pos:start]
        parts.append(_ascii_one(stretch) if controls else stretch)
        parts.append(text[start:end].translate(table))
        pos = end
    parts.append(_ascii_one(text[pos:]) if controls else text[pos:])
    one = "".join(parts)
    wide = wide.translate(table)
    may_edit = (bool(marks.translate(None, _NO_EDIT_START)) or "  " in one
                or any(mark in wide for mark in _EDIT_STARTS) or _encoded(one)
                or _obfuscated(one) or _separated(wide, one))
    return one, may_edit, NO_SPACES_HERE.search(wide) is not None


def _ascii_one(stretch: str) -> str:
    return stretch.encode("ascii").translate(ASCII_ONE).decode("ascii")


def _not_ascii(text: str) -> tuple[list[tuple[int, int]], bytes] | None:
    """The runs of characters of `text` that are not ASCII, as `(start, end)`, and the
    text's ASCII form (`?` for each of them); None when they are more than one in 128 (then
    a lookup of every character costs less). Found with `bytes.find` in the ASCII form (a
    regex scan for them costs ten times as much); a text of Latin-1 characters gets that
    form from a copy and one translation (an encoding with `replace` costs 20 instructions a
    character)."""
    size = len(text)
    try:
        marks = text.encode("latin-1").translate(_HIGH_AS_MARK)
    except UnicodeEncodeError:
        marks = text.encode("ascii", "replace")
    if marks.count(b"?") - text.count("?") > size // 128:
        return None
    runs: list[tuple[int, int]] = []
    at = marks.find(b"?")
    while at != -1:
        if text[at] == "?":
            at = marks.find(b"?", at + 1)
            continue
        end = at + 1
        while end < size and not text[end].isascii():
            end += 1
        runs.append((at, end))
        at = marks.find(b"?", end)
    return runs, marks


#: Bytes above ASCII as `?` (`_not_ascii`).
_HIGH_AS_MARK = bytes(range(128)) + b"?" * 128


#: ASCII bytes but control characters (which `ASCII_ONE` changes) and the line break.
_NOT_CONTROL = bytes(b for b in range(128) if 32 <= b < 127 or b == 10)


#: ASCII bytes but those `EDIT` can start with (a line break, `<&*_~` `` ` ``) and control
#: characters, which read as spaces.
_NO_EDIT_START = bytes(b for b in range(128)
                       if 32 <= b < 127 and chr(b) not in "<&*_~`\\%+") + b"?"


#: What `EDIT` can match begins with one of these (a quick test before the scan).
_EDIT_STARTS = ("\n", "  ", " <", " &", "<", "&", "*", "_", "~", "`", "\\", "%20", "+",
                *LONG_DASHES)


#: A typography's separator next to a digit (`BULLETS`: `EDIT`'s `bullet`).
_SEPARATOR = re.compile(rf"[{BULLETS}](?:(?<=[0-9][{BULLETS}])|(?<=[0-9] [{BULLETS}])"
                        r"|(?=[0-9]))")


def _separated(wide: str, one: str) -> bool:
    """Does `one` hold a typography's separator next to a digit (`BULLETS`), `wide` being
    its characters that are not ASCII? `one` is searched only where `wide` holds one of them
    (`、` and `ー` are in most Japanese sentences, by no digit: a search for the separator
    alone, not for `EDIT`'s every alternative)."""
    return _BULLET.search(wide) is not None and _SEPARATOR.search(one) is not None


_BULLET = re.compile(f"[{BULLETS}]")


def not_ascii(text: str) -> list[tuple[int, int]] | None:
    """The runs of characters of `text` that are not ASCII, as `(start, end)`; None when
    they are more than one in 128 (`_not_ascii`)."""
    found = _not_ascii(text)
    return None if found is None else found[0]
