"""Views of a text for the detectors: one byte per character (its Latin-1 form, lower case and
shape, and its runs of digits). The text is a canonical view already (engine.canon).

An offset in a view is the same offset in the text, so a window found in a view is a window of
the text (engine.find).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from replyguard.engine.detector import KeywordsIn

# Digits and the separators numbers are written with (`number_shapes.GROUP_PUNCTUATION` among
# them) -> "0", space -> "1", anything else -> "_".
_RUN_TABLE = bytes(
    48 if chr(b) in "0123456789.()[]/+-_,;:|\\~'" else 49 if b == 32 else 95 for b in range(256)
)
# A literal first byte lets `re` skip ahead with a fast search; a run is at least 6 long.
_RUN = re.compile(rb"0[01]{5,}")
# The shape: ASCII letter of either case -> "A", digit -> "0", space -> " ", anything else -> "_".
_SHAPE_TABLE = bytes(
    65 if 65 <= b <= 90 or 97 <= b <= 122 else 48 if 48 <= b <= 57 else 32 if b == 32 else 95
    for b in range(256)
)


#: The non-ASCII letters Python's `re` matches to ASCII ones under IGNORECASE (found by trying
#: every code point): `(?i)s` matches `ſ`. The byte views show them as those letters, so a
#: case-insensitive keyword (`pass`) is seen in them wherever a detector's regex can match.
_ASCII_FOLDS = {0x130: "I", 0x131: "I", 0x17F: "S", 0x212A: "K"}
_ASCII_FOLDS_CHARS = tuple(map(chr, _ASCII_FOLDS))


class Views:
    """Views of one text, built on first use: one byte per character (a character beyond
    Latin-1 becomes `?`, but for `_ASCII_FOLDS`), so an offset in a view is the same offset in
    the text. Every keyword is ASCII, and the shape and the runs read a byte above ASCII as
    they read `?`, so what stands for a non-ASCII character is never read as anything."""

    __slots__ = ("text", "_ascii", "_lower", "_shape", "_runs", "_has", "_places")

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii: bytes | None = None
        self._lower: bytes | None = None
        self._shape: bytes | None = None
        self._runs: list[tuple[int, int, int]] | None = None
        self._has: dict[tuple[KeywordsIn, str], bool] = {}
        self._places: dict[tuple[KeywordsIn, str], list[int]] = {}

    def ascii(self) -> bytes:
        """The text's Latin-1 form: ASCII as itself. (Latin-1, not ASCII with `?` for the
        rest: a Latin-1 text is encoded in one copy, ~10x cheaper; `find` on the realistic
        corpus 495k -> 483k instructions a KB.)"""
        if self._ascii is None:
            text = self.text
            if not text.isascii() and any(c in text for c in _ASCII_FOLDS_CHARS):
                text = text.translate(_ASCII_FOLDS)
            self._ascii = text.encode("latin-1", "replace")
        return self._ascii

    def lower(self) -> bytes:
        if self._lower is None:
            self._lower = self.ascii().lower()
        return self._lower

    def shape(self) -> bytes:
        if self._shape is None:
            self._shape = self.ascii().translate(_SHAPE_TABLE)
        return self._shape

    def hay(self, where: KeywordsIn) -> str | bytes:
        """What keywords read `where` are matched against: the text, its lower case or its
        shape (`Detector.keywords_in`)."""
        return self.text if where == "text" else self.lower() if where == "lower" else self.shape()

    def has(self, where: KeywordsIn, key: str) -> bool:
        """Whether keyword `key` occurs in `self.hay(where)`, remembered (a keyword that does
        not occur costs one whole scan, paid once)."""
        known = self._has.get((where, key))
        if known is None:
            hay = self.hay(where)
            known = key in hay if isinstance(hay, str) else key.encode() in hay
            self._has[where, key] = known
        return known

    def know(self, where: KeywordsIn, key: str, present: bool) -> None:
        """Remember whether keyword `key` occurs in `self.hay(where)`, found by other means
        (engine.plan's Vectorscan pass)."""
        self._has[where, key] = present

    def know_all(self, answers: Mapping[tuple[KeywordsIn, str], bool]) -> None:
        """`know` each of `answers` (`(where, key)`: whether it occurs)."""
        self._has.update(answers)

    def know_places(self, where: KeywordsIn, key: str, places: list[int]) -> None:
        """Remember where keyword `key` occurs in `self.hay(where)` (`places`, in order),
        found by other means (engine.plan's Vectorscan pass)."""
        self._has[where, key] = bool(places)
        self._places[where, key] = places

    def places(self, where: KeywordsIn, key: str) -> list[int]:
        """Where keyword `key` occurs in `self.hay(where)`, in order (remembered: detectors
        sharing a keyword share one scan)."""
        found = self._places.get((where, key))
        if found is None:
            found = []
            if self.has(where, key):
                hay = self.hay(where)
                needle = key if isinstance(hay, str) else key.encode()
                i = hay.find(needle)  # type: ignore[arg-type]
                while i != -1:
                    found.append(i)
                    i = hay.find(needle, i + 1)  # type: ignore[arg-type]
            self._places[where, key] = found
        return found

    def runs(self) -> list[tuple[int, int, int]]:
        """Maximal runs of digits and separators (` .()[]/+-_,:|\\~'`, 6 or more characters), as
        `(start, end, digits)`."""
        if self._runs is None:
            marks = self.ascii().translate(_RUN_TABLE)
            count = self.shape().count
            self._runs = [(start, end, count(b"0", start, end))
                          for start, end in (m.span() for m in _RUN.finditer(marks))]
        return self._runs
