"""The canonical view of a text: the text as a reader sees it, its typing undone, with a map
of offsets back to the text. The detectors read this view, so a value is found however it was
typed, and its mask covers the whole of what it was typed as.

What is undone (each is property-tested in tests/engine/test_canon.py):

* HTML: tags of formatting and layout elements (`<b>`, `</span>`, `<br/>`), each read as a
  space, as phrase lists have always read them (`guaran<b>teed</b>` is two words), and
  character references (`&#52;`, `&#x34;`, `&amp;`, `&nbsp;`; HTML 5's named references).
* Markdown: runs of emphasis and code marks (`*`, `_`, `~`, `` ` ``) at a word's edge
  (`_4111 1111 1111 1111_`, `4111 **1111** 1111 1111`); marks inside a word are kept, so
  identifiers read as written (`DB_PASSWORD`, `sk_live_...`).
* Separators: every run of whitespace, of control characters (NUL, tab, line breaks) and of
  Unicode space separators (no-break, thin, ideographic, ogham...) reads as one space, and so
  do the prefixes that quote, list or head the next line (`> `, `# `, `- `, `* `, `| `): a value
  typed across lines reads as on one. Where that joins two numbers (two cards, one a line),
  the text is also read with its lines and runs of spaces apart (`Canonical.joined`).
* Forms: full-width ASCII forms (`４１１１`, `ＧＢ８２`, `＠`) and mathematical alphanumerics
  (`𝐀`, `𝟒`) read as ASCII (their Unicode compatibility decomposition); other scripts'
  decimal digits as ASCII digits; non-ASCII hyphens and dashes as `-` (the em dash only
  between digits and in a run of dashes: `—————BEGIN RSA PRIVATE KEY—————`).
* URL encodings of `=`, `:`, `@` and `&` (`%3D`, `%3A`, `%40`, `%26`, twice too: `%253D`) and
  quoted-printable's `=3D`, before a letter, a digit or another encoding; of `.` (`%2E`)
  between two letters or digits (`jane.doe%40example%2Ecom`).
* Look-alike letters: a letter of another script that Unicode's confusables table (UTS #39,
  through the `confusable_homoglyphs` package) lists as a look-alike of one ASCII letter reads
  as that letter (Cyrillic `а`, Greek `ο`); digits and ASCII are never changed, and accented
  Latin letters stay as they are (they are letters of their own: `joão`).
* References read by their neighbours: a separator or a bracket that the view reads by what
  stands around it (`_BY_CONTEXT`) written as a character reference, a JSON escape or a
  percent-encoding (`4539&bull;1488…`, `\\u30fb`, `%C2%B7`, `&#40;at&#41;`) is decoded
  first, and the text then read as if it were typed so; each maps back onto its whole
  reference.
* Scripts written without spaces: where a letter of Chinese, Japanese, Korean or Thai meets
  an ASCII letter or digit, the view holds a space (`カードは4111…です` reads the card as a
  word of its own).

Invisible characters are read by `engine.find` before the view (a text holding one is read
twice), and those that references and escapes write into the view after it. The view is
for finding, never for release: what is released is the text itself, with each mask over
the whole original span of its value.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Iterator

from replyguard.engine.chars import ASCII_ONE, BULLETS, FORMS_ONLY, NO_SPACES, ONE_FOR_ONE
from replyguard.engine.gaps import GLUED_ELEMENT, joins_numbers, no_item_after_wrap, read_gap
from replyguard.engine.marks import inner_stars, marks_at_edge
from replyguard.engine.markup import (
    BY_CONTEXT_WRITTEN,
    EDIT,
    EDIT_KNOWN,
    EDIT_SHOWN,
    INLINE_SET,
    UNKNOWN_TAG,
)
from replyguard.engine.plain import plain, read_one
from replyguard.engine.secret_wraps import strings_joined


def _decoded_first(text: str) -> tuple[str, list[tuple[int, int, int]]]:
    """`text` with each character of `_BY_CONTEXT` written as a reference, an escape or an
    encoding (`BY_CONTEXT_WRITTEN`) as that character, and where each such character
    stands, `(in the decoded text, start, end in text)`: read then as typed, it is read by
    what stands around it as a typed one is (`4539&bull;1488` as `4539•1488`)."""
    parts: list[str] = []
    first: list[tuple[int, int, int]] = []
    pos = size = 0
    for match in BY_CONTEXT_WRITTEN.finditer(text):
        start, end = match.span()
        parts.append(text[pos:start])
        size += start - pos
        parts.append(_decoded(match.group()))
        first.append((size, start, end))
        size += 1
        pos = end
    parts.append(text[pos:])
    return "".join(parts), first


def _decoded(written: str) -> str:
    """The character a reference, a `\\uXXXX` escape or a percent-encoding stands for."""
    if written[0] == "&":
        return html.unescape(written if written.endswith(";") else written + ";")
    if written[0] == "%":
        return bytes.fromhex(written.replace("%", "")).decode("utf-8")
    return chr(int(written[2:], 16))


def _composed(first: list[tuple[int, int, int]], view: Canonical) -> Canonical:
    """The view of a text whose `first` characters were decoded before `view` was read
    (`_decoded_first`), its offsets mapped onto the text: an edit of `view` maps to the
    text its decoded stretch was read from; a decoded character that `view` reads one for
    one is an edit of its own (its reference's whole span)."""
    decoded = Canonical("", [(at, at + 1, start, end) for at, start, end in first])
    mapped: list[tuple[int, int, int, int]] = []
    i, count, shift = 0, len(first), 0  # shift: view offset less decoded offset
    for vs, ve, ds, de in zip(view._view_starts, view._view_ends, view._starts, view._ends,
                              strict=True):
        while i < count and first[i][0] < ds:
            at, start, end = first[i]
            mapped.append((at + shift, at + shift + 1, start, end))
            i += 1
        while i < count and first[i][0] < de:
            i += 1
        start = decoded.start(ds)
        mapped.append((vs, ve, start, decoded.end(de) if de > ds else start))
        shift = ve - de
    for at, start, end in first[i:]:
        mapped.append((at + shift, at + shift + 1, start, end))
    return Canonical(view.text, mapped, view.joined, view.attributes, view.glued)


#: ... before an ASCII letter, digit or `+` (or a mark, escaped too: `は\\_4111`), or after
#: ASCII that follows no such letter (`png.です`; but `用户@例子.广告` is one address): a word
#: boundary in the view; not after an `@`, before a domain (`user@例子.广告`, `user@ドメイン.jp`:
#: an address's domain may be written in any script, RFC 5890), nor at a separator between a
#: value's groups (`4539・1488`, `4539ー1488`: `BULLETS`).
_SCRIPT_EDGE = re.compile(rf"[{NO_SPACES}](?=[A-Za-z0-9+&<*_~`]|\\{{1,2}}[*_~`])"
                          rf"(?<![A-Za-z0-9][{BULLETS}])"
                          rf"|[!-?A-~](?<![{NO_SPACES}][!-~])(?=[{NO_SPACES}])"
                          rf"(?![{BULLETS}][A-Za-z0-9])")


class Canonical:
    """The canonical view of a text (`canonical`): `text` is the view; `span(start, end)` is
    the span of the original text a span of the view was read from. A view character that an
    edit wrote maps to the whole original stretch it replaced; the others map one for one.

    Spans never end inside an edit's stretch: a value's span covers the markup inside it and
    none after it (`_4111 1111 1111 1111_` -> the span of the digits)."""

    __slots__ = ("text", "joined", "attributes", "glued", "_view_starts", "_view_ends", "_starts",
                 "_ends")

    def __init__(self, text: str, edits: list[tuple[int, int, int, int]] | None = None,
                 joined: bool = False, attributes: bool = False, glued: bool = False) -> None:
        self.text = text
        #: Whether closing tags that end an inline element of one word stand glued to a
        #: letter or digit (`<b>AKIA</b>IOSFODNN7EXAMPLE`, `_glued_word`): the text then also
        #: reads with them as nothing (`canonical(glue=True)`, `engine.find`), a finding of
        #: that reading kept where it overlaps none of this one's (`<b>sk-…</b>xx`: the key
        #: ends where its element does).
        self.glued = glued
        #: Whether a tag's attributes were read as text (the detectors' view): the text then
        #: also reads as shown (`engine.find`), a tag whole as a space, so that a value a
        #: tag with attributes stands in (`4111 <span style="…">1111</span> 1111 1111`) is
        #: found as well as one in its attributes.
        self.attributes = attributes
        #: Whether a line break or a run of spaces between two digits was read as one
        #: space: the text then reads two ways (`engine.find`), joined
        #: (`4111 1111` / `1111 1111` as one card) and apart (two cards on two lines).
        self.joined = joined
        # Each edit: view [vs, ve) written for original [os, oe); one for one between edits.
        if edits:
            self._view_starts = [e[0] for e in edits]
            self._view_ends = [e[1] for e in edits]
            self._starts = [e[2] for e in edits]
            self._ends = [e[3] for e in edits]
        else:
            self._view_starts = self._view_ends = self._starts = self._ends = _NONE

    @property
    def edited(self) -> bool:
        """Whether the view differs from the text by more than one character for one."""
        return bool(self._starts)

    def start(self, at: int) -> int:
        """Where in the original text the view character at `at` starts."""
        i = bisect_right(self._view_starts, at) - 1
        if i < 0:
            return at
        if at < self._view_ends[i]:
            return self._starts[i]
        return self._ends[i] + at - self._view_ends[i]

    def end(self, at: int) -> int:
        """Where in the original text a view span ending at `at` (exclusive) ends."""
        if at <= 0:
            return self.start(0)
        i = bisect_right(self._view_starts, at - 1) - 1
        if i < 0:
            return at
        if at - 1 < self._view_ends[i]:
            return self._ends[i]
        return self._ends[i] + at - self._view_ends[i]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the view span `[start, end)`."""
        return self.start(start), self.end(end)


_NONE: list[int] = []


def canonical(text: str, *, letters: bool = True, join: bool = True, shown: bool = False,
              any_tag: bool = True, tabs: bool = False, glue: bool = False) -> Canonical:
    """The canonical view of `text` (see the module's docstring). Linear in `len(text)`; an
    ASCII text with nothing to undo is its own view, found in one scan. With `letters`
    false, look-alike letters are left as they are (a mask shows a value's own letters).
    With `join` false, the view keeps lines and runs of spaces apart (`Canonical.joined`):
    whitespace is read as it is, and a gap holding a tag as a line break. With `shown`, the
    view is the text as a reader sees it (phrase lists read it): a tag reads as a space whole,
    its attributes included, and between two words too; else (the detectors' view) a tag's
    attributes are read as text, so that a value in one is found, and inline tags between two
    characters read as nothing (`123-45-<b>6789</b>`). With `any_tag` false, a tag is read
    as one only when it names an HTML element (`<system>` stays as written: the injection
    patterns read it). With `tabs`, a tab stays a tab (a TSV's cells: `engine.layout`).
    With `glue`, closing tags that end an element of one word glued to a word read as
    nothing (`Canonical.glued`).

    A reference, JSON escape or percent-encoding of a character read by what stands around
    it (`_BY_CONTEXT`: `4539&bull;1488…`, `jane&#40;at&#41;example.com`) is decoded first,
    and the decoded text read as typed text is (`_decoded_first`)."""
    if ("&" in text or "\\" in text or "%" in text) and BY_CONTEXT_WRITTEN.search(text):
        decoded, first = _decoded_first(text)
        view = _canonical(decoded, letters=letters, join=join, shown=shown, any_tag=any_tag,
                          tabs=tabs, glue=glue)
        return _composed(first, view)
    return _canonical(text, letters=letters, join=join, shown=shown, any_tag=any_tag,
                      tabs=tabs, glue=glue)


def _canonical(text: str, *, letters: bool, join: bool, shown: bool, any_tag: bool,
               tabs: bool, glue: bool) -> Canonical:
    """`canonical` of a text with no reference to decode first."""
    if text.isascii():
        if plain(text):
            return Canonical(text)
        one = text.encode("ascii").translate(ASCII_ONE).decode("ascii")
        if tabs:
            one = _tabs_kept(text, one)
        edits, joined = _edits(text, one, True, False, join, _pattern(shown, any_tag), glue)
    else:
        one, may_edit, scripts = read_one(text, ONE_FOR_ONE if letters else FORMS_ONLY)
        if tabs:
            one = _tabs_kept(text, one)
        edits, joined = _edits(text, one, may_edit, scripts, join,
                               _pattern(shown, any_tag), glue)
    if not edits:
        return Canonical(one)
    parts: list[str] = []
    mapped: list[tuple[int, int, int, int]] = []
    pos = 0  # in the text
    size = 0  # of the view so far
    for start, end, written in edits:
        if start > pos:
            parts.append(one[pos:start])
            size += start - pos
        parts.append(written)
        mapped.append((size, size + len(written), start, end))
        size += len(written)
        pos = end
    parts.append(one[pos:])
    return Canonical("".join(parts), mapped, joined, not shown and _as_shown_too(one, edits),
                     not (shown or glue) and "</" in one and GLUED_ELEMENT.search(one) is not None)


def _tabs_kept(text: str, one: str) -> str:
    """`one` (`text` read one character for one) with each tab of `text` back as a tab."""
    parts = []
    pos = 0
    at = text.find("\t")
    while at != -1:
        parts += [one[pos:at], "\t"]
        pos = at + 1
        at = text.find("\t", pos)
    parts.append(one[pos:])
    return "".join(parts)


def _as_shown_too(one: str, edits: list[Edit]) -> bool:
    """Is the text to be read as shown too (`Canonical.attributes`): did an edit read a tag's
    attributes as text (an opener's), or read as a tag one that names no HTML element? (An
    edit may take the spaces before its tag too: `Password: <Qz7xK2mP9w>`.)"""
    for start, end, _ in edits:
        opening = one.find("<", start, end)
        if opening >= 0 and (one[end - 1].isalpha()
                             or UNKNOWN_TAG.search(one, opening, end) is not None):
            return True
    return False


Edit = tuple[int, int, str]


def _pattern(shown: bool, any_tag: bool) -> re.Pattern[str]:
    """The edits' pattern of a view (`canonical`'s `shown` and `any_tag`)."""
    if shown:
        return EDIT_SHOWN
    return EDIT if any_tag else EDIT_KNOWN


def _edits(text: str, one: str, may_edit: bool, scripts: bool, join: bool,
           pattern: re.Pattern[str], glue: bool = False) -> tuple[list[Edit], bool]:
    """The edits of `text` in order, `(start, end, what the view holds instead)`, and whether
    one joined two numbers across a line or a run of spaces (`Canonical.joined`). `one` is the
    text read one character for one (`ONE_FOR_ONE`); a gap is read there, so that whatever
    it reads as a space counts as one. `may_edit`: `EDIT` may match; `scripts`: a letter of
    a script written without spaces is there (`_SCRIPT_EDGE`); `join`, `glue`: `canonical`'s."""
    shown = pattern is EDIT_SHOWN
    found: Iterator[re.Match[str]] = pattern.finditer(one) if may_edit else iter(())
    if scripts:
        found = _merged(found, _SCRIPT_EDGE.finditer(one))
    edits: list[Edit] = []
    joined = False
    typed = text.isascii()  # (every bracket as typed: no full-width form to tell apart)
    until = 0  # (an inline tag read whole: what its attributes hold is passed over)
    for match in found:
        start, end = match.span()
        kind = match.lastgroup
        if start < until:
            continue
        if kind is None:  # a script edge (after the character matched): a space where none was
            edits.append((end, end, " "))
        elif kind in ("gap", "opener"):
            if not typed and not _markup_as_typed(text, one, start, end):
                continue  # (`＜ｂ＞`: brackets typed full-width are no tag)
            if kind == "opener" and (until := _glued_tag(one, start, end)):
                edits.append((start, until, ""))
                continue
            end = no_item_after_wrap(one, start, end)
            written = " " if kind == "opener" else read_gap(one[start:end], start, end, one,
                                                            join, shown, glue)
            if written is not None:
                edits.append((start, end, written))
                joined = joined or (kind == "gap" and join
                                    and joins_numbers(written, one, start, end))
        else:
            if kind == "obfuscated":  # (a space before `(at)` goes with it)
                start -= _space_before(one, start, edits)
            edits.extend(_edit(kind, match.group(), text, one, start, end))
    return edits, joined


def _space_before(one: str, start: int, edits: list[Edit]) -> int:
    """1 when a space no edit holds stands before `one[start]`, else 0."""
    return int(one[start - 1] == " " and (not edits or edits[-1][1] < start))


def _edit(kind: str, written: str, text: str, one: str, start: int, end: int
          ) -> Iterator[Edit]:
    """The edit of a run of marks, an escape or a reference (`EDIT`), if any."""
    if kind == "marks":
        if marks_at_edge(one, start, end):
            yield start, end, ""
        else:
            inner = inner_stars(one, start, end)
            if inner is not None:
                yield inner, end, ""
    elif kind == "encoded":  # (quoted-printable `=3D`, URL-encoded `%40` `%3A` `%3D` `%26`, `\x40`,
        # a letter or digit URL-encoded inside a token, `sk-proj-%41bc…`: what its two hex
        # digits stand for)
        yield start, end, chr(int(written[-2:], 16))
    elif kind == "escape" or (kind == "strings" and strings_joined(one, start)):
        # (Markdown's `\_`, `\-`: the character as it shows; a code's strings joined inside
        # a key or a password's value, `"sk-proj-Ab" + "3dEf…"`: one string)
        yield start, end, ""
    elif kind in ("dash", "hyphen"):  # (an encoded hyphen, `%2D`; a long dash between two
        # digits, alone or doubled: a hyphen,
        # `123—45—6789`, `4539――1488`, `536 — 22 — 8841`; one in a run of three dashes or more,
        # as a rule or a key block's armour is typed: `—————BEGIN RSA PRIVATE KEY—————`)
        yield start, end, "-"
    elif kind == "bullet":  # (a middle dot or a bullet between a value's groups: a space)
        yield start, end, " "
    elif kind == "percent":  # (a URL's `%E2%80%8B`: the character its UTF-8 bytes encode)
        yield from _percent_encoded(written, start, end)
    elif kind == "obfuscated":  # (an address's `(at)`, `[dot]`: `@`, `.`)
        yield start, end, "." if "dot" in written.lower() or "." in written else "@"
    elif kind == "unicode":  # (JSON's `\u00a0`, in a tool's output: what it decodes to)
        yield start, end, _unicode_escape(written)
    elif kind == "ref" and text[start] == "&":
        yield from _reference(written, start, end)


def _glued_tag(one: str, start: int, end: int) -> int:
    """Where an inline tag with attributes whose name is `one[start:end]` (`<span`) ends,
    when it stands between two characters that are no space (`123-45-<span class="x">6789`:
    read as nothing, attributes and all); 0 otherwise."""
    close = one.find(">", end) + 1
    name = one[start:end].lstrip("</").lower()
    if (start == 0 or one[start - 1].isspace() or close >= len(one) or one[close].isspace()
            or name not in INLINE_SET):
        return 0
    return close


def _markup_as_typed(text: str, one: str, start: int, end: int) -> bool:
    """Were the angle brackets and ampersands of `one[start:end]` typed as such (not as
    their full-width forms, which show as the characters they are, not as markup)?"""
    return all(text[i] == one[i] for i in range(start, end) if one[i] in "<>&")


def _reference(ref: str, start: int, end: int) -> Iterator[tuple[int, int, str]]:
    """A character reference as the character it stands for, read `ONE_FOR_ONE` (an
    unknown name is left as it is)."""
    char = html.unescape(ref)
    if char != ref:
        yield start, end, char.translate(ONE_FOR_ONE)


def _percent_encoded(written: str, start: int, end: int) -> Iterator[Edit]:
    """A character other than ASCII percent-encoded in a URL (RFC 3986: its UTF-8 bytes,
    `%E2%80%8B`) as that character, read `ONE_FOR_ONE` (bytes that are no UTF-8 are left as
    they are)."""
    try:
        char = bytes.fromhex(written.replace("%", "")).decode("utf-8")
    except UnicodeDecodeError:
        return
    yield start, end, char.translate(ONE_FOR_ONE)


def _unicode_escape(escape: str) -> str:
    """A `\\uXXXX` escape (or a surrogate pair of two) as the character it stands for, read
    `ONE_FOR_ONE` (an invisible one, `\\u200b`, is kept: `engine.find` reads the view
    through it as through one typed; a lone surrogate half as it is written)."""
    code = int(escape[2:6], 16)
    if len(escape) == 12:
        code = 0x10000 + ((code - 0xD800) << 10) + (int(escape[8:12], 16) - 0xDC00)
    elif 0xD800 <= code <= 0xDFFF:
        return escape
    return chr(code).translate(ONE_FOR_ONE)


def _merged(first: Iterator[re.Match[str]],
            second: Iterator[re.Match[str]]) -> Iterator[re.Match[str]]:
    """The edits' matches and the script edges' (an edge stands at the end of its match:
    never inside an edit, it sits between a letter and an ASCII character) merged in order
    of position."""
    a, b = next(first, None), next(second, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a.start() < b.end()):
            assert a is not None
            yield a
            a = next(first, None)
        else:
            yield b
            b = next(second, None)
