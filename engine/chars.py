"""What each character reads as in the canonical view, one for one (offsets unchanged):
whitespace and control characters as a space, dashes and minus signs as `-`, full-width,
mathematical and enclosed forms as ASCII, other scripts' digits as ASCII digits, and letters
that imitate an ASCII letter (Unicode's confusables table) as that letter."""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs.confusables import confusables_data

#: The long dashes, which stand between words in prose: the em dash and its two- and
#: three-em, small and vertical forms, the horizontal bar, the wavy dash, the
#: katakana-hiragana double hyphen, and the box-drawing horizontals a rule is drawn with.
#: `EDIT`'s `dash` reads them as `-` between digits and in a run of dashes only.
LONG_DASHES = ("\u2014\u2015\u2e3a\u2e3b\ufe58\ufe31\u3030\u30a0\u2500\u2501")


#: Every dash but the ASCII hyphen (Unicode category Pd, as the Python that runs it knows
#: it; no dash lies above the scripts of the first plane's start, U+11000).
_DASHES = "".join(char for char in map(chr, range(0x80, 0x11000))
                  if unicodedata.category(char) == "Pd")


def dash_and_space_table() -> dict[int, str]:
    """Unicode space separators and other whitespace as a space (line breaks as a newline),
    control characters as a space, every other dash (Unicode category Pd, `_DASHES`: the hyphens of
    any script, `֊`, `־`, `᐀`, `⸗`, the figure and en dashes, the double hyphen `⹀`) and the
    minus signs (the modifier letter's, the superscript's and subscript's: `˗`, `⁻`, `₋`) as
    `-`; not the long dashes (`LONG_DASHES`), nor the wave dash, a separator of its own
    (`BULLETS`)."""
    table: dict[int, str] = {}
    for code in (*range(0x20), 0x7F, *range(0x80, 0xA0)):
        table[code] = " "
    for code in (0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029):
        table[code] = "\n"
    del table[0x0A]
    for code in range(0xA0, 0x3001):
        if unicodedata.category(chr(code)) == "Zs":
            table[code] = " "
    for char in _DASHES:
        if char not in LONG_DASHES + "\u301c":
            table[ord(char)] = "-"
    for char in "\u2212\u02d7\u207b\u208b":
        table[ord(char)] = "-"
    table[0x2800] = " "  # (the braille pattern blank: a blank, though no space separator)
    return table


def _forms_table() -> dict[int, str]:
    """Full-width ASCII forms and mathematical alphanumerics as the ASCII characters they
    decompose to (NFKC), and the look-alikes of a colon as one (`_COLONS`). (Other scripts'
    decimal digits are added per text: `other_digits`.)"""
    table: dict[int, str] = {}
    for code in (*range(0xFF01, 0xFF5F), *range(0x1D400, 0x1D800)):
        folded = unicodedata.normalize("NFKC", chr(code))
        if len(folded) == 1 and folded.isascii() and folded.isprintable():
            table[code] = folded
    table.update(dict.fromkeys(map(ord, _COLONS), ":"))
    return table


#: Letters and signs that look like a colon (`Password꞉…`, `2001꞉db8꞉…`): the modifier letter
#: colon, the ratio, the modifier letter raised colon, Hebrew's sof pasuq, the vertical
#: presentation form and the small colon.
_COLONS = "\ua789\u2236\u02f8\u05c3\ufe13\ufe55"


def _compatibility_alphanumerics() -> dict[int, str]:
    """Digits and letters typed as forms of themselves, as the ASCII digit or letter: super-
    and subscripts (`⁴¹¹¹`), the Roman numerals of one letter (`Ⅽ`, `ⅰ`), circled,
    parenthesized and full-stop forms (`④`, `⑷`, `⒋`,
    `Ⓦ`, `⒜`), dingbat circled digits (`➃`) and the enclosed forms of U+1F100-1F1FF (`🄰`):
    the digit value Unicode gives them, or their compatibility decomposition (NFKC) without
    its brackets and stop. (A number of two digits in one character, `⑩`, is not one.)"""
    table: dict[int, str] = {}
    for code in (*range(0xB2, 0xBA), *range(0x2070, 0x20A0), *range(0x2160, 0x2189),
                 *range(0x2460, 0x2500),
                 *range(0x2776, 0x2794), *range(0x1F100, 0x1F200)):
        char = chr(code)
        digit = unicodedata.digit(char, None)
        folded = str(digit) if digit is not None else (
            unicodedata.normalize("NFKC", char).strip("()."))
        if len(folded) == 1 and folded.isascii() and folded.isalnum():
            table[code] = folded
    return table


