"""Finding values in text: run the detectors, confirm with validators, settle overlaps.

A digit run claimed by one class is not claimed again by another; the detector with the lower
`priority` keeps it (secrets, then email, then card > iban > national_id > phone, DESIGN
section 3). Findings never carry the value itself, only where it is.

Speed: Python's `re` pays for every position where a pattern's first character occurs, so
a regex never sweeps the whole text when it need not. Cheap scans (`str.find`/`bytes.find`
of keywords, one `bytes.translate` for digit runs and text shapes) mark the windows where a
detector may match (`Detector.reach`), and its regex runs only there. Each keyword is
scanned for once per text, however many detectors read it. Candidates are validated in the
order overlaps are settled in, and one starting on text an earlier finding already holds
is not validated at all (it could never be kept). None of this skips a place where a
regex could match: the result is what a whole-text scan gives (tests/engine/test_find.py).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

try:  # Vectorscan/Hyperscan (BSD-3), optional: where its wheel is missing, `in` tests instead
    import hyperscan
except ImportError:  # pragma: no cover - the wheel exists for Linux x86_64, where tests run
    hyperscan = None  # type: ignore[assignment]

from engine.detectors import DETECTORS, Detector, KeywordsIn

_MASKS = {d.id: d.mask for d in DETECTORS}


@dataclass(frozen=True, slots=True)
class Finding:
    """A value of class `cls` at `text[start:end]`, found by detector `detector`.

    It holds no part of the value, so its repr is safe to log.
    """

    cls: str
    start: int
    end: int
    detector: str


Spans = list[tuple[int, int]]

# Digits and the separators numbers are written with -> "0", space -> "1", anything else -> "_".
_RUN_TABLE = bytes(
    48 if chr(b) in "0123456789.()/+-" else 49 if b == 32 else 95 for b in range(256)
)
# A literal first byte lets `re` skip ahead with a fast search; a run is at least 6 long.
_RUN = re.compile(rb"0[01]{5,}")
# The shape: upper-case letter -> "A", digit -> "0", space -> " ", anything else -> "_".
_SHAPE_TABLE = bytes(
    65 if 65 <= b <= 90 else 48 if 48 <= b <= 57 else 32 if b == 32 else 95 for b in range(256)
)


#: The non-ASCII letters Python's `re` matches to ASCII ones under IGNORECASE (found by trying
#: every code point): `(?i)s` matches `ſ`. The byte views show them as those letters, so a
#: case-insensitive keyword (`pass`) is seen in them wherever a detector's regex can match.
_ASCII_FOLDS = {0x130: "I", 0x131: "I", 0x17F: "S", 0x212A: "K"}
_ASCII_FOLDS_CHARS = tuple(map(chr, _ASCII_FOLDS))


class _Views:
    """Views of one text, built on first use: one byte per character (a non-ASCII character
    becomes `?`, but for `_ASCII_FOLDS`), so an offset in a view is the same offset in the
    text."""

    __slots__ = ("text", "_ascii", "_lower", "_shape", "_runs", "_has", "_places")

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii: bytes | None = None
        self._lower: bytes | None = None
        self._shape: bytes | None = None
        self._runs: list[tuple[int, int, int]] | None = None
        self._has: dict[tuple[str, str], bool] = {}
        self._places: dict[tuple[str, str], list[int]] = {}

    def ascii(self) -> bytes:
        if self._ascii is None:
            text = self.text
            if not text.isascii() and any(c in text for c in _ASCII_FOLDS_CHARS):
                text = text.translate(_ASCII_FOLDS)
            self._ascii = text.encode("ascii", "replace")
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
        """Maximal runs of digits and separators (` .()/+-`, 6 or more characters), as
        `(start, end, digits)`."""
        if self._runs is None:
            marks = self.ascii().translate(_RUN_TABLE)
            count = self.shape().count
            self._runs = [(start, end, count(b"0", start, end))
                          for start, end in (m.span() for m in _RUN.finditer(marks))]
        return self._runs


def _merge(spans: Spans, length: int) -> Spans:
    """Sorted, non-overlapping `[lo, hi)` windows clipped to `[0, length)`."""
    spans.sort()
    merged: Spans = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], min(hi, length))
        else:
            merged.append((max(lo, 0), min(hi, length)))
    return merged


def _keyword_windows(hay: str | bytes, keywords: Iterable[str], before: int, after: int) -> Spans:
    """Windows around every occurrence of each keyword in `hay`.

    Occurrences whose windows overlap are taken in one step (`rfind` jumps to the last one a
    window reaches), so a text made of one keyword repeated costs O(len / after) steps.
    """
    spans: Spans = []
    for word in keywords:
        key = word.encode() if isinstance(hay, bytes) else word
        size = len(key)
        i = hay.find(key)  # type: ignore[arg-type]
        while i != -1:
            lo, hi = i - before, i + size + after
            j = hay.rfind(key, i + 1, hi + before + size)  # type: ignore[arg-type]
            while j != -1:
                i, hi = j, j + size + after
                j = hay.rfind(key, i + 1, hi + before + size)  # type: ignore[arg-type]
            spans.append((lo, hi))
            i = hay.find(key, i + 1)  # type: ignore[arg-type]
    return spans


def _anchored(views: _Views, detector: Detector) -> Iterator[re.Match[str]]:
    """Matches of a detector whose matches start at a keyword occurrence (`reach` before 0)
    or where its `start` pattern, searched back from a keyword and ending at the keyword's
    end, begins: the regex is tried once at each such place, the last match's end not
    overlapped. Where keywords are dense the regex runs over the whole text instead."""
    text = views.text
    where = detector.keywords_in
    before, after = detector.reach or (0, 0)
    regex, back = detector.regex, detector.start
    length = len(text)
    last = 0
    places: list[tuple[int, int]] = []
    for word in detector.keywords:
        size = len(word)
        places.extend((i, i + size) for i in views.places(where, word))
    if len(places) > length // 64:  # dense keywords (adversarial): one scan is cheaper
        yield from regex.finditer(text)
        return
    if len(detector.keywords) > 1:
        places.sort()
    for at, end in places:
        if at < last:
            continue
        if back is not None:
            head = back.search(text, max(at - before, last), end)
            if head is None:
                continue
            at = head.start()
        match = regex.match(text, at, min(end + after, length))
        if match is not None:
            last = match.end()
            yield match


def _windows(views: _Views, detector: Detector) -> Spans | None:
    """Where a keyword or gate detector runs: `[]` nowhere, None over the whole text."""
    text = views.text
    before, after = detector.reach or (0, 0)
    if detector.gate is not None:
        return _merge([(m.start() - before, m.end() + after)
                       for m in detector.gate.finditer(text)], len(text))
    if not detector.keywords:
        return None
    where = detector.keywords_in
    present = [key for key in detector.keywords if views.has(where, key)]
    if detector.reach is None:
        return None if present else []
    return _merge(_keyword_windows(views.hay(where), present, before, after), len(text))


def _near_runs(
    views: _Views, detectors: list[Detector]
) -> Iterator[tuple[Detector, re.Match[str]]]:
    """Matches of the digit-run detectors, each run only around runs it may match in.

    A detector's windows may overlap; its search restarts at the end of its last match, so
    no match is yielded twice and none overlaps an earlier one, as with one `finditer` (no
    detector matches the empty string, so `search` from a match's end is `finditer`'s next).
    """
    runs = views.runs()
    if not runs:
        return
    text = views.text
    length = len(text)
    for detector in detectors:
        search = detector.regex.search
        least, accept = detector.min_digits, detector.run_filter
        before, after = detector.reach or (0, 0)
        last = 0
        for start, end, digits in runs:
            if digits < least or (accept is not None and not accept(text[start:end])):
                continue
            lo = start - before if start - before > last else last
            hi = end + after if end + after < length else length
            match = search(text, lo, hi)
            while match is not None:
                last = match.end()
                yield detector, match
                match = search(text, last, hi)


def _last_separator(text: str, start: int, end: int) -> int:
    """The last space or hyphen in `text[start:end]`, -1 if none."""
    return max(text.rfind(" ", start, end), text.rfind("-", start, end))


def _confirmed(text: str, detector: Detector, match: re.Match[str]) -> tuple[int, int] | None:
    """The span of the value `match` holds once `detector.validate` confirms it, else None."""
    start, end = match.span(detector.group)
    validate = detector.validate
    if validate is None or validate(text[start:end]):
        return start, end
    if detector.trim_groups:
        cut = _last_separator(text, start, end)
        while cut > start + 8:
            if validate(text[start:cut]):
                return start, cut
            cut = _last_separator(text, start, cut)
    return None


def _matches(views: _Views, detectors: Sequence[Detector]
             ) -> Iterator[tuple[Detector, re.Match[str]]]:
    text = views.text
    numeric = []
    for detector in detectors:
        if detector.min_digits:
            numeric.append(detector)
            continue
        if detector.reach is not None and (detector.reach[0] == 0 or detector.start):
            yield from ((detector, m) for m in _anchored(views, detector))
            continue
        windows = _windows(views, detector)
        if windows is None:
            for match in detector.regex.finditer(text):
                yield detector, match
        else:
            for lo, hi in windows:
                for match in detector.regex.finditer(text, lo, hi):
                    yield detector, match
    if numeric:
        yield from _near_runs(views, numeric)


@dataclass(frozen=True, slots=True)
class _Plan:
    """A detector set grouped, by position in the set, by what must occur in a text for each
    to match: a run of digits holding `min_digits` (numeric detectors), a keyword of the
    text's shape (only with a digit: the shape keywords hold one), of the text or of its
    ASCII lower case, a gate match, or nothing. Keywords of the byte views are kept encoded."""

    detectors: tuple[Detector, ...]
    numeric: tuple[tuple[int, int], ...]  # (min_digits, index)
    shape_keys: tuple[tuple[bytes, tuple[int, ...]], ...]
    text_keys: tuple[tuple[str, tuple[int, ...]], ...]
    lower_keys: tuple[tuple[bytes, tuple[int, ...]], ...]
    gated: tuple[tuple[re.Pattern[str], int], ...]
    always: tuple[int, ...]
    scan: _KeyScan | None  # the text and lower-case keywords in one pass, for long texts

    @classmethod
    def of(cls, detectors: Sequence[Detector]) -> _Plan:
        numeric, gated, always = [], [], []
        keys: dict[KeywordsIn, dict[str, list[int]]] = {"text": {}, "lower": {}, "shape": {}}
        for i, d in enumerate(detectors):
            if d.min_digits:
                numeric.append((d.min_digits, i))
            elif d.gate is not None and d.keywords_in != "shape":
                gated.append((d.gate, i))
            elif not d.keywords:
                always.append(i)
            else:
                for key in d.keywords:
                    keys[d.keywords_in].setdefault(key, []).append(i)
        return cls(tuple(detectors), tuple(numeric),
                   tuple((k.encode(), tuple(v)) for k, v in keys["shape"].items()),
                   tuple((k, tuple(v)) for k, v in keys["text"].items()),
                   tuple((k.encode(), tuple(v)) for k, v in keys["lower"].items()),
                   tuple(gated), tuple(always),
                   _KeyScan.of(list(keys["text"].items()), list(keys["lower"].items())))

    def active(self, views: _Views) -> list[Detector]:
        """The detectors that may match somewhere in the text, in the set's order.

        One `in` test a keyword, made here directly (not through `_Views.has`): on a sentence
        the per-call overhead would be most of the cost."""
        on: set[int] = set(self.always)
        if (self.numeric or self.shape_keys) and _ASCII_DIGIT(views.text) is not None:
            runs = views.runs() if self.numeric else ()
            if runs:
                most = max(digits for _, _, digits in runs)
                on.update(i for least, i in self.numeric if most >= least)
            shape = views.shape()
            for key, group in self.shape_keys:
                if key in shape:
                    on.update(group)
        text = views.text
        if self.scan is not None and len(text) >= KEYSCAN_MIN:
            on.update(self.scan.groups(views))
        else:
            self._keywords(views, on)
        for gate, i in self.gated:
            if gate.search(text) is not None:
                on.add(i)
        if not on:
            return []
        detectors = self.detectors
        return [detectors[i] for i in sorted(on)]

    def clean(self, text: str) -> bool:
        """True when no detector of the plan can be active in the ASCII `text` of a sentence
        (what `active` would say, without building views): no digit, keyword or gate match.
        A text one of whose detectors always runs is never clean."""
        if self.always or (self.numeric or self.shape_keys) and _ASCII_DIGIT(text) is not None:
            return False
        for word, _ in self.text_keys:
            if word in text:
                return False
        if self.lower_keys:
            lower = text.lower().encode()  # (ASCII: the lower-case view)
            for key, _ in self.lower_keys:
                if key in lower:
                    return False
        return not any(gate.search(text) for gate, _ in self.gated)

    def _keywords(self, views: _Views, on: set[int]) -> None:
        text = views.text
        for word, group in self.text_keys:
            if word in text:
                on.update(group)
        if self.lower_keys:
            lower = views.lower()
            for key, group in self.lower_keys:
                if key in lower:
                    on.update(group)


#: From this length on, a text's keywords are looked for in one Vectorscan pass (below it, the
#: call costs more than the `in` tests it saves).
KEYSCAN_MIN = 1024


class _KeyScan:
    """Which of a plan's text and lower-case keywords occur in a text, found in one pass of a
    Vectorscan database over the text's ASCII view (the lower-case ones caselessly, which is
    what the ASCII lower-case view reads), each reported once (HS_FLAG_SINGLEMATCH). On a
    megabyte this is ~0.4 ms where one `in` test a keyword is ~10 ms. The answers go into the
    views' keyword cache, so the detectors' windows do not scan for them again. Each thread
    scans with its own scratch space (the proxy screens large replies in a worker thread).
    """

    def __init__(self, keys: list[tuple[KeywordsIn, str, list[int]]]) -> None:
        assert hyperscan is not None
        self._keys = [(where, key) for where, key, _ in keys]
        self._groups = [group for _, _, group in keys]
        flags = [hyperscan.HS_FLAG_SINGLEMATCH
                 | (hyperscan.HS_FLAG_CASELESS if where == "lower" else 0)
                 for where, _, _ in keys]
        exprs = ["".join(f"\\x{b:02x}" for b in key.encode()).encode() for _, key, _ in keys]
        self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._db.compile(expressions=exprs, ids=list(range(len(keys))), elements=len(keys),
                         flags=flags)
        self._local = threading.local()

    @classmethod
    def of(cls, text_keys: list[tuple[str, list[int]]],
           lower_keys: list[tuple[str, list[int]]]) -> _KeyScan | None:
        keys: list[tuple[KeywordsIn, str, list[int]]] = [
            *(("text", k, g) for k, g in text_keys), *(("lower", k, g) for k, g in lower_keys)]
        return cls(keys) if keys and hyperscan is not None else None

    def groups(self, views: _Views) -> set[int]:
        """The detector indexes whose keywords occur in the text of `views`."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hyperscan.Scratch(self._db)
        found: set[int] = set()
        self._db.scan(views.ascii(), match_event_handler=_found, context=found,
                      scratch=scratch)
        on: set[int] = set()
        known = views._has
        for i, (where, key) in enumerate(self._keys):
            there = i in found
            known[where, key] = there
            if there:
                on.update(self._groups[i])
        return on


