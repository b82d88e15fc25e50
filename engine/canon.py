"""The canonical view of a text: the text as a reader sees it, its typing undone, with a map
of offsets back to the text. The detectors read this view, so a value is found however it was
typed, and its mask covers the whole of what it was typed as.

What is undone (each is property-tested in tests/engine/test_canon.py):

* HTML: tags of formatting and layout elements (`<b>`, `</span>`, `<br/>`), each read as a
  space, as phrase lists have always read them (`guaran<b>teed</b>` is two words), and
  character references (`&#52;`, `&#x34;`, `&amp;`, `&nbsp;`; HTML 5's named references).
* Markdown: runs of emphasis and code marks (`*`, `_`, `~`, `` ` ``) at a word's edge
  (`_4111 1111 1111 1111_`, `4111 **1111** 1111 1111`); marks inside a word are kept, so
  identifiers read as written (`DB_PASSWORD`, `sk_live_...`).
* Separators: every run of whitespace, of control characters (NUL, tab, line breaks) and of
  Unicode space separators (no-break, thin, ideographic, ogham...) reads as one space, and so
  do the prefixes that quote, list or head the next line (`> `, `# `, `- `, `* `, `| `): a value
  typed across lines reads as on one. Where that joins two numbers (two cards, one a line),
  the text is also read with its lines and runs of spaces apart (`Canonical.joined`).
* Forms: full-width ASCII forms (`４１１１`, `ＧＢ８２`, `＠`) and mathematical alphanumerics
  (`𝐀`, `𝟒`) read as ASCII (their Unicode compatibility decomposition); other scripts'
  decimal digits as ASCII digits; non-ASCII hyphens and dashes as `-` (the em dash only
  between digits and in a run of dashes: `—————BEGIN RSA PRIVATE KEY—————`).
* URL encodings of `=`, `:`, `@` and `&` (`%3D`, `%3A`, `%40`, `%26`, twice too: `%253D`) and
  quoted-printable's `=3D`, before a letter, a digit or another encoding.
* Look-alike letters: a letter of another script that Unicode's confusables table (UTS #39,
  through the `confusable_homoglyphs` package) lists as a look-alike of one ASCII letter reads
  as that letter (Cyrillic `а`, Greek `ο`); digits and ASCII are never changed, and accented
  Latin letters stay as they are (they are letters of their own: `joão`).
* References read by their neighbours: a separator or a bracket that the view reads by what
  stands around it (`_BY_CONTEXT`) written as a character reference, a JSON escape or a
  percent-encoding (`4539&bull;1488…`, `\\u30fb`, `%C2%B7`, `&#40;at&#41;`) is decoded
  first, and the text then read as if it were typed so; each maps back onto its whole
  reference.
* Scripts written without spaces: where a letter of Chinese, Japanese, Korean or Thai meets
  an ASCII letter or digit, the view holds a space (`カードは4111…です` reads the card as a
  word of its own).

Invisible characters are read by `engine.find` before the view (a text holding one is read
twice), and those that references and escapes write into the view after it. The view is
for finding, never for release: what is released is the text itself, with each mask over
the whole original span of its value.
"""

from __future__ import annotations

import html
import html.entities
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator

from confusable_homoglyphs.confusables import confusables_data

#: The long dashes, which stand between words in prose: the em dash and its two- and
#: three-em, small and vertical forms, the horizontal bar, the wavy dash, the
#: katakana-hiragana double hyphen, and the box-drawing horizontals a rule is drawn with.
#: `_EDIT`'s `dash` reads them as `-` between digits and in a run of dashes only.
_LONG_DASHES = ("\u2014\u2015\u2e3a\u2e3b\ufe58\ufe31\u3030\u30a0\u2500\u2501")
#: Every dash but the ASCII hyphen (Unicode category Pd, as the Python that runs it knows
#: it; no dash lies above the scripts of the first plane's start, U+11000).
_DASHES = "".join(char for char in map(chr, range(0x80, 0x11000))
                  if unicodedata.category(char) == "Pd")


def _dash_and_space_table() -> dict[int, str]:
    """Unicode space separators and other whitespace as a space (line breaks as a newline),
    control characters as a space, every other dash (Unicode category Pd, `_DASHES`: the hyphens of
    any script, `֊`, `־`, `᐀`, `⸗`, the figure and en dashes, the double hyphen `⹀`) and the
    minus signs (the modifier letter's, the superscript's and subscript's: `˗`, `⁻`, `₋`) as
    `-`; not the long dashes (`_LONG_DASHES`), nor the wave dash, a separator of its own
    (`_BULLETS`)."""
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
        if char not in _LONG_DASHES + "\u301c":
            table[ord(char)] = "-"
    for char in "\u2212\u02d7\u207b\u208b":
        table[ord(char)] = "-"
    table[0x2800] = " "  # (the braille pattern blank: a blank, though no space separator)
    return table


def _forms_table() -> dict[int, str]:
    """Full-width ASCII forms and mathematical alphanumerics as the ASCII characters they
    decompose to (NFKC), and the look-alikes of a colon as one (`_COLONS`). (Other scripts'
    decimal digits are added per text: `_digits`.)"""
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
_OTHER_DIGIT = re.compile(r"[^\x00-\x7f](?<=\d)")


def _digits(text: str, table: dict[int, str]) -> dict[int, str]:
    """`table` with each decimal digit of another script in `text` read as its ASCII digit
    (Thai `๘` as `8`, Arabic-Indic `٤` as `4`)."""
    found = {ord(c): str(unicodedata.decimal(c)) for c in set(_OTHER_DIGIT.findall(text))}
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


#: One character for one: what `canonical` reads each character as (`_dash_and_space_table`,
#: `_forms_table`, `_small_forms`, `_compatibility_alphanumerics`, `_lookalike_letters`,
#: `_more_lookalikes`, `_letter_forms`; and `_digits`).
#: Offsets are unchanged by it.
ONE_FOR_ONE: dict[int, str] = {**_letter_forms(), **_lookalike_letters(), **_more_lookalikes(),
                               **_small_forms(),
                               **_compatibility_alphanumerics(), **_forms_table(),
                               **_dash_and_space_table()}
#: `ONE_FOR_ONE` but for the look-alike letters (`canonical(text, letters=False)`).
_FORMS_ONLY: dict[int, str] = {**_small_forms(), **_compatibility_alphanumerics(),
                               **_forms_table(), **_dash_and_space_table()}
#: `ONE_FOR_ONE` for ASCII text (whitespace and control characters only), as a bytes table.
_ASCII_ONE = bytes(ord(ONE_FOR_ONE.get(b, chr(b))) for b in range(128)) + bytes(range(128, 256))

#: HTML elements (WHATWG's list, but those that hold no text: `script`, `style`, `head`...): a
#: tag of one reads as a space (an inline one between two characters that are no space, as
#: nothing: `123-45-<b>6789</b>`), its attributes as text (`_OPENER`). In the detectors' view
#: any other well-formed tag without attributes (`<x>`, `<my-tag>`) reads as an inline one,
#: and the text is also read with it as written (`Canonical.attributes`): angle-bracketed
#: words name what follows in XML-like data (`<password>S3cret</password>`), and phrase lists
#: read them as written (`<voucher>`, `<order id>`).
_TAG_NAMES = (
    "a abbr acronym address article aside b bdi bdo big blink blockquote br caption center "
    "cite code col colgroup data dd del details dfn dialog div dl dt em fieldset figcaption "
    "figure font footer form h1 h2 h3 h4 h5 h6 header hgroup hr i img ins kbd label legend li "
    "main mark menu meter nav nobr ol optgroup option output p pre progress q rb rp rt ruby s "
    "samp search section slot small span strike strong sub summary sup table tbody td tfoot th "
    "thead time tr tt u ul var wbr"
).split()
#: Those whose tags show as nothing between two characters (not a line, a cell or an image).
_INLINE_NAMES = (
    "a abbr acronym b bdi bdo big blink cite code data del dfn em font i ins kbd label mark "
    "meter nobr output progress q rb rp rt ruby s samp slot small span strike strong sub sup "
    "time tt u var wbr"
).split()
#: The others: a tag of one between two characters reads as a space.
_BLOCK_NAMES = sorted(set(_TAG_NAMES) - set(_INLINE_NAMES))
#: A tag's name: ASCII letters and digits, with hyphens inside (a custom element's).
_NAME = r"[A-Za-z][A-Za-z0-9]{0,31}(?:-[A-Za-z0-9]{1,31}){0,4}"


def _alternation(names: list[str]) -> str:
    """One of `names`, any case (ASCII), as a trie (`b(?:ig|r|...)?`): a character class
    per letter, so that `re` tries one branch per character at a `<` that starts no name (an
    alternation of the names under `(?i:...)` tried every name at every `<`: 3.5 microseconds
    each, 110 ms for a window of 32,768 `<`)."""
    firsts = "".join(sorted({name[0].lower() + name[0].upper() for name in names}))
    return f"(?=[{firsts}]){_trie(names)}"


