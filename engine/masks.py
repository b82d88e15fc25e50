"""Masks: how a found value is written once its class is redacted.

The personal-data masks show what a person needs to tell one value from another: `**** 1111`,
`GB** **** 2681`, `***6789`, `j***@example.com`, `***0123`. A secret keeps its kind
recognisable and never shows more than 4 of its own characters.
"""

from __future__ import annotations

import re

from replyguard.engine.validators import SPACES_AROUND_SIGNS, digits, dotted

_ALNUM = re.compile(r"[^0-9A-Za-z]")


def card(value: str) -> str:
    """`4111 1111 1111 1111` -> `**** 1111` (last 4 digits)."""
    return "**** " + digits(value)[-4:]


_DIGIT = re.compile(r"[0-9]")


def card_in_strings(value: str) -> str:
    """A card whose groups are strings of their own (`"4539", "b": "1488", …, "6467"`): each
    digit but the card's last 4 written `*`, the quotes, keys and what joins them kept
    (`"****", "b": "****", …, "6467"`), so that a JSON document keeps its shape."""
    keep = len(digits(value)) - 4
    count = iter(range(keep + 4))
    return _DIGIT.sub(lambda m: "*" if next(count) < keep else m.group(), value)


def iban(value: str) -> str:
    """`GB82 WEST 1234 5698 7654 32` -> `GB** **** 5432` (country, `**`, `****`, last 4)."""
    compact = _ALNUM.sub("", value).upper()
    return f"{compact[:2]}** **** {compact[-4:]}"


def last4(value: str) -> str:
    """`123-45-6789` -> `***6789`; `QQ123456C` -> `***456C` (last 4 letters or digits)."""
    return "***" + _ALNUM.sub("", value)[-4:]


def phone(value: str) -> str:
    """`+44 20 7946 0123` -> `***0123` (last 4 digits)."""
    return "***" + digits(value)[-4:]


def email(value: str) -> str:
    """`jane.doe@example.com` -> `j***@example.com` (first character of the local part)."""
    local, _, domain = value.rpartition("@")
    return f"{local[:1]}***@{domain}"


def spaced_email(value: str) -> str:
    """`jane . doe @ example . com` -> `j***@example.com` (`email` without the spaces)."""
    return email(SPACES_AROUND_SIGNS.sub(r"\1", value))


_KEY_PREFIX = re.compile(
    r"^(sk-proj-|sk-ant-|sk-|sk_live_|sk_test_|rk_live_|rk_test_|pk_live_|ghp_|gho_|ghu_|ghs_|ghr_|"
    r"github_pat_|glpat-|xox[abprs]-|AIza|hf_|npm_|SG\.|whsec_|hooks\.slack\.com/services/|"
    r"GOCSPX-|ya29\.|glptt-|pypi-|do[por]_v1_|shp(?:at|ca|pa|ss)_)"
)


#: A key's body longer than this shows none of its characters in its mask: a reply cut into
#: pieces may cut so long a key (`Detector.rest`), and its mask must read the same whole and
#: streamed (real keys' bodies are shorter: `sk-proj-` 156, `github_pat_` 82).
_SHOWN_UP_TO = 256


def api_key(value: str) -> str:
    """`sk-proj-abc...WXYZ` -> `sk-proj-****WXYZ`: the vendor prefix, then the last 4; a
    body longer than 256 characters -> `sk-proj-****` (the prefix alone)."""
    found = _KEY_PREFIX.match(value)
    prefix = found.group(1) if found else ""
    tail = value[-4:] if len(value) - len(prefix) <= _SHOWN_UP_TO else ""
    return f"{prefix}****{tail}"


def aws_access_key(value: str) -> str:
    """`AKIAIOSFODNN7EXAMPLE` -> `AKIA****MPLE` (the public key-type prefix, then the last 4)."""
    return f"{value[:4]}****{value[-4:]}"


_PEM_KIND = re.compile(
    r"BEGIN ([A-Z0-9 ]{0,40}?)PRIVATE[ _]KEY|END ([A-Z0-9 ]{0,40}?)PRIVATE[ _]KEY", re.IGNORECASE)


def private_key(value: str) -> str:
    """A PEM block -> `[RSA PRIVATE KEY ****]`: the key type, none of the key."""
    found = _PEM_KIND.search(value)
    kind = (found.group(1) or found.group(2) or "") if found else ""
    return f"[{kind.upper()}PRIVATE KEY ****]"


def jwt(value: str) -> str:
    """`eyJhbGciOi....sig` -> `eyJ****.****.****` (the JWT marker only)."""
    return "eyJ****.****.****"


def password(value: str) -> str:
    """The password value -> `****` (the `password:` label before it is kept)."""
    return "****"


def ip_address_dotted(value: str) -> str:
    """`8 . 8 . 4 . 4`, `8。8。4。4` -> `***.***.***.4` (`ip_address` of it with dots)."""
    return ip_address(dotted(value))


def ip_address(value: str) -> str:
    """`203.0.113.42` -> `***.***.***.42`; IPv6 -> `****::` + its last group; IPv6 ending in
    an IPv4 address -> `****::***.***.***.1` (as that IPv4 address is masked); one written as
    a hex number -> `0x******0A` (its last octet)."""
    if value[:2] in ("0x", "0X") and "." not in value:  # (one hex number: `0xC0A8010A`)
        return value[:2] + "******" + value[-2:]
    if "." in value:
        head = "****::" if ":" in value else ""
        return head + "***.***.***." + value.rsplit(".", 1)[-1].split("%", 1)[0]
    return "****::" + value.rsplit(":", 1)[-1]
