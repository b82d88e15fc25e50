"""Sentence segmentation of a streamed reply: text in, whole sentences out.

Pieces keep the whitespace after them, so they join back into the input, and they never depend
on how the text was cut into chunks: a boundary is decided only once what decides it was seen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from replyguard.engine.segment_rules import (
    ABBREVIATIONS,
    CJK_TERMINALS,
    CLOSERS,
    TERMINALS,
)
from replyguard.engine.sentence_end import LOOKAHEAD as _LOOKAHEAD  # (also: a line's start)
from replyguard.engine.sentence_end import Event, sentence_end

#: Characters kept free before the cap: a forced split cuts at or before `max_chars - HOLDBACK`
#: when it can.
HOLDBACK = 256
#: How far past the cap a forced split reads before it is chosen: `no_cut` sees every value
#: that starts before the cap whole, up to this many characters past it (longer than any value
#: a detector finds but a key block or a token of unbounded length).
CUT_WINDOW = 1024
_SLICE = 4096  # the longest chunk taken in one step (see `feed`)

_MARK_START = "`~|#-*+0123456789"


def _inside(chars: str) -> str:
    """`chars` as the inside of a regular-expression character class."""
    return "".join("\\" + c if c in "\\]^-[" else c for c in chars)


#: The insides of character classes of the sentence-end characters, the CJK ones and the
#: closers, for the reply screen's delta gate (`engine.reply`), which must know every
#: character an event is made of.
TERMINAL_CLASS, CJK_CLASS, CLOSER_CLASS = map(_inside, (TERMINALS, CJK_TERMINALS, CLOSERS))
_T, _C, _Q = TERMINAL_CLASS, CJK_CLASS, CLOSER_CLASS
#: The full-width forms of `.!?` and the ideographic full stops: between two Latin letters or
#: digits they end no sentence (`S3cret．Pw99`, `Abc！Def123`, `jane@example。com`: typed
#: inside a value, as `.` is in `example.com`); after CJK they do (`こんにちは！SSNは…`).
_WIDE = "．！？。｡"
#: Latin letters and digits, ASCII or full-width (`ｘＫ２`).
_LATIN = "A-Za-z0-9\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
#: What stands before a full-width `.!?` or `。` that is typed inside a value when a Latin
#: letter or digit follows it: a Latin letter or digit, or a label's end (whitespace, `:`,
#: `=`, the full-width colon: `Password: 。Qz7xK2mP9w` is one sentence, the value's).
_BEFORE_WIDE = _LATIN + "\\s:=\uff1a"
#: An event: a run of sentence-end characters and closers with whitespace after it; a run
#: whose last sentence-end character is a CJK one (`。！？．｡`: CJK is written without
#: spaces), then its closers, with anything but a sentence-end character after it; or a
#: newline. The same matches as `[T]*[C][Q]*(?=[^TQ])|[T]+[Q]*(?=\s)|\n` (T the sentence
#: ends, C the CJK ones, Q closers). Written to start with one character class, so that `re`
#: scans for it in C rather than trying the pattern at every position, and to be tried only
#: at the first character of a run of sentence ends (the look-behind), its runs taken without
#: backtracking (`*+`): a run of `.` with no whitespace after it is read once, not once from
#: each of its characters (which took cubic time in a stream of dots). Group 1 (the closers
#: of a CJK run) is set for a CJK event.
_EVENT = re.compile(
    rf"[{_T}\n](?:(?<=\n)|(?<![{_T}][{_T}])[{_T}]*+"
    rf"(?:(?<=[{_C}])([{_Q}]*+)(?=[^{_T}])(?!(?<=[{_BEFORE_WIDE}][{_WIDE}])[{_LATIN}])|[{_Q}]*+(?=\s)))"
)
_NONSPACE = re.compile(r"\S")
_LATIN_CHAR = re.compile(rf"[{_LATIN}]")
_BEFORE_WIDE_CHAR = re.compile(rf"[{_BEFORE_WIDE}]")
#: The rest of a run of sentence ends and closers (`_event_at`).
_RUN = re.compile(rf"[{_T}{_Q}]*+")
_NO_EVENT: Event = (-1, -1, -1, "")
_CJK_SET = frozenset(CJK_TERMINALS)
_LINE = re.compile(r"(`{3,}|~{3,})|(\|)|(#{1,6}[ \t])|([-*+][ \t]|[0-9]{1,9}[.)][ \t])")

_PROSE, _LIST, _HEADING, _TABLE, _FENCE, _CLOSE = "prose list heading table fence close".split()
_LINE_ONLY = frozenset({_HEADING, _TABLE, _FENCE, _CLOSE})  # no sentence splits inside
_SPLIT_AFTER = frozenset({_LIST, _HEADING, _TABLE, _CLOSE})
_SPLIT_BEFORE = frozenset({_LIST, _HEADING, _TABLE, _FENCE})

_Line = tuple[str, int, "tuple[str, int] | None"]  # kind, scan position, open fence (char, length)

#: What the segmenter waits for before it can decide anything more (`SentenceSegmenter.waiting`):
#: an event character (a sentence end or a newline; text without one decides nothing), a
#: non-space character (an event is seen and only whitespace after it, or a CJK sentence end
#: with nothing after it), or any character (a line whose kind the rest of it decides, openers
#: or a word after a sentence end, a period that whitespace may make an event).
EVENT, NON_SPACE, ANY = "event", "non-space", "any"
_DECIDED_AFTER = 11  # a line's first characters that settle its kind, but for a fence (`_LINE`)


class SentenceSegmenter:
    """Cuts one reply, fed in chunks, into sentences and Markdown blocks.

    `feed(text) -> list[str]` returns the pieces now decided, in order; `flush() -> list[str]`
    returns the rest at the end of the reply and resets the segmenter. Every piece ends with the
    whitespace after it (leading whitespace goes with the first), so `"".join` of all pieces is
    the input, and the pieces are the same however the text is cut into chunks.

    A piece ends after `. ! ? …` (runs such as `?!`, closing quotes and brackets kept) and the
    whitespace after, when a sentence starts next (a capital, a digit, an opening quote or
    bracket, a Markdown marker); not after abbreviations, initials or acronyms before a name,
    an inline list's marker, decimals, URLs, e-mails or file names (`engine.sentence_end`,
    `engine.segment_rules`). It ends after the CJK sentence ends `。！？．｡` and their
    closers (`」』）】`) with no whitespace after them (CJK is written without spaces), and
    before an inline list's marker that follows its predecessor's. A piece also ends after a
    list item, heading or table row line, at a blank line, and before a list item, heading,
    table row or code fence; a fenced code block is one piece. A piece reaching `max_chars` is
    split at whitespace at or before `max_chars - HOLDBACK`, never inside a span `no_cut(text)`
    returns ([start, end) offsets).

    Raises ValueError for a language other than "en" or "pt-BR" (the languages the product reads)
    or `max_chars` below 512. Sources: the release rule and the sentence cap (docs/screening.md),
    pt-BR abbreviations and `R$ 12,50` decimals; Markdown lines as CommonMark 0.31 sections 4-5;
    abbreviations, initials and sentence starters as Punkt's heuristics and the Golden Rules of
    pySBD / Pragmatic Segmenter.
    """

    def __init__(
        self,
        language: str = "en",
        max_chars: int = 2000,
        no_cut: Callable[[str], Sequence[tuple[int, int]]] | None = None,
    ) -> None:
        if language not in ABBREVIATIONS:
            raise ValueError(f"language: {language!r} is not one of {sorted(ABBREVIATIONS)}")
        if max_chars < 2 * HOLDBACK:
            raise ValueError(f"max_chars: {max_chars} is below {2 * HOLDBACK}")
        self._abbreviations = ABBREVIATIONS[language]
        self._max = max_chars
        self._no_cut = no_cut
        self._reset()

    def _reset(self) -> None:
        self._buf = ""  # the unreleased text; the current piece starts at index 0
        self._pos = 0  # every boundary before this index is decided
        self._kind: str | None = None  # kind of the line being scanned; None before any text
        self._fence: tuple[str, int] | None = None
        self.waiting = ANY
        self._forget()

    def _forget(self) -> None:
        """Drop what was remembered of the text after `_pos` (it moved): what each scan read,
        so that the next one goes on from there rather than reading it again (a run of `.`
        or of spaces growing by a few characters a delta would be read whole each time)."""
        self._open = -1  # `buf[_pos:_open]`: a run of sentence ends and closers, no event yet
        self._event: Event | None = None  # the event at `_pos` (`_event_at`)
        self._blank = -1  # `buf[k:_blank]`: whitespace after that event

    def feed(self, text: str) -> list[str]:
        """Add a chunk of the reply; return the pieces it completes, in order.

        A long chunk is taken in slices of `_SLICE` characters, so the unreleased buffer
        stays short and a whole reply fed at once costs linear time (the pieces are the same
        however the text is cut, so slicing changes nothing else)."""
        if not text:
            return []
        if len(text) <= _SLICE:
            self._buf += text
            return self._run(final=False)
        out: list[str] = []
        for i in range(0, len(text), _SLICE):
            self._buf += text[i : i + _SLICE]
            out.extend(self._run(final=False))
        return out

    def flush(self) -> list[str]:
        """End the reply: return every piece not yet returned, and reset for a new reply."""
        out = self._run(final=True)
        if self._buf:
            out.append(self._buf)
        self._reset()
        return out

    def _run(self, final: bool) -> list[str]:
        out: list[str] = []
        while (end := self._next(final)) is not None:
            out.append(self._buf[:end])
            self._buf = self._buf[end:]
            self._pos = max(0, self._pos - end)
            self._open, self._event, self._blank = -1, None, -1  # (`_forget`, inline: per piece)
        return out

    def _next(self, final: bool) -> int | None:
        """Scan on from `_pos`; return where the current piece ends, or None (need more text)."""
        buf, cap = self._buf, self._max
        n = len(buf)
        while True:
            pos = self._pos
            if self._kind is None:  # before the reply's first visible character
                found = _NONSPACE.search(buf, pos)
                if found is None or found.start() >= cap:  # whitespace up to the cap or more
                    self._pos = n if found is None else found.start()  # (not past its text)
                    self.waiting = NON_SPACE
                    return self._cut(final) if n >= cap else None
                line = self._classify(found.start(), final)
                if line is None:
                    self.waiting = ANY
                    return None
                self._enter(line)
                continue
            if self._kind in _LINE_ONLY:
                newline = buf.find("\n", pos)
                event: Event = (newline, newline, -1, "")
            else:
                event = self._event or self._event_at(buf, pos)
            start, k = event[0], event[1]
            if start < 0:
                return self._no_event(pos, final)
            found = _NONSPACE.search(buf, max(k, self._blank))
            if found is None:
                return self._blank_to_end(final)
            m = found.start()
            if m >= cap:
                return self._cut(final)
            decision = self._decide(event, m, buf.count("\n", k, m), final)
            if decision is None:
                self.waiting = ANY
                return None
            split, line = decision
            if line is None:
                self._pos = m
                self._open, self._event, self._blank = -1, None, -1  # (`_forget`, inline)
            else:
                self._enter(line)
            if split >= 0:
                return split

    def _blank_to_end(self, final: bool) -> int | None:
        """`_next` when only whitespace follows the event, up to the end of what was seen."""
        n = len(self._buf)
        self._blank = n
        self.waiting = NON_SPACE
        if n >= self._max:
            return self._cut(final)
        if final:
            self._pos = n
        return None

    def _no_event(self, pos: int, final: bool) -> int | None:
        """`_next` when no event starts at or after `pos` yet: none can start before `safe`."""
        buf = self._buf
        n = len(buf)
        if final or self._kind in _LINE_ONLY:
            safe = n
        else:
            safe = pos if self._open >= 0 else _safe_from(buf, pos)
            self._open = n if max(pos, safe) < n else -1
        self._pos = max(pos, safe)
        # (a trailing `.` or `.)` becomes an event with the whitespace after it, a trailing
        # `。` one with any character after it)
        self.waiting = EVENT if safe == n else NON_SPACE
        # (the cap applies whatever the text: a run of `.` straddling it included)
        return self._cut(final) if n >= self._max else None

    def _enter(self, line: _Line) -> None:
        self._kind, self._pos, self._fence = line
        self._open, self._event, self._blank = -1, None, -1  # (`_forget`, inline)

    def _event_at(self, buf: str, pos: int) -> Event:
        """The first event at or after `pos` (`Event`), `_NO_EVENT` for none yet. Goes on
        from what an earlier call read (`_open`; the caller reads `_event`)."""
        if self._open >= 0:  # an open run of sentence ends and closers: does it go on?
            end = _RUN.match(buf, self._open).end()  # type: ignore[union-attr]
            if end == len(buf):
                self._open = end
                return _NO_EVENT
            self._open = -1
            body = buf[pos:end].rstrip(CLOSERS)
            cjk = body[-1] if body[-1:] in _CJK_SET else ""
            if (cjk in _WIDE and len(body) == end - pos == 1 and pos > 0
                    and _BEFORE_WIDE_CHAR.match(buf, pos - 1) and _LATIN_CHAR.match(buf, end)):
                cjk = ""  # (a full-width `.!?` or `。` between Latin letters or digits: no end)
            if cjk or buf[end].isspace():
                start = pos + len(body.rstrip(TERMINALS))  # its last sentence ends and closers
                self._event = start, end, start, cjk
                return self._event
            pos = end  # the run is followed by a word: no event in it
        event = _EVENT.search(buf, pos)
        if event is None:
            return _NO_EVENT
        start = event.start()
        if buf[start] == "\n":
            self._event = start, start, -1, ""
        else:
            closers = event.start(1)  # (set for a CJK event)
            self._event = start, event.end(), start, buf[closers - 1] if closers >= 0 else ""
        return self._event

    def _decide(
        self, event: Event, m: int, newlines: int, final: bool
    ) -> tuple[int, _Line | None] | None:
        """Is there a boundary after the event, whose whitespace ends at `m`? Where it is (-1
        for none), and the line `m` starts when the whitespace holds a newline. None: need
        more text."""
        punct, k = event[2], event[1]
        if newlines == 0:
            if punct >= 0 and self._buf[m] in "`~" and self._fence is None:
                # A fence opened right after a sentence on the same line starts its own piece,
                # as it would at a line start: removing the sentence before it then changes
                # no piece after it (screening twice gives the same text).
                line = self._classify(m, final)
                if line is None:
                    return None
                if line[0] == _FENCE:
                    return m, line
            end = self._sentence_end(event, m, final)
            return None if end is None else (end, None)
        line = self._classify(m, final)
        if line is None or self._kind == _FENCE:
            return None if line is None else (-1, line)
        wraps = _value_wraps(self._buf, event, m, newlines, final)
        if wraps is not False:  # (`- 4111 1111\n- 1111 1111`: one value on two lines, one piece)
            return None if wraps is None else (-1, line)
        if (self._kind == _LIST and newlines == 1 and line[0] == _PROSE
                and _indented(self._buf, k, m)):
            # The list item goes on (CommonMark 5.2): a line of prose indented under it is no
            # boundary by itself, and a line break after it still ends the item.
            line = (_LIST, m, None)
            if punct < 0:
                return -1, line
            end = self._sentence_end(event, m, final)
            return None if end is None else (end, line)
        if self._kind in _SPLIT_AFTER or newlines >= 2 or line[0] in _SPLIT_BEFORE:
            return m, line
        if punct < 0:
            return -1, line
        end = self._sentence_end(event, m, final)
        return None if end is None else (end, line)

    def _sentence_end(self, event: Event, m: int, final: bool) -> int | None:
        """`engine.sentence_end.sentence_end` in this segmenter's text and language."""
        return sentence_end(self._buf, event, m, final, self._abbreviations)

    def _classify(self, m: int, final: bool) -> _Line | None:
        """The kind of the line whose text starts at `m`. None: need more text."""
        buf = self._buf
        if self._fence is None and buf[m] not in _MARK_START:
            return _PROSE, m, None
        if self._fence is not None and buf[m] != self._fence[0]:
            return _FENCE, m, self._fence  # (a closing fence starts with the fence's character)
        end = buf.find("\n", m, m + _LOOKAHEAD)
        complete = end >= 0 or final or len(buf) >= m + _LOOKAHEAD
        if not complete:
            if self._fence is not None or buf[m] in "`~" or len(buf) < m + _DECIDED_AFTER:
                return None
            end = m + _DECIDED_AFTER  # no fence: `_LINE` reads no further than this
        text = buf[m : end if end >= 0 else m + _LOOKAHEAD]
        if self._fence is not None:  # inside a fence: is this the closing line?
            char, length = self._fence
            run = len(text) - len(text.lstrip(char))
            if run >= length and not text[run:].strip():
                return _CLOSE, m, None
            return _FENCE, m, self._fence
        match = _LINE.match(text)
        if match is None:
            return _PROSE, m, None
        if match.group(1):
            if text[0] == "`" and "`" in text[match.end() :]:
                return _PROSE, m, None  # an inline code span, not a fence (CommonMark 4.5)
            return _FENCE, m, (text[0], match.end())
        kinds = (_TABLE, _HEADING, _LIST)
        kind = next(kind for kind, group in zip(kinds, match.groups()[1:], strict=True) if group)
        return kind, m + (match.end() if kind == _LIST else 0), None

    def _cut(self, final: bool) -> int | None:
        """Where to force-split the current piece, which has reached `max_chars`; None until
        `CUT_WINDOW` characters past the cap have been seen (or the reply has ended).

        Decided on the first `max_chars + CUT_WINDOW` characters, so that `no_cut` sees whole
        every value starting before the cap: a cut falls at whitespace at or before
        `max_chars - HOLDBACK` (the last such), else at whitespace up to the cap, else
        anywhere up to the cap, never inside a `no_cut` span. When spans cover every place
        up to the cap, the cut falls at the start of the last span starting before it (values
        back to back, each span reaching into the next), else (one long value) at the first
        place after them in the window, else (a value longer than the window: a key block) at
        `max_chars - HOLDBACK`.
        """
        cap = self._max
        if len(self._buf) < cap + CUT_WINDOW and not final:
            self.waiting = ANY
            return None
        window = self._buf[: cap + CUT_WINDOW]
        size = len(window)
        blocked = bytearray(size + 1)
        spans = self._no_cut(window) if self._no_cut else []
        for start, end in spans:
            low, high = max(start + 1, 1), min(end, size + 1)
            if low < high:
                blocked[low:high] = b"\x01" * (high - low)
        limit = cap - HOLDBACK
        for cut in (*range(limit + 1, 0, -1), *range(limit + 2, cap + 1)):
            if window[cut - 1].isspace() and not blocked[cut]:
                return cut
        for cut in (*range(limit, 0, -1), *range(limit + 1, cap + 1)):
            if not blocked[cut]:
                return cut
        starts = [start for start, _ in spans if 0 < start <= cap]
        if starts:  # values back to back (`123-45-6789;123-45-6789;...`): before the last one
            return max(starts)
        free = blocked.find(0, cap + 1, size)
        return free if free != -1 else limit


