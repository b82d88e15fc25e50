"""Passwords laid out in lines rather than assigned: the column of a table or a CSV whose header
names a password (`| user | password |` then `| bob | Qz7xK2mP9w |`; `user,password` then
`bob,Qz7xK2mP9w`). `Columns` finds each such cell as a compiled pattern's matches would be
found (the `Finder` a detector holds); it reads a text's lines, so `engine.find` gives it the
text with its lines apart (`needs_lines`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from replyguard.engine.password_pairs import PLURAL_NAME
from replyguard.engine.validators import small_number

#: A name that names a password or a secret (a table's column, a heading, a label line).
LABEL = (r"(?i:pass(?:word|wd|phrase|wort|code)?|pwd?|senha|contrase(?:\u00f1|n)a|mot de passe"
         r"|kennwort|wachtwoord|secret|token|api[_ -]?key"
         r"|\u043f\u0430\u0440\u043e\u043b\u044c|\u30d1\u30b9\u30ef\u30fc\u30c9|\u5bc6[\u7801\u78bc]"
         r"|\ube44\ubc00\ubc88\ud638|\u6697\u8a3c\u756a\u53f7|\u53e3\u4ee4)")
#: A password's own names, not a secret's or a token's (a count is no value under those).
PASSWORD_NAME = re.compile(r"(?i:pass|pw|senha|contrase|mot de passe)")
#: A header cell naming a password: the name, after a word or two (`new password`,
#: `temp_password`, `DB Password`), with a qualifier (`password (temporary)`) or a colon.
_HEADER_CELL = re.compile(
    r"(?:[A-Za-z][\w-]{0,19}[ _.-]){0,2}" + LABEL + r"(?:[ \t]*\([^()]{1,40}\))?:?")
#: Where a header may name a password: the name as a word of its own (not `passport`).
_NAMED = re.compile(r"(?<![A-Za-z0-9])" + LABEL + r"(?![A-Za-z])")
#: `_NAMED`, or a plural name of passwords (`Passwords:` above a list of users' passwords), in
#: one search (`needs_lines`).
_NAMED_IN_LINES = re.compile(_NAMED.pattern + r"|(?<![A-Za-z0-9])" + PLURAL_NAME + r"(?![A-Za-z])")
#: How each of `LABEL`'s names starts, in lower case (`_next_named`).
_STEMS = ("pass", "pw", "senha", "contrase", "mot de passe", "kennwort", "wachtwoord", "secret",
          "token", "api")
#: A table's separator line (`|---|:--:|`).
_SEPARATOR = re.compile(r"[ \t|:-]*-[ \t|:-]*")
#: A cell's value: one word, no space inside (a sentence in a cell is no password).
_TOKEN = re.compile(r"[^\s]{1,128}")
#: Marks around a cell's value that are no part of it (code and emphasis marks, a quoted CSV's
#: quotes).
_MARKS = "`*\""


def needs_lines(text: str) -> bool:
    """Whether `text` (not plain: it is read through a canonical view that joins its lines)
    may hold a password laid out in lines, so that it must also be read with its lines
    apart: it has a line break and a name that names a password, or a plural name of
    passwords ending a line (`Passwords:` above a list of users' passwords)."""
    return "\n" in text and _NAMED_IN_LINES.search(text) is not None


class _LineFinder:
    """A finder that reads a text line by line: `search` is the first of its `finditer`."""

    __slots__ = ()

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        raise NotImplementedError

    def search(self, text: str, pos: int = 0, endpos: int | None = None
               ) -> re.Match[str] | None:
        return next(self.finditer(text, pos, endpos), None)


class AtLineStarts(_LineFinder):
    """A compiled pattern all of whose matches start at a line's start (`(?m)^...`), tried
    only at each line's start in `[pos, endpos)` (`re` would try it at every character):
    `finditer`, `search` and `match` give what the pattern's own would."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        end = len(text) if endpos is None else endpos
        at = pos
        if pos > 0 and text[pos - 1] != "\n":
            at = text.find("\n", pos, end) + 1
            if at == 0:
                return
        match_ = self.pattern.match
        while at < end:
            match = match_(text, at, end)
            if match is not None:
                yield match
            at = text.find("\n", at if match is None else max(at, match.end()), end) + 1
            if at == 0:
                return

    def match(self, text: str, pos: int = 0, endpos: int | None = None
              ) -> re.Match[str] | None:
        return self.pattern.match(text, pos, len(text) if endpos is None else endpos)

    def __repr__(self) -> str:
        return f"AtLineStarts({self.pattern!r})"


class Columns(_LineFinder):
    """The cells under a header cell naming a password, in a table (`|`) or a CSV (`,` `;`)
    whose rows have as many cells as its header: each a match of one word (`_TOKEN`), in
    order of position, as `finditer` gives a pattern's. A header is looked for in
    `[pos, endpos)`, read from its line's start; its rows up to `endpos`."""

    __slots__ = ()

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        end = len(text) if endpos is None else endpos
        if text.find("\n", pos, end) == -1:
            return  # (a header and a row: two lines at least)
        at = pos
        lowered = text.lower() if text.isascii() else None
        while (header := _next_header(text, lowered, at, end)) is not None:
            line_start, line_end = header
            block_end = line_end
            for match in _cells(text, line_start, line_end, end):
                block_end = max(block_end, match.end())
                yield match
            at = max(line_end, block_end) + 1
            if at >= end:
                return

    def match(self, text: str, pos: int = 0, endpos: int | None = None
              ) -> re.Match[str] | None:
        match = self.search(text, pos, endpos)
        return match if match is not None and match.start() == pos else None

    def __repr__(self) -> str:
        return "Columns()"


def _next_named(text: str, lowered: str, at: int, end: int) -> re.Match[str] | None:
    """`_NAMED.search(text, at, end)` in an ASCII text (`lowered` its lower case): the name
    tried only where one of its stems occurs (the regex would be tried at every character)."""
    best: re.Match[str] | None = None
    for stem in _STEMS:
        # (Only a stem starting before the best name so far: its end may lie past that.)
        stop = end if best is None else min(end, best.start() + len(stem) - 1)
        i = lowered.find(stem, at, stop)
        while i != -1:
            named = _NAMED.match(text, i, end)
            if named is not None:
                best = named
                break
            i = lowered.find(stem, i + 1, stop)
    return best


def _line_end(text: str, at: int, end: int) -> int:
    found = text.find("\n", at, end)
    return end if found == -1 else found


def _split(line: str, sep: str) -> list[tuple[int, int]]:
    """The cells of a line as `(start, end)` offsets in it; a table's outer pipes (either may
    be missing, a quoted or listed row's first one read as its prefix) open no cell."""
    spans: list[tuple[int, int]] = []
    start = 0
    for i, char in enumerate(line):
        if char == sep:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(line)))
    if sep == "|":
        if not line[spans[0][0]:spans[0][1]].strip():
            spans.pop(0)
        if spans and not line[spans[-1][0]:spans[-1][1]].strip():
            spans.pop()
    return spans


