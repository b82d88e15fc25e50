"""Text normalisation for phrase matching: case folding and accent folding that keep offsets,
and wording (`wording`): the text's canonical view (engine.canon) folded, the marks inside
words read as spaces; the readings of a text holding invisible characters (engine.find).

Matching in pt-BR ignores accents ("nao" matches "não"); both folds map one character to one
character, so a match's offsets hold in the canonical view (`wording_spans` maps them back).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator

from replyguard.engine.canon import canonical
from replyguard.engine.plain import NO_WORK, not_ascii, plain


def _accent_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0xC0, 0x250):
        char = chr(code)
        decomposed = unicodedata.normalize("NFD", char)
        if len(decomposed) > 1 and all(unicodedata.combining(c) for c in decomposed[1:]):
            table[code] = decomposed[0]
    table[ord("ª")] = "a"
    table[ord("º")] = "o"
    return table


_ACCENTS = _accent_table()


def fold(text: str, *, strip_accents: bool = False) -> str:
    """Lower-case `text` (and remove Latin accents when `strip_accents`), one char for one char.

    `len(fold(t)) == len(t)` always holds; a character whose lower case is longer is kept as is.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    if strip_accents:
        lowered = lowered.translate(_ACCENTS)
    return lowered


def _invisible() -> str:
    """Every format character (Unicode category Cf: zero-width space, non-joiner and joiner,
    word joiner, BOM, soft hyphen, direction marks, embeddings, overrides and isolates,
    invisible operators, the Mongolian vowel separator, tag characters), the variation
    selectors (U+FE00-FE0F, the supplement's U+E0100-E01EF, Mongolian U+180B-180D and
    U+180F) and the combining grapheme
    joiner (U+034F); and the combining marks of no script (U+0300-036F, U+1AB0-1AFF,
    U+1DC0-1DFF, U+20D0-20FF, U+FE20-FE2F: accents typed apart, strokes and underlines over
    a digit, `111\u0332\u0031`, the keycap of `4\ufe0f\u20e3`); and the other default-ignorable
    code points that are letters or marks (Unicode's Default_Ignorable_Code_Point: the Hangul
    fillers U+115F, U+1160, U+3164 and U+FFA0, the Khmer inherent vowels U+17B4-17B5), in
    order. (No format character lies above U+1FFFF outside the tags' plane, U+E0000-E0FFF.)"""
    codes = [code for code in (*range(0x80, 0x20000), *range(0xE0000, 0xE1000))
             if unicodedata.category(chr(code)) == "Cf"]
    codes += [0x34F, 0x180B, 0x180C, 0x180D, 0x180F, *range(0xFE00, 0xFE10),
              *range(0xE0100, 0xE01F0)]
    codes += [0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0]
    for low, high in ((0x300, 0x370), (0x1AB0, 0x1B00), (0x1DC0, 0x1E00), (0x20D0, 0x2100),
                      (0xFE20, 0xFE30)):
        codes += [code for code in range(low, high) if unicodedata.category(chr(code))[0] == "M"]
    return "".join(map(chr, sorted(set(codes))))


#: Characters that show nothing (`_invisible`). `engine.find` reads a text holding one without
#: them (`visible`) and with them as spaces (`invisible_as_spaces`); wording reads them as
#: spaces or removes them (`wording`).
INVISIBLE = _invisible()


def _char_class(chars: Iterable[str]) -> str:
    """A regex class of `chars` (in order) as ranges."""
    ranges: list[list[int]] = []
    for code in map(ord, chars):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


#: Marks that do not change what a sentence says: Markdown emphasis and code, hyphens,
#: no-break and thin spaces, and invisible characters. Wording is matched with them read as
#: spaces (`A **guaranteed** refund`, `guaranteed-refund`).
_MARKUP_CHARS = ("*_~`-/\"'\u2010\u2011\u2012\u2013\u2014\u2015\u2018\u2019\u201c\u201d"
                 "\u00a0\u2009\u202f" + INVISIBLE)
_MARKUP = str.maketrans(dict.fromkeys(_MARKUP_CHARS, " "))
_INVISIBLE_CODES = frozenset(map(ord, INVISIBLE))
#: Every combining mark (Unicode categories Mn and Me), of any script, but the `INVISIBLE`
#: ones: a variation selector or a grapheme joiner on a digit (`4539\ufe001488`) is read as
#: any invisible character is, as nothing and as a space, not as a mark that stands for none.
_MARKS = "".join(chr(code) for code in range(0x300, 0x20000)
                 if unicodedata.category(chr(code)) in ("Mn", "Me")
                 and code not in _INVISIBLE_CODES)
