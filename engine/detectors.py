"""The built-in detectors: one declaration each (regex finds, validator confirms, mask hides).

Classes: the personal-data classes (card, iban, national_id, email, phone) and the secrets
(api_key, aws_access_key, private_key, jwt, password, ip_address). Every regex is anchored on
its first character before any look-behind, so `re` can skip ahead with its first-character
scan, and every repetition is bounded or deterministic, so a search is linear in the text
(tests/engine/test_find.py feeds 1 MB of adversarial input).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Literal, Protocol

from replyguard.engine import masks, validators
from replyguard.engine.context_marks import (
    Refusing,
    a_ticket_or_a_count,
    a_ticket_pass,
    a_version,
    bare_and_marked,
    no_password_named_before,
    not_a_card,
    not_a_phone,
)
from replyguard.engine.layout import LABEL, AtLineStarts, Columns
from replyguard.engine.lists import an_unnamed_number
from replyguard.engine.marks import KEY_START

KeywordsIn = Literal["text", "lower", "shape"]


class Finder(Protocol):
    """What finds a detector's candidates: a compiled pattern, or one whose matches a context
    function turns down (`engine.context_marks.Refusing`)."""

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
               ) -> re.Match[str] | None: ...

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
              ) -> re.Match[str] | None: ...

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
                 ) -> Iterator[re.Match[str]]: ...


@dataclass(frozen=True, slots=True)
class Detector:
    """One detector: what a value of its class looks like, how it is confirmed and masked.

    `id` names it (`credit_card`, `us_ssn`, ...); `category` is the class the rules act on
    (`card`, `national_id`, ...). `regex` finds candidates (group `group` is the value; a
    `Refusing` pattern skips those its context marks as something else);
    `keywords` is a cheap prefilter (the detector runs only if one of them is in the text);
    `validate` confirms a candidate (check digits, parsers); `mask` writes the masked value.
    `keywords_in` says what keywords are matched against: the text, its ASCII lower case
    (`"lower"`), or its shape (`"shape"`: `A` for an ASCII letter of either case, `0` for
    a digit, space for a space, `_` for anything else). `trim_groups` retries a candidate
    that fails validation without its trailing space-separated groups (an IBAN followed by a
    capitalised word). `priority` orders overlapping findings: the lower number keeps the
    text (card > iban > national_id > ip_address > phone). `examples` must each be found
    whole; `counterexamples` must give no finding of this detector.

    `rest`, for a value of no bounded length (a key block, a token, a password): what
    continues it past the end of the text read, so that a value running out of a window of
    text (`engine.find`) or out of a piece of a reply (`engine.reply`) is read, or dropped,
    to its real end. (A password's pattern reads `VALUE_READ` characters of a value and
    sets its group `cut` when the value goes on: `value_end` reads it to its end.)

    Where in a text the regex is searched is no part of the declaration: the planner's table
    (`engine.tuning`) holds the built-in detectors' windows; any other detector is searched
    wherever its keywords allow, with the same findings.
    """

    id: str
    category: str
    regex: Finder
    keywords: tuple[str, ...]
    validate: Callable[[str], bool] | None
    mask: Callable[[str], str]
    priority: int
    examples: tuple[str, ...]
    counterexamples: tuple[str, ...]
    group: int | str = 0
    keywords_in: KeywordsIn = "text"
    trim_groups: bool = False
    rest: re.Pattern[str] | None = None


# Look-behinds sit after the first character: `\d(?<![\w+.]\d)` = "a digit not preceded by a
# word character, `+` or `.`". `(?<!\d[ -]\d)` refuses a start inside a longer separated run,
# `(?<![A-Za-z]-\d)` one inside a hyphenated code (`INC-2024-001293`, `SKU-88213`).
_START_NUM = r"\d(?<![\w+@]\d)(?<!\d[ .-]\d)(?<![A-Za-z]-\d)"
_END_NUM = r"(?![\w@])(?![ .-]?\d)(?!,\d)"
#: A phone number's extension glued to it (`5309x12`), left as it is: a number may end before
#: it. (One after a space or a `;` ends it as any word does: ` ext 204`, `;ext=204`.)
_EXTENSION = r"(?=[xX]\d)"
#: A CPF's start: as `_START_NUM`, or after a space that ends another CPF's eleven digits
#: (`52998224725 11144477735`: two CPFs).
_START_CPF = (r"\d(?<![\w+@]\d)(?:(?<!\d[ .-]\d)|(?<=\d{11}[ \t]\d)(?=\d{10}(?![\d.-])))"
              r"(?<![A-Za-z]-\d)")
#: An SSN's start: as `_START_NUM`, or after a digit and a space when its hyphens follow
#: (`123-45-6789 234-56-7891`: two SSNs, not one run).
_START_SSN = r"\d(?<![\w+@]\d)(?:(?<!\d[ .-]\d)|(?<=\d[ \t]\d)(?=\d\d-\d\d-))(?<![A-Za-z]-\d)"
# A value written with separator `s` ends where that separator does not lead on to more
# digits: `4111 1111 1111 1111 12/26` and `123-45-6789 1990` hold a card and an SSN, but
# `4111 1111 1111 1111 1111` is one longer run. What follows after `.` or `,` does not
# matter: such numbers are no amounts, and a value must be found the same wherever it stands
# (`4111111111111111.50`, `…00408.1.`, `4539148803436467,5500005555555559`, `,12/26`).
_END_GROUPED = r"(?![\w@])(?!(?P={sep})\d)"

#: A character of a key block's armour: a hyphen or any other Unicode dash (the view reads
#: most of them as `-`; the two- and three-em dashes stand for two and three: `⸺⸺⸺`).
_DASH = (r"[-\u058a\u05be\u1400\u1806\u2010-\u2015\u2212\u2e17\u2e1a\u2e3a\u2e3b\u2e40\u2e5d"
         r"\u301c\u3030\u30a0\ufe31\ufe32\ufe58\ufe63\uff0d]")
#: The run of dashes (two or more) or of `=` (three or more) around a BEGIN or END label.
_ARMOUR = "(?:" + _DASH + "{2,9}|={3,9})"
#: The label of a private key block's BEGIN or END line, after the word: `RSA PRIVATE KEY`,
#: `PGP PRIVATE KEY BLOCK` (`PRIVATE_KEY` too).
_KEY_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE[ _]KEY(?: BLOCK)?"
#: A character of a private key block after its BEGIN line (RFC 7468 PEM and RFC 4880 OpenPGP
#: armor: base64 lines, armor headers such as `Comment: Alice <alice@example.com>`, the `=`
#: checksum), however the block is quoted in a reply (line breaks written as `\\n` in JSON,
#: prefixes of quoted, commented, listed or numbered lines, quotes and `+` of code that joins
#: strings, backticks, `<br>`, brackets): any character but the start of a run of four dashes
#: or three `=`, of a shorter run of dashes before `BEGIN` or `END`, or of an END line
#: written without armour (`END RSA PRIVATE KEY`). A block with no END line runs to the end
#: of the text.
KEY_BODY = ("(?:[^-=E" + _DASH[2:-1] + "]|=(?!==)|E(?!ND " + _KEY_LABEL + ")|"
            + _DASH + "(?!" + _DASH + "{3}|" + _DASH + r"{1,2}[ \t]{0,3}(?i:BEGIN|END) ))")
#: The END line of a private key block (PEM or OpenPGP): in its armour (spaces inside it
#: allowed: `----- END RSA PRIVATE KEY -----`), or the label alone in capitals.
_ARMOURED_END = _ARMOUR + r"[ \t]{0,3}(?i:END " + _KEY_LABEL + r")[ \t]{0,3}" + _ARMOUR
_BARE_END = r"(?<![\w=])(?<!" + _DASH + ")END " + _KEY_LABEL + r"(?![\w=])(?!" + _DASH + ")"
KEY_END = "(?:" + _ARMOURED_END + "|" + _BARE_END + ")"
#: What stands before a key block's line, between it and the line before: line breaks (as
#: `\\n`, `<br>`), quotes and the `+` that joins a code's strings, a line's prefix (`> `,
#: `# `, `1. `).
_KEY_LINE_GAP = (r"(?:\\[nr]|<[Bb][Rr][ /]{0,2}>|\+(?![A-Za-z0-9+/=])|(?<![^\s>])\d{1,9}[.)][ \t]"
                 r"|[^A-Za-z0-9+/=])")
#: What a key block's body starts with, after the line breaks, quoting and markup between it
#: and the BEGIN line: a base64 line (16 characters, or fewer and its end), an armor header
#: (`Version: `), the `=` checksum, or the END line; or the end of the text read after a
#: line's prefix (`# `, `! `: the body may follow in the next piece of a reply). A BEGIN
#: line followed by anything else (a BEGIN line named in prose) is a
#: value by itself: its mask covers that line only.
KEY_BODY_START = ("(?=" + _KEY_LINE_GAP + "{0,16}"
                  r"(?:[A-Za-z0-9+/=]{16}|[A-Za-z0-9+/=]{1,15}(?:\r?\n|\\[nr]|<[Bb][Rr])"
                  r"|[A-Za-z][A-Za-z-]{1,30}: |" + _ARMOUR + r"[ \t]{0,3}(?i:END))"
                  r"|\s*[^\sA-Za-z0-9+/=][^A-Za-z0-9+/=]{0,15}\Z)")
#: The BEGIN line of a private key block (in any case, in its armour: dashes, `=`, spaces
#: inside it).
KEY_BEGIN = (_ARMOUR + r"[ \t]{0,3}(?i:BEGIN " + _KEY_LABEL + r")[ \t]{0,3}" + _ARMOUR)
#: A BEGIN line with no armour, in capitals (`BEGIN RSA PRIVATE KEY`): a block only when a
#: body follows.
_BARE_BEGIN = (r"(?<![\w=])(?<!" + _DASH + ")BEGIN " + _KEY_LABEL + r"(?![\w=])(?!" + _DASH
               + ")")
#: The BEGIN line of a private key block, and its body when one follows.
_KEY_BLOCK = ("(?:" + KEY_BEGIN + "|" + _BARE_BEGIN + KEY_BODY_START + ")(?:" + KEY_BODY_START
              + KEY_BODY + "*(?:" + KEY_END + ")?)?")
#: A line of a key block's body (base64, 16 characters or more) and the line break, quoting or
#: prefix after it: a body whose BEGIN line is not in the text (it was in an earlier message)
#: is the run of such lines right above its END line.
_KEY_LINE = (r"[A-Za-z0-9+/=]{16,100}(?=[^A-Za-z0-9+/]{0,8}(?:\s|\\[nr]|<[Bb][Rr]))"
             + _KEY_LINE_GAP + "{1,16}")
#: An END line and the body lines right above it (one at least for an END line without
#: armour: one named in prose is none).
_KEY_TAIL = ("(?:" + _KEY_LINE + "){0,100}" + _ARMOURED_END + "|(?:" + _KEY_LINE + "){1,100}"
             + _BARE_END)

#: What may stand between the groups of a card, an IBAN or an SSN besides a space and a
#: hyphen (which mix, as typed: `4111 1111-1111 1111`): a dot, a slash, an underscore, a
#: comma, a colon, a bar, a backslash, a tilde or an apostrophe, one kind throughout
#: (`4111.1111.1111.1111`, `4111_1111_1111_1111`, `4111|1111|…`, `4111'1111'…`,
#: `GB82:WEST:1234:…`). A card so grouped is four groups of four (a number with thousands
#: separators, `1,234,567,890,123,456`, or a time, `12:30:45`, is none); an SSN takes a dot
#: or a slash of these (`_SSN_PUNCT`; `101,12,4500` and `| 120 | 45 | 5400 |` are cells).
#: The view reads typography's separators between two digits (`·`, `•`, `∙`, `⋅`, `‧`, `․`)
#: and the braille blank as a space (`engine.canon`).
GROUP_PUNCTUATION = "./_,;:|\\~'"
#: `GROUP_PUNCTUATION` as the inside of a character class.
_GROUP_CHARS = GROUP_PUNCTUATION.replace("\\", "\\\\")
_GROUP_PUNCT = "[" + _GROUP_CHARS + "]"
#: A separator of `GROUP_PUNCTUATION` or a hyphen padded by a space on both sides, or a double
#: hyphen (or a triple one) alone or so padded, or a comma or semicolon and a space, one kind
#: throughout a value (`4539 / 1488 / 0343 / 6467`, `4539--1488--…`, `4539---1488---…`,
#: `GB82 | WEST | …`, `4539, 1488, …`): spaces padding a separator change nothing of the
#: value's groups. (A comma, a semicolon or a bar sets a list's items apart too: such groups
#: are one value only after a name of its class, `engine.lists`.) (Tried after the
#: one-character class: `[- ./…]|` then this.)
_PADDED_PUNCT = "-{2,3}| (?:-{2,3}|[-" + _GROUP_CHARS + "]) |[,;] "
_SSN_PUNCT = "./"

#: Between a card's groups: a space, a hyphen, or a hyphen with a space on one or both sides
#: (`4111 1111-1111 1111`, `4111 - 1111 - 1111 - 1111`).
_CARD_SEP = r"(?: ?-{1,3} ?| )"
#: A card starts as a number does (or after `@`: `@4111 1111 1111 1111`), and also right
#: after a space, a dot or a hyphen that ends an ungrouped run of 13 digits or more (a list
#: of cards: `4111111111111111 5500005555555559`, `…6467-5500…`), and after a space before
#: a card grouped by punctuation (the second of `4539-1488-0343-6467 5500-0055-5555-5559`);
#: never after a digit and a spaced hyphen (inside `4111 - 1111 - ...`).
_START_CARD = (r"\d(?<![\w+]\d)(?:(?<!\d[ .-]\d)|(?<=\d{13}[ .-]\d)"
               r"|(?<=\d[ \t]\d)(?=\d{12}|\d{3}(?:-|" + _GROUP_PUNCT + r")\d{4}))"
               r"(?<![A-Za-z]-\d)"
               r"(?<!\d - \d)(?<!\d -\d)(?<!\d- \d)")

#: A phone number's digits after its first (a space, a dot or a hyphen between them, the
#: hyphen with a space on one side or both, brackets around the area code) and what may end
#: it: an extension, or no more digits (`phone_number`, `phone_carrier_code`).
_PHONE_REST = (r"(?:(?: ?- ?|[ .])?\(?\d\)?){6,16}(?:" + _EXTENSION + "|" + _END_NUM + ")")

#: Where a known secret starts (api_key, aws_access_key, jwt): a password value stops before
#: punctuation glued to one (`password=S3cret!=ghp_...`), so that both are found. (The view
#: reads a key's wrapped lines and marked-up parts by the same starts.)
_SECRET_START = KEY_START


def _key(first: str) -> str:
    """A key's first character (`first`, a character or a class): not inside a word or a
    hyphenated name (`risk-free`), but after a `_` or `-` that ends another key's body (16
    letters or digits at least: two keys glued, `ghp_...-sk-proj-...`)."""
    return f"{first}(?:(?<![\\w-]{first})|(?<=[A-Za-z0-9]{{16}}[_-]{first}))"


#: Not punctuation glued to a known secret: where a password value stops.
_UNGLUED = (r"(?![=,;:|]" + _SECRET_START + r")"
            r"(?![,;&|][ \t]?(?i:pass(?:word|wd)?|pwd|senha)[\w.-]{0,24}[ \t]?[:=])")

#: CJK scripts: kana, ideographs, Hangul. An address's local part is of one kind or the
#: other, so that an address written right after CJK text starts where the script changes
#: (`邮箱是jane.doe@example.com`).
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF))
_CJK = "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in _CJK_RANGES)


def _letters_and_marks() -> str:
    """The letters and combining marks (Unicode categories L and M) above ASCII of the Basic
    Multilingual Plane, but CJK's (`_CJK`) and the full-width and halfwidth forms' (the view
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
_EU = "0-9" + _EU_LETTERS
_DOMAIN_LABEL = f"[{_EU}{_CJK}](?:[{_EU}{_CJK}-]{{0,61}}[{_EU}{_CJK}])?"
#: A top-level domain: letters of one script, or an A-label (`xn--p1ai`, RFC 5890).
_TLD = f"(?:[{_EU_LETTERS}]{{2,24}}|[{_CJK}]{{1,24}}|xn--[A-Za-z0-9-]{{1,59}})"
#: The dot between a domain's labels: `.`, or the ideographic full stop (`。`, halfwidth `｡`;
#: the full-width `．` reads as `.`), which IDNA (UTS #46) reads as one, before a label of
#: other than CJK letters (before CJK, it ends a sentence: `user@example.com。谢谢`).
_DOT = f"(?:\\.|[\u3002\uff61](?=[{_EU}]))"


#: What may stand between a password's name and its operator: a qualifier in brackets
#: (`password (temporary):`) or naming whose it is, in up to three words (`password for bob:`,
#: `Password for Mr. Smith:`, `senha de acesso:`).
_QUALIFIER = (r"(?:[ \t]{1,4}\([^()\n]{1,40}\)"
              r"|[ \t]{1,4}(?i:for|of|de|do|da|para|f\u00fcr|pour)"
              r"(?:[ \t]{1,4}[^\s:=()]{1,64}){1,3})?")

#: A list's or an object's opening before a password's value: its first string is the value
#: (`{"password": ["..."]}`, `{"password": {"value": "..."}}`).
_IN_LIST = (r"(?:\[[ \t]{0,8}(?=[\"'])|\{[ \t]{0,8}[\"'][\w.-]{1,32}[\"'][ \t]{0,8}:[ \t]{0,8}"
            r"(?=[\"']))?")

#: Arrows that point from a name to its value (`→`, `⇒`, `⟶`, `⟹`, `↦`, `➔`, `➜`, `➝`, `➞`,
#: `⇨`): an operator (`_OPERATOR`), and where a value ends (`Settings→Security` is a path
#: through menus, no password).
_ARROWS = "\u2192\u21d2\u27f6\u27f9\u21a6\u2794\u279c\u279d\u279e\u21e8"

#: A shell parameter's expansion giving a default value (`${DB_PASSWORD:-Qz7xK2mP9w}`, also
#: `-`, `:=`, `=`): the value is the default, written out, before the closing brace.
_DEFAULT_OF = r"(?P<dflt>\$\{[A-Za-z_]\w{0,63}:?[-=](?=[^\s{}]))?"

#: A password's value after its name and operator: quoted (C#'s verbatim `@"..."` too) or
#: not; in brackets (`<Qz7xK2mP9w>`, `(none)`), the value is what the brackets hold (a
#: placeholder of lower-case words, `<your-password>`, is none), and a value never starts
#: with an opening bracket it does not close (`(see above)`). `&` ends the value only where a
#: URL's next parameter starts (`&user=`); it ends before a sentence's punctuation, CJK's too,
#: before a closing bracket (`{password: Qz7xK2mP9w}`) and at an arrow (`_ARROWS`). YAML's
#: `!!str` tag before it is no part of it (`password: !!str Qz7xK2mP9w`).
#: Punctuation a password's value does not end with: a sentence's, CJK's too, and closing
#: brackets.
_TRAILING = r".,;:)\]}>\u3001\u3002\uff01\uff0c\uff1f"
#: A character of a password's value written without quotes (`_VALUE`).
_VALUE_CHAR = ("(?:" + _UNGLUED + r"[^\s\"'`&" + _ARROWS + r"]|&(?![A-Za-z_]\w{0,30}=))")
#: How many characters of a value a password's pattern reads; a value going on past them
#: sets the pattern's group `cut`, and is read on to its real end (`value_end`).
VALUE_READ = 1024
_VALUE = (
    r"(?:!!str[ \t]+)?(?:@(?=\"))?(?P<q>[\"'`]?)(?![A-Za-z][\w-]{0,30}=[\"'])" + _DEFAULT_OF +
    r"(?P<br>[<(\[{](?=[^\s<>()\[\]{}\"'`]{1,128}[>)\]}]))?"
    r"(?P<value>(?(br)(?![a-z]+(?:[-_][a-z]+)*[>)\]}])[^\s<>()\[\]{}\"'`]{1,128}"
    r"|(?![<(\[{])(?:" + _VALUE_CHAR + f"{{{VALUE_READ}}}(?={_VALUE_CHAR})(?P<cut>)"
    + "|" + _VALUE_CHAR + f"{{0,{VALUE_READ - 1}}}"
    + _UNGLUED + r"[^\s\"'`&" + _TRAILING + _ARROWS + r"])))(?(br)[>)\]}])(?(dflt)\}?)"
    r"(?(cut)|(?P=q))"
)

#: What continues a value its pattern read `VALUE_READ` characters of (`value_end`): written
#: without quotes, its characters up to a space, a quote or `&`, punctuation at its end left
#: out; quoted, up to its closing quote (one before a letter or a digit is inside it), a
#: `\\`-escape read.
_RUNS_ON = re.compile(r"(?:[" + _TRAILING + r"]*+[^\s\"'`&" + _TRAILING + _ARROWS + r"])*+")
_RUNS_ON_QUOTED = re.compile(r"(?:[^\\\n\"']|\\[^\n]|[\"'](?=[A-Za-z0-9]))*+")


def value_end(text: str, match: re.Match[str], end: int) -> int:
    """Where a value ends that a password's pattern read only the first `VALUE_READ`
    characters of (its group `cut` took part in `match`; the value read ends at `end`):
    read on, quoted or not as `match` read it, so that no part of a longer value is left
    out of its mask. Linear in the value's length."""
    quoted = "q" in match.re.groupindex and match.group("q")
    return (_RUNS_ON_QUOTED if quoted else _RUNS_ON).match(text, end).end()


#: Where an address's local part starts, searched back from its `@` (the email detector's
#: tuning, `engine.tuning`): a run of local-part characters of one kind or the other.
EMAIL_START = re.compile(f"(?<![{_EU}._%+-])[{_EU}._%+-]{{1,64}}@\\Z"
                         f"|(?<![{_CJK}])[{_CJK}]{{1,64}}@\\Z")

#: A word of an address's local part (`_SPACED_EMAIL`): letters, digits and `._%+-`, no dot
#: at either end.
_LOCAL_WORD = f"[{_EU}_%+-](?:[{_EU}._%+-]{{0,62}}[{_EU}_%+-])?"
#: A dot between an address's words or labels: as typed, or a space on both sides before a
#: small letter or a digit (`jane . doe`, `example . com`; a next sentence starts with a
#: capital).
_SPACED_DOT = r"(?:\.| \. (?=[a-z0-9]))"
#: An address with a space on one side of its `@` or both, or spaced dots (`jane.doe @
#: example.com`, `jane . doe@example . com`; inline tags around its `@`, which the view
#: reads as a space: `jane<b>@</b>example.com`).
_SPACED_EMAIL = (f"{_LOCAL_WORD}(?: \\. (?=[a-z0-9]){_LOCAL_WORD}){{0,2}}(?: @ ?|@ ?)"
                 f"{_DOMAIN_LABEL}(?:{_SPACED_DOT}{_DOMAIN_LABEL}){{0,7}}{_SPACED_DOT}{_TLD}"
                 f"(?![{_EU}_@-])(?!{_SPACED_DOT}[{_EU}])")

#: A password's names, in any case, after any non-alphanumeric character or inside a
#: camelCase name (`dbPassword`): `password` (`pass word` too), `passwd`, `Passwort`, `pwd`,
#: `pw`, `p/w`, `pass`,
#: `passphrase`, `passcode`, `PIN` (`PIN code`), Portuguese `senha`, Spanish `contraseña`,
#: French `mot de passe`, German `Kennwort`, Dutch `wachtwoord`.
_PASSWORD_NAME = (
    r"(?:(?i:p(?<![A-Za-z0-9]p)|(?-i:P)(?<=[a-z]P))(?i:assword|asswd|asswort|wd|w|/w(?![A-Za-z0-9])"
    r"|ass(?:[ \t]word|phrase|code)?|in(?![A-Za-z])(?:[ \t]code)?)"
    r"|(?i:s(?<![A-Za-z0-9]s)|(?-i:S)(?<=[a-z]S))(?i:enha)"
    r"|(?i:c(?<![A-Za-z0-9]c)ontrase(?:\u00f1|n)a|m(?<![A-Za-z0-9]m)ot de passe"
    r"|k(?<![A-Za-z0-9]k)ennwort|w(?<![A-Za-z0-9]w)achtwoord))"
)
#: Where each of `_PASSWORD_NAME`'s matches starts (lower case).
_PASSWORD_KEYWORDS = ("pass", "pw", "p/w", "pin", "senha", "contrase", "mot de passe", "kennwort",
                      "wachtwoord")
#: The em dash and the horizontal bar (the view reads the en dash as `-`).
_LONG_DASHES = "\u2014\u2015"
#: An arrow (`->`, `-->`, `=>`, `==>`, `→`, `⇒`), an em dash or two hyphens standing for one.
#: A `->` glued to the name is no arrow before a member's name in code (`pw->pw_dir`,
#: `password->getHash()`, `password->data[0]`).
_ARROW = (r"(?:[-=]{1,2}>(?:(?<![A-Za-z0-9_]->)|(?![A-Za-z_]\w*(?:[(\[.;,)]|->)|[a-z]+_\w*))"
          r"|[" + _ARROWS + _LONG_DASHES + r"]|--)")
#: An assignment's operator: `:` `=` `:=` `==`, an arrow after one of them or not
#: (`Password: → …`), glued to the name or not (`Password→Qz7xK2mP9w`, `Password — …`),
#: or after a space a hyphen (`Password - …`; glued, it joins a name: `password-reset`).
_OPERATOR = (r"(?:(?::=|==?(?![=>])|:)(?:[ \t]{0,4}" + _ARROW + r")?|" + _ARROW
             + r"|(?<=[ \t])-)")
#: A password's name and the operator after it (`password_assignment`): the value is never
#: another such name and operator (`Pass: password: Qz7xK2mP9w`, `Login password: password:
#: …`): the value is the last name's.
_ASSIGNED = (_PASSWORD_NAME + r"(?:\d|[_.-][A-Za-z0-9]{1,20}){0,3}" + _QUALIFIER
             + r"(?:[\"'`]?\]?)[ \t]{0,8}" + _OPERATOR)
#: A YAML block scalar's indicator before a value on the next line (`password: >` then
#: `  Qz7xK2mP9w`).
_BLOCK_SCALAR = r"(?:[>|][-+]?[ \t]*\n[ \t]{1,16})?"


#: An element's other attributes, between a password's name and a `value` attribute
#: (`type="password" id="pw" value="..."`): up to four, each after a space.
_ATTRIBUTES = (r"(?:[ \t\n]+[\w:-]{1,32}"
               r"(?:[ \t]*=[ \t]*(?:\"[^\"<>\n]{0,128}\"|'[^'<>\n]{0,128}'))?){0,4}[ \t\n]+")


def _quoted_or(group: str, other: str, other_read: str = "(?!)") -> str:
    """A value in group `value`: `other` when group `group` took part in the match, else a
    quoted string, `\\`-escapes read (`"Qz7x\\"K2mP9w"` is one value; the view reads such
    an escape as the quote, so a quote before a letter or digit does not close it), which
    the end of the text read may cut (a reply's piece). `other_read`: `other`'s first
    `VALUE_READ` characters where it goes on past them (group `cut` is then set; the
    quoted string's likewise)."""
    char = r"(?:(?!(?P=q))[^\\\n]|\\[^\n]|(?P=q)(?=[A-Za-z0-9]))"
    return (f"(?({group})|(?P<q>[\"']))(?P<value>(?({group}){other_read}"
            f"|{char}{{{VALUE_READ}}}(?={char}))(?P<cut>)|(?({group}){other}"
            f"|{char}{{1,{VALUE_READ}}}))"
            r"(?(" + group + r")|(?(cut)|(?:(?P=q)|\Z)))")

#: Where `reset your password to …` names the value (`password_phrase`): a verb and a
#: determiner before `password`, each read behind it (a look-behind has one width).
_SET_TO = "|".join(f"password(?<={verb}[ \\t]{det}[ \\t]password)"
                   for verb in ("reset", "set", "change", "update")
                   for det in ("your", "the", "my", "his", "her", "their", "its"))
#: A password's qualifier read behind it (`temporary password Qz7xK2mP9w`).
_KIND = "|".join(f"password(?<={kind}[ \\t]password)"
                 for kind in ("temporary", "temp", "initial", "default", "one-time", "new"))


#: Where a name of `layout.LABEL` starts (lower case): a heading's, a label line's or a
#: table header's.
_LAYOUT_KEYWORDS = ("pass", "pw", "senha", "contrase", "kennwort", "wachtwoord", "secret",
                    "token", "api")
#: The same in other scripts (read in the text: the lower-case view is ASCII's).
_LAYOUT_WIDE_KEYWORDS = ("\u043f\u0430\u0440\u043e\u043b\u044c",
                         "\u041f\u0430\u0440\u043e\u043b\u044c", "\u30d1\u30b9\u30ef",
                         "\u5bc6\u7801", "\u5bc6\u78bc", "\ube44\ubc00", "\u6697\u8a3c",
                         "\u53e3\u4ee4")
#: A password on a line under its name or beside it alone (`password_layout`), unless that
#: is another name and its value (`Password: password=Qz7xK2mP9w`: `password_assignment`'s).
_LAYOUT = Refusing(AtLineStarts(re.compile(
    r"(?m)^(?:#{1,6}[ \t]+|>[ \t]*|[-*+][ \t]+)?(?:\*\*|__)?(?:[\w'-]{1,20}[ \t]){0,3}"
    + LABEL + r"(?:[ \t]*\([^()\n]{1,40}\))?[ \t]*:?(?:\*\*|__)?[ \t]*:?"
    r"(?:[ \t]*\n(?:[ \t]*\n){0,2}[ \t]*(?:>[ \t]*)?|[ \t]+|[ \t]*(?:\.{3,}|\u2026+)[ \t]*)"
    "(?!" + _ASSIGNED + r")(?P<q>[`\"']?)(?P<value>[^\s`\"']{4,128})(?P=q)[ \t]*$"
)), a_ticket_or_a_count)


DETECTORS: tuple[Detector, ...] = (
    Detector(
        id="private_key",
        category="private_key",
        regex=re.compile(
            _KEY_BLOCK + "|" + _KEY_TAIL
        ),
        keywords=("private key", "private_key"),
        keywords_in="lower",
        validate=None,
        mask=masks.private_key,
        priority=0,
        rest=re.compile(KEY_BODY + "*(?:" + KEY_END + ")?"),
        examples=(
            "-----BEGIN RSA PRIVATE KEY-----\n"
            "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4\n"
            "-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
            "lQOYBF0Tj0sBCADIxTk7bZKq5m3kO1VZ9x\n=Zx9Q\n-----END PGP PRIVATE KEY BLOCK-----",
            "-----BEGIN RSA PRIVATE KEY-----\n> MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy\n"
            "> 1tPf9Cnzj4p4\n> -----END RSA PRIVATE KEY-----",
        ),
        counterexamples=("-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKj34Gkx\n",
                         "the private key is kept in the vault",
                         "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBF0Tj0sBCADIxTk7bZKq\n",
                         "Keep your PRIVATE KEY safe."),
    ),
    Detector(
        id="jwt",
        category="jwt",
        # Header, payload and signature (RFC 7519); a token cut short by the end of the text
        # read, after its payload has started, is a token too (its rest: `rest`).
        regex=re.compile(
            r"e(?<![\w-]e)yJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}+(?:\.[A-Za-z0-9_-]*+|\Z)"
            r"(?![\w-])"
        ),
        keywords=("eyJ",),
        validate=validators.jwt,
        mask=masks.jwt,
        priority=1,
        rest=re.compile(r"[A-Za-z0-9_.-]*+"),
        examples=(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ),
        counterexamples=("eyJub3Rqc29u.eyJub3Rqc29u.abc", "keyJoin.eyJ.x"),
    ),
    Detector(
        id="api_key",
        category="api_key",
        regex=re.compile(
            "(?:" + _key("s") + r"k-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,1024}"
            "|" + _key("[sr]") + r"k_(?:live|test)_[A-Za-z0-9]{16,1024}"
            "|" + _key("p") + r"k_live_[A-Za-z0-9]{16,1024}"
            "|" + _key("g") + r"h[pousr]_[A-Za-z0-9]{36,1024}"
            "|" + _key("g") + r"ithub_pat_[A-Za-z0-9_]{22,1024}"
            "|" + _key("g") + r"lpat-[A-Za-z0-9_-]{20,64}"
            "|" + _key("x") + r"ox[abprs]-[A-Za-z0-9-]{10,200}"
            "|" + _key("A") + r"Iza[0-9A-Za-z_-]{35}|" + _key("h") + r"f_[A-Za-z0-9]{30,64}"
            "|" + _key("n") + r"pm_[A-Za-z0-9]{36}"
            "|" + _key("w") + r"hsec_[A-Za-z0-9+/]{24,1024}={0,2}"
            "|" + _key("h") + r"ooks\.slack\.com/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}"
            r"/[A-Za-z0-9]{24}"
            "|" + _key("S") + r"G\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9])"
        ),
        # `_` stands for sk_ rk_ pk_live_ gh?_ github_pat_ hf_ npm_ whsec_ (one fast scan for
        # all); a Slack webhook's URL (its path is the secret) is read from its host.
        keywords=("_", "sk-", "glpat-", "xox", "AIza", "SG.", "hooks.slack.com/services/"),
        validate=validators.api_key,
        mask=masks.api_key,
        priority=2,
        examples=(
            "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD",
            "sk_live_51H8abcDEFghiJKLmnopQRst",
            "ghp_1234567890abcdefghijABCDEFGHIJ123456",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "xoxb-1234567890-abcdefghij",
            "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5F6g7H8",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "hooks.slack.com/services/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",
        ),
        counterexamples=("sk-short", "the task-list", "ghp_tooshort", "risk-free options",
                         "help.example.com/how-to-mask-your-personal-data-safely",
                         "the desk-top-printer-setup-guide-for-windows page",
                         "the-best-sk-Learn2024-course", "ghp_1234567890abcdefghijABCDEFGHIJ12345",
                         "whsec_short", "https://hooks.slack.com/services/",
                         "hooks.slack.com/services/T0A1B2C3D/B4E5F6G7H/short"),
    ),
    Detector(
        id="aws_access_key",
        category="aws_access_key",
        regex=re.compile(r"(?:AKIA|ASIA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        keywords=("AKIA", "ASIA"),
        validate=validators.aws_access_key,
        mask=masks.aws_access_key,
        priority=3,
        examples=("AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A"),
        counterexamples=("AKIAIOSFODNN7EXAMPLEX", "XAKIAIOSFODNN7EXAMPLE", "AKIA is a prefix",
                         "AKIAXXXXXXXXXXXXXXXX", "ASIA0000000000000000"),
    ),
    Detector(
        id="password_quoted",
        category="password",
        # A password's name assigned a quoted string (`{"password": "sunshine"}`,
        # `password = "correct horse battery staple"`, escapes read: `"Qz7x\\"K2mP9w"`), or an
        # environment variable naming one (`DB_PASSWORD=sunshine`, no suffix after the name:
        # `PASSWORD_MIN_LENGTH=12` names a setting): the syntax says a password is given, so
        # any value is one but an obvious non-secret (`validators.assigned_password`), nor
        # another name and its operator (`"password": "password": "..."`).
        regex=Refusing(re.compile(
            r"(?:(?-i:P(?<![A-Za-z0-9]P)ASS(?:WORD|WD)?|P(?<![A-Za-z0-9]P)WD)\d?=(?=[^\s\"'`])"
            r"(?P<env>)|" + _PASSWORD_NAME + r"s?\d?(?:[\"'`]?\]?)[ \t]{0,8}" + _OPERATOR
            + r"[ \t]{0,8}(?![\"']" + _ASSIGNED + "))"
            + _quoted_or("env", r"[^\s\"'`]{0,1023}[^\s\"'`.,;:)]",
                         f"[^\\s\"'`]{{{VALUE_READ}}}(?=[^\\s\"'`])")
        ), a_ticket_pass),
        keywords=_PASSWORD_KEYWORDS,
        keywords_in="lower",
        validate=validators.assigned_password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=_RUNS_ON_QUOTED,
        examples=("sunshine", "correct horse battery staple", "Qz7x\\\"K2mP9w"),
        counterexamples=('{"password": ""}', '{"password": "****"}', "password = '<your password>'",
                         'password: "${DB_PASSWORD}"', '"password": "Password"',
                         "PASSWORD_MIN_LENGTH=12", "DB_PASSWORD=$DB_PASSWORD",
                         "'password' => 'required|min:8'", '"password": null',
                         '"password": "at least 12 characters"'),
    ),
    Detector(
        id="password_assignment",
        category="password",
        # The name, in any case and after any non-alphanumeric character or inside a
        # camelCase name (`dbPassword`), with an optional `_`/`.`/`-` suffix
        # (`password_hash`, `PASSWORD_DB`), a qualifier (`password for bob`,
        # `password (temporary)`) and a closing quote or bracket (`$config['password']`);
        # the operator (`_OPERATOR`: `:` `=` `:=` `=>` `==`, an arrow, a dash); the value
        # (`_VALUE`; never a name and its operator again: `_ASSIGNED`), or the first string of
        # a list or of an object (`{"password": ["..."]}`, `{"password": {"value": "..."}}`).
        # `pass` after a word naming a ticket (`Season pass:`) names no password.
        regex=Refusing(re.compile(
            _ASSIGNED + r"[ \t]{0,8}" + _BLOCK_SCALAR + _IN_LIST + "(?!" + _ASSIGNED + ")"
            + _VALUE
        ), a_ticket_pass),
        keywords=_PASSWORD_KEYWORDS,
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=_RUNS_ON,
        examples=("hunter2Secret!", "S3cr3t-value"),
        counterexamples=("password: reset it from the link", "your password is safe",
                         "passport: see the counter", "compass: north", "dbpassword=S3cret!x",
                         "pass-through: enabled", "password == null",
                         "senha: nova", "password: Reset.", "password: ********",
                         "password: [REDACTED]", "password: https://shop.example.com/reset",
                         "pass_rate: 0.95", "PWD=/home/alice/project",
                         "password=${DB_PASSWORD}", "password: YOUR_PASSWORD",
                         "password = os.environ['DB_PASSWORD']", "DB_PASS=process.env.DB_PASS",
                         "const password = req.body.password;",
                         "if password == confirmPassword:", "password = input('Password: ')",
                         "password: null", "ALTER ROLE bob WITH PASSWORD NULL;",
                         "password: (hidden)", "password = db_password",
                         "Password: (none)", "password: (see above)", "password: <your-password>",
                         "    password: Optional[str] = None", "    password: SecretStr",
                         "password: Mapped[str] = mapped_column(String(128))",
                         "  password: string;", "password for the account: see the link",
                         "password: {{password}}",
                         "Season pass: Gold2025", "boarding pass = Zone4B",
                         'password: <code class="pw">'),
    ),
    Detector(
        id="password_argument",
        category="password",
        # A password's name as a quoted key, then its value: the next argument of a call
        # (`define('DB_PASSWORD', '...')`, `setProperty("password", "...")`, `map.put(...)`,
        # `os.getenv("DB_PASSWORD", "...")`), an element's `value` attribute
        # (`<property name="password" value="..."/>`) or its text (`<param
        # name="password">...</param>`), other attributes between them (`<input
        # type="password" id="pw" value="...">`); or a call named so with a quoted argument
        # (SQL's `PASSWORD('...')`, `check_password("...")`); or a label naming a password
        # before an input's `value` (`<label>Password</label><input value="...">`: the view
        # reads the label's tags as spaces).
        regex=re.compile(
            _PASSWORD_NAME + r"\d?(?:[\"'](?:[ \t]*,[ \t]*|" + _ATTRIBUTES + "value[ \t]*=[ \t]*"
            r"|(?P<el>>))|[ \t]*\([ \t]*(?=[\"'])"
            r"|[ \t]{0,4}:?[ \t\n]{0,8}<(?i:input)(?=[ \t\n])" + _ATTRIBUTES
            + r"(?i:value)[ \t]*=[ \t]*(?=[\"']))"
            + _quoted_or("el", r"[^<>\s\"'`]{1,128}(?=</)")
        ),
        keywords=_PASSWORD_KEYWORDS,
        keywords_in="lower",
        validate=validators.assigned_password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=_RUNS_ON_QUOTED,
        examples=("sunshine", "Qz7xK2mP9w"),
        counterexamples=('input("Password: ")', 't("password", "Password")',
                         'os.getenv("DB_PASSWORD", "")', '<label for="password">Password</label>',
                         'prompt_password("Enter your password")'),
    ),
    Detector(
        id="password_list",
        category="password",
        # Passwords listed after a plural name (`passwords: Qz7xK2mP9w, Xy9pL3kQ2z`): the
        # list, each item a password's value (`validators.password_list`).
        regex=re.compile(
            r"p(?<![A-Za-z0-9]p)(?i:asswords|asscodes|ins)[ \t]{0,8}[:=][ \t]{0,8}"
            r"(?P<value>[^\s,;\"'`]{0,127}[^\s,;\"'`.:)](?:,[ \t]{0,4}"
            r"[^\s,;\"'`]{0,127}[^\s,;\"'`.:)]){0,31})"
        ),
        keywords=("pass", "pin"),
        keywords_in="lower",
        validate=validators.password_list,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9w, Xy9pL3kQ2z", "Qz7xK2mP9w"),
        counterexamples=("Passwords: at least 12 characters", "passwords: none, yet"),
    ),
    Detector(
        id="secret_assignment",
        category="password",
        # A secret, a token or an API key assigned to its name (`secret:`, `client_secret=`,
        # `SECRET_KEY=`, `AWS_SECRET_ACCESS_KEY=`, `access_token:`, `api_key=`), a private,
        # signing or encryption key's (`private_key:`, `signing_key=`, `encryptionKey=`; a
        # key block after it is `private_key`'s) or a session's (`session_id=`,
        # `SESSION_TOKEN=`): the name as a word of its own or after `_`/`-`/`.` (not
        # `max_tokens`, `token_count`; `the private key: …` in words names none), the value
        # as a password's.
        regex=re.compile(
            r"(?i:s(?<![A-Za-z0-9]s)ecret|t(?<![A-Za-z0-9]t)oken|a(?<![A-Za-z0-9]a)pi[_-]?key"
            r"|(?:p(?<![A-Za-z0-9]p)rivate|s(?<![A-Za-z0-9]s)igning"
            r"|e(?<![A-Za-z0-9]e)ncryption)[_.-]?key|s(?<![A-Za-z0-9]s)ession[_.-]?(?:id|key|token))"
            r"(?i:[_.-](?:access|key|token|value)){0,2}(?:[\"'`]?\]?)[ \t]{0,8}"
            + _OPERATOR + r"[ \t]{0,8}" + _VALUE
        ),
        keywords=("secret", "token", "api", "private", "signing", "encryption", "session"),
        keywords_in="lower",
        validate=validators.secret,
        mask=masks.password,
        priority=4,
        group="value",
        rest=_RUNS_ON,
        examples=("Qz7xK2mP9w", "hunter2Secret!", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        counterexamples=("max_tokens: 1024", "token_count: 4096", "secret: true",
                         "the private key: stored in the vault", "session_id: 42",
                         "session: Q3-2024 planning", "privateKeyPath: /etc/ssl/key.pem",
                         "the secret: be kind", "tokens: 1200", "api_key=${API_KEY}",
                         "token: <your-token>", "secretary: Ann", "SECRET_KEY=os.environ['K']",
                         "max token: 4096", "token: 128,000", "secret: 42"),
    ),
    Detector(
        id="bearer_token",
        category="password",
        # A bearer token (RFC 6750's b64token) after the word `Bearer`, as an HTTP
        # `Authorization` header gives it (`Authorization: Bearer …`, curl's `-H`, a headers
        # map in code or JSON): 16 or more of its characters, a digit among them, looking
        # like a secret.
        regex=re.compile(r"(?i:b(?<![A-Za-z0-9]b)earer)[ \t]+"
                         r"(?P<value>(?=[A-Za-z\-._~+/]*[0-9])(?:[A-Za-z0-9\-._~+/]{1024}"
                         r"(?=[A-Za-z0-9\-._~+/=])(?P<cut>)|[A-Za-z0-9\-._~+/]{16,1024}=*"
                         r"(?![A-Za-z0-9\-._~+/=])))"),
        keywords=("bearer",),
        keywords_in="lower",
        validate=validators.secret,
        mask=masks.password,
        priority=4,
        group="value",
        rest=_RUNS_ON,
        examples=("4fJk29Pz8XvTn7QmW2bLs9Hd3RtYu6Vc", "ya29.a0AfH6SMBx-Kq3_Lz9P~7w+Tq/Rv=="),
        counterexamples=("the bearer of this letter", "Bearer <token>",
                         "Authorization: Bearer ${TOKEN}", "Bearer authentication_required",
                         "Bearer token"),
    ),
    Detector(
        id="cookie_value",
        category="password",
        # A cookie's value in an HTTP header (RFC 6265), a session's id as good as a password:
        # `Set-Cookie: sid=…; Path=/` (the first pair's value; the attributes after it are
        # kept), `Cookie: session=…` (every pair's value up to the line's end: its first
        # name is kept), a quote ending it (`-H 'Cookie: sid=…'`). A value looking like a
        # secret (`validators.secret`: `theme=dark` is none).
        regex=re.compile(
            r"(?:(?i:c(?<=set-c)ookie)(?P<set>)|(?i:c(?<![A-Za-z0-9-]c)ookie))[ \t]*:[ \t]*"
            r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}=(?P<value>[^\s;,\"'`\\]{1,4096}"
            r"(?(set)|(?:;[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}=[^\s;,\"'`\\]{0,4096}){0,64}))"
            r"(?![^\s;,\"'`\\])"
        ),
        keywords=("cookie",),
        keywords_in="lower",
        validate=validators.secret,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9wLs8aB3", "s%3AQz7xK2mP9w.Ls8aB3"),
        counterexamples=("Cookie: theme=dark", "Set-Cookie: lang=en; Path=/",
                         "the cookie: session=expired", "Cookie: chocolate chip"),
    ),
    Detector(
        id="password_label",
        category="password",
        # A password after a label in another script: Russian `пароль` (read through the
        # look-alike letters the view folds to ASCII), Japanese `パスワード`, Chinese `密码`,
        # Korean `비밀번호`, Japanese `暗証番号` (a PIN), Chinese `口令`; then `:`, `=`, a
        # full-width colon (read as `:`) or a particle
        # (`は`, `是`, `는`).
        regex=re.compile(
            r"(?:(?i:\u043f[a\u0430][p\u0440][o\u043e]\u043b[\u044cb])|\u30d1\u30b9\u30ef"
            r"\u30fc\u30c9|\u5bc6[\u7801\u78bc]|\ube44\ubc00\ubc88\ud638|\u6697\u8a3c\u756a\u53f7"
            r"|\u53e3\u4ee4)"
            r"(?:[ \t]{0,8}[:=]|[ \t]{0,4}(?:\u306f|\u662f|\u4e3a|\u70ba|\ub294|\uc740):?)"
            r"[ \t]{0,8}" + _VALUE
        ),
        # (Keywords as the view reads them, look-alike letters folded.)
        keywords=("\u043fap", "\u041fap", "\u041fAP", "\u30d1\u30b9\u30ef", "\u5bc6\u7801",
                  "\u5bc6\u78bc", "\ube44\ubc00", "\u6697\u8a3c\u756a\u53f7", "\u53e3\u4ee4"),
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=_RUNS_ON,
        examples=("Qz7xK2mP9w",),
        counterexamples=("\u043f\u0430\u0440\u043e\u043b\u044c: \u043d\u043e\u0432\u044b\u0439",
                         "\u30d1\u30b9\u30ef\u30fc\u30c9\u3092\u5fd8\u308c\u305f",
                         "\u5bc6\u7801\uff1a\u89c1\u4e0a"),
    ),
    Detector(
        id="password_confirm",
        category="password",
        # A `"confirm"` field beside a password's (`{"new_password": "...", "confirm": "..."}`):
        # its confirmation, the same password (`"confirm_password"` is a password's name).
        regex=Refusing(re.compile(
            r"[\"'](?i:confirm(?:ation)?)[\"'][ \t]{0,8}(?::|=>?)[ \t]{0,8}(?P<q>[\"'])"
            r"(?P<value>[^\s\"']{0,1023}[^\s\"'.,;:)])(?P=q)"
        ), no_password_named_before),
        keywords=('"confirm', "'confirm"),
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("S3cret!x", "hunter2Secret!"),
        counterexamples=('{"confirm": "S3cret!x"}', '{"password": "", "confirm": true}',
                         '{"pass": 1, "confirm": "yes"}'),
    ),
    Detector(
        id="cli_password",
        category="password",
        # A password on a command line: MySQL's and MariaDB's `-p` glued to it (`mysql -u root
        # -pS3cret!`; `-p` alone asks for one), sshpass's `-p`, curl's `-u`/`--user`
        # `user:password` (`--password=` is `password_phrase`'s), `redis-cli -a`, and a
        # container registry's `login ... -p` (`docker login -u bob -p ...`).
        regex=re.compile(
            r"(?:(?i:mysql(?:dump|admin|import|sh)?|mariadb(?:-dump|-admin)?)(?![\w-])"
            r"(?:[ \t]+(?!-p)[^\s|;&]{1,200}){0,16}?[ \t]+-p(?=\S)"
            r"|sshpass(?:[ \t]+-[^p\s]\S{0,200}){0,4}[ \t]+-p[ \t]*"
            r"|redis-cli(?:[ \t]+(?!-a)[^\s|;&]{1,200}){0,16}?[ \t]+-a[ \t]+"
            r"|(?<![\w-])(?:docker|podman|nerdctl|buildah|skopeo|helm[ \t]+registry|oc"
            r"|az(?:[ \t]+acr)?)(?![\w-])[ \t]+login(?:[ \t]+(?!-p)[^\s|;&]{1,200}){0,16}?"
            r"[ \t]+-p[ \t]+"
            r"|(?P<user>curl(?:[ \t]+(?!-u|--user)[^\s|;&]{1,200}){0,16}?[ \t]+(?:-u|--user)"
            r"(?:[ \t]+|=)?))"
            r"(?P<q>[\"']?)(?(user)[^\s:\"']{1,64}:)"
            r"(?P<value>[^\s\"']{0,127}[^\s\"'.,;:)])(?P=q)"
        ),
        keywords=("mysql", "mariadb", "sshpass", "curl", "redis-cli", "docker", "podman",
                  "nerdctl", "buildah", "skopeo", "helm", "oc ", "az "),
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("S3cret!Pw9", "hunter2Secret!"),
        counterexamples=("mysql -u root -p mydb", "curl -u admin https://example.com",
                         "mysql -P 3306 -h db", "sshpass -f ~/.pw ssh host",
                         "curl -u admin: https://example.com"),
    ),
    Detector(
        id="password_phrase",
        category="password",
        # A password given in words or by a command rather than assigned: SQL's `IDENTIFIED
        # BY '...'` and `WITH PASSWORD '...'`, Redis's `requirepass`, a `--password` flag,
        # `setPassword("...")`, an XML `<password>` element, `your password is: ...`,
        # `new password: ...`, Portuguese `senha provisória: ...`.
        regex=re.compile(
            r"(?i:identified[ \t]+by|password(?<=with[ \t]password)"
            r"|password(?<=with[ \t]encrypted[ \t]password)|requirepass"
            r"|--pass(?:word|wd)?[= ]|password(?<=[a-z0-9]-password)[= ]"
            r"|passwd(?<=[a-z0-9]-passwd)[= ]|set_?password[ \t]*\(|<password>"
            r"|(?:password|passcode|p(?<![a-z0-9]p)in(?:[ \t]code)?)[ \t]+"
            r"(?:is|was|has[ \t]+been|will[ \t]+be|remains)"
            r"(?:[ \t]+(?:now|still|currently|temporarily|set|changed|reset|updated)){0,2}"
            r"(?:[ \t]+to)?|password[ \t]+(?:set|changed|reset|updated)[ \t]+to"
            r"|(?:" + _SET_TO + r")[ \t]+to|login[ \t]+[^\s:/]{1,64}[ \t]+password[ \t]+"
            r"|password(?=[ \t]+')|password[ \t]*\|"
            r"|password(?:[ \t]+[\w'\u2019-]{1,20}){1,4}[ \t]*:"
            r"|key=\"password\"[ \t]+value="
            r"|type=\"password\"(?:[ \t]+[\w-]{1,20}=(?:\"[^\"<>]{0,100}\""
            r"|'[^'<>]{0,100}'|[^\s\"'<>]{1,100}))*?[ \t]+value="
            r"|(?:login|credentials?)[ \t]*:[ \t]*[^\s/:]{1,64}[ \t]*/"
            r"|" + _KIND + r"|senha(?:[ \t]+[\w-]{1,20}){1,2}[ \t]*:"
            r"|senha(?:[ \t]+[\w-]{1,20})?[ \t]+[ée])"
            r"[ \t]{0,8}:?[ \t]{0,8}(?P<q>[\"'`]?)"
            r"(?P<value>[^\s\"'`<>()|]{1024}(?=[^\s\"'`<>()|])(?P<cut>)"
            r"|[^\s\"'`<>()|]{0,1023}[^\s\"'`<>()|.,;:])(?(cut)|(?P=q))"
        ),
        # (Every match starts at one of its keywords: `with`/`new` before `password` are
        # read behind it, so that the regex is tried at each keyword alone.)
        keywords=("identified", "requirepass", "--pass", "setpassword", "set_password",
                  "<password>", "password", "senha ", 'key="password"', 'type="password"',
                  "login", "credential", "passcode", "pin"),
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=_RUNS_ON,
        examples=("S3cret!x", "hunter2Secret!", "Zone-99x"),
        counterexamples=("your password is safe", "the new password: see the link below",
                         "your password is now set.", "Login: admin / admin",
                         "Login: see https://example.com/login",
                         "the password you choose: must be long",
                         '<input type="password" value="">',
                         "the password policy for all accounts: Use a manager",
                         "password reset link: example.com/reset",
                         "the password | is required", "A senha é nova.",
                         "IDENTIFIED BY ''", "--password-file /run/secrets/db",
                         "<password></password>", "requirepass yes"),
    ),
    Detector(
        id="password_layout",
        category="password",
        # A password on a line of its own under a line naming it (a heading `### Password`,
        # `Password:`, `**New password**`, then the value, blank lines between), or a line
        # of the name and the value alone (`Password<TAB>Qz7xK2mP9w`: a tab reads as a space;
        # dot leaders, `Password........ Qz7xK2mP9w`).
        # Lines are read apart where a text names a password (`layout.needs_lines`).
        regex=_LAYOUT,
        keywords=_LAYOUT_KEYWORDS,
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9w", "hunter2Secret!"),
        counterexamples=("### Password\n\nReset it from the link below.\n",
                         "Password\nManager\n", "## Password policy\n\nUse 12 characters.\n",
                         "Forgot password?\n\nClick here.\n", "passport\nAB12345\n",
                         "Season pass: Gold2025"),
    ),
    Detector(
        id="password_column",
        category="password",
        # The cells of a table's or a CSV's column whose header names a password
        # (`| user | password |`, `user,password`): `engine.layout.Columns`.
        regex=Columns(),
        keywords=_LAYOUT_KEYWORDS,
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        examples=("Qz7xK2mP9w", "hunter2Secret!"),
        counterexamples=("| name | password policy |\n|---|---|\n| bob | Strong |",
                         "| user | password |\n|---|---|\n| bob | (hidden) |",
                         "| user | password |\n|---|---|\n| bob | see the vault |",
                         "user,passport\nbob,AB123456"),
    ),
    Detector(
        id="password_column_wide",
        category="password",
        # `password_column` under a header naming a password in another script
        # (`| ユーザー | パスワード |`).
        regex=Columns(),
        keywords=_LAYOUT_WIDE_KEYWORDS,
        validate=validators.password,
        mask=masks.password,
        priority=4,
        examples=("Qz7xK2mP9w",),
        counterexamples=("| \u30e6\u30fc\u30b6\u30fc | \u30d1\u30b9\u30ef\u30fc\u30c9 |\n"
                         "|---|---|\n| bob | (hidden) |",),
    ),
    Detector(
        id="password_layout_wide",
        category="password",
        # `password_layout` under a name of a password in another script (`パスワード`, then
        # the value on a line of its own).
        regex=_LAYOUT,
        keywords=_LAYOUT_WIDE_KEYWORDS,
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9w",),
        counterexamples=("\u30d1\u30b9\u30ef\u30fc\u30c9\n\n\u5fd8\u308c\u305f\n",),
    ),
    Detector(
        id="url_password",
        category="password",
        # RFC 3986 section 3.2.1: `scheme://user:password@host`, the password being the
        # userinfo after its first `:`. The userinfo ends at the last `@` before the host (as
        # `urllib.parse` reads it): a password with an unescaped `@` is hidden whole.
        regex=re.compile(
            r":(?<=[A-Za-z0-9+.-]:)//(?:[A-Za-z0-9._~%!$&'()*+,;=-]{0,64}):"
            r"(?P<value>[A-Za-z0-9._~%!$&'()*+,;=:@-]{1,128})@(?=[\w\[%~-])"
        ),
        keywords=("://",),
        validate=validators.url_password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("s3cr3tPa55", "pass", "p%40ss:w0rd", "p@ss!"),
        counterexamples=("https://user@example.com/x", "http://example.com:8080/",
                         "mailto:jane@example.com", "ssh://git@github.com:22/x",
                         "postgres://admin:****@db.internal/shop", "redis://user:@cache:6379",
                         "see https://example.com/a:b@c", "://user:pass@host"),
    ),
    Detector(
        id="email",
        category="email",
        # Local part: letters and digits of ASCII, Latin, Greek or Cyrillic with `._%+-`,
        # or CJK letters; domain: labels of either (IDN, RFC 5890) or A-labels (`xn--`).
        regex=re.compile(
            f"(?:[{_EU}_%+-](?<![{_EU}_.%+-][{_EU}_%+-])[{_EU}._%+-]{{0,63}}"
            f"|[{_CJK}](?<![{_CJK}][{_CJK}])[{_CJK}]{{0,63}})"
            f"@{_DOMAIN_LABEL}(?:{_DOT}{_DOMAIN_LABEL}){{0,7}}{_DOT}{_TLD}"
            f"(?![{_EU}_@-])(?!{_DOT}[{_EU}{_CJK}])"
            # (no SSH remote in scp's form, `git@github.com:org/repo.git`: a host, a path;
            # a port after the host is a URL's, `postgres://git@db.internal:5432/shop`)
            r"(?!:(?!\d+/)[\w.~-]+/)"
        ),
        keywords=("@",),
        validate=validators.email,
        mask=masks.email,
        priority=5,
        examples=("jane.doe@example.com", "j+tag@mail.example.co.uk", "ana_silva@empresa.com.br",
                  "jo\u00e3o.silva@exemplo.com.br", "andr\u00e9@exemple.fr",
                  "m\u00fcller@beispiel.de", "\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a",
                  "user@xn--bcher-kva.example", "user@example.xn--p1ai",
                  "\u0438\u0432\u0430\u043d@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444"),
        counterexamples=("@handle", "git@github.com:org/repo.git", "user@localhost", "a@b",
                         "name at example dot com",
                         "report@2x.png", "icon@3x.svg", "\u00e9t\u00e9@ici", "user@xn--",
                         "jo\u00e3o@exemplo"),
    ),
    Detector(
        id="email_spaced",
        category="email",
        # An address with a space beside its `@` or spaced dots: found before `email`
        # (which would find its tail, `doe@example.com`, alone); the validator refuses one
        # without a space, which `email` finds, and a pronoun before a spaced `@` (`Ping me @
        # slack.com`).
        regex=re.compile(f"(?<![{_EU}._%+-]){_SPACED_EMAIL}(?!:(?!\\d+/)[\\w.~-]+/)"),
        keywords=("@ ", " @", " . "),
        validate=validators.spaced_email,
        mask=masks.spaced_email,
        priority=4,
        examples=("jane.doe @ example.com", "jane.doe @example.com", "jane.doe@ example.com",
                  "jane . doe@example . com", "jane.doe@example . co . uk",
                  "ana_silva @ empresa.com.br"),
        counterexamples=("meet @ noon", "jane.doe@example.com", "me @ example.com",
                         "jane @ example", "jane@example . Then", "ask @ 5.30",
                         "x @ 2x.png", "total . 5@ 3"),
    ),
    Detector(
        id="credit_card",
        category="card",
        # Groups of four (any mix of `_CARD_SEP` between them, the first one ending the
        # number where it goes on), 13 to 19 digits in one block, 4-6-5 / 4-6-4, or four
        # groups of four with dots or slashes between them (`4111.1111.1111.1111`), or a
        # first group of four or eight and groups of two to eight after it, not all of four
        # (five of four are none), a space or a hyphen between them all (`45391488
        # 03436467`, `4539 14 88 0343 6467`).
        # A run of digits alone that what is around it marks as an id, a time, a barcode or
        # a SIM card's number is no candidate (`engine.context_marks.not_a_card`).
        regex=Refusing(re.compile(
            _START_CARD + r"\d{3}(?:(?P<cs>" + _CARD_SEP + r")\d{4}(?:" + _CARD_SEP
            + r"\d{4}){1,2}(?:" + _CARD_SEP + r"\d{1,3})?|\d{9,15}|[ -]?\d{6}[ -]?\d{4,5}"
            + r"|(?P<cd>" + _GROUP_PUNCT + "|" + _PADDED_PUNCT + r")\d{4}(?P=cd)\d{4}(?P=cd)\d{4}"
            + r"(?!" + _GROUP_PUNCT + r"\d)(?!(?P=cd)\d)"
            + r"|(?:\d{4}|(?=(?:[ -]\d{4})*[ -](?:\d{2,3}|\d{5,8})(?!\d)))"
            + r"(?P<cm>[ -])\d{2,8}(?:(?P=cm)\d{2,8}){0,4}(?!(?P=cm)\d))"
            + _END_GROUPED.format(sep="cs")
        ), not_a_card),
        keywords=(),
        validate=validators.card,
        mask=masks.card,
        priority=10,
        trim_groups=True,
        examples=("4111 1111 1111 1111", "4111-1111-1111-1111", "5500005555555559",
                  "3782 822463 10005", "4222222222222", "4111 1111-1111 1111",
                  "4111 - 1111 - 1111 - 1111", "4111- 1111 -1111 1111", "4111.1111.1111.1111",
                  "4111/1111/1111/1111", "4111_1111_1111_1111", "4111:1111:1111:1111",
                  "45391488 03436467", "4539 14 88 0343 6467", "4539-1488-03436467"),
        counterexamples=("4111 1111 1111 1112", "0000 0000 0000 0000", "1234 5678 9012 3456 7890",
                         "order 4412", "order 112-4111111-1111111",
                         "4111 - 1111 - 1111 - 1111 - 1111", "4111 -1111 -1111 -1111 -1111",
                         "1234 - 4111 1111 1111 1111", "12345678901234567890",
                         "4111.1111.1111.1111.1111", "4111.1111/1111.1111",
                         "1,234,567,890,123,456", "12:30:45", "4111_1111_1111_1111_1111",
                         "4111,1111,1111,1111"),
    ),
    Detector(
        id="card_in_other_groups",
        category="card",
        # A card typed in groups no card is printed in, one kind of separator throughout (a
        # space or a hyphen; the view reads the others as one): a digit each (`4 1 1 1 …`),
        # pairs (`41 11 11 …`) or threes (`411 111 111 111 1111`), the last group shorter or
        # longer; 13 to 19 digits in all, an issuer's prefix for that length, Luhn holding.
        # (Five groups at least: four separators, `engine.tuning.many_groups`.)
        regex=re.compile(
            _START_NUM + r"(?:(?P<s1>[ -])\d(?:(?P=s1)\d){11,17}(?!(?P=s1)\d)"
            r"|\d(?P<s2>[ -])\d\d(?:(?P=s2)\d\d){4,7}(?:(?P=s2)\d{1,3})?(?!(?P=s2)\d)"
            r"|\d\d(?P<s3>[ -])\d{3}(?:(?P=s3)\d{3}){2,4}(?P=s3)\d{1,4}(?!(?P=s3)\d))"
            r"(?![\w@])"
        ),
        keywords=(),
        validate=validators.issued_card,
        mask=masks.card,
        priority=10,
        examples=("4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "41 11 11 11 11 11 11 11",
                  "411 111 111 111 1111", "55 00 00 55 55 55 55 59",
                  "4-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1"),
        counterexamples=("1 2 3 4 5 6 7 8 9 1 2 3 4", "41 11 11 11 11 11 11 12",
                         "01 23 45 67 89", "12 34 56 78 90 12 34 56", "99 11 11 11 11 11 11 11",
                         "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"),
    ),
    Detector(
        id="card_in_quoted_strings",
        category="card",
        # A card's groups each in a string of its own, the same quotes around each: joined
        # by code (`"4539" + "1488" + …`, `'4539' '1488' …`), or a JSON list's or object's
        # strings (`["4539","1488",…]`, `{"a": "4539", "b": "1488", …}`; a list's separator
        # between them, so found only after a name of a card: `engine.lists`). The value runs
        # from the first group's opening quote to the last's closing one, what joins them
        # included; each group is masked in its string (`{"card": ["****","****",
        # "****","6467"]}`), so that a document keeps its shape.
        regex=re.compile(
            r"(?P<q>[\"'])\d{1,8}(?:(?P=q)[ \t]*(?:[,+][ \t]*)?"
            r"(?:(?P=q)[\w.-]{1,32}(?P=q)[ \t]*:[ \t]*)?(?P=q)\d{1,8}){1,9}(?P=q)"
        ),
        keywords=('","', "','", '", "', "', '", '" +', "' +", '"+"', "'+'", '" "', "' '"),
        validate=validators.card,
        mask=masks.card_in_strings,
        priority=10,
        examples=('"4539" + "1488" + "0343" + "6467"', "'4539' '1488' '0343' '6467'",
                  '"4539"+"1488"+"0343"+"6467"', '"45391488" "03436467"'),
        counterexamples=('"4539" + "1488" + "0343" + "6468"', '"4539" + \'1488\' + "0343"',
                         '["4539","1488","0343","6467"]', '"12" + "34"'),
    ),
    Detector(
        id="iban",
        category="iban",
        # In either case (`gb82 west ...`, as typed): the validator reads it upper-cased.
        # Country code, an optional space, check digits, then the BBAN: whole (after an
        # optional space or hyphen: `DE89 370400440532013000`) or in groups as printed, of
        # one to eight letters or digits, with one kind of separator (a space, a hyphen or
        # `GROUP_PUNCTUATION`, alone or padded by spaces): in fours
        # (`GB82-WEST-1234-5698-7654-32`, `GB 82 WEST 1234 ...`), as a bank code, a sort code
        # and an account (`GB82 WEST 123456 98765432`), with a short group last
        # (`BR15 0000 0000 0000 1093 2840 814 P2`), or in groups of any length, the first glued
        # to the check digits (`GB82WE ST1234 569876 5432`). The validator checks each
        # country's length;
        # a group of two letters and two digits starts the next IBAN (`… 32 DE89 3704 …`).
        regex=re.compile(
            r"[A-Za-z](?<![\w][A-Za-z])[A-Za-z] ?\d\d"
            r"(?:[ -]?[A-Za-z0-9]{11,30}"
            r"|[A-Za-z0-9]{0,6}(?P<gs>[ " + _GROUP_CHARS + r"-]|" + _PADDED_PUNCT + r")"
            r"[A-Za-z0-9]{1,8}(?:(?P=gs)(?![A-Za-z]{2}\d\d(?![A-Za-z0-9]))[A-Za-z0-9]{1,8}){1,15})"
            r"(?![\w])(?!-[A-Za-z0-9])"
        ),
        # `AA 00 00` is the UK NINO's too (one scan for both); `AA 00 AAAA 0` starts a
        # spaced country code with a bank code of letters (`GB 82 WEST 1234`).
        keywords=("AA00", "AA 00 00", "AA 00 AAAA 0"),
        keywords_in="shape",
        validate=validators.iban,
        mask=masks.iban,
        priority=11,
        trim_groups=True,
        examples=("GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432",
                  "DE89 3704 0044 0532 0130 00", "NL91ABNA0417164300",
                  "gb82 west 1234 5698 7654 32", "Gb82West12345698765432",
                  "GB82-WEST-1234-5698-7654-32", "gb82-west-1234-5698-7654-32",
                  "DE89 370400440532013000", "GB 82 WEST 1234 5698 7654 32",
                  "DE 89 3704 0044 0532 0130 00", "NL91-ABNA-0417-1643-00",
                  "GB82.WEST.1234.5698.7654.32", "GB82_WEST_1234_5698_7654_32",
                  "GB82 WEST 123456 98765432", "BR15 0000 0000 0000 1093 2840 814 P2",
                  "GB82 - WEST - 1234 - 5698 - 7654 - 32",
                  "GB82:WEST:1234:5698:7654:32", "GB82|WEST|1234|5698|7654|32",
                  "GB82WE ST1234 569876 5432", "GB82WEST 1234 56 98765432"),
        counterexamples=("GB82 WEST 1234 5698 7654 33", "GB82 WEST 1234", "XX12 3456 7890 1234",
                         "gb82 west 1234 5698 7654 33", "ab12 with some more text here",
                         "sha256 digest 1234 5678 9012", "GB82-WEST-1234-5698-7654-33",
                         "GB82 WEST-1234-5698-7654-32", "on 29 2024 1234 5678 9012",
                         "GB 82 WEST 1234 5698 7654 33"),
    ),
    Detector(
        id="us_ssn",
        category="national_id",
        # Not glued by `-` to more of a longer id (`SKU 123-45-6789-XL`).
        # Its groups apart by a hyphen, a space, a dot or a slash, or a hyphen padded by
        # spaces, one kind throughout; or by a list's separators (a comma, a semicolon or a bar,
        # padded or not), which `engine.lists` keeps only after a name of its class
        # (`SSN: 123, 45, 6789`; `| 120 | 45 | 5400 |` alone is a table's numbers). A colon,
        # an underscore or a double hyphen sets apart no SSN's groups.
        regex=re.compile(_START_SSN + r"\d\d(?P<s>[- " + _SSN_PUNCT + r",;|]| [-,;|] |[,;] )"
                         r"\d\d(?P=s)\d{4}"
                         + _END_GROUPED.format(sep="s") + r"(?!-[A-Za-z0-9])"),
        keywords=(),
        validate=validators.us_ssn,
        mask=masks.last4,
        priority=12,
        examples=("123-45-6789", "123 45 6789", "078-05-1121", "123.45.6789", "123 - 45 - 6789",
                  "123/45/6789"),
        counterexamples=("000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567",
                         "123-45-0000", "2024-11-29", "SKU 123-45-6789-XL in stock.",
                         "Case No. 123-45-6789-A", "101,12,4500", "| 120 | 45 | 5400 |",
                         "120 -- 45 -- 5400", "123_45_6789", "123:45:6789"),
    ),
    Detector(
        id="us_ssn_labelled",
        category="national_id",
        # Nine digits with no separator are an SSN where a label names one (`SSN: 123456789`,
        # `social security number 123456789`, `"ssn": "123456789"`); the SSA's rules for its
        # area, group and serial (`validators.us_ssn`) still hold.
        regex=re.compile(
            r"(?i:s(?<![A-Za-z0-9]s)sn|s(?<![A-Za-z0-9]s)ocial[ \t]+security"
            r"(?:[ \t]+(?:number|num|no\.?|n[oº°]\.?))?)(?![A-Za-z0-9])"
            r"(?:[ \t]+(?i:number|num|no\.?|#|is))?[\"'`]?[ \t]*[:#=]?[ \t]*[\"'`]?"
            r"(?P<value>\d{9})(?![\w@])(?![ .-]?\d)"
        ),
        keywords=("ssn", "social"),
        keywords_in="lower",
        validate=validators.us_ssn,
        mask=masks.last4,
        priority=12,
        group="value",
        examples=("123456789",),
        counterexamples=("SSN: 000123456", "SSN: 666123456", "SSN 912345678",
                         "order 123456789", "SSN: 1234567890", "lessn 123456789"),
    ),
    Detector(
        id="uk_nino",
        category="national_id",
        # In either case (`ab123456c`, as typed). A space after the letters is followed by
        # a pair and a space (HMRC's `QQ 12 34 56 C`) or by the six digits: so the keywords
        # (the shapes that can start a match) are more than a word and a number of prose
        # (`in 2024`, `ending 4111 1111`), and `AB 1234 56 C` is no match. The pairs may be
        # set apart by one kind of punctuation too (`AB-12-34-56-C`, `AB.12.34.56.C`).
        regex=re.compile(
            r"[A-Za-z](?<![\w][A-Za-z])[A-Za-z](?:(?:\d\d ?\d\d ?\d\d| \d\d \d\d ?\d\d| \d{6})"
            r" ?|(?P<n>[-./_:])\d\d(?P=n)\d\d(?P=n)\d\d(?P=n))[A-Da-d](?![\w])"
        ),
        keywords=("AA00", "AA 00 00", "AA 000000", "AA_00_00_00_A"),
        keywords_in="shape",
        validate=validators.uk_nino,
        mask=masks.last4,
        priority=12,
        examples=("AB123456C", "AB 12 34 56 C", "JG103759A", "ab123456c", "Ab 123456 c",
                  "AB12 34 56C", "AB 12 3456 C", "AB-12-34-56-C", "AB.12.34.56.C",
                  "AB/12/34/56/C"),
        counterexamples=("GB123456A", "DA123456A", "AB123456E", "QQ123456C", "ZZ 12 34 56 A",
                         "gb123456a", "ab123456e", "tab123456c", "AB 1234 56 C"),
    ),
    Detector(
        id="uk_nhs",
        category="national_id",
        # After `NHS` (`NHS number`, `NHS no.`): 10 digits (3-3-4 as printed) whose modulus 11
        # check digit holds (NHS Digital's rule, python-stdnum). Unlabelled, such a number
        # may be a phone's; labelled `NHS`, it is never read as one (`marked_as_other`).
        regex=re.compile(
            r"(?i:nhs)(?<![A-Za-z0-9]...)(?:[ \t]+(?i:number|num|no\.?|n[oº°]\.?))?"
            r"[ \t]*[:#]?[ \t]*"
            r"(?P<value>\d{3}([ -]?)\d{3}\2\d{4})(?![\w@])(?![ .-]?\d)"
        ),
        keywords=("nhs",),
        keywords_in="lower",
        validate=validators.uk_nhs,
        mask=masks.last4,
        priority=12,
        group="value",
        examples=("943 476 5919", "9434765919", "943-476-5919"),
        counterexamples=("NHS number 943 476 5918", "NHS 111", "the NHS 2025 plan"),
    ),
    Detector(
        id="br_cpf",
        category="national_id",
        # The Receita's `529.982.247-25` and the same groups of three with one kind of
        # separator (`.`, `-`, `_`, a space, none; commas as `529,982,247-25`), a hyphen
        # (padded by spaces or not), a slash, the groups' own separator or a space (or
        # nothing) before the check digits (`529.982.247.25`, `529_982_247_25`). Eleven
        # digits alone that the text before them marks as something else (`Ticket
        # 72360589121`) are not one; nor is a CPF glued by `-` to more of a longer id.
        regex=Refusing(re.compile(
            _START_CPF + r"\d\d(?:(?:(?P<c>[._-]?)\d{3}(?P=c)\d{3}(?:[-/]| - |(?P=c))?"
            r"|,\d{3},\d{3}-)\d\d"
            r"(?![\w@])(?![.-]?\d)(?!-[A-Za-z])(?!,\d\d?(?![\d/,;|\t]))"
            r"| \d{3} \d{3}[ -]\d\d(?![\w@])(?! ?\d))"), bare_and_marked),
        keywords=(),
        validate=validators.br_cpf,
        mask=masks.last4,
        priority=12,
        examples=("529.982.247-25", "52998224725", "111.444.777-35", "529 982 247 25",
                  "529-982-247-25", "529 982 247-25", "529.982.247/25", "529.982.247.25",
                  "529_982_247_25", "529.982.247 - 25"),
        counterexamples=("529.982.247-26", "111.111.111-11", "000.000.000-00",
                         "Ticket 72360589121 is closed.", "529.982.247-25-B",
                         "529,982,247-25"),
    ),
    Detector(
        id="phone_number",
        category="phone",
        # A digit run that the text before it marks as an id, a time, an ISBN or a reference
        # (`"product_id": `, `ISBN`, `order`, `invoice`, `tracking`, `ref`), that a unit
        # follows (`bytes`) or that is a version (`124.0.6367.207`) is no candidate.
        # Between digits: a space, a dot or a hyphen, alone or a hyphen with a space on one
        # side or both (`+1 (415) 867 - 5309`, `+1- 202 -555- 0143`), and a slash after an
        # area code of three digits (`415/867-5309`, not a date's `12/31/2025` nor a
        # fraction's `415/867`). An extension may follow, glued (`x12`) or not (`ext. 204`,
        # `;ext=204`, RFC 3966), left as it is.
        # A space may follow the `+` (`+ 1 202 555 0143`).
        regex=Refusing(re.compile(
            r"(?:\+(?<![\w+]\+) ?\d|\((?<![\w(]\()\d|" + _START_NUM
            + r"(?:\d\d/(?=\d{3}[ .-]?\d{4}(?!\d)))?)" + _PHONE_REST
        ), not_a_phone),
        keywords=(),
        # Valid in its numbering plan (libphonenumber): a `+` number in its own country's,
        # a national one in one of these regions' (`phone_detectors` makes other sets).
        validate=partial(validators.phone, regions=validators.DEFAULT_PHONE_REGIONS),
        mask=masks.phone,
        priority=14,
        examples=("+44 20 7946 0123", "(202) 555-0143", "+55 11 98765-4321", "020 7946 0123",
                  "415/867-5309", "+1 (415) 867 - 5309",
                  "202-555-0143", "+1 202 555 0143", "1-202-555-0143", "07400 123456",
                  "+49 30 1234567", "+33 1 23 45 67 89", "2025550143"),
        counterexamples=("12.50", "2024-11-29", "10:30", "123456", "v1.2.3", "+12345",
                         "529.982.247-26", "111.111.111-11", "(555) 123-4567",
                         "07700 900123", "1755302400", "ISBN 0-306-40615-2",
                         '"product_id": 3074185296', "order 2025550143", "invoice #2025550143",
                         "tracking number: 2025550143", "ref 2025550143", "+1 555 012 3456",
                         "(11) 98765-4321", '"created_at": "2025550143"',
                         "Chrome 124.0.6367.207", "size 7266106890 bytes",
                         "7266106890 bytes", "Ticket 72360589121 is closed.", "id 2025550143"),
    ),
    Detector(
        id="phone_carrier_code",
        category="phone",
        # `xx` after the national prefix in place of a carrier's code (Brazil's
        # `0xx11 98765-4321`, `(0xx11) 98765-4321`): the validator reads the prefix alone.
        regex=Refusing(re.compile(
            r"(?:\((?<![\w(]\()0|0(?<![\w+]0))[xX]{2}(?=\d\d)" + _PHONE_REST), not_a_phone),
        keywords=("0x", "0X"),
        validate=partial(validators.phone, regions=validators.DEFAULT_PHONE_REGIONS),
        mask=masks.phone,
        priority=14,
        examples=("0xx20 7946 0123", "(0XX20) 7946 0123"),
        counterexamples=("0xx11 12345", "0xC0A8010A", "0xx 2025550143"),
    ),
    Detector(
        id="ipv4_address",
        category="ip_address",
        # Four numbers after a word naming a version are one (`version 4.5.3.9`, `Build
        # 10.0.0.1`: `engine.context_marks.a_version`). A part of four digits is octal, as
        # `inet_aton` reads a leading zero (`0300.0250.0001.0012`).
        regex=Refusing(re.compile(
            r"\d(?<![\w.]\d)(?:\d{0,2}|(?<=0)[0-7]{3})(?:\.(?:\d{1,3}|0[0-7]{3})){3}"
            r"(?![\w]|\.\d)"
        ), a_version),
        keywords=(),
        validate=validators.ip_address,
        mask=masks.ip_address,
        priority=13,
        examples=("203.0.113.42", "10.0.0.1", "192.168.1.254", "0300.0250.0001.0012"),
        counterexamples=("256.1.1.1", "1.2.3", "v1.2.3.4", "1.2.3.4.5", "Version 1.0.0.0",
                         "0.0.0.0", "127.0.0.1", "255.255.255.255", "version 4.5.3.9",
                         "Build 10.0.0.1", "release 10.2.3.4", "Firmware: 192.168.1.1",
                         "kernel 5.15.0.91", "ver. 10.0.0.1", "v 10.0.0.1",
                         "0400.0250.0001.0012", "0177.0000.0000.0001"),
    ),
    Detector(
        id="ipv4_in_other_bases",
        category="ip_address",
        # Four dotted parts, one in hex at least, the others decimal, hex or octal
        # (`0xC0.0xA8.0x01.0x0A`, `0xC0.168.1.10`), or one 32-bit hex number where a name
        # of an address or a URL's `//` stands before it (`host 0xC0A8010A`,
        # `http://0xC0A8010A/`: `engine.lists.an_unnamed_number`).
        regex=Refusing(re.compile(
            r"(?<![\w.])(?:(?=(?:\w{1,4}\.){0,3}0[xX])"
            r"(?:(?:0[xX][0-9A-Fa-f]{1,2}|\d{1,4})\.){3}(?:0[xX][0-9A-Fa-f]{1,2}|\d{1,4})"
            r"|0[xX][0-9A-Fa-f]{8})(?![\w.])"
        ), an_unnamed_number),
        keywords=("0x", "0X"),
        validate=validators.ip_address_in_other_bases,
        mask=masks.ip_address,
        priority=13,
        examples=("0xC0.0xA8.0x01.0x0A", "0xc0.168.1.10", "0xC0.0250.01.012"),
        counterexamples=("0xC0A8010A", "0xDEADBEEF", "0x7F.0.0.1", "0x100.1.1.1",
                         "0xC0.0xA8.0x01", "0x12.0x34.0x56.0x78.0x9A", "host 0x7F000001"),
    ),
    Detector(
        id="ipv6_address",
        category="ip_address",
        regex=re.compile(
            # The last group may be an IPv4 address (RFC 4291 section 2.2: `::ffff:192.0.2.1`),
            # taken whole: never a match ending at one of its dots.
            r"[0-9A-Fa-f:](?<![\w:.][0-9A-Fa-f:])[0-9A-Fa-f]{0,3}(?::[0-9A-Fa-f]{0,4}){2,7}"
            r"(?:(?:\.\d{1,3}){3})?(?:%[A-Za-z0-9]{1,16})?(?![\w:])(?!\.\d)"
        ),
        keywords=(),
        validate=validators.ip_address,
        mask=masks.ip_address,
        priority=13,
        examples=("2001:db8::8a2e:370:7334", "fe80::1", "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
                  "::ffff:192.0.2.1", "64:ff9b::192.0.2.33",
                  "0:0:0:0:0:ffff:192.0.2.1"),
        counterexamples=("10:30:00", "std::vector", "12:00", "::ffff:192.0.2", "::ffff:192.0.2.1.5",
                         "::ffff:192.0.2.256", "::1", "0:0:0:0:0:0:0:1"),
    ),
)
