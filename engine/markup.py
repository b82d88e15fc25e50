"""The markup the canonical view undoes, as one pattern (`EDIT`): HTML tags, comments and
character references, Markdown's emphasis and code marks and line prefixes, escapes and
encodings of a space, a hyphen or a sign, typography's separators and long dashes between a
value's groups, and an address's `(at)` and `(dot)`."""

from __future__ import annotations

import html
import html.entities
import re

from replyguard.engine.chars import BULLETS, LONG_DASHES, dash_and_space_table

#: HTML elements (WHATWG's list, but those that hold no text: `script`, `style`, `head`...): a
#: tag of one reads as a space (an inline one between two characters that are no space, as
#: nothing: `123-45-<b>6789</b>`), its attributes as text (`_OPENER`). In the detectors' view
#: any other well-formed tag without attributes (`<x>`, `<my-tag>`) reads as an inline one,
#: and the text is also read with it as written (`Canonical.attributes`): angle-bracketed
#: words name what follows in XML-like data (`<password>S3cret</password>`), and phrase lists
#: read them as written (`<voucher>`, `<order id>`).
TAG_NAMES = (
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
BLOCK_NAMES = sorted(set(TAG_NAMES) - set(_INLINE_NAMES))


#: A tag's name: ASCII letters and digits, with hyphens inside (a custom element's).
TAG_NAME = r"[A-Za-z][A-Za-z0-9]{0,31}(?:-[A-Za-z0-9]{1,31}){0,4}"


def alternation(names: list[str]) -> str:
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
    return rf"{_CLOSED}/?{alternation(names)}[ \t\n]*/?>"


#: A well-formed tag of any name without attributes (the detectors' view); its name is at
#: most 160 characters (`TAG_NAME`) and its `<` closed (`_CLOSED`): linear time.
_ANY_TAG = rf"{_CLOSED}/?{TAG_NAME}[ \t\n]*/?>"


#: A tag of a name that is no HTML element's (`Canonical.attributes`).
UNKNOWN_TAG = re.compile(rf"{_CLOSED}/?(?!{alternation(TAG_NAMES)}[ \t\n/>])[A-Za-z]")


def _tag_with_attributes(names: list[str]) -> str:
    """A tag of one of `names` (any case): at most 256 characters of attributes (no `<` or
    `>` among them), an optional `/`, and `>`."""
    return rf"{_CLOSED}/?{alternation(names)}(?![A-Za-z0-9])(?:[\s/][^<>]{{0,256}})?>"


#: The start of a tag of `TAG_NAMES` with attributes, up to them: it reads as a space, its
#: attributes as they are, so that a value in one (`<img alt="4539 1488 0343 6467">`,
#: `<a href="...?key=sk-...">`) is read as any other text.
_OPENER = rf"{_CLOSED}/?{alternation(TAG_NAMES)}(?=[\s/][^<>]{{0,256}}>)"


_SPACE_CHARS = r"\s\x00-\x08\x0e-\x1b\x7f"


#: An address's `@` or `.` written as a word in brackets, between two of its letters or
#: digits, a space on either side or none (`jane(at)example(dot)com`, `jane [at] example
#: [dot] com`, any case), or the sign itself so bracketed, defanged (`jane[.]doe@example[.]com`,
#: `jane(@)example.com`, `jane[@]example.com`): read as the sign. (A word alone, `jane at
#: example dot com`, is prose's as often: it is left as it is.)
_OBFUSCATED = r"(?:\((?i:at|dot)\)|\[(?i:at|dot)\]|\{(?i:at|dot)\}|[(\[{][@.][)\]}])"


OBFUSCATION = re.compile(_OBFUSCATED)


#: An HTML comment (`<!-- -->`), read as a tag is.
_COMMENT = r"<!--(?:(?!-->)[^<>]){0,256}-->"


INLINE_SET = frozenset(_INLINE_NAMES)


#: Inline tags (any but a block element's) and comments and nothing else (`read_gap`).
INLINE_TAGS = re.compile(
    rf"(?:{_CLOSED}/?(?!{alternation(BLOCK_NAMES)}[ \t\n/>]){TAG_NAME}[ \t\n]*/?>|{_COMMENT})+")


def _space_refs() -> str:
    """A character reference to whitespace, read as a gap (`EDIT`): numeric, decimal or
    hex, with or without leading zeros and its `;` (`&#160;`, `&#10;`, `&#x0A;`, `&#32`), or
    named (`&nbsp;`, `&NewLine;`, `&Tab;`, `&emsp;`, `&ThinSpace;`; `&nbsp` without its `;`,
    as browsers read it: HTML 5's "legacy" references). Whitespace is every character the
    view reads as a space or a line break (`dash_and_space_table`) but control characters."""
    table = dash_and_space_table()
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


#: Does a gap hold a reference to a line break (`&#10;`, `&NewLine;`; `read_gap`)?
LINE_BREAK_REF = re.compile(r"&(?:#0*1[0-3](?![0-9])|#[xX]0*[a-dA-D](?![0-9A-Fa-f])"
                             r"|#0*(?:133|823[23])(?![0-9])|#[xX]0*(?:85|202[89])(?![0-9A-Fa-f])"
                             r"|NewLine;)")


#: A character reference: named, with its `;`, or one of the legacy names that browsers read
#: without it (only those that stand for a space, the soft hyphen or the markup characters:
#: `&para`, `&not` are left as written, as they start URL parameters' names), or numeric.
_REF = (r"&(?:#[0-9]{1,7};?|#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};"
        r"|(?:nbsp|amp|AMP|lt|LT|gt|GT|quot|QUOT|shy)(?![A-Za-z=]))")


#: A line's prefix after a line break (or JSON's `\n`): a quote, a heading, a list item's
#: marker (`-`, `1.`), a table row's first bar, or a comment's mark (`//`, `--`, `;`, `%`,
#: `'`, `::`, `rem`, `#`), with the spaces after it (`EDIT`). (Not the `::` an IPv6 address
#: starts with, before a group of up to four hex digits and a colon, a dot or its end:
#: `::ffff:c000:201`.)
_PREFIX = (r"[ \t]{0,3}(?:>[ \t>]*|#{1,6}[ \t]+|(?:[-*+]|[0-9]{1,9}[.)])[ \t]+|\|[ \t]*"
           r"|(?://++|--(?=[ \t])|;++|%++|'|::(?![0-9A-Fa-f]{1,4}(?:[:.]|(?!\w)))"
           r"|(?i:rem)(?=[ \t])|#(?=[0-9A-Za-z]))[ \t]*+)")


#: A line continued by a backslash before its break (a shell's `4111 1111 \`), or by
#: quoted-printable's soft line break between digits (RFC 2045, `=` then CRLF or LF:
#: `4539 1488 =` then `0343`,
#: `45391488=` then `03436467`, the `=` and the break standing for nothing), read as a gap's
#: start (`EDIT`).
_CONTINUED = r"\\(?=\n)|=(?<=[0-9 ]=)(?=\n\n?[0-9])"


#: What a gap holds but whitespace, tags and comments: JSON's escapes of a line break and
#: a tab (`\n`, `\r`, `\t`, as two characters: a value in a tool's output), a URL's encoded
#: space (`%20`) and a form's (`+`, between two digits: `read_gap` reads it so in a query only),
#: a space escaped as code writes it (`\x20`, `\u{20}`, octal `\040`) and quoted-printable's
#: `=20` between two digits (`4539=201488`; not after a name: `width=200`).
_ESCAPED_SPACE = (r"\\[nrt]|%20|\+(?<=[0-9]\+)(?=[0-9])|\\x20|\\u\{20\}|\\040"
                  r"|=20(?<=[0-9]=20)(?=[0-9])")


#: An ASCII letter or digit URL-encoded (`%41`, `%6a`, `%30`). (Inside a token, after a
#: letter, a digit, `-` or `_`, the view reads these and an `_` so encoded, `%5F`, before
#: more of the token: `ghp%5F…` reads `ghp_…`.)
ENCODED_ALNUM = r"%(?:3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa])"
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
        r"|(?P<encoded>=3[dD](?=[0-9A-Za-z])|%(?:25)?(?:40|3[aAdD]|26)(?=[^\W_]|%)"
        r"|%(?<=[^\W_]%)(?:25)?2[eE](?=[^\W_])"
        r"|\\x40(?=[0-9A-Za-z])"
        r"|%(?<=[0-9A-Za-z_-]%)(?:" + ENCODED_ALNUM[1:] + "|5[fF](?=[0-9A-Za-z%])))"
        r"|(?P<percent>%[cCdD][0-9a-fA-F]%[89abAB][0-9a-fA-F]"
        r"|%[eE][0-9a-fA-F](?:%[89abAB][0-9a-fA-F]){2}|%[fF][0-4](?:%[89abAB][0-9a-fA-F]){3})"
        r"|(?P<escape>\\(?=[!-/:-@\[-`{-~]))"
        r"|(?P<strings>\"[ \t]*\+[ \t]*\"(?=[\w-])|'[ \t]*\+[ \t]*'(?=[\w-]))"
        rf"|(?P<ref>{_REF})"
        rf"|(?P<dash>[{LONG_DASHES}](?:(?<=[0-9][{LONG_DASHES}])(?=-?[{LONG_DASHES}]?[0-9])"
        rf"|(?<=[0-9][-{LONG_DASHES}][{LONG_DASHES}])(?=[0-9])"
        rf"|(?<=[0-9][{LONG_DASHES}])(?=[A-Z])"
        rf"|(?<=[0-9][{LONG_DASHES}][A-Z]{{4}}[{LONG_DASHES}])(?=[0-9A-Z])"
        rf"|(?<=[0-9] [{LONG_DASHES}])(?= [0-9A-Z])"
        rf"|(?<=[0-9] [{LONG_DASHES}] [A-Z]{{4}} [{LONG_DASHES}])(?= [0-9A-Z])"
        rf"|(?=[-{LONG_DASHES}]{{2}})|(?<=[-{LONG_DASHES}]{{2}})(?=[-{LONG_DASHES}])"
        rf"|(?<=[-{LONG_DASHES}]{{3}})))"
        rf"|(?P<bullet>[{BULLETS}](?:(?<=[0-9][{BULLETS}])(?=[A-Za-z0-9])"
        rf"|(?<=[A-Za-z][{BULLETS}])(?=[0-9]))"
        rf"|[ ][{BULLETS}][ ](?<=[0-9][ ][{BULLETS}][ ])(?=[0-9]))"
        r"|(?P<obfuscated>(?:\((?:(?<=[A-Za-z0-9]\()|(?<=[A-Za-z0-9] \())(?:(?i:at|dot)|[@.])\)"
        r"|\[(?:(?<=[A-Za-z0-9]\[)|(?<=[A-Za-z0-9] \[))(?:(?i:at|dot)|[@.])\]"
        r"|\{(?:(?<=[A-Za-z0-9]\{)|(?<=[A-Za-z0-9] \{))(?:(?i:at|dot)|[@.])\})[ ]?"
        r"(?=[A-Za-z0-9]))"
    )