def _more_lookalikes() -> dict[int, str]:
    """Greek and Cyrillic letters that look like one ASCII letter but that the confusables
    table does not list as one: `ε`, `є` as `e`; `κ`, `к` as `k`; `χ` as `x`; and the Roman
    numerals of one letter (U+2160-217F: `Ⅰ` as `I`, `ⅽ` as `c`), by their compatibility
    decomposition (NFKC)."""
    table = {ord(c): letter for c, letter in zip("εєκкχ", "eekkx", strict=True)}
    for code in range(0x2160, 0x2180):
        folded = unicodedata.normalize("NFKC", chr(code))
        if len(folded) == 1 and folded.isascii():
            table[code] = folded
    return table


#: The blocks of Latin letters drawn as other letters' forms: IPA extensions and spacing
#: modifier letters (U+0250-02FF), phonetic extensions (U+1D00-1DBF), Latin Extended-D
#: (U+A720-A7FF), letterlike symbols (U+2100-214F).
_LETTER_FORM_BLOCKS = (range(0x250, 0x300), range(0x1D00, 0x1DC0), range(0xA720, 0xA800),
                       range(0x2100, 0x2150))


#: A Unicode name of a small capital or a modifier form of one ASCII letter.
_FORM_NAME = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])|MODIFIER LETTER (?:SMALL|CAPITAL) "
                        r"([A-Z])|LATIN SUBSCRIPT SMALL LETTER ([A-Z])")


def _letter_forms() -> dict[int, str]:
    """Letters drawn as a form of one ASCII letter that the confusables table leaves out,
    as that letter (letters to letters only: never a digit, never an ASCII character):
    small capitals (`ᴀ`, `ʙ`, `ꜰ`: lower case, as Unicode gives them), modifier letters
    (`ᵃ`, `ᴮ`), letterlike symbols (`ℯ`) by their compatibility decomposition (NFKC) or by
    their Unicode name (`LATIN LETTER SMALL CAPITAL A`); and the small letters of Cherokee
    (U+AB70-ABBF), as the look-alike of their capitals (`ꭺ` as `a`, as `Ꭺ` reads `A`). The
    table follows the Unicode database of the Python that runs it."""
    table: dict[int, str] = {}
    for block in _LETTER_FORM_BLOCKS:
        for code in block:
            char = chr(code)
            if unicodedata.category(char)[0] != "L":
                continue
            folded = unicodedata.normalize("NFKC", char)
            named = _FORM_NAME.fullmatch(unicodedata.name(char, ""))
            if len(folded) == 1 and folded.isascii() and folded.isalpha():
                table[code] = folded
            elif named is not None:
                letter = next(g for g in named.groups() if g)
                table[code] = letter.lower() if char.islower() else letter
    capitals = _lookalike_letters()
    for code in range(0xAB70, 0xABC0):
        capital = capitals.get(ord(chr(code).upper()))
        if capital is not None:
            table[code] = capital.lower()
    return table


def _small_forms() -> dict[int, str]:
    """The small form variants (U+FE50-FE6B: `﹫`, `﹒`, `﹣`) as the ASCII characters they
    decompose to (NFKC)."""
    table: dict[int, str] = {}
    for code in range(0xFE50, 0xFE6C):
        folded = unicodedata.normalize("NFKC", chr(code))
        if len(folded) == 1 and folded.isascii() and folded.isprintable():
            table[code] = folded
    return table


#: A decimal digit of a script other than ASCII (Unicode category Nd, as `\d` reads it).
OTHER_DIGIT = re.compile(r"[^\x00-\x7f](?<=\d)")


