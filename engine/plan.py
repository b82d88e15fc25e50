"""Which detectors may match in a text (engine.find's gate): the detectors grouped by what
must occur in a text for each to match, and the keyword scan (one `in` test a keyword for a
sentence, one Vectorscan pass for a long text).
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

try:  # Vectorscan/Hyperscan (BSD-3), optional: where its wheel is missing, `in` tests instead
    import hyperscan
except ImportError:  # pragma: no cover - the wheel exists for Linux x86_64, where tests run
    hyperscan = None  # type: ignore[assignment]

from replyguard.engine.detector import Detector, KeywordsIn
from replyguard.engine.tuning import Tuning, tuning_of
from replyguard.engine.views import Views

#: A detector with the tuning it is searched with (`engine.tuning`).
Tuned = tuple[Detector, Tuning]
#: The views a keyword is looked for in, in the order the keyword scan lists them.
_KEYWORDS_IN: tuple[KeywordsIn, ...] = ("text", "lower", "shape")


@dataclass(frozen=True, slots=True)
class Plan:
    """A detector set grouped, by position in the set, by what must occur in a text for each
    to match: a run of digits holding its tuning's `min_digits` (numeric detectors), a
    keyword of the text's shape (only with a digit: the shape keywords hold one), of the text
    or of its ASCII lower case, a gate match, or nothing. Keywords of the byte views are kept
    encoded. `tuned` holds each detector with its tuning (`engine.tuning.tuning_of`)."""

    tuned: tuple[Tuned, ...]
    numeric: tuple[tuple[int, int], ...]  # (min_digits, index)
    shape_keys: tuple[tuple[bytes, tuple[int, ...]], ...]
    text_keys: tuple[tuple[str, tuple[int, ...]], ...]
    lower_keys: tuple[tuple[bytes, tuple[int, ...]], ...]
    gated: tuple[tuple[re.Pattern[str], int], ...]
    always: tuple[int, ...]
    scan: KeyScan | None  # the text and lower-case keywords in one pass, for long texts
    lower_words: tuple[tuple[str, tuple[int, ...]], ...]  # `lower_keys` as text (for ASCII)
    digit_text: re.Pattern[str] | None  # runs (if `numeric`) and `shape_keys`, in ASCII text
    #: The text keywords not in ASCII (`text_keys` holds the others): looked for only in a
    #: text that is not ASCII, never by the long-text scan (`KeyScan` reads the ASCII view).
    wide_keys: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @classmethod
    def of(cls, detectors: Sequence[Detector]) -> Plan:
        """The plan of `detectors`: a `DetectorSet`'s own (built once), else built now
        (engine.find keeps the built-in set's)."""
        if isinstance(detectors, DetectorSet):
            return detectors.plan
        return cls.build(detectors)

    @classmethod
    def build(cls, detectors: Sequence[Detector]) -> Plan:
        """The plan of `detectors`, built."""
        numeric, gated, always = [], [], []
        keys: dict[KeywordsIn, dict[str, list[int]]] = {"text": {}, "lower": {}, "shape": {}}
        placed: set[tuple[KeywordsIn, str]] = set()  # keywords whose places a window reads
        tuned = tuple((d, tuning_of(d)) for d in detectors)
        for i, (d, tuning) in enumerate(tuned):
            if tuning.min_digits:
                numeric.append((tuning.min_digits, i))
            elif tuning.gate is not None and d.keywords_in != "shape":
                gated.append((tuning.gate, i))
            elif not d.keywords:
                always.append(i)
            else:
                for key in d.keywords:
                    if d.keywords_in == "shape" and "0" not in key:
                        raise ValueError(f"{d.id}: shape keyword {key!r} holds no digit")
                    keys[d.keywords_in].setdefault(key, []).append(i)
                    if tuning.reach is not None:
                        placed.add((d.keywords_in, key))
        scanned = [(where, k, v, (where, k) in placed) for where in _KEYWORDS_IN
                   for k, v in keys[where].items() if KeyScan.reads(where, k)]
        return cls(tuned, tuple(numeric),
                   tuple((k.encode(), tuple(v)) for k, v in keys["shape"].items()),
                   tuple((k, tuple(v)) for k, v in keys["text"].items() if k.isascii()),
                   tuple((k.encode(), tuple(v)) for k, v in keys["lower"].items()),
                   tuple(gated), tuple(always), KeyScan.of(scanned),
                   tuple((k, tuple(v)) for k, v in keys["lower"].items()),
                   _digit_pattern(bool(numeric), keys["shape"]),
                   tuple((k, tuple(v)) for k, v in keys["text"].items() if not k.isascii()))

    def active(self, views: Views) -> list[Tuned]:
        """The detectors that may match somewhere in the text, in the set's order, each with
        its tuning.

        One `in` test a keyword, made here directly (not through `Views.has`): on a sentence
        the per-call overhead would be most of the cost."""
        text = views.text
        on: list[int] = list(self.always)
        scan = self.scan if len(text) >= KEYSCAN_MIN else None
        if (self.numeric or self.shape_keys) and _ASCII_DIGIT(text) is not None:
            runs = views.runs() if self.numeric else ()
            if runs:
                most = 0
                for run in runs:
                    if run[2] > most:
                        most = run[2]
                for least, i in self.numeric:
                    if most >= least:
                        on.append(i)
            if self.shape_keys and scan is None:  # (the scan reads them too)
                self._shape_keys(views, on)
        if scan is not None:
            self._scanned(scan, views, on)
        else:
            self._keywords(views, on)
        for gate, i in self.gated:
            if gate.search(text) is not None:
                on.append(i)
        if not on:
            return []
        tuned = self.tuned
        return [tuned[i] for i in sorted(set(on))]

    def _scanned(self, scan: KeyScan, views: Views, on: list[int]) -> None:
        """Add the detectors whose keywords a long text holds: the scan's, and those of the
        text keywords not in ASCII (`wide_keys`)."""
        on.extend(scan.groups(views))
        text = views.text
        if not text.isascii():
            for word, group in self.wide_keys:
                if word in text:
                    on.extend(group)

    def clean(self, text: str) -> bool:
        """True when no detector of the plan can be active in the ASCII `text` of a sentence
        (what `active` would say, without building views): no keyword or gate match, and
        where there is a digit, no run of digits and separators and no shape keyword (read
        in the text itself, in one search: `digit_text`). A text one of whose detectors
        always runs is never clean. It may say False where `active` finds nothing (a run
        with too few digits); never True where `active` finds something."""
        if self.always:
            return False
        if (self.numeric or self.shape_keys) and not text.encode().translate(_DIGITS).isalpha():
            if self.digit_text is not None and self.digit_text.search(text) is not None:
                return False
        for word, _ in self.text_keys:
            if word in text:
                return False
        if self.lower_words:
            lower = text.lower()  # (ASCII: the lower-case view, as text)
            for word, _ in self.lower_words:
                if word in lower:
                    return False
        for gate, _ in self.gated:
            if gate.search(text) is not None:
                return False
        return True

    def _shape_keys(self, views: Views, on: list[int]) -> None:
        """Add the detectors whose shape keywords occur. In a long text each answer is
        also told to `views`, so that the detectors' windows do not scan for it again: a
        shape keyword is made of the shape view's commonest bytes, so a scan steps one byte
        at a time (~8k instructions a KB; the realistic corpus's detectors ~32k/KB fewer)."""
        shape = views.shape()
        tell = len(shape) >= KEYSCAN_MIN
        for key, group in self.shape_keys:
            if shape.find(key) != -1:  # (`in` on bytes costs ~4x `find`)
                on.extend(group)
                if tell:
                    views.know("shape", key.decode(), True)
            elif tell:
                views.know("shape", key.decode(), False)

    def _keywords(self, views: Views, on: list[int]) -> None:
        text = views.text
        for word, group in self.text_keys:
            if word in text:
                on.extend(group)
        if self.wide_keys and not text.isascii():
            for word, group in self.wide_keys:
                if word in text:
                    on.extend(group)
        if not self.lower_keys:
            return
        if text.isascii():  # the lower-case view is the text's lower case: `in` on text
            lower_text = text.lower()
            for word, group in self.lower_words:
                if word in lower_text:
                    on.extend(group)
            return
        lower = views.lower()
        for key, group in self.lower_keys:
            if lower.find(key) != -1:
                on.extend(group)


class DetectorSet(tuple[Detector, ...]):
    """An immutable detector set that keeps its `Plan` (built on first use), so that a set
    other than the built-in one (phone numbers read in other regions) is not planned again on
    every `find` call."""

    @cached_property
    def plan(self) -> Plan:
        """The set's plan."""
        return Plan.build(self)


#: From this length on, a text's keywords are looked for in one Vectorscan pass (below it, the
#: call costs more than the `in` tests it saves).
KEYSCAN_MIN = 1024


class KeyScan:
    """Which of a plan's keywords occur in a text, and where, found in one pass of a
    Vectorscan database over the text's ASCII view: its ASCII text keywords (`Plan.active`
    looks for the others with `in`), its lower-case ones caselessly (what the ASCII
    lower-case view reads) and its shape keywords as the classes of bytes each shape byte
    stands for (what the shape view reads). A keyword whose places a detector's windows read
    (`Tuning.reach`) is reported at each occurrence, but in the text (whose ASCII view may
    read a character beyond Latin-1 as one it is not); any other once (HS_FLAG_SINGLEMATCH).
    On a megabyte this is ~0.4 ms where one `in` test a keyword is ~10 ms. The answers go
    into the views (`Views.know`, `Views.know_places`), so the detectors' windows do not scan
    for them again: a keyword's places are read from the pass, not with `bytes.find` over
    the lower-case or shape view, which need not be made (`find` on the realistic corpus:
    about -3%). Each thread scans with its own scratch space (the proxy screens
    large replies in a worker thread).
    """

    def __init__(self, keys: list[tuple[KeywordsIn, str, list[int], bool]]) -> None:
        assert hyperscan is not None
        self._keys = [(where, key) for where, key, _, _ in keys]
        self._groups = [group for _, _, group, _ in keys]
        #: The size of each keyword whose places are reported, 0 for the others.
        self._sizes = [len(key) if placed and where != "text" else 0
                       for where, key, _, placed in keys]
        self._absent = dict.fromkeys(self._keys, False)
        flags = [(0 if size else hyperscan.HS_FLAG_SINGLEMATCH)
                 | (hyperscan.HS_FLAG_CASELESS if where == "lower" else 0)
                 for (where, _), size in zip(self._keys, self._sizes, strict=True)]
        exprs = [_expression(where, key) for where, key in self._keys]
        self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._db.compile(expressions=exprs, ids=list(range(len(keys))), elements=len(keys),
                         flags=flags)
        self._local = threading.local()

    @staticmethod
    def reads(where: KeywordsIn, key: str) -> bool:
        """Whether a scan reads keyword `key` of `where`: an ASCII one, and a shape keyword
        made of the shape view's bytes (another never occurs)."""
        return key.isascii() and (where != "shape" or all(c in _SHAPE_CLASSES for c in key))

    @classmethod
    def of(cls, keys: list[tuple[KeywordsIn, str, list[int], bool]]) -> KeyScan | None:
        """The scan of these keywords (each with the detector indexes that read it and whether
        its places are read); None without keywords or without the `hyperscan` package."""
        return cls(keys) if keys and hyperscan is not None else None

    def groups(self, views: Views) -> set[int]:
        """The detector indexes whose keywords occur in the text of `views`."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hyperscan.Scratch(self._db)
        ends: defaultdict[int, list[int]] = defaultdict(list)
        self._db.scan(views.ascii(), match_event_handler=_found, context=ends,
                      scratch=scratch)
        views.know_all(self._absent)
        on: set[int] = set()
        for i, found in ends.items():
            where, key = self._keys[i]
            size = self._sizes[i]
            if size:
                views.know_places(where, key, [end - size for end in found])
            else:
                views.know(where, key, True)
            on.update(self._groups[i])
        return on


def _found(key: int, start: int, end: int, flags: int, ends: object) -> None:
    """Vectorscan's match callback: note where a keyword's match ends (`ends` is the scan's)."""
    ends[key].append(end)  # type: ignore[index]


def _expression(where: KeywordsIn, key: str) -> bytes:
    """A keyword as a Vectorscan expression over the ASCII view: its bytes, or for a shape
    keyword the classes of bytes its bytes stand for."""
    if where == "shape":
        return b"".join(_SHAPE_BYTES[c] for c in key)
    return "".join(f"\\x{b:02x}" for b in key.encode()).encode()


_ASCII_DIGIT = re.compile("[0-9]").search  # (what "0" in the shape view means)
#: ASCII digits -> "0", any other byte -> "a": a text holds a digit where this view of it is
#: not all letters (half the cost of a regex search on a sentence).
_DIGITS = bytes(48 if 48 <= b <= 57 else 97 for b in range(256))
#: A run of digits and separators (`Views.runs`) as it reads in an ASCII text: its first
#: character, then the rest.
_RUN_FIRST, _RUN_REST = r"[0-9.()/+\-_,:|\\~']", r"[0-9.()/+\-_,:|\\~' ]{5,}"
#: What each byte of a shape keyword stands for in an ASCII text (`Views.shape`).
_SHAPE_CLASSES = {"A": "[A-Za-z]", "0": "[0-9]", " ": " ", "_": "[^A-Za-z0-9 ]"}
#: The same in the ASCII view, any byte of it (`Views.ascii`), for Vectorscan (`KeyScan`).
_SHAPE_BYTES = {"A": b"[A-Za-z]", "0": b"[0-9]", " ": b"\\x20", "_": b"[^A-Za-z0-9\\x20]"}


def _digit_pattern(numeric: bool, shape_keys: dict[str, list[int]]) -> re.Pattern[str] | None:
    """What `Plan.clean` looks for in an ASCII text holding a digit, as one pattern (None for
    nothing): a run of digits and separators (with `numeric` detectors, `Views.runs`), or one
    of the shape keywords. A keyword holding a byte no shape view holds can never occur,
    and is left out; every keyword holds a digit (`Plan.of` checks). Each keyword is matched
    from its first digit, what comes before it read by a look-behind (one for the keywords
    sharing it), so that `re` tries the pattern only at the digits (and separators) of a
    text, not at every letter; one search, not two, on every sentence holding a digit."""
    tails: dict[str, list[str]] = {}
    for key in shape_keys:
        if all(c in _SHAPE_CLASSES for c in key):
            first = key.index("0")
            tails.setdefault(key[:first], []).append(key[first + 1:])
    parts = [_RUN_REST] if numeric else []
    for head, rest in tails.items():
        parts.append(f"(?<={_classes(head)}[0-9])(?:" + "|".join(map(_classes, rest)) + ")")
    if not parts:
        return None
    return re.compile((_RUN_FIRST if numeric else "[0-9]") + "(?:" + "|".join(parts) + ")")


def _classes(shape: str) -> str:
    """A run of shape bytes as the character classes they stand for in an ASCII text."""
    return "".join(_SHAPE_CLASSES[c] for c in shape)
