"""A cookie's value in an HTTP header (RFC 6265): each pair's value of a `Cookie` header, the
first pair's of a `Set-Cookie` header or of a script's `document.cookie = "…"` (its
attributes follow it), one match each."""

from __future__ import annotations

import re
from collections.abc import Iterator

#: A cookie's name (RFC 6265's token) and its `=`.
_NAME = r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}="

#: A cookie's value: up to a space, `;`, `,`, a quote or `\` (`-H 'Cookie: sid=…'`).
_VALUE = r"(?P<value>[^\s;,\"'`\\]{1,4096})(?![^\s;,\"'`\\])"

#: A pair's value, or none (`sid=;`: passed over).
_VALUE_OR_NONE = r"(?:" + _VALUE + r"|(?![^\s;,\"'`\\]))"

#: The header's name (`Set-Cookie`: group `set`), its colon and its first pair; or a script
#: setting a cookie as `Set-Cookie` does (`document.cookie = "sid=…; path=/"`: group `set`).
_HEADER = re.compile(
    r"(?:(?:(?i:c(?<=set-c)ookie)[ \t]*:|(?i:c(?<=document\.c)ookie)[ \t]*\+?=[ \t]*[\"'`])"
    r"(?P<set>)|(?i:c(?<![A-Za-z0-9-]c)ookie)[ \t]*:)[ \t]*"
    + _NAME + _VALUE_OR_NONE
)

#: A `Cookie` header's next pair, after the one before it.
_NEXT = re.compile(r";[ \t]*" + _NAME + _VALUE_OR_NONE)


class CookiePairs:
    """The values of a header's cookies, each a match with its group `value`, in order of
    position as `finditer` gives a pattern's: a `Cookie` header's every pair (`Cookie:
    theme=dark; session=…`: each value on its own, the text between them no part of one),
    a `Set-Cookie` header's first. A header is looked for in `[pos, endpos)`, its pairs read
    up to `endpos`."""

    __slots__ = ()

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        end = len(text) if endpos is None else endpos
        search, following = _HEADER.search, _NEXT.match
        while (header := search(text, pos, end)) is not None:
            if header.group("value") is not None:
                yield header
            pos = header.end()
            if header.group("set") is not None:
                continue
            while (pair := following(text, pos, end)) is not None:
                if pair.group("value") is not None:
                    yield pair
                pos = pair.end()

    def search(self, text: str, pos: int = 0, endpos: int | None = None
               ) -> re.Match[str] | None:
        return next(self.finditer(text, pos, endpos), None)

    def match(self, text: str, pos: int = 0, endpos: int | None = None
              ) -> re.Match[str] | None:
        """A header's first pair with a value, at `pos` (a later pair's match starts at
        its `;`, after the header)."""
        header = _HEADER.match(text, pos, len(text) if endpos is None else endpos)
        return None if header is None or header.group("value") is None else header

    def __repr__(self) -> str:
        return "CookiePairs()"