#: What `canonical` undoes, in one pass: a gap (whitespace, tags, space references, and the
#: prefix of each line it starts), the start of a tag with attributes, a run of emphasis or
#: code marks, a JSON `\\uXXXX` escape, a Markdown escape, a character reference. Each
#: alternative starts with its own characters and repeats possessively: linear time.
EDIT = _edit_pattern(_ANY_TAG, _OPENER)


#: The same with tags of HTML elements' names only (`canonical(any_tag=False)`).
EDIT_KNOWN = _edit_pattern(_tag(TAG_NAMES), _OPENER)


#: The same as a reader sees the text (`canonical(shown=True)`): a tag is a space whole, its
#: attributes included (the `(?!)` opener never matches).
EDIT_SHOWN = _edit_pattern(_tag_with_attributes(TAG_NAMES), "(?!)")


#: The characters the view reads by what stands around them, not one for one: typography's
#: separators between a value's groups (`BULLETS`), the long dashes between digits
#: (`LONG_DASHES`, `EDIT`'s `dash`), the brackets of an address's `(at)` and `[dot]`, and
#: Markdown's emphasis and code marks (`&#95;4111 … 1111_`: a mark at a word's edge).
_BY_CONTEXT = BULLETS + LONG_DASHES + "()[]{}*_~`"


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
BY_CONTEXT_WRITTEN = re.compile(_by_context_written())
