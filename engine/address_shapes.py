"""The shape of an email address (RFC 5321, 6531 and 5890): the letters and marks of any
script in its local part and domain labels, punycode, and the ideographic full stop as a dot."""

from __future__ import annotations

import re
import unicodedata

#: CJK scripts: kana, ideographs, Hangul. An address's local part is of one kind or the
#: other, so that an address written right after CJK text starts where the script changes
#: (`邮箱是jane.doe@example.com`).
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF))


CJK = "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in _CJK_RANGES)


def _letters_and_marks() -> str:
    """The letters and combining marks (Unicode categories L and M) above ASCII of the Basic
    Multilingual Plane, but CJK's (`CJK`) and the full-width and halfwidth forms' (the view
    reads full-width letters as ASCII), as the inside of a character class: what an
    address's local part (RFC 6531) and a domain's labels (RFC 5890: IDNA2008's letters and
    marks) are written in, whatever the script (`müller`, `иван`, `उपयोगकर्ता`, `อีเมล`).
    (~3 ms at import.)"""
    category = unicodedata.category
    spans, low = [], 0xC0
    for start, end in (*_CJK_RANGES, (0xFF00, 0xFFEF)):
        spans.append((low, start))
        low = end + 1
    spans.append((low, 0x10000))
    ranges: list[list[int]] = []
    for low, high in spans:
        for code in range(low, high):
            if category(chr(code))[0] not in "LM":
                continue
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    return "".join(f"\\u{lo:04x}" if lo == hi else f"\\u{lo:04x}-\\u{hi:04x}"
                   for lo, hi in ranges)


#: The letters and digits of an address outside CJK scripts: ASCII, and every other script's
#: letters and marks (`_letters_and_marks`).
_EU_LETTERS = "A-Za-z" + _letters_and_marks()


EU = "0-9" + _EU_LETTERS


#: What an address's local part holds after its first character besides `EU` and `._%+-`:
#: RFC 5322's atext characters `'`, `*` and `~` (`jane*doe@`, `'jane.doe'@`, `o'brien@`).
#: (Not `=`, `?`, `&`, `/` or `#`: a query's `?email=jane@…` keeps its key.)
ATEXT = "'*~"


#: A local part in quotes (RFC 5321's Quoted-string: `"jane doe"`), on one line, 64
#: characters at most, no quote or backslash inside.
QUOTED_LOCAL = r'"(?<![\w"]")[^"\\\r\n]{1,64}"'


#: A domain's label: letters and digits, a hyphen or an underscore inside (`exa_mple.com`:
#: no hostname's, RFC 952, but a DNS name's, RFC 2181, and typed so).
DOMAIN_LABEL = f"[{EU}{CJK}](?:[{EU}{CJK}_-]{{0,61}}[{EU}{CJK}])?"


#: A top-level domain: letters of one script, or an A-label (`xn--p1ai`, RFC 5890).
TLD = f"(?:[{_EU_LETTERS}]{{2,24}}|[{CJK}]{{1,24}}|xn--[A-Za-z0-9-]{{1,59}})"


#: The dot between a domain's labels: `.`, or the ideographic full stop (`。`, halfwidth `｡`;
#: the full-width `．` reads as `.`), which IDNA (UTS #46) reads as one, before a label of
#: other than CJK letters (before CJK, it ends a sentence: `user@example.com。谢谢`).
DOT = f"(?:\\.|[\u3002\uff61](?=[{EU}]))"


#: Where an address's local part starts, searched back from its `@` (the email detector's
#: tuning, `engine.tuning`): a run of local-part characters of one kind or the other.
EMAIL_START = re.compile(f"(?<![{EU}._%+-])[{EU}._%+-][{EU}._%+{ATEXT}-]{{0,63}}@\\Z"
                         f"|(?<![{CJK}])[{CJK}]{{1,64}}@\\Z")


#: A word of an address's local part (`SPACED_EMAIL`): letters, digits and `._%+-`, no dot
#: at either end.
_LOCAL_WORD = f"[{EU}_%+-](?:[{EU}._%+-]{{0,62}}[{EU}_%+-])?"


#: A dot between an address's words or labels: as typed, or a space on both sides before a
#: small letter or a digit (`jane . doe`, `example . com`; a next sentence starts with a
#: capital).
_SPACED_DOT = r"(?:\.| \. (?=[a-z0-9]))"


#: An address with a space on one side of its `@` or both, or spaced dots (`jane.doe @
#: example.com`, `jane . doe@example . com`; inline tags around its `@`, which the view
#: reads as a space: `jane<b>@</b>example.com`).
SPACED_EMAIL = (f"{_LOCAL_WORD}(?: \\. (?=[a-z0-9]){_LOCAL_WORD}){{0,2}}(?: @ ?|@ ?)"
                 f"{DOMAIN_LABEL}(?:{_SPACED_DOT}{DOMAIN_LABEL}){{0,7}}{_SPACED_DOT}{TLD}"
                 f"(?![{EU}_@-])(?!{_SPACED_DOT}[{EU}])")
