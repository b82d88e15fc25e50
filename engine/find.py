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
The views live in `engine.views`, the gate that says which detectors may match in
`engine.plan`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from engine.detectors import DETECTORS, Detector
from engine.plan import Plan
from engine.views import Views, first_lookalike, other_digits

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


def _anchored(views: Views, detector: Detector) -> Iterator[re.Match[str]]:
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


def _windows(views: Views, detector: Detector) -> Spans | None:
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
    views: Views, detectors: list[Detector]
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


def _matches(views: Views, detectors: Sequence[Detector]
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


_PLANS = {id(DETECTORS): Plan.of(DETECTORS)}


def find(text: str, detectors: Sequence[Detector] = DETECTORS) -> list[Finding]:
    """Every value the detectors find in `text`, in order of position, overlaps settled.
    No-break and thin spaces, non-ASCII dashes and other scripts' digits read as their ASCII
    look-alikes (`LOOKALIKE`, and any script's decimal digits).

    Cost is linear in `len(text)`: each detector's regex runs only in the windows where it
    may match (`Detector.reach`, `min_digits`), found by cheap scans, or over the whole
    text when one of its keywords occurs. The result is what one `finditer` of each
    regex over the whole text, then validation and `_settle`, would give.
    """
    if not text:
        return []
    plan = _PLANS.get(id(detectors))
    if plan is None:
        plan = Plan.of(detectors)
    if text.isascii() and plan.clean(text):
        return []
    views = Views(text)
    if not text.isascii():  # look-alike digits and separators, one character for one
        at = first_lookalike(text, views.ascii())
        if at != -1:  # (the characters before it translate to themselves)
            text = text[:at] + text[at:].translate(other_digits(text, at))
            views = Views(text)
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