def _trie(names: list[str]) -> str:
    """`names` (ASCII letters and digits) as a trie of character classes."""
    groups: dict[str, list[str]] = {}
    for name in names:
        if name:
            groups.setdefault(name[0].lower(), []).append(name[1:])
    branches = []
    for char, rest in sorted(groups.items()):
        head = f"[{char}{char.upper()}]" if char.isalpha() else char
        branches.append(head + _trie(rest) if any(rest) else head)
    body = "|".join(branches)
    if "" in names:
        return f"(?:{body})?"
    return body if len(branches) == 1 else f"(?:{body})"


#: A `<` that a `>` closes within 270 characters, no `<` between (longer than any tag read): a
#: `<` before another (`<b<b<b`) fails here at once, not after two walks of the tag names.
_CLOSED = r"<(?=[^<>]{1,270}>)"


def _tag(names: list[str]) -> str:
    """A tag of one of `names` (any case) with no attributes: `<b>`, `</b>`, `<br/>`, and
    spaces or line breaks before its end (`<b\n>`)."""
    return rf"{_CLOSED}/?{_alternation(names)}[ \t\n]*/?>"


#: A well-formed tag of any name without attributes (the detectors' view); its name is at
#: most 160 characters (`_NAME`) and its `<` closed (`_CLOSED`): linear time.
_ANY_TAG = rf"{_CLOSED}/?{_NAME}[ \t\n]*/?>"
#: A tag of a name that is no HTML element's (`Canonical.attributes`).
_UNKNOWN_TAG = re.compile(rf"{_CLOSED}/?(?!{_alternation(_TAG_NAMES)}[ \t\n/>])[A-Za-z]")


def _tag_with_attributes(names: list[str]) -> str:
    """A tag of one of `names` (any case): at most 256 characters of attributes (no `<` or
    `>` among them), an optional `/`, and `>`."""
    return rf"{_CLOSED}/?{_alternation(names)}(?![A-Za-z0-9])(?:[\s/][^<>]{{0,256}})?>"


#: The start of a tag of `_TAG_NAMES` with attributes, up to them: it reads as a space, its
#: attributes as they are, so that a value in one (`<img alt="4539 1488 0343 6467">`,
#: `<a href="...?key=sk-...">`) is read as any other text.
_OPENER = rf"{_CLOSED}/?{_alternation(_TAG_NAMES)}(?=[\s/][^<>]{{0,256}}>)"


_SPACE_CHARS = r"\s\x00-\x08\x0e-\x1b\x7f"
#: An address's `@` or `.` written as a word in brackets, between two of its letters or
#: digits, a space on either side or none (`jane(at)example(dot)com`, `jane [at] example
#: [dot] com`, any case): read as the sign. (A word alone, `jane at example dot com`, is
#: prose's as often: it is left as it is.)
_OBFUSCATED = r"(?:\((?i:at|dot)\)|\[(?i:at|dot)\]|\{(?i:at|dot)\})"
_OBFUSCATION = re.compile(_OBFUSCATED)
#: Typography's separators, read as a space between two groups of a value, a digit on one
#: side at least, alone or with a space on both sides between two digits
#: (`4111·1111·1111·1111`, `GB82•WEST•1234…`, `4111 • 1111 …`): the middle dot, the bullet,
#: the hyphenation point, the bullet and dot operators, the one and two dot leaders and the
#: ellipsis, the hyphen bullet, the swung dash, the right single quote; the CJK ones: the
#: katakana middle dot (full and half width), the prolonged sound mark, the wave dash and the
#: ideographic comma (`4539・1488・0343・6467`, `4539〜1488…`). (Between two letters they are
#: left as they are: `l·l`.)
_BULLETS = ("\u00b7\u2022\u2027\u2219\u22c5\u2024\u2025\u2026\u2043\u2053\u2019"
            "\u30fb\uff65\u30fc\u301c\u3001\uff64")
#: An HTML comment (`<!-- -->`), read as a tag is.
_COMMENT = r"<!--(?:(?!-->)[^<>]){0,256}-->"
_INLINE_SET = frozenset(_INLINE_NAMES)
#: Inline tags (any but a block element's) and comments and nothing else (`_gap`).
_INLINE_TAGS = re.compile(
    rf"(?:{_CLOSED}/?(?!{_alternation(_BLOCK_NAMES)}[ \t\n/>]){_NAME}[ \t\n]*/?>|{_COMMENT})+")
def _space_refs() -> str:
    """A character reference to whitespace, read as a gap (`_EDIT`): numeric, decimal or
    hex, with or without leading zeros and its `;` (`&#160;`, `&#10;`, `&#x0A;`, `&#32`), or
    named (`&nbsp;`, `&NewLine;`, `&Tab;`, `&emsp;`, `&ThinSpace;`; `&nbsp` without its `;`,
    as browsers read it: HTML 5's "legacy" references). Whitespace is every character the
    view reads as a space or a line break (`_dash_and_space_table`) but control characters."""
    table = _dash_and_space_table()
    codes = sorted({0x09, 0x0A, 0x20} | {c for c, v in table.items()
                                          if v in " \n" and chr(c).isspace()})
    decimal = "|".join(str(c) for c in codes)
    hexa = "|".join("".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{c:x}")
                    for c in codes)
    names = sorted(name[:-1] for name, value in html.entities.html5.items()
                   if name.endswith(";") and len(value) == 1 and ord(value) in codes)
    return (rf"&(?:#0*(?:{decimal})(?![0-9]);?|#[xX]0*(?:{hexa})(?![0-9A-Fa-f]);?"
            rf"|(?:{'|'.join(names)});|nbsp(?![A-Za-z=]))")


#: A character reference to whitespace (`_space_refs`).
_SPACE_REF = _space_refs()
#: Does a gap hold a reference to a line break (`&#10;`, `&NewLine;`; `_gap`)?
_LINE_BREAK_REF = re.compile(r"&(?:#0*1[0-3](?![0-9])|#[xX]0*[a-dA-D](?![0-9A-Fa-f])"
                             r"|#0*(?:133|823[23])(?![0-9])|#[xX]0*(?:85|202[89])(?![0-9A-Fa-f])"
                             r"|NewLine;)")
#: A character reference: named, with its `;`, or one of the legacy names that browsers read
#: without it (only those that stand for a space, the soft hyphen or the markup characters:
#: `&para`, `&not` are left as written, as they start URL parameters' names), or numeric.
_REF = (r"&(?:#[0-9]{1,7};?|#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};"
        r"|(?:nbsp|amp|AMP|lt|LT|gt|GT|quot|QUOT|shy)(?![A-Za-z=]))")
#: A line's prefix after a line break (or JSON's `\n`): a quote, a heading, a list item's
#: marker (`-`, `1.`), a table row's first bar, or a comment's mark (`//`, `--`, `;`, `%`,
#: `'`, `::`, `rem`, `#`), with the spaces after it (`_EDIT`).
_PREFIX = (r"[ \t]{0,3}(?:>[ \t>]*|#{1,6}[ \t]+|(?:[-*+]|[0-9]{1,9}[.)])[ \t]+|\|[ \t]*"
           r"|(?://++|--(?=[ \t])|;++|%++|'|::|(?i:rem)(?=[ \t])|#(?=[0-9A-Za-z]))[ \t]*+)")
#: A line continued by a backslash before its break (a shell's `4111 1111 \`), or by
#: quoted-printable's soft line break between digits (RFC 2045, `=` then CRLF or LF:
#: `4539 1488 =` then `0343`,
#: `45391488=` then `03436467`, the `=` and the break standing for nothing), read as a gap's
#: start (`_EDIT`).
_CONTINUED = r"\\(?=\n)|=(?<=[0-9 ]=)(?=\n\n?[0-9])"
#: What a gap holds but whitespace, tags and comments: JSON's escapes of a line break and
#: a tab (`\n`, `\r`, `\t`, as two characters: a value in a tool's output), a URL's encoded
#: space (`%20`) and a form's (`+`, between two digits: `_gap` reads it so in a query only),
#: a space escaped as code writes it (`\x20`, `\u{20}`, octal `\040`) and quoted-printable's
#: `=20` between two digits (`4539=201488`; not after a name: `width=200`).
_ESCAPED_SPACE = (r"\\[nrt]|%20|\+(?<=[0-9]\+)(?=[0-9])|\\x20|\\u\{20\}|\\040"
                  r"|=20(?<=[0-9]=20)(?=[0-9])")