def _found(key: int, start: int, end: int, flags: int, found: object) -> None:
    """Vectorscan's match callback: note which keyword (`found` is the scan's set)."""
    found.add(key)  # type: ignore[attr-defined]


_ASCII_DIGIT = re.compile("[0-9]").search  # (what "0" in the shape view means)

_PLANS = {id(DETECTORS): _Plan.of(DETECTORS)}


def _lookalike_table() -> dict[int, str]:
    table = {ord(c): " " for c in "\u00a0\u2007\u2009\u202f\u2002\u2003\u2004\u2005\u2006"}
    table.update({ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2212\ufe63\uff0d"})
    for zero in (0xFF10, 0x0660, 0x06F0, 0x0966):  # full-width, Arabic-Indic, Devanagari
        table.update({zero + d: str(d) for d in range(10)})
    return table


#: Characters models and people write for the ASCII ones a detector reads: no-break and thin
#: spaces, non-ASCII hyphens and dashes, digits of other scripts (those listed here; any
#: other script's decimal digit is added per text, `_other_digits`). Offsets are unchanged,
#: so a value is found (and masked in the original text) however it was typeset.
_LOOKALIKE = _lookalike_table()
_LOOKALIKE_CHARS = frozenset(map(chr, _LOOKALIKE))
#: A non-ASCII decimal digit (Unicode category Nd, as `\d` reads it), of any script.
_OTHER_DIGIT = re.compile(r"[^\x00-\x7f](?<=\d)")
#: Any one of the `_LOOKALIKE` characters or a non-ASCII decimal digit (a regex scan: ~5 ms a
#: megabyte; it starts with a character class, so `re` skips ASCII text in C).
_A_LOOKALIKE = re.compile(
    "[^\\x00-\\x7f](?<=[" + "".join(re.escape(chr(c)) for c in sorted(_LOOKALIKE)) + "\\d])"
)


def _other_digits(text: str, start: int) -> dict[int, str]:
    """`_LOOKALIKE`, plus each decimal digit of another script in `text[start:]` mapped to
    its ASCII digit (Thai `๘` to `8`)."""
    extra = {ord(c): str(unicodedata.decimal(c)) for c in set(_OTHER_DIGIT.findall(text, start))
             if ord(c) not in _LOOKALIKE}
    return {**_LOOKALIKE, **extra} if extra else _LOOKALIKE


def _first_lookalike(text: str, ascii_view: bytes) -> int:
    """Where the first `_LOOKALIKE` character of `text` is, -1 if none. `ascii_view` is
    `text.encode("ascii", "replace")`: every non-ASCII character is a `?` there, so where
    `?`s are few (prose with a few accents) only they are looked at, with `bytes.find`;
    where they are many, one regex scan."""
    if ascii_view.count(b"?") > len(text) // 64:
        first = _A_LOOKALIKE.search(text)
        return -1 if first is None else first.start()
    at = ascii_view.find(b"?")
    while at != -1 and text[at] not in _LOOKALIKE_CHARS and not text[at].isdecimal():
        at = ascii_view.find(b"?", at + 1)
    return at


def find(text: str, detectors: Sequence[Detector] = DETECTORS) -> list[Finding]:
    """Every value the detectors find in `text`, in order of position, overlaps settled.
    No-break and thin spaces, non-ASCII dashes and other scripts' digits read as their ASCII
    look-alikes (`_LOOKALIKE`, and any script's decimal digits).

    Cost is linear in `len(text)`: each detector's regex runs only in the windows where it
    may match (`Detector.reach`, `min_digits`), found by cheap scans, or over the whole
    text when one of its keywords occurs. The result is what one `finditer` of each
    regex over the whole text, then validation and `_settle`, would give.
    """
    if not text:
        return []
    plan = _PLANS.get(id(detectors))
    if plan is None:
        plan = _Plan.of(detectors)
    if text.isascii() and plan.clean(text):
        return []
    views = _Views(text)
    if not text.isascii():  # look-alike digits and separators, one character for one
        at = _first_lookalike(text, views.ascii())
        if at != -1:  # (the characters before it translate to themselves)
            text = text[:at] + text[at:].translate(_other_digits(text, at))
            views = _Views(text)
    active = plan.active(views)
    if not active:
        return []
    candidates = [(d.priority, m.start(d.group), d, m) for d, m in _matches(views, active)]
    return [Finding(d.category, start, end, d.id)
            for start, end, d in _confirm_and_settle(text, candidates)]


def _by_rank(candidate: tuple[int, int, Detector, re.Match[str]]) -> tuple[int, int]:
    return candidate[0], candidate[1]


def _confirm_and_settle(
    text: str, candidates: list[tuple[int, int, Detector, re.Match[str]]]
) -> list[tuple[int, int, Detector]]:
    """The confirmed values among `candidates` (`(priority, start, detector, match)`) that
    `_settle` keeps, as `(start, end, detector)` in order of position.

    Candidates are taken in `_settle`'s order (priority, then position), so a candidate
    whose first character a kept finding already holds would be dropped whatever its
    validator says: it is skipped without validating (a confirmed span starts where the
    match's group does and is never empty).
    """
    candidates.sort(key=_by_rank)
    claimed = bytearray(len(text))
    kept: list[tuple[int, int, Detector]] = []
    for _, first, detector, match in candidates:
        if claimed[first]:
            continue
        span = _confirmed(text, detector, match)
        if span is None:
            continue
        start, end = span
        if claimed.find(1, start, end) == -1:
            claimed[start:end] = b"\x01" * (end - start)
            kept.append((start, end, detector))
    kept.sort(key=_by_start)
    return kept


def _by_start(item: tuple[int, int, Detector]) -> int:
    return item[0]


def _settle(
    found: list[tuple[int, int, int, Detector]], length: int
) -> list[tuple[int, int, int, Detector]]:
    """Keep, for each stretch of text, the finding of the lowest priority number (the rule
    `_confirm_and_settle` applies while validating)."""
    found.sort(key=lambda item: (item[0], item[1]))
    claimed = bytearray(length)
    kept = []
    for item in found:
        _, start, end, _ = item
        if claimed.find(1, start, end) == -1:
            claimed[start:end] = b"\x01" * (end - start)
            kept.append(item)
    kept.sort(key=lambda item: item[1])
    return kept


def apply_masks(text: str, findings: Iterable[Finding], to_mask: Mapping[str, bool]) -> str:
    """`text` with each finding whose class `to_mask[cls]` is true replaced by its mask.

    `findings` must be in order of position and not overlap (as `find` returns them).
    """
    out: list[str] = []
    pos = 0
    for f in findings:
        if not to_mask.get(f.cls):
            continue
        out.append(text[pos : f.start])
        out.append(_MASKS[f.detector](text[f.start : f.end]))
        pos = f.end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)
