"""Check-digit and structure validators: the "validator confirms" step after a regex finds.

Each takes the matched text and returns True when the value is real. Check digits come from
python-stdnum (Luhn, ISO 13616 IBAN mod-97 with each country's length, Brazilian CPF, US SSN);
phone numbers from libphonenumber's numbering plans (`phonenumbers`); IP addresses from
`ipaddress`; UK NINO prefixes from HMRC's rules (stdnum has no NINO).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from functools import cache

import orjson
from stdnum import iban as _iban
from stdnum.br import cpf as _cpf
from stdnum.exceptions import ValidationError
from stdnum.gb import nhs as _nhs
from stdnum.us import ssn as _ssn

from replyguard.engine import phone_numbers
from replyguard.engine.phone_numbers import DEFAULT_PHONE_REGIONS

_NON_DIGIT = re.compile(r"\D")
#: ASCII digits as themselves, any other byte as a space (`digits`).
_DIGIT_OR_SPACE = bytes(b if 48 <= b <= 57 else 32 for b in range(256))


def digits(value: str) -> str:
    """The digits of `value` (any script's, as `\\d` reads them), separators dropped.

    An ASCII value is translated bytewise, its non-digits to spaces, and the spaces dropped:
    the same as the regex, in a fraction of its time (and less than half the time of
    `bytes.translate` with bytes to delete, which builds a table on every call)."""
    if value.isascii():
        return value.encode().translate(_DIGIT_OR_SPACE).replace(b" ", b"").decode()
    return _NON_DIGIT.sub("", value)


# Luhn's doubled digit, as ASCII bytes: 2d, less 9 when that has two digits.
_LUHN_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")


def _luhn_sum_holds(number: str) -> bool:
    """The Luhn sum of `number` is a multiple of 10 (False for non-ASCII digits, which
    stdnum's Luhn refuses too). Each ASCII digit byte is 48 more than its digit."""
    if not number.isascii():
        return False
    raw = number.encode()
    return (sum(raw[::-2]) + sum(raw[-2::-2].translate(_LUHN_DOUBLED)) - 48 * len(raw)) % 10 == 0


def card(value: str) -> bool:
    """13 to 19 digits whose Luhn checksum holds (ISO/IEC 7812) and that start as an issuer's
    cards of that length do (`CARD_PREFIXES`); all-zero runs are not cards.

    The Luhn sum is computed on the ASCII digits in two slices and a translation
    (`_luhn_sum_holds`), what python-stdnum's `luhn.checksum(number) == 0` says, for ~1/8 of
    its cost (tests/engine/test_validators.py checks the two agree). A value too short to
    hold 13 digits besides its spaces (a candidate cut short at a group, `engine.find`) is
    refused before its digits are read."""
    if len(value) - value.count(" ") < 13:
        return False
    number = digits(value)
    return (13 <= len(number) <= 19 and number.strip("0") != "" and _issued(number)
            and _luhn_sum_holds(number))


#: Maestro's ranges (50, 56-69; 6 is in every length's list): 12 to 19 digits.
_MAESTRO = ("50", "56", "57", "58", "59")
#: Mir (2200-2204, 16 to 19 digits).
_MIR = tuple(f"220{d}" for d in range(5))
#: Mastercard's 2-series (2221-2720, 16 digits).
_MASTERCARD_2 = (*(f"222{d}" for d in range(1, 10)), *(f"22{d}" for d in range(3, 10)),
                 "23", "24", "25", "26", "270", "271", "2720")
#: The 8 range but 89 (ITU-T E.118's SIM card numbers, ICCIDs): UnionPay's and RuPay's 81
#: and 82 among them.
_EIGHT = ("80", "81", "82", "83", "84", "85", "86", "87", "88")

#: How a card of each length starts (ISO/IEC 7812's major industry identifier and the
#: schemes' published ranges). 13 to 15 digits: Visa's old 13; Diners Club's 14; American
#: Express, UATP (the airlines' 1), old JCB and enRoute's 15; Maestro and the 6 range at
#: each. 16 digits: Mir, Mastercard's 2-series, Diners Club (30, 36, 38, 39), JCB (35), Visa,
#: the 5 to 7 ranges, 8 but 89, national schemes' 9. 17 to 19 digits: Mir, Diners Club, JCB,
#: Visa, Maestro, the 6 range (Discover, UnionPay, RuPay), fleet cards (7), 8 but 89, 9. A
#: Luhn-valid run starting otherwise is no card: no issuer's card of 16 digits or more starts
#: with 0 or 1, so a Unix time in milliseconds (`1756043761655`), micro- or nanoseconds
#: (`1733011200123452`) or a snowflake id (`1798765432109876548`) is none, nor is an IMEI
#: (`356938035643809`) or an ICCID (`8944500102198304826`).
CARD_PREFIXES: dict[int, tuple[str, ...]] = {
    13: ("4", *_MAESTRO, "6"),
    14: ("30", "36", "38", "39", *_MAESTRO, "6"),
    15: ("34", "37", "1", "2131", "1800", "2014", "2149", *_MAESTRO, "6"),
    16: (*_MIR, *_MASTERCARD_2, "30", "35", "36", "38", "39", "4", "5", "6", "7", *_EIGHT,
         "9"),
    **dict.fromkeys((17, 18, 19), (*_MIR, "30", "35", "36", "38", "39", "4", *_MAESTRO, "6",
                                   "7", *_EIGHT, "9")),
}


#: Issuers' prefixes (IIN ranges) and the lengths of their cards, as the networks publish
#: them: Visa; Mastercard (51-55, 2221-2720); American Express; Discover (6011, 644-649, 65);
#: JCB (3528-3589); Diners Club (300-305, 36, 38, 39); UnionPay (62); Maestro (50, 56-69);
#: Mir (2200-2204). `(low, high, lengths)`: a prefix from `low` to `high`, of their length.
_IIN_RANGES: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("4", "4", (13, 16, 19)), ("51", "55", (16,)), ("2221", "2720", (16,)),
    ("34", "34", (15,)), ("37", "37", (15,)), ("6011", "6011", (16, 17, 18, 19)),
    ("644", "649", (16, 17, 18, 19)), ("65", "65", (16, 17, 18, 19)),
    ("3528", "3589", (16, 17, 18, 19)), ("300", "305", (14, 15, 16, 17, 18, 19)),
    ("36", "36", (14, 15, 16, 17, 18, 19)), ("38", "39", (14, 15, 16, 17, 18, 19)),
    ("62", "62", (16, 17, 18, 19)), ("50", "50", tuple(range(12, 20))),
    ("56", "69", tuple(range(12, 20))), ("2200", "2204", (16, 17, 18, 19)),
)


def issued_card(value: str) -> bool:
    """A card (`card`) whose number starts with an issuer's prefix, at a length that issuer
    gives its cards (`_IIN_RANGES`): the stricter test for digits in groups no card is
    printed in (`4 1 1 1 …`, `41 11 11 …`), where a list of small numbers could pass Luhn."""
    number = digits(value)
    if not card(value):
        return False
    return any(low <= number[:len(low)] <= high and len(number) in lengths
               for low, high, lengths in _IIN_RANGES)


def _issued(number: str) -> bool:
    prefixes = CARD_PREFIXES.get(len(number))
    return prefixes is not None and number.startswith(prefixes)


#: What stands between an IBAN's groups (`engine.detectors`), dropped before its check.
#: What stands between an IBAN's groups as printed: a space, a hyphen, and each separator
#: of `engine.number_shapes.GROUP_PUNCTUATION` (`GB82|WEST|1234|…`, `GB82~WEST~…`).
_IBAN_SEPARATORS = dict.fromkeys(map(ord, " -./_,:|\\~'"))


#: `_IBAN_SEPARATORS` as bytes, for an ASCII value.
_IBAN_SEPARATOR_BYTES = bytes(_IBAN_SEPARATORS)
#: An IBAN's letters as two digits (`A` is 10, `Z` 35, ISO 13616), written as two bytewise
#: translations: the first digit (a digit as itself) and the second (a digit as `x`, dropped).
_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_FIRST_DIGIT = bytes.maketrans(_LETTERS, bytes(str(10 + i)[0].encode()[0] for i in range(26)))
_SECOND_DIGIT = bytes.maketrans(_LETTERS + b"0123456789",
                                bytes(str(10 + i)[1].encode()[0] for i in range(26)) + b"x" * 10)


def iban(value: str) -> bool:
    """An IBAN of its country's length whose mod-97 check digits hold (ISO 13616).

    python-stdnum decides; a quick ISO 7064 mod 97-10 test on Python ints first refuses the
    many candidates that fail it for ~1/40 of stdnum's cost (it cannot accept anything). An
    ASCII value is compacted bytewise (a translation with bytes to delete, ~1/3 of
    `str.translate`'s cost)."""
    if value.isascii():
        compact = value.encode().translate(None, _IBAN_SEPARATOR_BYTES).upper().decode()
    else:
        compact = value.translate(_IBAN_SEPARATORS).upper()
    if not 15 <= len(compact) <= 34 or not compact.isalnum() or not compact.isascii():
        return False
    if _mod_97(compact[4:] + compact[:4]) != 1:
        return False
    return _stdnum_iban_is_valid(compact)


def _mod_97(number: str) -> int:
    """ISO 7064's mod 97 of `number` (ASCII capitals and digits), each letter read as two
    digits (`A` 10 to `Z` 35): the two digits of each character are written by two bytewise
    translations into alternate bytes, a digit's second one dropped (a third of the cost of
    `str.translate` with a table of strings)."""
    raw = number.encode()
    pairs = bytearray(2 * len(raw))
    pairs[::2] = raw.translate(_FIRST_DIGIT)
    pairs[1::2] = raw.translate(_SECOND_DIGIT)
    return int(pairs.translate(None, b"x")) % 97


#: python-stdnum's IBAN registry (SWIFT's), by country code: each entry's name and BBAN
#: structure. Its entries are two-letter codes without sub-entries, so the entry for a number
#: is the one for its first two characters, or none.
_IBAN_COUNTRIES: dict[str, dict[str, str]] = {
    low: props for _, low, _, props, _ in _iban._ibandb.prefixes
}


def _stdnum_iban_is_valid(value: str) -> bool:
    """`stdnum.iban.is_valid(value)`, step for step, but with the country's registry entry
    taken from `_IBAN_COUNTRIES` rather than looked up by stdnum's `numdb` (~40 µs a call,
    most of its cost). `value` is already compact (ASCII letters and digits, upper case:
    what `stdnum.iban.compact` would give, without its per-character Unicode clean-up), and
    its mod 97-10 check holds (`iban` tested it; stdnum's `mod_97_10.validate` computes the
    same remainder). tests/engine/test_validators_iban.py checks the two agree."""
    try:
        number = value
        code = number[:2]
        country = _IBAN_COUNTRIES.get(code)
        if not country or not _bban_pattern(country.get("bban", "")).match(number[4:]):
            return False
        module = _iban._get_cc_module(code)
        if module:
            module.validate(number)
    except ValidationError:
        return False
    return True


@cache
def _bban_pattern(structure: str) -> re.Pattern[str]:
    """stdnum's pattern of a country's BBAN structure (`_struct_to_re`), built once per
    structure: stdnum builds it on every call (~25k instructions, half an IBAN's check)."""
    return _iban._struct_to_re(structure)


#: The numbers the SSA published as examples, never anyone's (the Woolworth wallet card's
#: `078-05-1120` and others of its leaflets), as digits: python-stdnum's list, which its
#: `us.ssn.is_valid` reads (no public name gives it; tests/engine/test_validators.py checks
#: `us_ssn` agrees with `is_valid`, so a renamed list fails there, not silently).
_SSN_PUBLISHED = frozenset(number.replace("-", "")
                           for number in getattr(_ssn, "_ssn_blacklist", ()))


def us_ssn(value: str) -> bool:
    """A US SSN: well formed (`us_ssn_well_formed`) and not one of the numbers the SSA
    published as examples (a published example is no one's number): python-stdnum's
    `us.ssn.is_valid` on the digits, its rules read on a string of ASCII digits (its
    clean-up, pattern and formatting cost ~0.1 ms a number: 10% of `find` on the realistic
    corpus)."""
    return us_ssn_well_formed(value) and digits(value) not in _SSN_PUBLISHED


def us_ssn_well_formed(value: str) -> bool:
    """Nine ASCII digits an SSN may be (the SSA's rules): area not 000, 666 or 900-999, group
    not 00, serial not 0000. After a label naming an SSN, such a number is one, published
    as an example or not (`My SSN is 078-05-1120.`)."""
    number = digits(value)
    return (len(number) == 9 and number.isascii() and number[:3] not in ("000", "666")
            and number[0] != "9" and number[3:5] != "00" and number[5:] != "0000")




#: An SSN in its printed groups, 3-2-4, one kind of separator throughout: `us_ssn`'s.
_PRINTED_SSN = re.compile(r"\d{3}([- ./,;|]| [-,;|] |[,;] )\d\d\1\d{4}")


def us_ssn_labelled(value: str) -> bool:
    """An SSN after its name (`SSN`, `social security number`), its nine digits in any
    grouping (`123-456789`, `123 456 789`): well formed (`us_ssn_well_formed`), one the
    SSA published as an example included (`SSN 219-09-9999`). In the printed groups,
    `us_ssn` finds one it does not refuse alone."""
    return us_ssn_well_formed(value) and (_PRINTED_SSN.fullmatch(value) is None
                                          or not us_ssn(value))


#: A CPF in the groups `br_cpf` reads (`529.982.247-25`, `529 982 247 25`, `529,982,247-25`).
_PRINTED_CPF = re.compile(r"\d{3}([._-]?)\d{3}\1\d{3}(?:[-/]| - |\1)?\d\d"
                          r"|\d{3},\d{3},\d{3}-\d\d|\d{3} \d{3} \d{3}[ -]\d\d")


def br_cpf_regrouped(value: str) -> bool:
    """A CPF (`br_cpf`) after its name, in groups `br_cpf` does not read (`5299 8224 725`,
    `52998-224725`): in those it does, `br_cpf` finds it alone."""
    return _PRINTED_CPF.fullmatch(value) is None and br_cpf(value)


def br_cpf(value: str) -> bool:
    """A Brazilian CPF whose two check digits hold; eleven equal digits (`111.111.111-11`),
    which the Receita Federal never issues, are refused."""
    number = digits(value)
    return len(set(number)) > 1 and bool(_cpf.is_valid(number))


# HMRC NIM39110: first letter not D F I Q U V; second letter not D F I O Q U V;
# prefixes BG GB KN NK NT TN ZZ never allocated; suffix A-D.
_NINO_FIRST = set("ABCEGHJKLMNOPRSTWXYZ")
_NINO_SECOND = set("ABCEGHJKLMNPRSTWXYZ")
_NINO_BAD_PREFIX = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def uk_nino(value: str) -> bool:
    """A UK National Insurance number with an allocatable prefix and an A-D suffix (HMRC)."""
    compact = re.sub(r"[^A-Za-z0-9]", "", value).upper()
    if len(compact) != 9 or not compact[2:8].isdigit() or compact[8] not in "ABCD":
        return False
    prefix = compact[:2]
    return (
        prefix[0] in _NINO_FIRST and prefix[1] in _NINO_SECOND and prefix not in _NINO_BAD_PREFIX
    )


def uk_nino_unsuffixed(value: str) -> bool:
    """A NINO's allocatable prefix and six digits without its A-D suffix (`AB 12 34 56`, as
    written after its name where a form asks for the suffix apart): `uk_nino` of it with
    one. (With its suffix, `uk_nino` finds it alone.)"""
    compact = re.sub(r"[^A-Za-z0-9]", "", value)
    return len(compact) == 8 and uk_nino(compact + "A")


_DATE = re.compile(
    r"(?:19|20)\d\d[-./](?:0?[1-9]|1[0-2])[-./](?:0?[1-9]|[12]\d|3[01])(?!\d)"
    r"|(?<!\d)(?:0?[1-9]|[12]\d|3[01])[-./](?:0?[1-9]|1[0-2])[-./](?:19|20)\d\d"
)


_CPF_SHAPE = re.compile(r"\d{3}\.\d{3}\.\d{3}-\d{2}")


def _separated_twice(value: str) -> bool:
    """Does `value` hold two of `-./` (every match of `_DATE` and of `_CPF_SHAPE` does)?"""
    return value.count("-") + value.count(".") + value.count("/") >= 2


def phone(value: str, regions: tuple[str, ...] = DEFAULT_PHONE_REGIONS) -> bool:
    """A phone number valid in its numbering plan (ITU-T E.164, Google's libphonenumber
    metadata: `engine.phone_numbers`): written with `+` and 8 to 15 digits, valid for the
    country its code names; or written nationally, 10 or 11 digits, valid in one of
    `regions` and written as that region writes its numbers (with its national prefix where
    its numbers are written with one: `020 7946 0123`, not `20 7946 0123`; `1-202-555-0143`
    or `(202) 555-0143`), up to 14 with a national prefix and a carrier code before them
    (Brazil's `011 98765-4321`, `0xx11 98765-4321`, `0 21 11 98765-4321`); or written in
    groups after an international call prefix, `00` (ITU-T E.164's recommended one) or
    `011` (North America's), as after `+` (`00 1 202 555 0143`, `011 44 20 7946 0123`); or
    written as after `+` without it, a region's country code its first group (`55 11
    98765-4321` in `BR`: `_country_code_first`).
    A run holding a date (`2024-11-29 10`) is not a phone number, nor is one written as a
    CPF is (`529.982.247-26`: a CPF whose check digits fail)."""
    if "x" in value or "X" in value:
        value = _CARRIER_PLACEHOLDER.sub("", value, count=1)
    number = digits(value)
    if value.startswith("+"):
        least, most = 8, 15
    else:  # (after a `0`, a national or carrier prefix, or a call prefix, may come first)
        least, most = (10, 18) if number.startswith("0") else (10, 11)
    if not least <= len(number) <= most:  # (first: most candidates, dates too, end here)
        return 11 < len(number) <= 15 and _country_code_first(value, number, regions)
    if _separated_twice(value) and (_DATE.search(value) or _CPF_SHAPE.fullmatch(value)):
        return False
    if len(number) <= 15 and phone_numbers.phone(value, number, regions):
        return True
    dialled = _INTERNATIONAL_PREFIX.match(value) if most == 18 else None
    if dialled is None or value.isdigit():  # (an id padded with zeros is written whole)
        return False
    value = "+" + value[dialled.end():]
    prefix = len(digits(dialled.group(1)))
    return 8 <= len(number) - prefix <= 15 and phone_numbers.phone(
        value, number[prefix:], regions)


def _country_code_first(value: str, number: str, regions: tuple[str, ...]) -> bool:
    """`value`, 12 to 15 digits, is a phone number written with one of `regions`' country
    codes as its first group but no `+` (`55 11 98765-4321` in `pt-BR`, `44 20 7946 0123` in
    `en`): valid as it is with `+` before it. Digits alone (`5511987654321`) are an id."""
    if value[0] in "0(" or value.isdigit():
        return False
    for region in regions:
        code = str(phone_numbers.country_code(region))
        if value.startswith(code) and not value[len(code)].isdigit():
            return phone_numbers.phone("+" + value, number, regions)
    return False


#: `xx` written for a carrier's code after the national prefix (`0xx11 98765-4321`, Brazil's
#: written form of a number to be dialled with the caller's carrier): read as the prefix alone.
_CARRIER_PLACEHOLDER = re.compile(r"(?<=^0)[xX]{2}|(?<=^\(0)[xX]{2}")
#: An international call prefix before a country code: `00` or North America's `011` (a
#: space between its digits too, as an invisible character read as one leaves it), a space,
#: a dot or a hyphen after it or none.
_INTERNATIONAL_PREFIX = re.compile(r"\(?(0 ?0|0 ?1 ?1)\)?[ .-]?(?=\(?[1-9])")


# File extensions that are no top-level domain (IANA root zone), as in `icon@2x.png`.
_FILE_SUFFIXES = frozenset(
    "png jpg jpeg gif svg webp bmp ico pdf txt csv json yaml yml xml html htm css js ts "
    "log tar gz tgz docx xlsx pptx doc xls ppt mp3 mp4 wav".split()
)


def email(value: str) -> bool:
    """An address whose domain does not end in a file extension (`report@2x.png` is a file
    name, as retina images are named) and whose local part does not end in `***` (a mask's,
    `j***@example.com`: `*` is a local part's character, `jane*doe@`)."""
    return (value.rsplit(".", 1)[-1].lower() not in _FILE_SUFFIXES
            and "***@" not in value)


#: Spaces around an address's `@` and dots (`spaced_email`, `masks.spaced_email`).
SPACES_AROUND_SIGNS = re.compile(r" *([.@]) *")
#: Words before a spaced `@` that are prose's: `Ping me @ slack.com`, `Find us @ ...`.
_PRONOUNS = frozenset("me us you him her them it we i".split())


def spaced_email(value: str) -> bool:
    """An address typed with a space beside its `@` or its dots (`jane.doe @ example.com`,
    `jane . doe@example . com`): `email` of it without those spaces; one with no space is
    `email`'s own, and a pronoun before a spaced `@` is prose (`Ping me @ slack.com`)."""
    if " " not in value:
        return False
    local, _, domain = value.rpartition("@")
    if (local.endswith(" ") or domain.startswith(" ")) and local.strip().lower() in _PRONOUNS:
        return False
    return email(SPACES_AROUND_SIGNS.sub(r"\1", value))


def url_password(value: str) -> bool:
    """The password of a URL's userinfo (RFC 3986 section 3.2.1): any value holding a letter
    or a digit, so a mask written in its place (`postgres://admin:****@db`) is not one."""
    return any(c.isalnum() for c in value)


def ip_address(value: str) -> bool:
    """An IPv4 or IPv6 address that `ipaddress` parses (a zone id after `%` is allowed; an
    IPv4 address may be written with its octets in three digits each, leading zeros kept,
    `203.000.113.042`, `008.008.004.004`, as `ping` reads it; other leading zeros make a
    version or a section number, `1.02.003.004`; a part of four digits
    with a leading zero makes it octal, `0300.0250.0001.0012`, as `inet_aton` reads it), other
    than those that name no host of anyone's: the unspecified address (`0.0.0.0`, `::`),
    loopback (`127.0.0.1`, `::1`) and the limited broadcast (`255.255.255.255`)."""
    value = value.split("%", 1)[0]
    if ":" not in value and _OCTAL_PART.search(value):
        return ip_address_in_other_bases(value)
    if ":" not in value and _ZERO_PADDED.search(value):
        if not _PADDED_ADDRESS.fullmatch(value):  # (`1.02.003.004` is a version, a section)
            return False
        value = ".".join(octet.lstrip("0") or "0" for octet in value.split("."))
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    return not (address.is_loopback or address.is_unspecified
                or address == _LIMITED_BROADCAST)


#: The dots `ipv4_spaced` reads between an address's numbers: spaced, or ideographic.
_OTHER_DOTS = re.compile(" \\. |[\u3002\uff61]")


def dotted(value: str) -> str:
    """`value` with spaced dots or ideographic full stops written as dots (`8 . 8 . 4 . 4`,
    `8。8。4。4` -> `8.8.4.4`)."""
    return _OTHER_DOTS.sub(".", value)


def ip_address_dotted(value: str) -> bool:
    """An IPv4 address (`ip_address`) written with spaced dots or ideographic full stops."""
    return ip_address(dotted(value))


def ip_address_in_other_bases(value: str) -> bool:
    """An IPv4 address written as `inet_aton` and browsers read it (POSIX): four parts,
    each a decimal, a hex (`0xC0`) or an octal (`0300`, a leading zero) number of at most
    255, or one 32-bit hex number (`0xC0A8010A`); valid as `ip_address` says of its dotted
    decimal form (`0x7F.0.0.1` is loopback, no one's host)."""
    parts = value.split(".")
    try:
        numbers = [int(part, 16 if part[1:2] in "xX" and part[1:2] else
                       8 if len(part) > 1 and part[0] == "0" else 10) for part in parts]
    except ValueError:
        return False
    if len(numbers) == 1:
        if numbers[0] >= 1 << 32:
            return False
        return ip_address(str(ipaddress.IPv4Address(numbers[0])))
    if len(numbers) != 4 or max(numbers) > 255:
        return False
    return ip_address(".".join(map(str, numbers)))


_LIMITED_BROADCAST = ipaddress.IPv4Address("255.255.255.255")
#: An IPv4 part in four octal digits (`0300`: `inet_aton` reads a leading zero as octal).
_OCTAL_PART = re.compile(r"(?:^|\.)0[0-7]{3}(?:\.|$)")
#: An IPv4 octet written with a leading zero.
_ZERO_PADDED = re.compile(r"(?:^|\.)0[0-9]")
#: An IPv4 address written in octets of three digits each (`008.008.004.004`).
_PADDED_ADDRESS = re.compile(r"[0-9]{3}(?:\.[0-9]{3}){3}")


def aws_access_key(value: str) -> bool:
    """An AWS access key id whose 16 characters after its prefix are not one character
    repeated (`AKIAXXXXXXXXXXXXXXXX` is a placeholder)."""
    return len(set(value[4:])) > 1


def jwt(value: str) -> bool:
    """Three dot-separated base64url parts whose first decodes to a JSON object (RFC 7519)."""
    header = value.split(".", 1)[0].rstrip(" \t")  # (`eyJ… . eyJ…`: spaced dots)
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        return isinstance(orjson.loads(decoded), dict)
    except (binascii.Error, orjson.JSONDecodeError, ValueError):
        return False


def api_key(value: str) -> bool:
    """A key of the `sk-` family (OpenAI, Anthropic) is random: its body holds a digit and an
    upper-case letter, so a URL slug such as `/sk-learn-basics-for-beginners` is not one.
    Other vendors' prefixes are specific enough on their own."""
    if not value.startswith("sk-"):
        return True
    body = value[3:]
    return any(c.isdigit() for c in body) and any(c.isupper() for c in body)


def uk_nhs(value: str) -> bool:
    """An NHS number: 10 digits whose modulus 11 check digit holds (python-stdnum)."""
    return _nhs.is_valid(digits(value))


def password(value: str) -> bool:
    """A password value: at least 4 characters and not plain prose (it holds a digit, a symbol
    or an upper-case letter after the first), so "password: reset it" is not one. A word
    ending a sentence (`Reset.`), a mask (`********`), a placeholder (`[REDACTED]`,
    `<hidden>`) and a link (`https://...`) are not passwords either."""
    core = value.rstrip(".,;:")
    if len(core) < 4 or not any(c.isalnum() for c in core):
        return False
    if core[0] in "[(<{" and core[-1] in "])>}":
        return False
    if core.startswith(("http://", "https://", "www.")):
        return False
    if core.isalpha() and core[1:].islower():
        return False
    return _NOT_A_PASSWORD.fullmatch(core) is None


def password_in_words(value: str) -> bool:
    """A `password` given in words (`your password is …`), not a hyphenated word of prose
    (`case-sensitive`, `Write-Only`: letters alone, small but for each part's first)."""
    return password(value) and _HYPHENATED_WORD.fullmatch(value.rstrip(".,;:")) is None


#: A hyphenated word of prose (`password_in_words`).
_HYPHENATED_WORD = re.compile(r"[A-Za-z][a-z]*(?:-[A-Za-z][a-z]*)+")


def password_list(value: str) -> bool:
    """Passwords listed with commas (`Qz7xK2mP9w, Xy9pL3kQ2z`) or, after a verb in other
    languages, with a word for "and" (`Qz7xK2mP9w e Xy9pL3kQ2z`): each item a `password`."""
    return all(password(item) for item in _LIST_ITEMS.split(value.strip()))


#: What sets apart the items of a list of passwords (`password_list`).
_LIST_ITEMS = re.compile(r"[ \t]*,[ \t]*|[ \t]+(?:e|und|y|et|en)[ \t]+")


def assigned_password(value: str) -> bool:
    """A value given to a password's name in a form that says it is one (a quoted string,
    `{"password": "sunshine"}`, `password = "correct horse battery staple"`; an environment
    variable, `DB_PASSWORD=sunshine`; a call's or an element's argument): any value but an
    obvious non-secret (`_NO_SECRET`: empty, a mask or placeholder such as `****`,
    `<your password>`, `${VAR}`, `%s`, null, a boolean, a schema's type or a validation rule),
    a label naming a password (`"password": "Password"`, a translation's) or a sentence about
    one (`"at least 12 characters"`)."""
    core = value.strip()
    if len(core) < 3 or _NO_SECRET.fullmatch(core) is not None:
        return False
    lowered = core.lower()
    if (core[0].isupper() or " " in core or not core.isascii()) and any(
            name in lowered for name in _PASSWORD_NAMES):
        return False
    words = lowered.split()
    return len(words) < 3 or _PROSE_WORDS.isdisjoint(words)


#: Values that are no secret even where the syntax says a password is given: a mask, a
#: placeholder (in brackets, a template's or a format's), a reference to where one is kept,
#: null and booleans, a schema's type, a validation rule (`required|min:8`).
_NO_SECRET = re.compile(
    r"[*xX\u2022\u00b7.?#_-]+|<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|\{\{.*\}\}|\(.*\)"
    r"|\$\{[^}]*\}?|\$\(.*|\$[A-Za-z_]\w*|%\w+%|%(?:\([\w.]+\))?[sd]|\?"
    r"|(?i:null|none|nil|undefined|true|false|yes|no|on|off|string|str|text|secret|hidden"
    r"|redacted|required|optional|password_hash|your[ _-]?password(?:[ _-]?here)?|changeit)"
    r"|[a-z_]+(?::[\w,.]+)?(?:\|[a-z_]+(?::[\w,.]+)?)+|(?:os\.environ|os\.getenv|process\.env"
    r"|ENV|getenv)\b.*"
)
#: Names of a password in the languages the detectors read (a value naming one is a label).
_PASSWORD_NAMES = ("pass", "pwd", "senha", "contrase", "kennwort", "wachtwoord",
                   "\u043f\u0430\u0440\u043e\u043b\u044c", "\u30d1\u30b9\u30ef", "\u5bc6\u7801",
                   "\u5bc6\u78bc", "\ube44\ubc00")
#: Words of a sentence about a password rather than a passphrase (`"at least 12 characters"`).
_PROSE_WORDS = frozenset((
    "the", "a", "an", "at", "least", "must", "be", "is", "are", "your", "you", "of", "to",
    "and", "or", "for", "with", "characters", "chars", "enter", "here", "use", "should"))


def basic_credentials(value: str) -> bool:
    """HTTP Basic credentials (RFC 7617): base64 whose text is a user id, a colon and a
    password (`Ym9iOnNlY3JldA==`, `bob:secret`), printable, the password not empty."""
    try:
        padded = value if "=" in value else value + "=" * (-len(value) % 4)
        decoded = base64.b64decode(padded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon) and bool(password) and decoded.isprintable()


def secret(value: str) -> bool:
    """A secret's, a token's or an API key's value: a password's (`password`), but never a
    count (`small_number`): `max token: 4096` names a limit, not a token."""
    return password(value) and not small_number(value)


def cookie(value: str) -> bool:
    """A cookie's value that looks like a secret, a session's id: a secret's (`secret`) of 8
    characters at least, a letter and a digit among them (`theme=dark`, `lang=en-US`,
    `visits=12345678` hold none)."""
    return (len(value) >= 8 and _LETTER_AND_DIGIT.search(value) is not None
            and secret(value))


_LETTER_AND_DIGIT = re.compile(r"[A-Za-z].*?[0-9]|[0-9].*?[A-Za-z]")


#: A number of at most 7 digits, thousands grouped or not (`4096`, `128,000`, `1_000_000`).
_SMALL_NUMBER = re.compile(r"[0-9]{1,3}(?:([,_.])[0-9]{3})?(?:\1[0-9]{3})?|[0-9]{1,7}")


def small_number(value: str) -> bool:
    """Is `value` a whole number of at most 7 digits (`4096`, `128,000`), as a count or a
    limit is written? Such a number is no secret's value."""
    return _SMALL_NUMBER.fullmatch(value.strip("\"'`")) is not None


#: Values after a password's name that are no password: a decimal number (`pass_rate: 0.95`),
#: a path (`PWD=/home/alice`), a reference to where one is kept (`${DB_PASSWORD}`,
#: `$DB_PASS`, `%DB_PASS%`, `os.environ["DB_PASSWORD"]`, `process.env.DB_PASS`), or a
#: placeholder's name in capital letters (`YOUR_PASSWORD`; `S3CR3T_V4LUE` is a password), or
#: code: a member (`req.body.password`), a name that names a password (`confirmPassword`),
#: a call (`input(`, `getpass()`), a null or a boolean (a JSON document's `null}`), a
#: validation rule (`required|min:8`), a link without its scheme
#: (`example.com/reset`), a type annotation (`Optional[str]`,
#: `Mapped[str]`, pydantic's `SecretStr`).
_NOT_A_PASSWORD = re.compile(
    r"\d+[.,]\d+"
    r"|(?:~|\.{1,2})?/[\w./-]*"
    r"|\$\{[^}]*\}?|\$[A-Za-z_]\w*|%\w+%"
    r"|(?:os\.environ|os\.getenv|process\.env|ENV|getenv)\b.*"
    r"|[A-Z]+(?:_[A-Z]+)+"
    r"|[a-z_$][A-Za-z_$]*(?:\.[a-z_$][A-Za-z_$]*)+[;,]?"
    r"|(?:[a-z][a-z0-9]*(?:Password|Passwd|Pwd|Pass)[A-Za-z]*"
    r"|[a-z]+_(?:password|passwd|pwd|pass)[a-z_]*|(?i:password|passwd|pwd))[;,]?"
    r"|[A-Za-z_$][\w$.]*\(.*"
    r"|(?i:null|none|nil|undefined|true|false|\(?hidden\)?|\(?redacted\)?)[;,})\]]{0,3}"
    r"|[a-z_]+(?::[\w,.]+)?(?:\|[a-z_]+(?::[\w,.]+)?)+"
    r"|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[a-z]{2,24}/\S*"
    r"|(?:Optional|Mapped|Union|Annotated|Final|ClassVar|Required|NotRequired|Secret|List"
    r"|Field|Column)\[.*|Secret(?:Str|Bytes)[;,]?"
)