#: A hyphen encoded between two letters or digits: URL-encoded (`%2D`), escaped as code
#: writes it (`\x2d`, `\u{2d}`, octal `\055`), quoted-printable (`=2D`, between two digits
#: only): read as the hyphen (`536%2D22%2D8841`).
_ENCODED_HYPHEN = (r"(?:%2[dD](?<=[0-9A-Za-z]...)|\\x2[dD](?<=[0-9A-Za-z]....)"
                   r"|\\u\{2[dD]\}(?<=[0-9A-Za-z]......)|\\055(?<=[0-9A-Za-z]....))"
                   r"(?=[0-9A-Za-z])|=2[dD](?<=[0-9]...)(?=[0-9])")


def _edit_pattern(tag: str, opener: str) -> re.Pattern[str]:
    # A gap starts with a line break, two spaces, a space before a tag or a reference, a tag,
    # a comment, a space's reference or an escaped space: every alternative starts with its
    # own character, so that `re` skips the rest of the text in C (the text is read
    # `ONE_FOR_ONE` first: its only whitespace is a space or a line break).
    return re.compile(
        rf"(?P<gap>(?:\n|[ ](?=[ \n<&]|{_CONTINUED})|{_CONTINUED}|{tag}|{_COMMENT}|{_SPACE_REF}"
        rf"|{_ESCAPED_SPACE})"
        rf"(?:(?:(?<=\n)|(?<=\\n)){_PREFIX}|[ \n]|{_CONTINUED}|{tag}|{_COMMENT}|{_SPACE_REF}"
        rf"|{_ESCAPED_SPACE})*+)"
        rf"|(?P<opener>{opener})"
        r"|(?P<marks>[*_~`]++)"
        r"|(?P<unicode>\\u[dD][89abAB][0-9A-Fa-f]{2}\\u[dD][c-fC-F][0-9A-Fa-f]{2}"
        r"|\\u[0-9A-Fa-f]{4})"
        rf"|(?P<hyphen>{_ENCODED_HYPHEN})"
        r"|(?P<encoded>=3[dD](?=[0-9A-Za-z])|%(?:25)?(?:40|3[aAdD]|26)(?=[0-9A-Za-z%])"
        r"|\\x40(?=[0-9A-Za-z]))"
        r"|(?P<percent>%[cCdD][0-9a-fA-F]%[89abAB][0-9a-fA-F]"
        r"|%[eE][0-9a-fA-F](?:%[89abAB][0-9a-fA-F]){2}|%[fF][0-4](?:%[89abAB][0-9a-fA-F]){3})"
        r"|(?P<escape>\\(?=[!-/:-@\[-`{-~]))"
        rf"|(?P<ref>{_REF})"
        rf"|(?P<dash>[{_LONG_DASHES}](?:(?<=[0-9][{_LONG_DASHES}])(?=-?[{_LONG_DASHES}]?[0-9])"
        rf"|(?<=[0-9][-{_LONG_DASHES}][{_LONG_DASHES}])(?=[0-9])"
        rf"|(?<=[0-9][{_LONG_DASHES}])(?=[A-Z])"
        rf"|(?<=[0-9][{_LONG_DASHES}][A-Z]{{4}}[{_LONG_DASHES}])(?=[0-9A-Z])"
        rf"|(?<=[0-9] [{_LONG_DASHES}])(?= [0-9A-Z])"
        rf"|(?<=[0-9] [{_LONG_DASHES}] [A-Z]{{4}} [{_LONG_DASHES}])(?= [0-9A-Z])"
        rf"|(?=[-{_LONG_DASHES}]{{2}})|(?<=[-{_LONG_DASHES}]{{2}})(?=[-{_LONG_DASHES}])"
        rf"|(?<=[-{_LONG_DASHES}]{{3}})))"
        rf"|(?P<bullet>[{_BULLETS}](?:(?<=[0-9][{_BULLETS}])(?=[A-Za-z0-9])"
        rf"|(?<=[A-Za-z][{_BULLETS}])(?=[0-9]))"
        rf"|[ ][{_BULLETS}][ ](?<=[0-9][ ][{_BULLETS}][ ])(?=[0-9]))"
        r"|(?P<obfuscated>(?:\((?:(?<=[A-Za-z0-9]\()|(?<=[A-Za-z0-9] \())(?i:at|dot)\)"
        r"|\[(?:(?<=[A-Za-z0-9]\[)|(?<=[A-Za-z0-9] \[))(?i:at|dot)\]"
        r"|\{(?:(?<=[A-Za-z0-9]\{)|(?<=[A-Za-z0-9] \{))(?i:at|dot)\})[ ]?(?=[A-Za-z0-9]))"
    )


#: What `canonical` undoes, in one pass: a gap (whitespace, tags, space references, and the
#: prefix of each line it starts), the start of a tag with attributes, a run of emphasis or
#: code marks, a JSON `\\uXXXX` escape, a Markdown escape, a character reference. Each
#: alternative starts with its own characters and repeats possessively: linear time.
_EDIT = _edit_pattern(_ANY_TAG, _OPENER)
#: The same with tags of HTML elements' names only (`canonical(any_tag=False)`).
_EDIT_KNOWN = _edit_pattern(_tag(_TAG_NAMES), _OPENER)
#: The same as a reader sees the text (`canonical(shown=True)`): a tag is a space whole, its
#: attributes included (the `(?!)` opener never matches).
_EDIT_SHOWN = _edit_pattern(_tag_with_attributes(_TAG_NAMES), "(?!)")


#: The characters the view reads by what stands around them, not one for one: typography's
#: separators between a value's groups (`_BULLETS`), the long dashes between digits
#: (`_LONG_DASHES`, `_EDIT`'s `dash`), the brackets of an address's `(at)` and `[dot]`.
_BY_CONTEXT = _BULLETS + _LONG_DASHES + "()[]{}"


def _by_context_written() -> str:
    """A character of `_BY_CONTEXT` written as a character reference (decimal or hex, with
    or without its `;`; named, with it: `&#183;`, `&#x2022;`, `&bull;`, `&lpar;`), a JSON
    escape (`\\u00b7`, any case) or a URL's percent-encoding of its UTF-8 bytes (`%C2%B7`)."""
    codes = sorted(ord(c) for c in _BY_CONTEXT)
    decimal = "|".join(str(c) for c in codes)
    hexa = "|".join(f"{c:x}" for c in codes)
    escapes = "|".join(f"{c:04x}" for c in codes)
    percent = "|".join("".join(f"%{b:02x}" for b in chr(c).encode()) for c in codes
                       if c > 0x7F)
    names = sorted(name[:-1] for name, value in html.entities.html5.items()
                   if name.endswith(";") and value in _BY_CONTEXT and len(value) == 1)
    return (rf"&(?:#0*(?:{decimal})(?![0-9]);?|#[xX]0*(?i:{hexa})(?![0-9A-Fa-f]);?"
            rf"|(?:{'|'.join(names)});)|\\u(?i:{escapes})|(?i:{percent})")


#: A character of `_BY_CONTEXT` written otherwise (`_by_context_written`).
_BY_CONTEXT_WRITTEN = re.compile(_by_context_written())


def _decoded_first(text: str) -> tuple[str, list[tuple[int, int, int]]]:
    """`text` with each character of `_BY_CONTEXT` written as a reference, an escape or an
    encoding (`_BY_CONTEXT_WRITTEN`) as that character, and where each such character
    stands, `(in the decoded text, start, end in text)`: read then as typed, it is read by
    what stands around it as a typed one is (`4539&bull;1488` as `4539•1488`)."""
    parts: list[str] = []
    first: list[tuple[int, int, int]] = []
    pos = size = 0
    for match in _BY_CONTEXT_WRITTEN.finditer(text):
        start, end = match.span()
        parts.append(text[pos:start])
        size += start - pos
        parts.append(_decoded(match.group()))
        first.append((size, start, end))
        size += 1
        pos = end
    parts.append(text[pos:])
    return "".join(parts), first


def _decoded(written: str) -> str:
    """The character a reference, a `\\uXXXX` escape or a percent-encoding stands for."""
    if written[0] == "&":
        return html.unescape(written if written.endswith(";") else written + ";")
    if written[0] == "%":
        return bytes.fromhex(written.replace("%", "")).decode("utf-8")
    return chr(int(written[2:], 16))


def _composed(first: list[tuple[int, int, int]], view: Canonical) -> Canonical:
    """The view of a text whose `first` characters were decoded before `view` was read
    (`_decoded_first`), its offsets mapped onto the text: an edit of `view` maps to the
    text its decoded stretch was read from; a decoded character that `view` reads one for
    one is an edit of its own (its reference's whole span)."""
    decoded = Canonical("", [(at, at + 1, start, end) for at, start, end in first])
    mapped: list[tuple[int, int, int, int]] = []
    i, count, shift = 0, len(first), 0  # shift: view offset less decoded offset
    for vs, ve, ds, de in zip(view._view_starts, view._view_ends, view._starts, view._ends,
                              strict=True):
        while i < count and first[i][0] < ds:
            at, start, end = first[i]
            mapped.append((at + shift, at + shift + 1, start, end))
            i += 1
        while i < count and first[i][0] < de:
            i += 1
        start = decoded.start(ds)
        mapped.append((vs, ve, start, decoded.end(de) if de > ds else start))
        shift = ve - de
    for at, start, end in first[i:]:
        mapped.append((at + shift, at + shift + 1, start, end))
    return Canonical(view.text, mapped, view.joined, view.attributes, view.glued)


