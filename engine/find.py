"""Finding values in text: run the detectors, confirm with validators, settle overlaps.

A digit run claimed by one class is not claimed again by another; the detector with the lower
`priority` keeps it (secrets, then email, then card > iban > national_id > phone, DESIGN
section 3). Findings never carry the value itself, only where it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.detectors import DETECTORS, Detector


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


def _candidates(text: str, detector: Detector) -> Iterable[tuple[int, int]]:
    for match in detector.regex.finditer(text):
        start, end = match.span(detector.group)
        if detector.validate is None or detector.validate(text[start:end]):
            yield start, end
        elif detector.trim_groups:
            cut = text.rfind(" ", start, end)
            while cut > start + 8:
                if detector.validate(text[start:cut]):
                    yield start, cut
                    break
                cut = text.rfind(" ", start, cut)


def find(text: str, detectors: Sequence[Detector] = DETECTORS) -> list[Finding]:
    """Every value the detectors find in `text`, in order of position, overlaps settled.

    Cost is linear in `len(text)`: each detector's keywords are checked first (a substring
    test), and only detectors whose keywords occur run their regex.
    """
    if not text:
        return []
    present: dict[tuple[str, ...], bool] = {}
    lowered: str | None = None
    found: list[tuple[int, int, int, Detector]] = []
    for detector in detectors:
        if detector.keywords:
            if detector.fold_keywords:
                lowered = text.lower() if lowered is None else lowered
                hit = any(k in lowered for k in detector.keywords)
            else:
                hit = present.get(detector.keywords)
                if hit is None:
                    hit = present[detector.keywords] = any(k in text for k in detector.keywords)
            if not hit:
                continue
        for start, end in _candidates(text, detector):
            found.append((detector.priority, start, end, detector))
    if len(found) > 1:
        found = _settle(found, len(text))
    return [Finding(d.category, start, end, d.id) for _, start, end, d in found]


def _settle(
    found: list[tuple[int, int, int, Detector]], length: int
) -> list[tuple[int, int, int, Detector]]:
    """Keep, for each stretch of text, the finding of the lowest priority number."""
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
