"""validators.iban's own registry look-up agrees with python-stdnum's `iban.is_valid` on IBANs
of every registered country (well-formed, with bad check digits, bad structure, cut short)
and on unregistered codes. The IBANs are generated here from each country's structure."""

from __future__ import annotations

import random

import pytest
from stdnum import iban as stdnum_iban

from replyguard.engine import validators

_CHARS = {"n": "0123456789", "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
          "c": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def _bban(structure: str, rng: random.Random) -> str:
    return "".join("".join(rng.choice(_CHARS[kind]) for _ in range(count))
                   for count, kind in _parts(structure))


def _parts(structure: str) -> list[tuple[int, str]]:
    parts, number = [], ""
    for char in structure:
        if char.isdigit():
            number += char
        elif char == "!":
            continue
        else:
            parts.append((int(number), char))
            number = ""
    return parts


def _cases() -> list[str]:
    rng = random.Random(13)
    cases = []
    for code, entry in sorted(validators._IBAN_COUNTRIES.items()):
        for _ in range(6):
            bban = _bban(entry["bban"], rng)
            number = code + stdnum_iban.calc_check_digits(code + "00" + bban) + bban
            spaced = " ".join(number[i:i + 4] for i in range(0, len(number), 4))
            cases += [number, spaced, number[:-1], number[:2] + "00" + number[4:],
                      number[:4] + number[4:][::-1], number.lower()]
    for code in ("XX", "ZZ", "QA1", "AA"):
        bban = "".join(rng.choice(_CHARS["n"]) for _ in range(18))
        cases.append(code[:2] + stdnum_iban.calc_check_digits(code[:2] + "00" + bban) + bban)
    return cases


CASES = _cases()


def test_cases_hold_valid_and_invalid_ibans() -> None:
    valid = sum(map(stdnum_iban.is_valid, CASES))
    assert (valid > 300, len(CASES) - valid > 300) == (True, True)


@pytest.mark.parametrize("value", CASES)
def test_iban_agrees_with_stdnum(value: str) -> None:
    assert validators.iban(value) == stdnum_iban.is_valid(value)