#: A letter of a script written without spaces (CJK ideographs, kana, hangul, Thai)...
_NO_SPACES = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff66-\uff9f"
#: ... before an ASCII letter, digit or `+`, or after ASCII that follows no such letter
#: (`png.です`; but `用户@例子.广告` is one address): a word boundary in the view; not after
#: an `@`, before a domain (`user@例子.广告`, `user@ドメイン.jp`: an address's domain may be
#: written in any script, RFC 5890), nor at a separator between a value's groups
#: (`4539・1488`, `4539ー1488`: `_BULLETS`).
_SCRIPT_EDGE = re.compile(rf"[{_NO_SPACES}](?=[A-Za-z0-9+&<*_~`])"
                          rf"(?<![A-Za-z0-9][{_BULLETS}])"
                          rf"|[!-?A-~](?<![{_NO_SPACES}][!-~])(?=[{_NO_SPACES}])"
                          rf"(?![{_BULLETS}][A-Za-z0-9])")
#: A letter of such a script.
_NO_SPACES_CHAR = re.compile(f"[{_NO_SPACES}]")
#: Does a text hold a letter of such a script (a quick test before `_SCRIPT_EDGE`)?
_NO_SPACES_HERE = re.compile(rf"[^\x00-\x7f](?<=[{_NO_SPACES}])")


class Canonical:
    """The canonical view of a text (`canonical`): `text` is the view; `span(start, end)` is
    the span of the original text a span of the view was read from. A view character that an
    edit wrote maps to the whole original stretch it replaced; the others map one for one.

    Spans never end inside an edit's stretch: a value's span covers the markup inside it and
    none after it (`_4111 1111 1111 1111_` -> the span of the digits)."""

    __slots__ = ("text", "joined", "attributes", "glued", "_view_starts", "_view_ends", "_starts",
                 "_ends")

    def __init__(self, text: str, edits: list[tuple[int, int, int, int]] | None = None,
                 joined: bool = False, attributes: bool = False, glued: bool = False) -> None:
        self.text = text
        #: Whether closing tags that end an inline element of one word stand glued to a
        #: letter or digit (`<b>AKIA</b>IOSFODNN7EXAMPLE`, `_glued_word`): the text then also
        #: reads with them as nothing (`canonical(glue=True)`, `engine.find`), a finding of
        #: that reading kept where it overlaps none of this one's (`<b>sk-…</b>xx`: the key
        #: ends where its element does).
        self.glued = glued
        #: Whether a tag's attributes were read as text (the detectors' view): the text then
        #: also reads as shown (`engine.find`), a tag whole as a space, so that a value a
        #: tag with attributes stands in (`4111 <span style="…">1111</span> 1111 1111`) is
        #: found as well as one in its attributes.
        self.attributes = attributes
        #: Whether a line break or a run of spaces between two digits was read as one
        #: space: the text then reads two ways (`engine.find`), joined
        #: (`4111 1111` / `1111 1111` as one card) and apart (two cards on two lines).
        self.joined = joined
        # Each edit: view [vs, ve) written for original [os, oe); one for one between edits.
        if edits:
            self._view_starts = [e[0] for e in edits]
            self._view_ends = [e[1] for e in edits]
            self._starts = [e[2] for e in edits]
            self._ends = [e[3] for e in edits]
        else:
            self._view_starts = self._view_ends = self._starts = self._ends = _NONE

    @property
    def edited(self) -> bool:
        """Whether the view differs from the text by more than one character for one."""
        return bool(self._starts)

    def start(self, at: int) -> int:
        """Where in the original text the view character at `at` starts."""
        i = bisect_right(self._view_starts, at) - 1
        if i < 0:
            return at
        if at < self._view_ends[i]:
            return self._starts[i]
        return self._ends[i] + at - self._view_ends[i]

    def end(self, at: int) -> int:
        """Where in the original text a view span ending at `at` (exclusive) ends."""
        if at <= 0:
            return self.start(0)
        i = bisect_right(self._view_starts, at - 1) - 1
        if i < 0:
            return at
        if at - 1 < self._view_ends[i]:
            return self._ends[i]
        return self._ends[i] + at - self._view_ends[i]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the view span `[start, end)`."""
        return self.start(start), self.end(end)


_NONE: list[int] = []


#: The ASCII characters that never call for an edit (all but control characters and
#: `*_~` ` ``<&`), deleted by `plain`'s one translation: what is left is work.
NO_WORK = bytes(b for b in range(128) if b >= 32 and b != 127 and chr(b) not in "*_~`<&\\")


def plain(text: str) -> bool:
    """Is `text` its own canonical view: ASCII with nothing to undo (most sentences), or
    Latin-1 whose characters above ASCII all read as themselves (prose with accents:
    `joão`, `Müller`)? Passes in C: a translation, a copy, and `in` tests. Spaces and line
    breaks at the end are passed over (a piece ending a paragraph or a line, `Done.\n\n`):
    whitespace at a text's end is never edited, and a line break reads as itself."""
    if text[-1:] == "\n":  # (a reply's pieces: fed in 4-character deltas 6.90M -> 5.45M a KB)
        text = text.rstrip(" \n")
    if text.isascii():
        return (not text.encode("ascii").translate(None, NO_WORK) and "  " not in text
                and "%20" not in text and not ("+" in text and "=" in text)
                and not _encoded(text) and not _obfuscated(text))
    try:
        rest = text.encode("latin-1").translate(None, NO_WORK)
    except UnicodeEncodeError:
        return False
    return (not rest.translate(None, _LATIN_AS_ITSELF) and "  " not in text
            and "%20" not in text and not ("+" in text and "=" in text)
            and not _encoded(text) and not _obfuscated(text))


#: How `=`, `:`, `@` and `&` are encoded where the view reads them as those (`_EDIT`'s
#: `encoded`: quoted-printable `=3D`, URL-encoded `%3D` `%3A` `%40` `%26`, twice too:
#: `%253D`): a sign, and what follows it.
_ENCODINGS = (("=", ("3D", "3d", "20", "2D", "2d")),
              ("%", ("40", "2540", "3A", "3a", "3D", "3d", "253A", "253a", "253D", "253d", "26",
                     "2526", "2D", "2d", "C", "D", "E", "F", "c", "d", "e", "f")))


#: What an encoding's last two characters stand for (`_EDIT`'s `encoded`; `\x40`: `@`).
_ENCODED = {"3D": "=", "3A": ":", "40": "@", "26": "&"}


def _encoded(text: str) -> bool:
    """Does `text` hold `=` quoted-printable or `=`, `:`, `@`, `&` URL-encoded
    (`_ENCODINGS`)? (`\\x40` is looked for with every backslash.) Each sign is looked for
    with `str.find` (a `memchr`) and what follows each checked: a search for `=3D` itself
    reads every character (6 ns each, 2.5% of the realistic corpus's cost with the four);
    where the signs are dense, the encodings are searched for."""
    for sign, codes in _ENCODINGS:
        at = text.find(sign)
        for _ in range(64):
            if at == -1:
                break
            if text.startswith(codes, at + 1):
                return True
            at = text.find(sign, at + 1)
        else:
            if any(sign + code in text for code in codes):
                return True
    return False


#: The closing brackets of an address's `(at)` and `(dot)` (`_obfuscated`), and what a
#: bracket holds before one.
_OBFUSCATION_CLOSERS = ")]}"
_OBFUSCATION_WORDS = frozenset({"(at", "[at", "{at", "(dot", "[dot", "{dot"})


def _obfuscated(text: str) -> bool:
    """Does `text` hold an address's `@` or `.` written as a word in brackets (`(at)`,
    `[dot]`, any case: `_EDIT`'s `obfuscated`)? Each closing bracket is looked for with
    `str.find` and the bracket's words checked; where they are dense, the pattern is
    searched for."""
    for close in _OBFUSCATION_CLOSERS:
        at = text.find(close)
        for _ in range(64):
            if at == -1:
                break
            if (text[at - 3:at].lower() in _OBFUSCATION_WORDS
                    or text[at - 4:at].lower() in _OBFUSCATION_WORDS):
                return True
            at = text.find(close, at + 1)
        else:
            if _OBFUSCATION.search(text) is not None:
                return True
    return False


