"""The card and SSN validators read their rules on ASCII digits themselves: they agree with
python-stdnum's Luhn checksum and SSN rules on every number tried here."""

from __future__ import annotations

import random

import pytest
from stdnum import luhn
from stdnum.us import ssn as stdnum_ssn

from replyguard.engine import validators


def _numbers() -> list[str]:
    rng = random.Random(29)
    numbers = []
    for length in range(12, 21):
        for _ in range(60):
            body = "".join(rng.choice("0123456789") for _ in range(length - 1))
            numbers += [body + luhn.calc_check_digit(body), body + rng.choice("0123456789")]
    return numbers


NUMBERS = _numbers()


def test_numbers_hold_luhn_valid_and_invalid_ones() -> None:
    valid = sum(luhn.is_valid(number) for number in NUMBERS)
    assert (valid > 500, len(NUMBERS) - valid > 400) == (True, True)


@pytest.mark.parametrize("number", NUMBERS)
def test_luhn_sum_agrees_with_stdnum(number: str) -> None:
    assert validators._luhn_sum_holds(number) is (luhn.checksum(number) == 0)


@pytest.mark.parametrize(("value", "is_card"), [
    ("4111 1111 1111 1111", True),
    ("4111 1111 1111 1112", False),
    ("5500-0055-5555-5559", True),
    ("4111 1111 1111", False),
    ("0000 0000 0000 0000", False),
    ("4\u0661\u0661\u0661 1111 1111 1111", False),  # (Arabic-Indic digits: no card)
])
def test_card(value: str, is_card: bool) -> None:
    assert validators.card(value) is is_card


def _ssns() -> list[str]:
    rng = random.Random(31)
    ssns = ["078-05-1120", "457-55-5462", "219-09-9999", "078-05-1121", "000-12-3456",
            "666-12-3456", "900-12-3456", "999-99-9999", "123-00-4567", "123-45-0000",
            "123-45-6789", "123456789", "12345678", "1234567890", "123-45-678"]
    for _ in range(400):
        area = rng.choice(["000", "666", "9" + f"{rng.randrange(100):02d}",
                           *[f"{rng.randrange(900):03d}"] * 5])
        group = rng.choice(["00", *[f"{rng.randrange(100):02d}"] * 5])
        serial = rng.choice(["0000", *[f"{rng.randrange(10000):04d}"] * 5])
        ssns.append(rng.choice(["-", " ", ""]).join((area, group, serial)))
    return ssns


SSNS = _ssns()


def test_ssns_hold_valid_and_invalid_ones() -> None:
    valid = sum(stdnum_ssn.is_valid(validators.digits(value)) for value in SSNS)
    assert (valid > 100, len(SSNS) - valid > 100) == (True, True)


@pytest.mark.parametrize("value", SSNS)
def test_us_ssn_agrees_with_stdnum(value: str) -> None:
    assert validators.us_ssn(value) is stdnum_ssn.is_valid(validators.digits(value))


def test_us_ssn_of_other_digits_is_none() -> None:
    assert validators.us_ssn("\u0661\u0662\u0663-45-6789") is False


@pytest.mark.parametrize("number", ["GB82WEST12345698765432", "DE89370400440532013000",
                                    "ZZ00AZBY0919", "0000", "A", "9" * 34])
def test_mod_97_reads_each_letter_as_two_digits(number: str) -> None:
    written = "".join(str(int(char, 36)) for char in number)
    assert validators._mod_97(number) == int(written) % 97