#: Every decimal digit (Unicode category Nd): those below U+10000 join the first character's
#: bitmap (`\\d` there is a category lookup for each character).
_DIGITS = "".join(chr(code) for code in range(0x30, 0x20000)
                  if unicodedata.category(chr(code)) == "Nd")
#: An `INVISIBLE` character; or a digit and the combining marks of any script on it (up to
#: three: `4\u0483`, `4\u0489`, `4\u093c`, `4\u3099`: no script puts a mark on a digit to
#: change what it says), the marks invisible (group `marks`). A character below U+10000 is
#: tested against a class of the invisible ones alone (a bitmap, one test); one above,
#: against them all (a list of ranges, which every character would be tested against in
#: one class: 55 ns a character, not 21). A mark is looked for after a digit only: the
#: marks of a script's letters (Thai, Devanagari) are most of some texts.
_INVISIBLE_RE = re.compile(
    f"[{_char_class(c for c in INVISIBLE + _DIGITS if c < chr(0x10000))}\\U00010000-\\U0010ffff]"
    f"(?:(?<=[{_char_class(INVISIBLE)}])"
    f"|(?<=[{_char_class(_DIGITS)}])(?P<marks>[{_char_class(_MARKS)}]{{1,3}}))")


def has_invisible(text: str) -> bool:
    """Does `text` hold an `INVISIBLE` character or a mark on a digit? Only its characters
    that are not ASCII (and the one before each run of them) are searched where they are few
    (`engine.canon.not_ascii`: a copy and a translation or an encoding in C), the text whole
    where they are many."""
    runs = not_ascii(text)
    if runs is None:
        return _INVISIBLE_RE.search(text) is not None
    search = _INVISIBLE_RE.search
    return any(search(text, start - (start > 0), end) is not None for start, end in runs)


def _without(match: re.Match[str]) -> str:
    marks = match.group("marks")
    return match.group()[0] if marks else ""


def _as_spaces(match: re.Match[str]) -> str:
    marks = match.group("marks")
    return match.group()[0] + " " * len(marks) if marks else " "


def visible(text: str) -> str:
    """`text` without its `INVISIBLE` characters and the marks on its digits (what a reader
    sees)."""
    return _INVISIBLE_RE.sub(_without, text)


def invisible_as_spaces(text: str) -> str:
    """`text` with each `INVISIBLE` character and each mark on a digit read as a space
    (offsets unchanged)."""
    return _INVISIBLE_RE.sub(_as_spaces, text)


def spaced_by_invisible(text: str) -> bool:
    """Does `text` hold an `INVISIBLE` character (which may stand for a space), not only
    marks on digits (which stand for none: `4\u0483 9\u0483…` reads as `49…`)?"""
    return any(match.group("marks") is None for match in _INVISIBLE_RE.finditer(text))


def invisible_gaps(text: str) -> list[int]:
    """Where each character `visible` removes from `text` stands in `visible(text)`: the
    index of the visible character after it (non-decreasing). The character at index `i` of
    `visible(text)` is at index `i + bisect_right(gaps, i)` of `text`."""
    gaps: list[int] = []
    for match in _INVISIBLE_RE.finditer(text):
        first = match.start("marks") if match.group("marks") else match.start()
        gaps.extend(at - len(gaps) for at in range(first, match.end()))
    return gaps


#: `_MARKUP` for ASCII text, as a `bytes.translate` table.
_MARKUP_ASCII = bytes(32 if b in _MARKUP else b for b in range(256))


def _full_width() -> dict[int, str]:
    """Full-width ASCII forms (U+FF01-FF5E, `ｇｕａｒａｎｔｅｅｄ`) as the ASCII characters
    they are (lower case; a space for a markup mark), one character for one character."""
    table: dict[int, str] = {}
    for code in range(0xFF01, 0xFF5F):
        ascii_char = chr(code - 0xFEE0).lower()
        table[code] = " " if ascii_char in _MARKUP_CHARS else ascii_char
    return table


#: `_MARKUP` and the full-width forms, for text that is not ASCII.
_WORDING = {**_MARKUP, **_full_width()}