def other_digits(text: str, table: dict[int, str]) -> dict[int, str]:
    """`table` with each decimal digit of another script in `text` read as its ASCII digit
    (Thai `๘` as `8`, Arabic-Indic `٤` as `4`)."""
    found = {ord(c): str(unicodedata.decimal(c)) for c in set(OTHER_DIGIT.findall(text))}
    return {**table, **found}


def _lookalike_letters() -> dict[int, str]:
    """Each non-ASCII letter that the confusables table lists as a look-alike of exactly one
    ASCII letter, as that letter (Latin letters with diacritics are not look-alikes there)."""
    found: dict[str, set[str]] = {}
    for ascii_char, alikes in confusables_data.items():
        if not (ascii_char.isascii() and ascii_char.isalpha() and len(ascii_char) == 1):
            continue
        for alike in alikes:
            char = alike["c"]
            if len(char) == 1 and not char.isascii() and unicodedata.category(char)[0] == "L":
                found.setdefault(char, set()).add(ascii_char)
    table = {ord(char): letters.pop() for char, letters in found.items() if len(letters) == 1}
    for code, letter in table.items():
        if letter == "l" and chr(code).isupper():  # the table's one glyph for I, l and |:
            table[code] = "I"  # a capital reads as a capital I (Greek Ι, Cyrillic І)
    return table


#: One character for one: what `canonical` reads each character as (`dash_and_space_table`,
#: `_forms_table`, `_small_forms`, `_compatibility_alphanumerics`, `_lookalike_letters`,
#: `_more_lookalikes`, `_letter_forms`; and `other_digits`).
#: Offsets are unchanged by it.
ONE_FOR_ONE: dict[int, str] = {**_letter_forms(), **_lookalike_letters(), **_more_lookalikes(),
                               **_small_forms(),
                               **_compatibility_alphanumerics(), **_forms_table(),
                               **dash_and_space_table()}


#: `ONE_FOR_ONE` but for the look-alike letters (`canonical(text, letters=False)`).
FORMS_ONLY: dict[int, str] = {**_small_forms(), **_compatibility_alphanumerics(),
                               **_forms_table(), **dash_and_space_table()}


#: `ONE_FOR_ONE` for ASCII text (whitespace and control characters only), as a bytes table.
ASCII_ONE = bytes(ord(ONE_FOR_ONE.get(b, chr(b))) for b in range(128)) + bytes(range(128, 256))


#: Typography's separators, read as a space between two groups of a value, a digit on one
#: side at least, alone or with a space on both sides between two digits
#: (`4111·1111·1111·1111`, `GB82•WEST•1234…`, `4111 • 1111 …`): the middle dot, the bullet,
#: the hyphenation point, the bullet and dot operators, the one and two dot leaders and the
#: ellipsis, the hyphen bullet, the swung dash, the right single quote; the CJK ones: the
#: katakana middle dot (full and half width), the prolonged sound mark, the wave dash and the
#: ideographic comma (`4539・1488・0343・6467`, `4539〜1488…`). (Between two letters they are
#: left as they are: `l·l`.)
BULLETS = ("\u00b7\u2022\u2027\u2219\u22c5\u2024\u2025\u2026\u2043\u2053\u2019"
            "\u30fb\uff65\u30fc\u301c\u3001\uff64")


#: A letter of a script written without spaces (CJK ideographs, kana, hangul, Thai)...
NO_SPACES = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff66-\uff9f"


#: A letter of such a script.
_NO_SPACES_CHAR = re.compile(f"[{NO_SPACES}]")


#: Does a text hold a letter of such a script (a quick test before `_SCRIPT_EDGE`)?
NO_SPACES_HERE = re.compile(rf"[^\x00-\x7f](?<=[{NO_SPACES}])")


def in_word(char: str) -> bool:
    """Is `char` a letter or digit of a script written with spaces between words (not CJK's
    or Thai's, where a word ends without one)?"""
    return char.isalnum() and _NO_SPACES_CHAR.match(char) is None