def _as_itself(char: str) -> bool:
    """Does a character above ASCII read as itself in every view (`canonical`, with and
    without look-alike letters): no form, space, dash, look-alike, invisible character or
    other script's digit?"""
    code = ord(char)
    return (ONE_FOR_ONE.get(code, char) == char and _FORMS_ONLY.get(code, char) == char
            and unicodedata.category(char) != "Cf" and _OTHER_DIGIT.match(char) is None
            and char.isprintable() and not char.isspace() and char not in _BULLETS)


#: The Latin-1 characters above ASCII that read as themselves (`plain`), as bytes.
_LATIN_AS_ITSELF = bytes(code for code in range(128, 256) if _as_itself(chr(code)))


def canonical(text: str, *, letters: bool = True, join: bool = True, shown: bool = False,
              any_tag: bool = True, tabs: bool = False, glue: bool = False) -> Canonical:
    """The canonical view of `text` (see the module's docstring). Linear in `len(text)`; an
    ASCII text with nothing to undo is its own view, found in one scan. With `letters`
    false, look-alike letters are left as they are (a mask shows a value's own letters).
    With `join` false, the view keeps lines and runs of spaces apart (`Canonical.joined`):
    whitespace is read as it is, and a gap holding a tag as a line break. With `shown`, the
    view is the text as a reader sees it (phrase lists read it): a tag reads as a space whole,
    its attributes included, and between two words too; else (the detectors' view) a tag's
    attributes are read as text, so that a value in one is found, and inline tags between two
    characters read as nothing (`123-45-<b>6789</b>`). With `any_tag` false, a tag is read
    as one only when it names an HTML element (`<system>` stays as written: the injection
    patterns read it). With `tabs`, a tab stays a tab (a TSV's cells: `engine.layout`).
    With `glue`, closing tags that end an element of one word glued to a word read as
    nothing (`Canonical.glued`).

    A reference, JSON escape or percent-encoding of a character read by what stands around
    it (`_BY_CONTEXT`: `4539&bull;1488…`, `jane&#40;at&#41;example.com`) is decoded first,
    and the decoded text read as typed text is (`_decoded_first`)."""
    if ("&" in text or "\\" in text or "%" in text) and _BY_CONTEXT_WRITTEN.search(text):
        decoded, first = _decoded_first(text)
        view = _canonical(decoded, letters=letters, join=join, shown=shown, any_tag=any_tag,
                          tabs=tabs, glue=glue)
        return _composed(first, view)
    return _canonical(text, letters=letters, join=join, shown=shown, any_tag=any_tag,
                      tabs=tabs, glue=glue)


def _canonical(text: str, *, letters: bool, join: bool, shown: bool, any_tag: bool,
               tabs: bool, glue: bool) -> Canonical:
    """`canonical` of a text with no reference to decode first."""
    if text.isascii():
        if plain(text):
            return Canonical(text)
        one = text.encode("ascii").translate(_ASCII_ONE).decode("ascii")
        if tabs:
            one = _tabs_kept(text, one)
        edits, joined = _edits(text, one, True, False, join, _pattern(shown, any_tag), glue)
    else:
        one, may_edit, scripts = _read_one(text, ONE_FOR_ONE if letters else _FORMS_ONLY)
        if tabs:
            one = _tabs_kept(text, one)
        edits, joined = _edits(text, one, may_edit, scripts, join,
                               _pattern(shown, any_tag), glue)
    if not edits:
        return Canonical(one)
    parts: list[str] = []
    mapped: list[tuple[int, int, int, int]] = []
    pos = 0  # in the text
    size = 0  # of the view so far
    for start, end, written in edits:
        if start > pos:
            parts.append(one[pos:start])
            size += start - pos
        parts.append(written)
        mapped.append((size, size + len(written), start, end))
        size += len(written)
        pos = end
    parts.append(one[pos:])
    return Canonical("".join(parts), mapped, joined, not shown and _as_shown_too(one, edits),
                     not (shown or glue) and "</" in one and _GLUED_ELEMENT.search(one) is not None)


def _tabs_kept(text: str, one: str) -> str:
    """`one` (`text` read one character for one) with each tab of `text` back as a tab."""
    parts = []
    pos = 0
    at = text.find("\t")
    while at != -1:
        parts += [one[pos:at], "\t"]
        pos = at + 1
        at = text.find("\t", pos)
    parts.append(one[pos:])
    return "".join(parts)


def _as_shown_too(one: str, edits: list[Edit]) -> bool:
    """Is the text to be read as shown too (`Canonical.attributes`): did an edit read a tag's
    attributes as text (an opener's), or read as a tag one that names no HTML element? (An
    edit may take the spaces before its tag too: `Password: <Qz7xK2mP9w>`.)"""
    for start, end, _ in edits:
        opening = one.find("<", start, end)
        if opening >= 0 and (one[end - 1].isalpha()
                             or _UNKNOWN_TAG.search(one, opening, end) is not None):
            return True
    return False


Edit = tuple[int, int, str]

def _read_one(text: str, table: dict[int, str]) -> tuple[str, bool, bool]:
    """A text that is not ASCII read one character for one (`table`, and other scripts'
    digits: `_digits`); whether `_EDIT` may find work in it; whether it holds a letter of a
    script written without spaces. A text of few characters that are not ASCII (prose with
    a few accents: `_not_ascii`) has only those looked up in `table` and tested, its ASCII
    read as bytes: a tenth of the cost of reading every character."""
    found = _not_ascii(text)
    if found is None:
        if _OTHER_DIGIT.search(text) is not None:
            table = _digits(text, table)
        one = text.translate(table)
        return (one, any(mark in one for mark in _EDIT_STARTS) or _encoded(one)
                or _obfuscated(one) or _SEPARATOR.search(one) is not None,
                _NO_SPACES_HERE.search(one) is not None)
    runs, marks = found
    wide = "".join([text[start:end] for start, end in runs])
    if _OTHER_DIGIT.search(wide) is not None:
        table = _digits(wide, table)
    controls = bool(marks.translate(None, _NOT_CONTROL))
    parts: list[str] = []
    pos = 0
    for start, end in runs:
        stretch = text[pos:start]
        parts.append(_ascii_one(stretch) if controls else stretch)
        parts.append(text[start:end].translate(table))
        pos = end
    parts.append(_ascii_one(text[pos:]) if controls else text[pos:])
    one = "".join(parts)
    wide = wide.translate(table)
    may_edit = (bool(marks.translate(None, _NO_EDIT_START)) or "  " in one
                or any(mark in wide for mark in _EDIT_STARTS) or _encoded(one)
                or _obfuscated(one) or _separated(wide, one))
    return one, may_edit, _NO_SPACES_HERE.search(wide) is not None


def _ascii_one(stretch: str) -> str:
    return stretch.encode("ascii").translate(_ASCII_ONE).decode("ascii")


def _not_ascii(text: str) -> tuple[list[tuple[int, int]], bytes] | None:
    """The runs of characters of `text` that are not ASCII, as `(start, end)`, and the
    text's ASCII form (`?` for each of them); None when they are more than one in 128 (then
    a lookup of every character costs less). Found with `bytes.find` in the ASCII form (a
    regex scan for them costs ten times as much); a text of Latin-1 characters gets that
    form from a copy and one translation (an encoding with `replace` costs 20 instructions a
    character)."""
    size = len(text)
    try:
        marks = text.encode("latin-1").translate(_HIGH_AS_MARK)
    except UnicodeEncodeError:
        marks = text.encode("ascii", "replace")
    if marks.count(b"?") - text.count("?") > size // 128:
        return None
    runs: list[tuple[int, int]] = []
    at = marks.find(b"?")
    while at != -1:
        if text[at] == "?":
            at = marks.find(b"?", at + 1)
            continue
        end = at + 1
        while end < size and not text[end].isascii():
            end += 1
        runs.append((at, end))
        at = marks.find(b"?", end)
    return runs, marks


#: Bytes above ASCII as `?` (`_not_ascii`).
_HIGH_AS_MARK = bytes(range(128)) + b"?" * 128

#: ASCII bytes but control characters (which `_ASCII_ONE` changes) and the line break.
_NOT_CONTROL = bytes(b for b in range(128) if 32 <= b < 127 or b == 10)
#: ASCII bytes but those `_EDIT` can start with (a line break, `<&*_~` `` ` ``) and control
#: characters, which read as spaces.
_NO_EDIT_START = bytes(b for b in range(128)
                       if 32 <= b < 127 and chr(b) not in "<&*_~`\\%+") + b"?"


#: What `_EDIT` can match begins with one of these (a quick test before the scan).
_EDIT_STARTS = ("\n", "  ", " <", " &", "<", "&", "*", "_", "~", "`", "\\", "%20", "+",
                *_LONG_DASHES)