def _separator_of(header: str) -> str | None:
    for sep in "|\t,;":
        if sep in header:
            return sep
    return None


def _cells(text: str, start: int, stop: int, end: int) -> Iterator[re.Match[str]]:
    """The values under the password columns of the header `text[start:stop]`, in the rows
    after it up to `end`."""
    for row_start, row, cells, columns in _rows(text, start, stop, end):
        for i, name in columns:
            match = _value(text, row_start, row, cells[i])
            if match is not None and not _a_count(name, match.group()):
                yield match


_Row = tuple[int, str, list[tuple[int, int]], list[tuple[int, str]]]


def _rows(text: str, start: int, stop: int, end: int) -> Iterator[_Row]:
    """The rows after the header `text[start:stop]` when it names a password column, up to
    `end`: each as its start, its text, its cells and the password columns (index, name)."""
    header = text[start:stop]
    sep = _separator_of(header)
    if sep is None:
        return
    spans = _split(header, sep)
    names = [header[a:b].strip(" \t" + _MARKS) for a, b in spans]
    columns = [(i, name) for i, name in enumerate(names)
               if _HEADER_CELL.fullmatch(name) is not None]
    if not columns or len(spans) < 2:
        return
    row_start = stop + 1
    while row_start < end:
        row_end = _line_end(text, row_start, end)
        row = text[row_start:row_end]
        if sep not in row:
            return
        if sep != "|" or _SEPARATOR.fullmatch(row) is None:
            cells = _split(row, sep)
            if len(cells) != len(spans):
                return
            yield row_start, row, cells, columns
        row_start = row_end + 1


