"""Passwords listed one a line under a plural name: `Passwords:` (or `Here are the passwords:`,
`Senhas:`, `### Passwords`), then a line per user, their name and their password (`- bob:
Qz7xK2mP9w`, `1. user0 = Lm4nB8vR2t`, `* carol — Xy9pL3kQ2z`). `PasswordPairs` finds each
password as a compiled pattern's matches would be found (the `Finder` a detector holds); it
reads a text's lines, so `engine.find` gives it the text with its lines apart (`needs_lines`).
The user's name stays: it names whose password it is, and a name with a digit in it (`user0`)
is no password.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: A plural name of passwords (`layout.needs_lines` reads it too).
PLURAL_NAME = (r"(?i:passwords|passcodes|senhas|contrase(?:\u00f1|n)as|mots[ \t]de[ \t]passe"
               r"|wachtwoorden)")
#: A plural name of passwords ending its line, a colon after it or none (`Passwords:`, `Here
#: are the passwords:`, `## Senhas`, `New passwords (temporary):`): a list's heading.
_HEADING = re.compile(
    r"(?<![^\W\d_])" + PLURAL_NAME + 
    r"(?:[ \t]*\([^()\n]{1,40}\))?[ \t]*:?(?:\*\*|__)?[ \t]*:?[ \t\r]*(?=\n|\Z)")
#: One item of such a list, a line of its own: a bullet or a number maybe, a user's name (one
#: word, no colon or `=` in it), `:`, `=`, a dash or a spaced hyphen, then the password alone
#: to the line's end (quoted or in a code span maybe, a remark in brackets after it: `(admin)`).
_ITEM = re.compile(
    r"[ \t]*(?:[-*+\u2022][ \t]+|\d{1,3}[.)][ \t]+)?(?:\*\*|__|`)?"
    r"[^\s:=`*\"']{1,64}(?:\*\*|__|`)?"
    r"(?:[ \t]*[:=\u2013\u2014][ \t]*|[ \t]+-[ \t]+)"
    r"(?P<q>[`\"']?)(?P<value>[^\s`\"'()]{4,128})(?P=q)(?:[ \t]+\([^()\n]{1,40}\))?"
    r"[ \t\r]*(?=\n|\Z)")
#: How a plural name of passwords starts, in lower case (`named_in`, `_next_heading`: a cheap
#: test first).
_STEMS = ("passwords", "passcodes", "senhas", "contrase", "mots de passe", "wachtwoorden")
#: Keywords that occur wherever a plural name does: its stems themselves, so that a text
#: naming one password (`password` is common) never has its whole text lowered and searched
#: for a list's heading.
KEYWORDS = _STEMS


def named_in(text: str) -> bool:
    """Does `text` hold a plural name of passwords ending a line (`_HEADING`)? Its stems are
    looked for first (`str.find` on the lower case: a search of `_HEADING` reads every
    character)."""
    low = text.lower()
    return any(stem in low for stem in _STEMS) and _HEADING.search(text) is not None


class PasswordPairs:
    """The passwords of each list under a plural name of passwords (`_HEADING`): in the lines
    after the heading, blank lines passed over, each line an item (`_ITEM`: a user's name and
    a password) up to the first that is none; each password a match whose group `value` is
    the password (as `finditer` gives a pattern's matches, in order of position). A heading is
    looked for in `[pos, endpos)`; its items up to `endpos`."""

    __slots__ = ()

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        end = len(text) if endpos is None else endpos
        at = pos
        low = text.lower()  # (None where a letter's lower case is longer: `İ`)
        lowered = low if len(low) == len(text) else None
        while (heading := _next_heading(text, lowered, at, end)) is not None:
            at = heading.end()
            for item in _items(text, at, end):
                at = item.end()
                yield item

    def search(self, text: str, pos: int = 0, endpos: int | None = None
               ) -> re.Match[str] | None:
        return next(self.finditer(text, pos, endpos), None)

    def match(self, text: str, pos: int = 0, endpos: int | None = None
              ) -> re.Match[str] | None:
        match = self.search(text, pos, endpos)
        return match if match is not None and match.start() == pos else None

    def __repr__(self) -> str:
        return "PasswordPairs()"


def _next_heading(text: str, lowered: str | None, at: int, end: int) -> re.Match[str] | None:
    """`_HEADING.search(text, at, end)`, tried only where a stem of its names occurs in
    `lowered` (the text's lower case, as long as the text; the regex would be tried at every
    character: on the realistic corpus, most of it not ASCII, 3 ms a call)."""
    if lowered is None:
        return _HEADING.search(text, at, end)
    best: re.Match[str] | None = None
    for stem in _STEMS:
        stop = end if best is None else min(end, best.start() + len(stem) - 1)
        i = lowered.find(stem, at, stop)
        while i != -1:
            heading = _HEADING.match(text, i, end)
            if heading is not None:
                best = heading
                break
            i = lowered.find(stem, i + 1, stop)
    return best


def _items(text: str, at: int, end: int) -> Iterator[re.Match[str]]:
    """The items of the list whose heading ends at `text[at]` (a line break, or `end`), up to
    the first line before `end` that is neither blank nor an item."""
    line = text.find("\n", at, end) + 1
    while 0 < line < end:
        stop = text.find("\n", line, end)
        stop = end if stop == -1 else stop
        if text[line:stop].strip():
            item = _ITEM.match(text, line, stop)
            if item is None:
                return
            yield item
        line = stop + 1


def runs_on(text: str) -> bool:
    """Does the last list under a plural name of passwords in `text` (its lines apart, as
    `engine.canon` reads them) run on to its end: the heading, then items alone, blank lines
    between them? (A reply's screen reads each item after the heading: `engine.reply`.)"""
    headings = [heading.end() for heading in _HEADING.finditer(text)]
    if not headings:
        return False
    line = text.find("\n", headings[-1]) + 1
    while 0 < line < len(text):
        stop = text.find("\n", line)
        stop = len(text) if stop == -1 else stop
        if text[line:stop].strip() and _ITEM.match(text, line, stop) is None:
            return False
        line = stop + 1
    return True