#: A typography's separator next to a digit (`_BULLETS`: `_EDIT`'s `bullet`).
_SEPARATOR = re.compile(rf"[{_BULLETS}](?:(?<=[0-9][{_BULLETS}])|(?<=[0-9] [{_BULLETS}])"
                        r"|(?=[0-9]))")


def _separated(wide: str, one: str) -> bool:
    """Does `one` hold a typography's separator next to a digit (`_BULLETS`), `wide` being
    its characters that are not ASCII? `one` is searched only where `wide` holds one of them
    (`、` and `ー` are in most Japanese sentences, by no digit: a search for the separator
    alone, not for `_EDIT`'s every alternative)."""
    return _BULLET.search(wide) is not None and _SEPARATOR.search(one) is not None


_BULLET = re.compile(f"[{_BULLETS}]")


def _pattern(shown: bool, any_tag: bool) -> re.Pattern[str]:
    """The edits' pattern of a view (`canonical`'s `shown` and `any_tag`)."""
    if shown:
        return _EDIT_SHOWN
    return _EDIT if any_tag else _EDIT_KNOWN


def _edits(text: str, one: str, may_edit: bool, scripts: bool, join: bool,
           pattern: re.Pattern[str], glue: bool = False) -> tuple[list[Edit], bool]:
    """The edits of `text` in order, `(start, end, what the view holds instead)`, and whether
    one joined two numbers across a line or a run of spaces (`Canonical.joined`). `one` is the
    text read one character for one (`ONE_FOR_ONE`); a gap is read there, so that whatever
    it reads as a space counts as one. `may_edit`: `_EDIT` may match; `scripts`: a letter of
    a script written without spaces is there (`_SCRIPT_EDGE`); `join`, `glue`: `canonical`'s."""
    shown = pattern is _EDIT_SHOWN
    found: Iterator[re.Match[str]] = pattern.finditer(one) if may_edit else iter(())
    if scripts:
        found = _merged(found, _SCRIPT_EDGE.finditer(one))
    edits: list[Edit] = []
    joined = False
    typed = text.isascii()  # (every bracket as typed: no full-width form to tell apart)
    until = 0  # (an inline tag read whole: what its attributes hold is passed over)
    for match in found:
        start, end = match.span()
        kind = match.lastgroup
        if start < until:
            continue
        if kind is None:  # a script edge (after the character matched): a space where none was
            edits.append((end, end, " "))
        elif kind in ("gap", "opener"):
            if not typed and not _markup_as_typed(text, one, start, end):
                continue  # (`＜ｂ＞`: brackets typed full-width are no tag)
            if kind == "opener" and (until := _glued_tag(one, start, end)):
                edits.append((start, until, ""))
                continue
            end = _no_item_after_wrap(one, start, end)
            written = " " if kind == "opener" else _gap(one[start:end], start, end, one, join,
                                                        shown, glue)
            if written is not None:
                edits.append((start, end, written))
                joined = joined or (kind == "gap" and join and _joins(written, one, start, end))
        else:
            if kind == "obfuscated":  # (a space before `(at)` goes with it)
                start -= _space_before(one, start, edits)
            edits.extend(_edit(kind, match.group(), text, one, start, end))
    return edits, joined


def _space_before(one: str, start: int, edits: list[Edit]) -> int:
    """1 when a space no edit holds stands before `one[start]`, else 0."""
    return int(one[start - 1] == " " and (not edits or edits[-1][1] < start))


def _edit(kind: str, written: str, text: str, one: str, start: int, end: int
          ) -> Iterator[Edit]:
    """The edit of a run of marks, an escape or a reference (`_EDIT`), if any."""
    if kind == "marks":
        if _at_edge(one, start, end):
            yield start, end, ""
        else:
            inner = _inner_stars(one, start, end)
            if inner is not None:
                yield inner, end, ""
    elif kind == "encoded":  # (quoted-printable `=3D`, URL-encoded `%40` `%3A` `%3D` `%26`, `\x40`)
        yield start, end, _ENCODED.get(written[-2:].upper(), "@")
    elif kind == "escape":  # (Markdown's `\_`, `\-`: the character as it shows)
        yield start, end, ""
    elif kind in ("dash", "hyphen"):  # (an encoded hyphen, `%2D`; a long dash between two
        # digits, alone or doubled: a hyphen,
        # `123—45—6789`, `4539――1488`, `536 — 22 — 8841`; one in a run of three dashes or more,
        # as a rule or a key block's armour is typed: `—————BEGIN RSA PRIVATE KEY—————`)
        yield start, end, "-"
    elif kind == "bullet":  # (a middle dot or a bullet between a value's groups: a space)
        yield start, end, " "
    elif kind == "percent":  # (a URL's `%E2%80%8B`: the character its UTF-8 bytes encode)
        yield from _percent_encoded(written, start, end)
    elif kind == "obfuscated":  # (an address's `(at)`, `[dot]`: `@`, `.`)
        yield start, end, "." if "dot" in written.lower() else "@"
    elif kind == "unicode":  # (JSON's `\u00a0`, in a tool's output: what it decodes to)
        yield start, end, _unicode_escape(written)
    elif kind == "ref" and text[start] == "&":
        yield from _reference(written, start, end)


#: A numbered list item's marker at a line's start (`8841. `), after the line break.
_NUMBER_MARKER = re.compile(r"[ \t]{0,3}([0-9]{1,9})[.)][ \t]")


def _no_item_after_wrap(one: str, start: int, end: int) -> int:
    """Where a gap `one[start:end]` ends when the next line starts with what reads as a
    numbered item's marker but goes on with the value the line before ends in: before that
    marker, which is the rest of the value. So it is after a point where a value wraps (its
    own hyphen, an address's `@`, a dot in dotted digits: `_wrap_point`; `536-22-\n8841.
    Next`) and after a digit when the marker's number has three digits or more (`536 22\n8841.
    Thanks`: `engine.segment` reads the same; `1990\n2. Next` is an item)."""
    if start < 2 or not one[end - 1].isspace():
        return end
    brk = max(one.rfind("\n", start, end), one.rfind("\\n", start, end) + 1)
    if brk < start:
        return end
    item = _NUMBER_MARKER.match(one, brk + 1)
    if item is None or item.end() != end or not (
            _wrap_point(one, start) or (one[start - 1].isdigit() and len(item.group(1)) > 2)):
        return end
    return item.start(1)


def _wrap_point(one: str, at: int) -> bool:
    """Does a line that ends at `at` end where a value wraps: after its own hyphen or an
    address's `@` (a letter or digit before), or after a dot in a number in dotted groups
    (`529.982.`)? (`_wrapped` reads what follows too.)"""
    before = one[at - 1]
    if before in "-@":
        return one[at - 2].isalnum()
    return before == "." and _DOTTED.search(_token_before(one, at - 1)) is not None


def _glued_tag(one: str, start: int, end: int) -> int:
    """Where an inline tag with attributes whose name is `one[start:end]` (`<span`) ends,
    when it stands between two characters that are no space (`123-45-<span class="x">6789`:
    read as nothing, attributes and all); 0 otherwise."""
    close = one.find(">", end) + 1
    name = one[start:end].lstrip("</").lower()
    if (start == 0 or one[start - 1].isspace() or close >= len(one) or one[close].isspace()
            or name not in _INLINE_SET):
        return 0
    return close


def _joins(written: str, one: str, start: int, end: int) -> bool:
    """Does a gap read as `written` join two numbers or a value wrapped after its hyphen?"""
    return written == "" or (written == " " and _numbers_on_both_sides(one, start, end))


def _markup_as_typed(text: str, one: str, start: int, end: int) -> bool:
    """Were the angle brackets and ampersands of `one[start:end]` typed as such (not as
    their full-width forms, which show as the characters they are, not as markup)?"""
    return all(text[i] == one[i] for i in range(start, end) if one[i] in "<>&")


#: A description list's term ending and its description starting (`</dt><dd>`): the view
#: reads a gap holding them (and inline tags around: `</b></dt><dd><code>`) as `: `, as a
#: name and its value are written, or as a space after a term's own `:` (`_gap`).
_TERM_THEN_DESCRIPTION = re.compile(r"</[dD][tT][ \t\n]*>[ \n]*<[dD][dD][ \t\n]*>")