def wording(text: str, *, strip_accents: bool = False) -> str:
    """Text as phrase lists read it (`never_say`, `offers`, `reply_exactly.words`): its
    canonical view (`engine.canon`: HTML tags and references, JSON escapes and URL encodings,
    Markdown marks at a word's edge, separators, full-width forms and look-alike letters
    undone), invisible characters removed however they are typed (`guaran\u200bteed`,
    `guaran&#8203;teed`, a literal `guaran\\u200bteed` are `guaranteed`), folded (`fold`),
    and the marks left inside words (hyphens, quotes, slashes, `*_~`) read as spaces
    (`guaranteed-refund`)."""
    if text.isascii():
        raw = text.encode("ascii")
        if not raw.translate(None, NO_WORK) and "  " not in text and "%" not in text:
            return raw.lower().translate(_MARKUP_ASCII).decode("ascii")  # (most sentences)
        return _words(_visible_view(canonical(text, shown=True).text), strip_accents)
    text = visible(text)
    if plain(text):
        return _words(text, strip_accents)
    return _words(_visible_view(canonical(text, shown=True).text), strip_accents)


def _visible_view(view: str) -> str:
    """A canonical view without the invisible characters its references and escapes wrote
    (`&#8203;`, `\\u200b`, `%E2%80%8B`: read as the character, then removed as a typed one
    is)."""
    return view if view.isascii() else visible(view)


def wording_spans(pattern: PhrasePattern, text: str, *, strip_accents: bool = False
                  ) -> list[tuple[int, int]]:
    """Where in `text` `pattern` matches as `wording` reads it: each match's span of `text`
    (markup inside included), invisible characters removed as `wording` removes them (each
    offset mapped back through them)."""
    view = canonical(text, shown=True)
    words = view.text
    gaps = [] if words.isascii() else invisible_gaps(words)
    if gaps:
        words = visible(words)
    spans = []
    for match in pattern.finditer(_words(words, strip_accents)):
        start, end = match.span()
        if gaps:  # (the first and the last character of the match, in the view)
            start, end = start + bisect_right(gaps, start), end + bisect_right(gaps, end - 1)
        spans.append(view.span(start, end))
    return spans


def _words(text: str, strip_accents: bool) -> str:
    """`fold` and the marks inside words as spaces: one character for one."""
    if text.isascii():  # (most sentences) the same in C
        return text.lower().encode("ascii").translate(_MARKUP_ASCII).decode("ascii")
    return fold(text, strip_accents=strip_accents).translate(_WORDING)


class PhrasePattern:
    r"""Whole-word matches of a phrase list in folded text (`phrase_pattern`): the matches of
    `(?<!\w)(?:phrase|...)(?!\w)`, found by a pattern without the leading lookbehind whose
    candidates are then checked for a word character before them. A pattern that starts with a
    lookbehind keeps `re` from scanning ahead for the phrases' first characters, which made
    every search of a sentence without any phrase about six times slower.

    `search(text, pos=0)` returns the first match or None; `finditer(text)` yields the
    matches left to right, not overlapping, as `re.Pattern` would. `pattern` is the
    equivalent single pattern's source; two PhrasePatterns with the same source are equal.
    """

    __slots__ = ("_search", "pattern")

    def __init__(self, alternation: str) -> None:
        self._search = re.compile(f"(?:{alternation})(?!\\w)").search
        self.pattern = f"(?<!\\w)(?:{alternation})(?!\\w)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PhrasePattern) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(self.pattern)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """The first whole-word match at or after `pos`, or None."""
        search = self._search
        while (match := search(text, pos)) is not None:
            start = match.start()
            if start == 0 or _WORD_AT(text, start - 1) is None:
                return match
            pos = start + 1
        return None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Every whole-word match, left to right, not overlapping."""
        pos = 0
        while (match := self.search(text, pos)) is not None:
            yield match
            pos = match.end()


_WORD_AT = re.compile(r"\w").match


def phrase_pattern(
    phrases: Iterable[str], *, strip_accents: bool = False
) -> PhrasePattern | None:
    """One alternation matching any of `phrases` as whole words, to be run on folded text.

    Runs of whitespace in a phrase match any run of whitespace. Returns None for no phrases.
    Longer phrases are tried first so the longest one at a position wins.
    """
    parts = []
    for phrase in sorted({wording(p, strip_accents=strip_accents).strip() for p in phrases},
                         key=len, reverse=True):
        if not phrase:
            continue
        parts.append(r"\s+".join(re.escape(word) for word in phrase.split()))
    if not parts:
        return None
    return PhrasePattern("|".join(parts))