def _next_header(text: str, lowered: str | None, at: int, end: int) -> tuple[int, int] | None:
    """The start and end of the next line in `text[at:end]` holding a password's name (a
    header, maybe), or None; `lowered` is `text` in lower case when it is ASCII."""
    named = (_NAMED.search(text, at, end) if lowered is None
             else _next_named(text, lowered, at, end))
    if named is None:
        return None
    return text.rfind("\n", 0, named.start()) + 1, _line_end(text, named.end(), end)


def _blocks(text: str) -> Iterator[tuple[int, int, int, list[tuple[int, int]]]]:
    """Each header line naming a password column in `text`: its start and end, where its
    rows reach (its end when it has none) and the `(start, end)` of each row."""
    end = len(text)
    if text.find("\n") == -1:
        return
    lowered = text.lower() if text.isascii() else None
    at = 0
    while at < end and (header := _next_header(text, lowered, at, end)) is not None:
        line_start, line_end = header
        rows = [(row_start, row_start + len(row))
                for row_start, row, _, _ in _rows(text, line_start, line_end, end)]
        reach = rows[-1][1] if rows else line_end
        yield line_start, line_end, reach, rows
        at = reach + 1


def open_header(text: str) -> str:
    """What the next piece of a text cut into pieces (a long reply, `engine.reply`) is to be
    read after, when the last table or CSV in `text` naming a password column runs on to
    its end (its last whole line the header or a row): that header line, a line break, and
    the unfinished line `text` ends with (a row the cut split). "" when there is none."""
    found = ""
    size = len(text)
    last = text.rfind("\n")
    for start, stop, reach, _ in _blocks(text):
        if reach != size and reach != last:
            continue
        header = text[start:stop]
        if _separator_of(header) is None:
            found = ""
        elif stop >= last:  # (the header is the last line, whole or cut)
            found = text[start:]
        else:
            found = header + "\n" + text[last + 1 :]
    return found


def open_layout(text: str) -> str:
    """`open_header` of `text`, or of its HTML tables laid out in lines (`html_table`)."""
    header = open_header(text)
    if not header and "<" in text:
        table = html_table(text)
        header = open_header(table) if table else ""
    return header


def row_spans(text: str) -> list[tuple[int, int]]:
    """The `(start, end)` of every row a header naming a password column governs in `text`
    (a forced split of a long reply falls between rows, never inside one)."""
    return [row for _, _, _, rows in _blocks(text) for row in rows]


def _a_count(name: str, value: str) -> bool:
    """Is `value` a count under a secret's or a token's column, no password's (`| model |
    max token |` then `| gpt | 4096 |`): a small number (`validators.small_number`)?"""
    return small_number(value) and PASSWORD_NAME.search(name) is None


def _value(text: str, row_start: int, row: str, cell: tuple[int, int]) -> re.Match[str] | None:
    """The one word a cell holds, with no marks around it; None for an empty cell or one
    holding words."""
    a, b = cell
    while a < b and row[a] in " \t" + _MARKS:
        a += 1
    while b > a and row[b - 1] in " \t" + _MARKS:
        b -= 1
    if a == b:
        return None
    match = _TOKEN.match(text, row_start + a, row_start + b)
    return match if match is not None and match.end() == row_start + b else None


#: A tag (its name in group 1 when it opens or closes a table's part), and a line break
#: before a tag (`html_table`).
_TAG = re.compile(r"<(?:(/?t(?:able|head|body|foot|[rdh]))\b|/?[A-Za-z][\w-]{0,31}\b)"
                  r"[^<>]{0,256}>|\n(?=[ \t]*<)", re.IGNORECASE)


def html_table(text: str) -> str:
    """`text` with its HTML tables laid out as a Markdown table's lines, character for
    character (same length, so a span in it is the same span in `text`): a `<tr>` ends a line,
    a `<td>` or `<th>` opens a cell with `|`, `</table>` ends the last line, every other tag and
    a line break before a tag read as spaces (`<tr><th>user</th><th>password</th></tr>` then
    `<tr><td>bob</td><td>Qz7xK2mP9w</td></tr>` reads as `| user | password` then
    `| bob | Qz7xK2mP9w`). "" when `text` holds no table cell."""
    lowered = text.lower()
    if "<td" not in lowered and "<th" not in lowered:
        return ""
    return _TAG.sub(_laid_out, text)


def _laid_out(tag: re.Match[str]) -> str:
    size = tag.end() - tag.start()
    name = (tag.group(1) or "").lower()
    if name in ("td", "th"):
        return "|" + " " * (size - 1)
    if name in ("tr", "/table"):
        return " " * (size - 1) + "\n"
    return " " * size