def _gap(gap: str, start: int, end: int, one: str, join: bool, shown: bool, glue: bool = False
         ) -> str | None:
    """What the view holds for a gap (`_EDIT`), None for the gap as it reads: one space,
    or (`join` false) a line break where the gap holds a line break or a tag, and the gap
    as it is where it is whitespace alone. Whitespace at an end of the text stays. A `+`
    between digits reads as a space in a URL's query only (`_in_query`), and a description
    list's term and description between two words as a name and its value (`: `). (Groups
    that a line break or a list item's marker sets apart, `- 8080\n- 8443`, are one value
    only after a name of its class: `engine.lists`.)"""
    if gap == " " or (gap == "+" and not _in_query(one, start)):
        return None
    if gap.rstrip("\n") in ("=", " =") and gap.endswith("\n"):  # (`=\r\n` reads `=\n\n`)
        return gap.rstrip("\n")[:-1]  # (a quoted-printable soft line break: nothing)
    blank = gap.isspace()
    if blank and (start == 0 or end == len(one)):
        return None
    breaks = ("\n" in gap or "<" in gap or "\\n" in gap or "\\r" in gap
              or ("&" in gap and _LINE_BREAK_REF.search(gap) is not None))
    if not shown and 0 < start and end < len(one) and not one[start - 1].isspace() and (
            not one[end].isspace()):
        if _TERM_THEN_DESCRIPTION.search(gap) is not None:  # (`<dt>Password</dt><dd>…`)
            return " " if one[start - 1] in ":=" else ": "
        if not blank and _INLINE_TAGS.fullmatch(gap) and (
                not _ends_element(gap, one, start, end)
                or (glue and _glued_word(gap, one, start, end))):
            return ""  # (inline tags between two characters show as nothing: `45<b>67`)
        if join and breaks and _wrapped(gap, one, start, end):
            return ""  # (`123-45-\n6789`: a value wrapped inside itself)
    if join:
        space = " "
    elif blank:
        return None
    else:
        space = "\n" if breaks else " "
    names = "" if shown or blank else _label_names(gap, one, start, end)
    if names:  # (`<order> 2025550143` reads `order 2025550143`)
        return (space if start > 0 else "") + names + (space if end < len(one) else "")
    return space


#: What a number starts with (`_label_names`).
_NUMBER_STARTS = frozenset("0123456789+(")
#: The name of a tag of no HTML element (`<order>`, `</my-id>`): `_label_names`.
_UNKNOWN_NAME = re.compile(
    rf"</?(?!{_alternation(_TAG_NAMES)}[ \t\n/>])({_NAME})[ \t\n]*/?>")


def _label_names(gap: str, one: str, start: int, end: int) -> str:
    """The names of the tags of no HTML element in a gap before a number, as words (`<order>`
    as `order`): angle-bracketed words label the number they hold or stand before in
    XML-like data, as a word before it does (`<order> 2025550143` is an order's number, no
    phone). Not between two digits (`4111 <x>1111</x> 1111 1111`: one number), nor before
    anything else (`password: <your-password>` is a placeholder, no value)."""
    if ("<" not in gap or end == len(one) or one[end] not in _NUMBER_STARTS
            or (0 < start and one[start - 1].isdigit())):
        return ""
    return " ".join(m.group(1) for m in _UNKNOWN_NAME.finditer(gap))


def _ends_element(gap: str, one: str, start: int, end: int) -> bool:
    """Do inline tags `one[start:end]` between two characters start by ending an element,
    before a letter, a digit, a tag or another element (`</b>1990`, `</span><span>12/26`)?
    They then read as a space, so that a value ends there and its mask covers no tag after
    it (but see `_glued_word`). (An element opened and closed in them, `4539<b></b>1488`,
    ends nothing: it shows as nothing; nor does one that holds letters alone from a tag
    on, the word going on after it: `<b>pass</b>word`, `<b>Pass</b><i>word</i>`,
    `p<b>ass</b>word` read `password`.)"""
    after = one[end]
    return gap.startswith("</") and (after.isalnum() or after == "<"
                                     or _OPENING_TAG.search(gap) is not None) and not (
        after.isalpha() and _letters_in_element(one, start))


def _letters_in_element(one: str, at: int) -> bool:
    """Do the characters before `at` since the last tag (a `>`) hold letters alone (up to 32
    of them): an element opened at a word's start that ends inside it?"""
    word = at
    floor = max(0, at - 32)
    while word > floor and one[word - 1].isalpha():
        word -= 1
    return word < at and word > 0 and one[word - 1] == ">"


def _glued_word(gap: str, one: str, start: int, end: int) -> bool:
    """Do closing tags alone (`</b>`) end an inline element holding one word and stand
    glued to a letter or digit after them? The two words show as one (`<b>AKIA</b>IOSF…`,
    `<b>4539</b>148803436467`): the text is read with them as nothing too
    (`Canonical.glued`)."""
    return (gap.startswith("</") and end < len(one) and one[end].isalnum()
            and _OPENING_TAG.search(gap) is None and _INLINE_TAGS.fullmatch(gap) is not None
            and _ONE_WORD_ELEMENT.fullmatch(_token_before(one, start).lstrip("([{\"'"))
            is not None)


#: An inline element's opening tag and one word after it, a token's start (`_glued_word`).
_ONE_WORD_ELEMENT = re.compile(r"<[A-Za-z][A-Za-z0-9]{0,31}>[\w+/=.-]+")
#: Such an element glued to a letter or digit after its closing tag (`Canonical.glued`).
_GLUED_ELEMENT = re.compile(r"(?<![^\s(\[{\"'])<([A-Za-z][A-Za-z0-9]{0,31})>[\w+/=.-]+"
                            r"</\1[ \t\n]*>(?=[A-Za-z0-9])")


#: The start of an opening tag (`_ends_element`).
_OPENING_TAG = re.compile("<[A-Za-z]")


#: A known secret's start and 6 characters of it at least, ending a token (`_wrapped`):
#: `sk-`, `ghp_`, `eyJ`... as `engine.detectors` finds them.
_SECRET_HEAD = re.compile(r"(?<![A-Za-z0-9])(?:sk-|[rsp]k_|gh[pousr]_|github_pat_|glpat-"
                          r"|xox[abprs]-|AIza|hf_|npm_|SG\.|AKIA|ASIA|eyJ)[\w.-]{6,}\Z")


def _wrapped(gap: str, one: str, start: int, end: int) -> bool:
    """Does a line break (or `<br>`) between two characters that are no space wrap a value
    inside itself, a letter or digit after it: after a hyphen inside a word or number
    (`123-45-\n6789`, `GB82-WEST-<br>1234`), after the `@` of an address
    (`zelda.quux@\nexample.org`), after a dot between digits ending a token that holds a
    dot already (`529.982.\n247-25`; not `in 1990.\n2001`; `engine.segment` reads the
    same), or inside a known secret's token, when what
    follows reads as more of it, not as a word (`sk-proj-4fJk29\nPz8XvTn7`, `AKIAIOSFOD\nNN7…`,
    a JWT's part after its dot, `eyJ….\neyJ…`; not `...\nThen`)?
    Read joined, and apart too (`Canonical.joined`)."""
    before, after = one[start - 1], one[end]
    if after == "@" and start >= 2 and before.isalnum():  # (`jane.doe\n@example.com`)
        return "\n" in gap or "\\n" in gap or _LINE_BREAK_TAG.search(gap) is not None
    if start < 2 or not after.isalnum():
        return False
    if before == "-":
        return one[start - 2].isalnum()
    if not ("\n" in gap or "\\n" in gap or _LINE_BREAK_TAG.search(gap) is not None):
        return False  # (a tag that ends no line: `report@2x.png.</b> ok`)
    if before == "@":
        return one[start - 2].isalnum()
    if before == ".":
        if one.startswith("eyJ", end):  # (a token's next part: `eyJ….` / `eyJ….sig`)
            return _SECRET_HEAD.search(_token_before(one, start)) is not None
        return after.isdigit() and _DOTTED.search(_token_before(one, start - 1)) is not None
    if not (before.isalnum() or before in "_-") or _SECRET_HEAD.search(
            _token_before(one, start)) is None:
        return False
    word = _token_after(one, end)
    return any(c.isdigit() for c in word) or not (word[1:].islower() or word.isupper())


#: A number in dotted groups (`529.982`, before the dot that ends its line: `_wrapped`).
_DOTTED = re.compile(r"[0-9]\.[0-9]+\Z")
#: A tag that breaks a line (`<br>`, `<br/>`, `</p>`, `<div>`...): any block element's.
_LINE_BREAK_TAG = re.compile(rf"</?{_alternation(_BLOCK_NAMES)}[ \t\n/>]")


def _token_before(one: str, at: int) -> str:
    """The run of characters that are no space ending at `at` (its last 300 at most)."""
    floor = max(0, at - 300)
    return one[max(one.rfind(" ", floor, at), one.rfind("\n", floor, at), floor - 1) + 1:at]


def _token_after(one: str, at: int) -> str:
    """The letters and digits from `at` on (64 at most)."""
    end = at
    limit = min(len(one), at + 64)
    while end < limit and one[end].isalnum():
        end += 1
    return one[at:end]


def _in_query(one: str, start: int) -> bool:
    """Is the `+` at `start` in a URL's query or a form's fields, after `?name=` or `&name=`
    in the same token (`?card=4111+1111+...`, where it stands for a space)?"""
    floor = max(0, start - 256)
    equals = one.rfind("=", floor, start)
    field = max(one.rfind("?", floor, equals), one.rfind("&", floor, equals))
    return field != -1 and equals != -1 and not any(c.isspace() for c in one[field:start])