def _indented(buf: str, k: int, m: int) -> bool:
    """Is the line starting at `m` (whitespace `[k, m)` before it, a newline in it) indented by
    two columns or more, as the text of a list item's continuation line is (`- ` is the
    shortest list marker)?"""
    indent = buf[buf.rfind("\n", k, m) + 1 : m]
    return len(indent) >= 2 or indent == "\t"


#: A line's prefix (a quote, a heading, a list item's marker, a table row's bar) and the
#: spaces after it, before its content (`_value_wraps`).
_LINE_PREFIX = re.compile(r"[ \t]{0,3}(?:>[ \t>]*|#{1,6}[ \t]+|(?:[-*+]|[0-9]{1,9}[.)])[ \t]+"
                          r"|\|[ \t]*)?")


def _value_wraps(buf: str, event: Event, m: int, newlines: int, final: bool) -> bool | None:
    """Does a value run on from the line ending at `newline` to the content of the line at
    `m` (after its prefix): a digit in the last group or two before the line break and a
    digit after it (`4111 1111` / `- 1111 1111`, `GB82 WEST` / `1234 5698 7654 32`), or a
    hyphen after a letter or digit then a letter or digit (`123-45-` / `6789`)? A value a detector
    reads across lines (`engine.canon`) is then kept in one piece. Asked of line breaks (a
    blank line too) with no sentence end before them (`event`, `newlines`); emphasis and code
    marks at either end are passed over. None: need more text."""
    if newlines < 1:
        return False
    if event[2] >= 0:
        return _dotted_wraps(buf, event, m, newlines, final)
    newline = event[1]
    before = buf[max(0, newline - 64):newline].rstrip(" \t*_`~")
    last = before[-1:]
    grouped = last.isalnum() and any(c.isdigit() for c in before[-12:])  # (`GB82 WEST`)
    if not (grouped or (last == "-" and before[-2:-1].isalnum())):
        return False
    start = _LINE_PREFIX.match(buf, m).end()  # type: ignore[union-attr]
    start = _unless_rest_of_value(buf, m, start, grouped)
    while start < len(buf) and buf[start] in "*_`~":
        start += 1
    if start >= len(buf):
        return False if final else None
    return buf[start].isdigit() or (last == "-" and buf[start].isalnum())


