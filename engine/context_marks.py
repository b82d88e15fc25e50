"""What the text just before a digit run says it is: an id, a time, an ISBN or a reference, not
a phone number (`"product_id": 3074185296`, `ISBN 0-306-40615-2`, `order 2025550143`). Plain
functions beside the detectors, not inside their regexes; `Refusing` hands a detector's
matches to one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

#: How far back the marks are read, in characters.
LOOK_BACK = 48

# A JSON, YAML or code key naming an id or a time, right before the value (its closing quote
# or bracket, `:` `=` `=>` `:=`, an opening quote between): `"product_id": `, `created_at=`,
# `'timestamp' => '`, `userId: `. Searched up to the value, so `$` anchors at it.
_KEY = (r"[A-Za-z0-9_]{0,40}(?:_id|Id|ID|_at|At|_ts|_time|Time|_ref)"
        r"|id|ID|Id|ts|timestamp|Timestamp|TIMESTAMP|epoch|time|date|isbn|ISBN|sku|SKU")
_KEY_MARK = rf"(?<![A-Za-z0-9])(?:{_KEY})[\"'`]?\]?[ \t]*(?::|=>?|:=)[ \t]*[\"'`]?$"
# A word naming the kind of number, then at most a `number`/`no.`/`#`-like word and a
# separator: `ISBN`, `ISBN-13:`, `order no. `, `invoice #`, `tracking number: `, `ref.`,
# `Unix time`, and in Portuguese `pedido nº`, `nota fiscal`, `protocolo`, `rastreio`.
_WORD = (r"isbn(?:-1[03])?|issn|order|invoice|tracking|ref|reference|receipt|ticket"
         r"|account|acct|sku|serial|unix(?: time)?|epoch|timestamp|build"
         r"|pedido|fatura|nota fiscal|nf-?e|protocolo|rastreio|rastreamento")
_NUMBER_WORD = r"(?:number|num\.?|no\.?|nr\.?|n[º°o]\.?|id|code|#|n[uú]mero)"
_WORD_MARK = (rf"(?<![A-Za-z0-9])(?i:{_WORD})(?:[ \t]+(?i:{_NUMBER_WORD}))?"
              rf"[ \t]*[:#.=-]?[ \t]*#?$")
_MARK = re.compile(f"(?:{_KEY_MARK})|(?:{_WORD_MARK})")


def marked_as_other(text: str, start: int, end: int) -> bool:
    """Whether the text before `text[start:end]` marks it as something other than a phone
    number: a key naming an id or a time (`"product_id": `, `"created_at": `, `timestamp=`),
    or a word naming the kind of number (`ISBN`, `order`, `invoice`, `tracking`, `ref`,
    `Unix time`, `pedido`, `protocolo`, ...), at most a `number`/`no.`/`#` between. Reads the
    `LOOK_BACK` characters before `start`."""
    return _MARK.search(text, max(0, start - LOOK_BACK), start) is not None


class Refusing:
    """A compiled pattern whose matches `refuse(text, start, end)` turns down are skipped:
    `search`, `match` and `finditer` behave as the pattern's own would if those matches did
    not exist (a refused match's text is passed over as `finditer` passes over a match), so
    where a detector runs and what overlaps what are unchanged (`engine.find`). `pattern` is
    the compiled pattern itself."""

    __slots__ = ("pattern", "refuse")

    def __init__(self, pattern: re.Pattern[str],
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