def _numbers_on_both_sides(one: str, start: int, end: int) -> bool:
    """Does a gap read as one space join two digits (two groups of a number, or two numbers)
    across more than one space?"""
    if (end - start < 2 and one[start] == " ") or one[start:end] in ("+", "%20"):
        return False  # (one space, or what encodes one)
    return one[start - 1].isdigit() and end < len(one) and one[end].isdigit()



def _at_edge(one: str, start: int, end: int) -> bool:
    """Is the run of marks `one[start:end]` at a word's edge, as emphasis or a code span is:
    opening (the start, a space, punctuation or a letter of a script written without spaces
    before it: `(**x`, `:_x`, `-**6789`, `は__4111`), or closing (a word before it, then
    anything else: `x**-`, `x__|`; but `_` then `.` or `-` and a word, as inside a token:
    `eyJ…_.eyJ…`). Marks inside a word are kept (`DB_PASSWORD`, `ghp\\_abc`); a mark escaped
    by a backslash at a word's edge is read as one (`\\_123-45-6789\\_`)."""
    size = len(one)
    before = one[start - 1] if start else " "
    if _a_mask(one, start, end):
        return False
    if before == "\\":  # (escaped, `\_` shows as `_`: at a word's edge, read as a mark)
        before = one[start - 2] if start > 1 else " "
    if not _in_word(before):
        return one[start] != "_" or _closed(one, start, end)
    after = one[end] if end < size else " "
    if _in_word(after):
        return False
    if one[start] != "_" or after not in ".-":
        return one[start] != "_" or _opened(one, start, end)
    following = one[end + 1] if end + 1 < size else " "
    return (not following.isalnum() and _opened(one, start, end)) or _closes(one, start, end)


def _closes(one: str, start: int, end: int) -> bool:
    """Does the run of marks `one[start:end]` close the same run opened at the start of the
    word before it (`@_example_.com`: a domain's label in emphasis), not a mark inside a
    token (`eyJ…_.eyJ…`)?"""
    word = start
    while word > 0 and _in_word(one[word - 1]):
        word -= 1
    opening = word - (end - start)
    return (word < start and opening >= 0 and one[opening:word] == one[start:end]
            and not _in_word(one[opening - 1] if opening else " "))


def _inner_stars(one: str, start: int, end: int) -> int | None:
    """Where the emphasis in a run of marks inside a word starts, when it pairs with a run
    at the token's edge (so a key typed with part of it in bold is read whole): `**` closing
    what opened the token (`**AKIA**IOSFODNN7EXAMPLE`), or the `**` after a key's own `_`
    opening what closes the token (`ghp_**1234…**`, `pass**word**:` too). None: the run is
    part of the word (a value split by marks inside a word, `4111**1111**1111**1111`, is not
    read)."""
    run = one[start:end]
    stars = run.lstrip("_")
    if not stars or stars.strip("*"):
        return None
    if stars == run and _closing_the_opening(one, start, run):
        return start
    stop = min(len(one), end + 256)
    after = end
    while after < stop and not one[after].isspace():
        after += 1
    tail = one[end:after].rstrip(".,;:!?)]}\"'")
    if tail.endswith(stars) and not tail[: -len(stars)].endswith("*"):
        return end - len(stars)
    return None


def _closing_the_opening(one: str, start: int, run: str) -> bool:
    """Does a run of `*` inside a word at `start` close the same run opening its token
    (`**AKIA**IOSFODNN7EXAMPLE`), found within 64 characters before it?"""
    floor = max(0, start - 64)
    token = max(one.rfind(" ", floor, start), one.rfind("\n", floor, start)) + 1
    if token == 0 and floor > 0:
        return False
    head = one[token:start].lstrip("([{\"'")
    return head.startswith(run) and not head[len(run):].startswith("*")


#: How far a run of `_` looks for the run that pairs with it, within its paragraph (`_closed`).
_PAIR_REACH = 256
#: A run of 1-4 `_` closing a word (after a character that is no space, before none of a
#: word) and opening one (after none of a word, before a character that is no space), by
#: its length (`_closed`, `_opened`).
_WORD = "0-9A-Za-z\u00c0-\u024f\u0370-\u052f"  # (letters of scripts written with spaces)
_CLOSING = {n: re.compile(rf"(?<=[^\s_])_{{{n}}}(?![{_WORD}_])") for n in range(1, 5)}
_OPENING = {n: re.compile(rf"(?<![{_WORD}_])_{{{n}}}(?=[^\s_])") for n in range(1, 5)}


def _closed(one: str, start: int, end: int) -> bool:
    """Is the run of `_` opening a word at `one[start:end]` closed later in its paragraph (the
    same run after a character that is no space, before none of a word), as emphasis is?
    An unpaired one is part of a token (`glpat-_bCdEf…`, a key's body starting with `_`).
    (One search of at most `_PAIR_REACH` characters: linear in the text.)"""
    closing = _CLOSING.get(end - start)
    if closing is None:
        return True
    stop = min(len(one), end + _PAIR_REACH)
    blank = one.find("\n\n", end, stop)
    return closing.search(one, end, stop if blank == -1 else blank) is not None


def _opened(one: str, start: int, end: int) -> bool:
    """Is the run of `_` closing a word at `one[start:end]` opened earlier in its paragraph (the
    same run after none of a word, before a character that is no space)? An unpaired one
    ends a token (`glpat-…xYz_`)."""
    opening = _OPENING.get(end - start)
    if opening is None:
        return True
    floor = max(0, start - _PAIR_REACH)
    floor = max(floor, one.rfind("\n\n", floor, start) + 1)
    return opening.search(one, floor, start) is not None


def _a_mask(one: str, start: int, end: int) -> bool:
    """Is `one[start:end]` a mask ReplyGuard writes (`**** 1111`, `j***@example.com`): four
    stars or more, or three stars between an address's first character and its `@`? Kept, so
    that screening a screened text changes nothing. (Emphasis closing before an `@`,
    `**jane.doe**@example.com`, is no mask.)"""
    if one.count("*", start, end) != end - start:
        return False
    if end - start >= 4:
        return True
    return (end - start == 3 and one[end:end + 1] == "@" and start > 0
            and not _in_word(one[start - 2] if start > 1 else " "))


def in_word(char: str) -> bool:
    """Is `char` a letter or digit of a script written with spaces between words (not CJK's
    or Thai's, where a word ends without one)?"""
    return char.isalnum() and _NO_SPACES_CHAR.match(char) is None


_in_word = in_word


def _reference(ref: str, start: int, end: int) -> Iterator[tuple[int, int, str]]:
    """A character reference as the character it stands for, read `ONE_FOR_ONE` (an
    unknown name is left as it is)."""
    char = html.unescape(ref)
    if char != ref:
        yield start, end, char.translate(ONE_FOR_ONE)


def _percent_encoded(written: str, start: int, end: int) -> Iterator[Edit]:
    """A character other than ASCII percent-encoded in a URL (RFC 3986: its UTF-8 bytes,
    `%E2%80%8B`) as that character, read `ONE_FOR_ONE` (bytes that are no UTF-8 are left as
    they are)."""
    try:
        char = bytes.fromhex(written.replace("%", "")).decode("utf-8")
    except UnicodeDecodeError:
        return
    yield start, end, char.translate(ONE_FOR_ONE)


def _unicode_escape(escape: str) -> str:
    """A `\\uXXXX` escape (or a surrogate pair of two) as the character it stands for, read
    `ONE_FOR_ONE` (an invisible one, `\\u200b`, is kept: `engine.find` reads the view
    through it as through one typed; a lone surrogate half as it is written)."""
    code = int(escape[2:6], 16)
    if len(escape) == 12:
        code = 0x10000 + ((code - 0xD800) << 10) + (int(escape[8:12], 16) - 0xDC00)
    elif 0xD800 <= code <= 0xDFFF:
        return escape
    return chr(code).translate(ONE_FOR_ONE)


def _merged(first: Iterator[re.Match[str]],
            second: Iterator[re.Match[str]]) -> Iterator[re.Match[str]]:
    """The edits' matches and the script edges' (an edge stands at the end of its match:
    never inside an edit, it sits between a letter and an ASCII character) merged in order
    of position."""
    a, b = next(first, None), next(second, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a.start() < b.end()):
            assert a is not None
            yield a
            a = next(first, None)
        else:
            yield b
            b = next(second, None)


def not_ascii(text: str) -> list[tuple[int, int]] | None:
    """The runs of characters of `text` that are not ASCII, as `(start, end)`; None when
    they are more than one in 128 (`_not_ascii`)."""
    found = _not_ascii(text)
    return None if found is None else found[0]