#: A numbered item's marker of three digits or more (`_unless_rest_of_value`).
_LONG_MARKER = re.compile(r"[ \t]{0,3}([0-9]{3,9})[.)][ \t]")


def _unless_rest_of_value(buf: str, m: int, start: int, grouped: bool) -> int:
    """Where the content of the line at `m` starts (`start`, after its prefix), but at the
    number of what reads as a numbered item's marker when it goes on with the value the line
    before ends in: after a hyphen (`536-22-` / `8841. Next`), or after digits when it has
    three digits or more (`536 22` / `8841. Thanks`); `engine.canon` reads the same."""
    marker = _LONG_MARKER.match(buf, m, start) if grouped else _NUMBER.match(buf, m, start)
    return start if marker is None or marker.end() != start else marker.start(1)


_NUMBER = re.compile(r"[ \t]{0,3}([0-9]{1,9})[.)][ \t]")

#: A number in dotted groups before its last dot (`529.982.`, `192.168.`) (`_dotted_wraps`).
_DOTTED = re.compile(r"(?<!\S)\S*\d\.\d+\Z")


def _dotted_wraps(buf: str, event: Event, m: int, newlines: int, final: bool) -> bool | None:
    """Does a number in dotted groups run on past the dot that ends its line (`529.982.` /
    `247-25`: a CPF wrapped after a dot, which `engine.canon` reads as one)? The event is
    one `.` and one line break, a number holding a dot before it and a digit after it."""
    punct = event[2]
    if newlines != 1 or event[1] != punct + 1 or buf[punct] != ".":
        return False
    if _DOTTED.search(buf, max(0, punct - 64), punct) is None:
        return False
    if m >= len(buf):
        return False if final else None
    return buf[m].isdigit()


def _safe_from(buf: str, pos: int) -> int:
    """`_safe(buf)`, reading only from `pos` when the run it looks for starts after it (a
    stream of closers one character a delta is then read a character at a time, not from
    the start of the piece each time)."""
    tail = _safe(buf[pos:])
    return pos + tail if tail > 0 or pos == 0 else _safe(buf)


def _safe(buf: str) -> int:
    """Where the event still open at the end of `buf` starts: its trailing run of sentence
    ends then closers (`len(buf)` if it ends in neither)."""
    body = buf.rstrip(CLOSERS)
    start = len(body.rstrip(TERMINALS))
    return start if start < len(body) else len(buf)


def split_sentences(text: str, language: str = "en", max_chars: int = 2000) -> list[str]:
    """Cut a whole reply into pieces: `SentenceSegmenter(language, max_chars)`, feed, flush.

    Returns the pieces in order; `"".join` of them is `text`. Raises ValueError as the
    segmenter does.
    """
    segmenter = SentenceSegmenter(language, max_chars)
    return segmenter.feed(text) + segmenter.flush()
