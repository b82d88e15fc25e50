"""Local prompt-injection detection: a normaliser that undoes common disguises, and the pattern
table (`engine.injection_table`) compiled once into one alternation searched in a single pass.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from replyguard.engine.canon import canonical
from replyguard.engine.injection_table import (
    CATEGORIES,
    INJECTION_PATTERNS,
    LANGUAGES,
    InjectionPattern,
)

__all__ = [
    "CATEGORIES",
    "INJECTION_PATTERNS",
    "InjectionMatch",
    "InjectionMatcher",
    "InjectionPattern",
    "detect_injection",
    "lead_regex",
    "normalize_injection_text",
]


@dataclass(frozen=True, slots=True)
class InjectionMatch:
    """A known injection phrasing: pattern `pattern_id` of `category` at `[start, end)`.

    The offsets are in the normalised text (`normalize_injection_text(text)`, or of the
    window it was found in: `detect_injection`), not in the text given; the match holds no
    part of the text, so its repr is safe to log.
    """

    pattern_id: str
    category: str
    start: int
    end: int


# -- normalisation ------------------------------------------------------------------------


def _runs(char_class: str) -> str:
    """`[...]+` written as `[...][...]*`: the same runs, but a regex that starts with a character
    class lets `re` skip ahead to the next character of the class in C, instead of trying a
    match at every position (it does not look inside a repeat for that)."""
    return char_class + char_class + "*"


#: Invisible characters, removed: soft hyphen, combining grapheme joiner, Arabic letter mark,
#: Hangul fillers, Khmer vowel inherents, Mongolian selectors and vowel separator, zero-width
#: and direction marks (U+200B-U+200F), bidi embeddings and isolates, word joiner and
#: invisible operators (U+2060-U+2064), deprecated format characters, variation selectors
#: (U+FE00-U+FE0F, U+E0100-U+E01EF), zero-width no-break space (U+FEFF).
_INVISIBLE_CHARS = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
                    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
                    "\U000e0100-\U000e01ef")
_INVISIBLE = re.compile(_runs(f"[{_INVISIBLE_CHARS}]"))
#: Unicode tag characters (U+E0000-U+E007F) mirror ASCII invisibly ("ASCII smuggling"): they
#: are read as the ASCII they stand for, set apart by spaces.
_TAG_CHARS = "\U000e0000-\U000e007f"
_TAGS = re.compile(_runs(f"[{_TAG_CHARS}]"))
#: Either of the above, to skip both substitutions at once in the common case.
_HIDDEN = re.compile(f"[{_INVISIBLE_CHARS}{_TAG_CHARS}]")
_TAG_TABLE = {0xE0000 + code: chr(code) if 0x20 <= code < 0x7F else None for code in range(0x80)}
#: Combining marks left by NFKD (Latin, Greek and Cyrillic accents, "Zalgo" stacks), removed.
_MARKS = re.compile(_runs("[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff"
                         "\u20d0-\u20ff\ufe20-\ufe2f]"))

# Letters of other scripts that look like Latin ones, by Unicode name (case kept: the
# translation runs before case folding, so a Greek capital ETA reads as H, a small eta as n).
_LOOKALIKES = {
    "CYRILLIC": {
        "A": "A", "VE": "B", "IE": "E", "KA": "K", "EM": "M", "EN": "H", "O": "O", "ER": "P",
        "ES": "C", "TE": "T", "U": "Y", "HA": "X", "BYELORUSSIAN-UKRAINIAN I": "I", "JE": "J",
        "DZE": "S", "KOMI DE": "D", "SHHA": "H", "QA": "Q", "WE": "W", "STRAIGHT U": "Y",
        "SOFT SIGN": "b", "IZHITSA": "V",
    },
    "GREEK": {
        "ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H", "IOTA": "I",
        "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P", "TAU": "T",
        "UPSILON": "Y", "CHI": "X",
    },
}
_SMALL_LOOKALIKES = {  # small letters that do not look like their capital's Latin twin
    "GREEK SMALL LETTER ETA": "n", "GREEK SMALL LETTER NU": "v", "GREEK SMALL LETTER UPSILON": "u",
    "GREEK SMALL LETTER MU": "u", "GREEK SMALL LETTER GAMMA": "y", "GREEK SMALL LETTER OMEGA": "w",
    "CYRILLIC SMALL LETTER PE": "n",
    "CYRILLIC SMALL LETTER PALOCHKA": "l", "CYRILLIC LETTER PALOCHKA": "I",
    "LATIN SMALL LETTER DOTLESS I": "i", "LATIN SMALL LETTER DOTLESS J": "j",
    "LATIN SMALL LETTER ALPHA": "a", "LATIN SMALL LETTER SCRIPT G": "g",
    "LATIN SMALL LETTER IOTA": "i", "ARMENIAN SMALL LETTER OH": "o",
    "ARMENIAN SMALL LETTER SEH": "u", "ARMENIAN SMALL LETTER HO": "h",
    "ARMENIAN SMALL LETTER VO": "n",
}
_SMALL_CAPITALS = "ABCDEGHIJKLMNOPRTUVWYZ"  # LATIN LETTER SMALL CAPITAL x (no F, Q, S, X)
#: Cherokee syllables that look like Latin letters (Unicode's confusables.txt), by code point;
#: their small forms (U+AB70-U+ABBF) case-fold to these.
_CHEROKEE = {0x13AA: "A", 0x13F4: "B", 0x13DF: "C", 0x13A0: "D", 0x13AC: "E", 0x13C0: "G",
             0x13BB: "H", 0x13A5: "i", 0x13AB: "J", 0x13E6: "K", 0x13DE: "L", 0x13B7: "M",
             0x13BE: "O", 0x13E2: "P", 0x13A1: "R", 0x13DA: "S", 0x13A2: "T", 0x13D9: "V",
             0x13B3: "W", 0x13C3: "Z"}


def _lookalike_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for script, letters in _LOOKALIKES.items():
        for name, latin in letters.items():
            table[ord(unicodedata.lookup(f"{script} CAPITAL LETTER {name}"))] = latin.upper()
            table[ord(unicodedata.lookup(f"{script} SMALL LETTER {name}"))] = latin.lower()
    for name, latin in _SMALL_LOOKALIKES.items():
        table[ord(unicodedata.lookup(name))] = latin
    for letter in _SMALL_CAPITALS:
        table[ord(unicodedata.lookup(f"LATIN LETTER SMALL CAPITAL {letter}"))] = letter.lower()
    table[ord("\ua731")] = "s"  # LATIN LETTER SMALL CAPITAL S
    for code, latin in _CHEROKEE.items():
        table[code] = latin
        small = chr(code).lower()  # U+AB70.. for U+13A0..U+13EF
        if small != chr(code):
            table[ord(small)] = latin.lower()
    return table


_LOOKALIKE_TABLE = _lookalike_table()

#: Three or more single letters or digits, each set apart by the same one to three
#: separators ("i g n o r e", "i.g.n.o.r.e", "I-G-N-O-R-E"): read as one word. A longer or
#: different separator ends the word ("I G N O R E  A L L" is "ignore all").
#: The match starts at the first separator, and the regex with a character class (a
#: look-behind after it checks the single letter before the separator), so `re` skips ahead
#: to the next separator in C rather than trying a match at every letter.
_SPACED = re.compile(
    r"(?P<sep>[\W_](?<=(?<![^\W_])[^\W_][\W_])[\W_]{0,2})[^\W_](?![^\W_])"
    r"(?:(?P=sep)[^\W_](?![^\W_]))+"
)
#: Whitespace, punctuation and underscores (after "_" is made a space): each run is a gap.
_GAPS = re.compile(_runs(r"[^\w:]"))
#: The same for ASCII text, as a `str.translate` table (everything but letters, digits and
#: ":" to a space) and `_SPACES`, several times faster than `_GAPS`. The table maps
#: every ASCII character (letters to themselves): a character missing from the table costs
#: `translate` a KeyError.
_ASCII_GAPS = {code: chr(code) if chr(code).isalnum() or chr(code) == ":" else " "
               for code in range(128)}
_SPACES = re.compile("  +")
#: A run of colons and spaces that starts with a colon (after " :" is made ":").
_COLONS = re.compile(":[ :]*")
#: The characters `_LOOKALIKE_TABLE` maps, to skip `str.translate` (slow outside ASCII) when
#: none is present.
_LOOKALIKES_PRESENT = re.compile(
    "[" + "".join(re.escape(chr(code)) for code in sorted(_LOOKALIKE_TABLE)) + "]"
)


#: ASCII letters and digits to "a", anything else to " ": the shape `_may_be_spaced` reads.
_ASCII_SHAPES = {code: "a" if chr(code).isalnum() else " " for code in range(128)}
#: Three single letters, each set apart by the same number of separators, in that shape.
_SPACED_SHAPES = tuple(" a" + " " * n + "a" + " " * n + "a " for n in (1, 2, 3))


def _may_be_spaced(text: str) -> bool:
    """False if `_SPACED` cannot match the ASCII `text`: it holds no three single letters or
    digits set apart by one to three separators each. Substring tests on the text's shape
    take a fraction of the time `_SPACED` takes to try every separator."""
    shape = (" " + text + " ").translate(_ASCII_SHAPES)
    return any(spaced in shape for spaced in _SPACED_SHAPES)


def _join_spaced(match: re.Match[str]) -> str:
    step = len(match.group("sep"))
    return match.group()[step :: step + 1]


def _reveal_tags(match: re.Match[str]) -> str:
    return " " + match.group().translate(_TAG_TABLE) + " "


#: Markup that can split a word without showing: an inline HTML tag, or Markdown emphasis marks
#: (`*`, `~`, backticks; not `_`, which joins the words of identifiers) inside a word.
_MARKUP = re.compile(r"</?(?:[biusaBIUSA]|em|strong|span|del|ins|mark|sub|sup|code|font"
                     r"|small|big|EM|STRONG|SPAN|CODE|FONT)(?:\s[^<>\n]{0,40})?>"
                     r"|(?<=\w)[*~`]+(?=\w)")


def normalize_injection_text(text: str) -> str:
    """The text as the injection patterns read it: `str` in, `str` out, no error.

    In order: inline HTML tags and Markdown emphasis marks inside a word removed
    (`**Ig**nore`, `<b>Ig</b>nore` -> `Ignore`); Unicode tag characters read as the ASCII
    they mirror; invisible characters removed (zero-width U+200B-U+200F, U+2060-U+2064,
    U+FEFF, soft hyphen, variation selectors, bidi controls); NFKD, which includes NFKC's
    compatibility mappings (full-width `ｉｇｎｏｒｅ`, ligatures, mathematical letters);
    Cyrillic, Greek, Armenian, Cherokee and small-capital look-alikes mapped to Latin (`іgnоrе` with
    Cyrillic і, о, е); case folded; accents and other combining marks removed (`instruções`
    -> `instrucoes`); three or more single letters set apart by the same separator joined
    (`i.g.n.o.r.e` -> `ignore`); every run of whitespace, punctuation and underscores made
    one space, or ": " where it holds a colon; leading and trailing spaces dropped.
    `"IGNORE   all\\nprevious...instructions"` gives `"ignore all previous instructions"`.
    Linear in the length of the text.
    """
    if "<" in text or "*" in text or "~" in text or "`" in text:
        text = _MARKUP.sub("", text)
    text = canonical(text, join=False, any_tag=False).text  # references, tags, letters, forms
    if not text.isascii():
        if _HIDDEN.search(text):
            if _TAGS.search(text):
                text = _TAGS.sub(_reveal_tags, text)
            text = _INVISIBLE.sub("", text)
        text = unicodedata.normalize("NFKD", text)
        bare = _MARKS.sub("", text)
        if bare.isascii() and "\u0345" not in text:
            # ASCII and combining marks only (most accented Latin text): no look-alike to map,
            # and case folding is lower-casing, as the one mark it changes is U+0345.
            text = bare.lower()
        else:
            if _LOOKALIKES_PRESENT.search(text):
                text = text.translate(_LOOKALIKE_TABLE)
            text = _MARKS.sub("", text.casefold())
    else:
        text = text.lower()
    # Every run of gap characters becomes one space (the runs of one space stay as they are),
    # then every run of spaces and colons holding a colon becomes ": ".
    if text.isascii():
        if _may_be_spaced(text):
            text = _SPACED.sub(_join_spaced, text)
        text = _SPACES.sub(" ", text.translate(_ASCII_GAPS)).strip(" ")
    else:
        text = _SPACED.sub(_join_spaced, text)
        text = _GAPS.sub(" ", text.replace("_", " ")).strip(" ")
    if ":" in text:
        text = _COLONS.sub(": ", text.replace(" :", ":")).rstrip(" ")
    return text


# -- matching -----------------------------------------------------------------------------

#: What a literal space in a pattern's regex stands for. In normalised text a gap between
#: words is " " or ": ", so this matches one gap or none (invisible characters used as
#: spaces run words together).
_OPTIONAL_GAP = "[ :]{0,2}"
_WORD_END = r"(?![^\W_])"
#: The shape of one lead: words of the normalised text set apart by single spaces.
_LEAD = re.compile(r"[^\W_]+(?: [^\W_]+)*")


def _source(pattern: InjectionPattern) -> str:
    return "(?:" + pattern.regex.replace(" ", _OPTIONAL_GAP) + ")" + _WORD_END


_Trie = dict[str, "_Trie"]


def lead_regex(leads: Iterable[str]) -> str:
    """A regex matching where the text starts with one of `leads` (letters and digits, a
    space standing for any run of spaces and colons, which covers a pattern's optional gap;
    `InjectionMatcher` checks their shape, so nothing needs escaping), written as a
    trie: leads sharing their first letters share those branches, so at one position `re`
    follows at most one branch per letter instead of trying every lead. A lead that another
    lead starts with makes the longer one redundant (`"you"` covers `"you are"`).
    `["act as", "ai", "am", "you", "you are"]` gives `(?:a(?:ct[ :]*as|i|m)|you)`; the
    order of branches does not matter, as it is only used in a look-ahead."""
    trie: _Trie = {}
    for lead in leads:
        node = trie
        for char in lead:
            node = node.setdefault(char, {})
        node[""] = {}

    def branch(node: _Trie) -> str:
        if "" in node:  # a lead ends here: what follows does not matter
            return ""
        parts = [("[ :]*" if char == " " else char) + branch(child)
                 for char, child in sorted(node.items())]
        if len(parts) == 1:
            return parts[0]
        if all(len(part) == 1 for part in parts):
            return "[" + "".join(parts) + "]"
        return "(?:" + "|".join(parts) + ")"

    return branch(trie)


class InjectionMatcher:
    """A pattern table compiled once into one regex: `detect(text) -> InjectionMatch | None`.

    The regex is one alternation, searched over the whole normalised text in one pass. It is
    tried only after a space or colon (the normalised text is searched with a space put
    before it, so every word start follows one), which `re` finds with a fast scan; and when
    every pattern declares its `lead` words, only where one of them starts (a look-ahead
    over `lead_regex` of all the leads), so most words cost one failed letter test. Each
    alternative ends with an empty named group, so the match names its pattern (`lastgroup`)
    without slowing the search, as groups opening each alternative would. Raises ValueError
    naming every bad pattern at once (`id: unknown category 'x' (known: ...)`, duplicate ids,
    no examples, leads that are not lower-case words, regexes that do not compile, use a
    capturing group or match the empty text).
    """

    __slots__ = ("patterns", "_regex")

    def __init__(self, patterns: Iterable[InjectionPattern]) -> None:
        self.patterns = tuple(patterns)
        errors = []
        seen: set[str] = set()
        for pattern in self.patterns:
            errors += [f"{pattern.id}: {e}" for e in _field_problems(pattern, seen)]
            seen.add(pattern.id)
        if not self.patterns:
            errors.append("no patterns")
        alternatives = (f"{_source(p)}(?P<p{i}>)" for i, p in enumerate(self.patterns))
        gate = ""
        if self.patterns and all(p.lead for p in self.patterns) and not errors:
            # `\Z` also lets the alternatives be tried at the end of the text, where only one
            # matching the empty text can match: so `regex.match(" ")` below still finds those.
            leads = (lead for p in self.patterns for lead in p.lead)
            gate = "(?=" + lead_regex(leads) + r"|\Z)"
        try:
            regex: re.Pattern[str] | None = re.compile(
                "[ :]" + gate + "(?:" + "|".join(alternatives) + ")"
            )
        except re.error:
            regex = None
        if regex is None or regex.groups != len(self.patterns) or regex.match(" "):
            errors += [f"{p.id}: {e}" for p in self.patterns for e in _regex_problems(p)]
        if errors or regex is None:
            raise ValueError("\n".join(errors))
        self._regex = regex

    def detect(self, text: str) -> InjectionMatch | None:
        """The first match in `text` (lowest start in the normalised text; at one start, the
        pattern listed first), or None. The whole text is read; nothing is truncated."""
        found = self._regex.search(" " + normalize_injection_text(text))
        if found is None or found.lastgroup is None:
            return None
        pattern = self.patterns[int(found.lastgroup[1:])]
        # Offsets in " " + normalised: the match starts at the space or colon before the word.
        return InjectionMatch(pattern.id, pattern.category, found.start(), found.end() - 1)


def _field_problems(pattern: InjectionPattern, seen: set[str]) -> list[str]:
    problems = []
    if pattern.id in seen:
        problems.append("duplicate id")
    if pattern.category not in CATEGORIES:
        problems.append(f"unknown category {pattern.category!r} (known: {', '.join(CATEGORIES)})")
    if pattern.language not in LANGUAGES:
        problems.append(f"unknown language {pattern.language!r} (known: {', '.join(LANGUAGES)})")
    if not pattern.examples:
        problems.append("no examples")
    problems += [f"lead {lead!r} is not lower-case words set apart by single spaces"
                 for lead in pattern.lead if not _LEAD.fullmatch(lead) or lead != lead.lower()]
    return problems


def _regex_problems(pattern: InjectionPattern) -> list[str]:
    try:
        re.compile(pattern.regex)  # positions in the message are those of the table's text
        compiled = re.compile(_source(pattern))
    except re.error as error:
        return [f"regex does not compile: {error}"]
    if compiled.groups:
        return ["regex uses a capturing group (write (?:...))"]
    if compiled.match("") is not None:
        return ["regex matches the empty text"]
    return []


_MATCHER = InjectionMatcher(INJECTION_PATTERNS)


def detect_injection(text: str) -> InjectionMatch | None:
    """The first known injection phrasing in `text`, or None (attempts to replace
    the agent's instructions, reveal hidden prompts or force it to use its tools).

    Checks the English and Portuguese patterns of `INJECTION_PATTERNS` together, whatever
    the configured language, over the whole text after `normalize_injection_text`; offsets
    are in that normalised text (of the window it was found in, for a text longer than
    `WINDOW`: read in windows of that many characters, each with `_AROUND` more of the
    text after it, so that no single scan holds the interpreter for long and a phrasing
    across two windows is read whole). Pure, linear in the length of the text; never raises.
    """
    if len(text) <= WINDOW + _AROUND:
        return _MATCHER.detect(text)
    for start in range(0, len(text), WINDOW):
        found = _MATCHER.detect(text[start : start + WINDOW + _AROUND])
        if found is not None:
            return found
    return None


#: A text longer than this (and `_AROUND`) is read in windows (`detect_injection`).
WINDOW = 32_768
#: What each window reads past its end: longer than any phrasing the patterns find.
_AROUND = 2048
