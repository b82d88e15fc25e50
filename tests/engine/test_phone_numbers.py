"""engine.phone_numbers: the early refusal from libphonenumber's metadata never refuses a
number libphonenumber finds valid (every region's example numbers, nationally and with `+`,
and numbers one digit away from them), and the kept answers are libphonenumber's."""

from __future__ import annotations

import random

import phonenumbers
import pytest

from replyguard.engine import find, phone_numbers
from replyguard.engine.phone_numbers import PHONE_REGIONS, phone

_TYPES = (phonenumbers.PhoneNumberType.FIXED_LINE, phonenumbers.PhoneNumberType.MOBILE,
          phonenumbers.PhoneNumberType.TOLL_FREE)


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def _samples(region: str, rng: random.Random) -> list[str]:
    """The region's example numbers as written nationally and with `+`, and each with one
    digit changed, three times."""
    out = []
    for kind in _TYPES:
        example = phonenumbers.example_number_for_type(region, kind)
        if example is None:
            continue
        for text in (phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.NATIONAL),
                     phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.E164)):
            out.append(text)
            for _ in range(3):
                chars = list(text)
                at = rng.choice([i for i, c in enumerate(chars) if c.isdigit()])
                chars[at] = rng.choice("0123456789")
                out.append("".join(chars))
    return out


def _libphonenumber(value: str, region: str) -> bool:
    return phone_numbers._valid.__wrapped__(value, None if value.startswith("+") else region,
                                            _digits(value))


def test_early_refusal_never_refuses_a_valid_number() -> None:
    rng = random.Random(20261201)
    refused = []
    for region in sorted(PHONE_REGIONS):
        for value in _samples(region, rng):
            if _libphonenumber(value, region) and not phone(value, _digits(value), (region,)):
                refused.append((region, value))
    assert refused == []


@pytest.mark.parametrize(("value", "regions", "valid"), [
    ("+44 20 7946 0123", (), True),
    ("+979 501 234 567", (), True),       # non-geographic (international premium rate)
    ("+881 8 00012345", (), True),        # non-geographic (satellite)
    ("+1 555 012 3456", (), False),
    ("020 7946 0123", ("GB",), True),
    ("20 7946 0123", ("GB",), False),     # GB numbers are written with their trunk 0
    ("(202) 555-0143", ("US",), True),
    ("1-202-555-0143", ("US",), True),
    ("(202) 555-0143", ("GB",), False),
    ("(11) 98765-4321", ("BR",), True),
    ("011 98765-4321", ("BR",), True),
    ("(11) 98765-4321", ("US", "GB"), False),
])
def test_phone(value: str, regions: tuple[str, ...], valid: bool) -> None:
    assert (phone(value, _digits(value), regions),
            all(_libphonenumber(value, r) == valid for r in regions or ("US",))) == (valid, True)


def _gb_mobiles() -> list[str]:
    """Mobiles dialled in Great Britain as its own (+44: Great Britain's, Guernsey's, Jersey's
    and the Isle of Man's) that libphonenumber finds valid, written nationally (`07911
    123456`): each region's example and variations of it, its last six digits changed."""
    rng = random.Random(20261202)
    out = []
    for region in ("GB", "GG", "JE", "IM"):
        example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
        national = phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.NATIONAL)
        for _ in range(6):
            digits = _digits(national)[:5] + "".join(rng.choice("0123456789") for _ in range(6))
            number = phonenumbers.parse(digits, "GB")
            if phonenumbers.is_valid_number(number):
                out.append(f"{digits[:5]} {digits[5:]}")
    return [*out, "07911 123456"]


@pytest.mark.parametrize("mobile", _gb_mobiles())
def test_a_mobile_dialled_in_great_britain_is_found_in_en(mobile: str) -> None:
    text = f"Call {mobile} today."
    assert [(f.cls, text[f.start:f.end]) for f in find(text)] == [("phone", mobile)]


def test_a_number_libphonenumber_refuses_is_no_phone() -> None:
    # (Ofcom's range for drama, 07700 900xxx: libphonenumber finds it valid in no plan)
    assert find("Call 07700 900123 today.") == []
