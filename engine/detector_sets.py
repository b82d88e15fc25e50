"""Detector sets by the regions national phone numbers are read in: the built-in detectors
with the phone detector's validator bound to those regions, each set built once (with its
plan) and shared by every rules object that reads numbers there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import cache, partial
from types import MappingProxyType

from replyguard.engine import validators
from replyguard.engine.detector import Detector
from replyguard.engine.detectors import DETECTORS
from replyguard.engine.phone_numbers import DEFAULT_PHONE_REGIONS, PHONE_REGIONS
from replyguard.engine.plan import DetectorSet

#: The regions a language's readers write national phone numbers in, where the settings name
#: none: `en` the United States and the United Kingdom, `pt-BR` Brazil.
PHONE_REGIONS_BY_LANGUAGE: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": DEFAULT_PHONE_REGIONS,
    "pt-BR": ("BR",),
})


def phone_regions(regions: Iterable[str]) -> tuple[str, ...]:
    """`regions` as region codes (upper case, each once, in order). Raises ValueError naming
    each code libphonenumber has no numbering plan for, or when there is none."""
    out: list[str] = []
    for region in regions:
        code = region.upper() if isinstance(region, str) else region
        if code not in PHONE_REGIONS:
            raise ValueError(f"phone_regions: {region!r} is not a region with a phone "
                             "numbering plan (ISO 3166-1 alpha-2 codes: US, GB, BR, ...)")
        if code not in out:
            out.append(code)
    if not out:
        raise ValueError("phone_regions: names no region")
    return tuple(out)


@cache
def _for(regions: tuple[str, ...]) -> Sequence[Detector]:
    if regions == DEFAULT_PHONE_REGIONS:
        return DETECTORS  # (engine.find keeps its plan)
    check = partial(validators.phone, regions=regions)
    return DetectorSet(replace(d, validate=check) if d.category == "phone" else d
                       for d in DETECTORS)


def detectors_for(regions: Iterable[str]) -> Sequence[Detector]:
    """The built-in detectors, national phone numbers read in `regions` (`phone_regions`
    checks them; ValueError for an unknown one). The same object for the same regions:
    `DETECTORS` itself for the default ones (US, GB)."""
    return _for(phone_regions(regions))
