"""Phone numbers by their numbering plan: Google's libphonenumber (the `phonenumbers` package)
says whether a number is valid in a region's plan, ITU-T E.164's country codes which plan a
`+` number is read in.

libphonenumber parses and validates a number in 30-55 µs. Two cheaper steps come first,
neither changing an answer (tests/engine/test_phone_numbers.py): `_Plan.may_hold` refuses,
from the same metadata, a number none of whose suffixes (its national significant number,
after a prefix) matches one of the region's number patterns (~1-2 µs; most digit runs that are
no phone number end there), and libphonenumber's answers are kept for the 4,096 numbers last
asked about (a help desk gives its own numbers again and again). find + screen_text on the
realistic corpus (tests/bench/bench_instructions.py, instructions a KB): 490k before numbering
plans were read, 1,052k with libphonenumber alone, 788k with the early refusal, 527k with the
kept answers too (the corpus repeats its numbers); a number not seen before still costs
libphonenumber's 30-55 µs. The whole answer (`phone`, the early refusal included) is kept
the same way: `find` on 64 KB of the realistic corpus 474.6k -> 466.0k instructions a KB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

import phonenumbers
from phonenumbers import PhoneMetadata

#: The regions whose numbering plans national phone numbers are read in when nothing says
#: otherwise (an `en` reader's).
DEFAULT_PHONE_REGIONS = ("US", "GB")
#: Every region libphonenumber has a numbering plan for (ISO 3166-1 alpha-2 codes, and `001`
#: for non-geographic entities).
PHONE_REGIONS: frozenset[str] = frozenset(phonenumbers.SUPPORTED_REGIONS)

#: The number types libphonenumber tells apart: a number is valid when it is one of them.
_TYPES = ("premium_rate", "toll_free", "shared_cost", "voip", "personal_number", "pager", "uan",
          "voicemail", "fixed_line", "mobile")
#: How many leading digits a national prefix and carrier code take at most.
_MAX_PREFIX = 6
_GROUPS_ONLY = re.compile(r"(?:\\\d)+")


@dataclass(frozen=True, slots=True)
class _Plan:
    """A region's number patterns, from libphonenumber's metadata, by length: `valid[n]`
    matches the national significant numbers of `n` digits of any type (`general` is the
    region's general pattern, which every valid number matches too). `suffixes`: whether
    parsing leaves the national significant number a suffix of the digits written (no
    national-prefix transform rule that writes digits of its own); when not, nothing is
    refused early."""

    general: re.Pattern[str]
    valid: dict[int, re.Pattern[str]]
    suffixes: bool

    def may_hold(self, number: str) -> bool:
        """Whether a valid number of this region can be read in `number` (its digits, a
        national prefix or carrier code, or a country code, before): some suffix of it
        matches a number type's pattern of its length. False only where libphonenumber
        finds no valid number of this region in it."""
        if not self.suffixes:
            return True
        for cut in range(min(_MAX_PREFIX, len(number) - 1) + 1):
            nsn = number[cut:]
            pattern = self.valid.get(len(nsn))
            if pattern is not None and pattern.fullmatch(nsn) and self.general.fullmatch(nsn):
                return True
        return False


#: A plan that refuses nothing early: libphonenumber decides.
_ASK = _Plan(re.compile("(?!)"), {}, False)


@cache
def _plan(region: str) -> _Plan:
    """The plan of `region` (built once, on first use; libphonenumber loads its metadata
    lazily too)."""
    metadata = PhoneMetadata.metadata_for_region(region)
    general = metadata.general_desc if metadata is not None else None
    if metadata is None or general is None or not general.national_number_pattern:
        return _ASK  # (none such: libphonenumber decides)
    descs = [getattr(metadata, name) for name in _TYPES]
    valid: dict[int, re.Pattern[str]] = {}
    for length in general.possible_length:
        patterns = [desc.national_number_pattern for desc in descs
                    if desc is not None and desc.national_number_pattern
                    and (not desc.possible_length or length in desc.possible_length)]
        if patterns:
            valid[length] = re.compile("|".join(f"(?:{p})" for p in patterns))
    rule = metadata.national_prefix_transform_rule
    return _Plan(re.compile(general.national_number_pattern), valid,
                 not rule or _GROUPS_ONLY.fullmatch(rule) is not None)


@cache
def _national_plan(region: str) -> _Plan:
    """The plan a number written nationally in `region` is read in: the plans of every
    region sharing its country code, as one (a number of Jersey, Guernsey or the Isle of Man
    is dialled in Great Britain as one of its own is, `07797 123456`; a Canadian one in the
    United States). A region without a country code is read in its own plan."""
    metadata = PhoneMetadata.metadata_for_region(region)
    code = metadata.country_code if metadata is not None else None
    regions = phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(code or 0, ())
    plans = [_plan(r) for r in regions if r in PHONE_REGIONS] or [_plan(region)]
    if len(plans) == 1 or any(plan is _ASK for plan in plans):
        return plans[0] if len(plans) == 1 else _ASK
    valid: dict[int, list[str]] = {}
    for plan in plans:
        for length, pattern in plan.valid.items():
            valid.setdefault(length, []).append(pattern.pattern)
    return _Plan(re.compile("|".join(f"(?:{p.general.pattern})" for p in plans)),
                 {n: re.compile("|".join(f"(?:{p})" for p in ps)) for n, ps in valid.items()},
                 all(plan.suffixes for plan in plans))


def _country(number: str) -> tuple[int, tuple[_Plan, ...]]:
    """How many digits the country code that `number` (the digits after a `+`) starts with
    takes (country codes are prefix-free: at most one of 1 to 3 digits is one), and the
    plans of the regions sharing it; (0, ()) for none (`_country_of` its first three
    digits)."""
    return _country_of(number[:3])


@lru_cache(maxsize=1024)
def _country_of(head: str) -> tuple[int, tuple[_Plan, ...]]:
    """`_country` of a number starting with `head` (its first three digits, or all of a
    shorter one), kept for the 1,024 heads last asked about (ASCII digits make 1,000)."""
    for size in (1, 2, 3):
        regions = phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(int(head[:size]))
        if regions:  # (`001`, non-geographic: no region plan, libphonenumber decides)
            return size, tuple(_plan(r) if r in PHONE_REGIONS else _ASK for r in regions)
    return 0, ()


@cache
def country_code(region: str) -> int:
    """The country code of `region`'s numbering plan (ITU-T E.164; 0 for none)."""
    return phonenumbers.country_code_for_region(region)


@lru_cache(maxsize=4096)
def phone(value: str, digits: str, regions: tuple[str, ...]) -> bool:
    """`value` (whose digits are `digits`) is a phone number valid in its numbering plan:
    written with `+`, valid for the country its code names; else valid in one of `regions`
    and written as that region writes its numbers (with its national prefix where its
    numbers are written with one: `020 7946 0123`, not `20 7946 0123`). A national number
    is read in the plans of every region sharing the region's country code
    (`_national_plan`: `07911 123456`, a Guernsey mobile, in `GB`). The answers for the
    4,096 numbers last asked about are kept, the early refusal's too (`_Plan.may_hold`:
    two patterns of a plan's every number type, ~12k instructions a `+` number)."""
    if value.startswith("+"):
        size, plans = _country(digits)
        national = digits[size:]
        return any(plan.may_hold(national) for plan in plans) and _valid(value, None, digits)
    return any(_national_plan(region).may_hold(digits) and _valid(value, region, digits)
               for region in regions)


@lru_cache(maxsize=4096)
def _valid(value: str, region: str | None, number: str) -> bool:
    """libphonenumber's answer: `value` (whose digits are `number`) is a valid number of
    `region`'s country code (`_national_plan`), written as that region writes it; with no
    region, a `+` number valid in its country's plan. A national number may be written with
    its region's national prefix and a carrier's code before it (Brazil's `0 21 11 …`).
    Kept for the 4,096 numbers last asked about."""
    try:
        parsed = phonenumbers.parse(value, region, keep_raw_input=region is not None)
    except phonenumbers.NumberParseException:
        return False
    if region is None:
        return phonenumbers.is_valid_number(parsed)
    metadata = PhoneMetadata.metadata_for_region(region)
    if metadata is None or parsed.country_code != metadata.country_code or not (
            phonenumbers.is_valid_number(parsed)):
        return False
    significant = phonenumbers.national_significant_number(parsed)
    prefix = metadata.national_prefix or ""
    carrier = parsed.preferred_domestic_carrier_code or ""
    if number in (prefix + significant, prefix + carrier + significant):
        return True
    national = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.NATIONAL)
    return number == "".join(c for c in national if c.isdigit())
