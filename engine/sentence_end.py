"""Does a sentence end at an event the segmenter found: the prose rules, read from the words
around it (abbreviations, initials, ellipses, inline list markers, CJK sentence ends).

Each rule reads a bounded stretch of text around the event, and says when it must see more.
"""

from __future__ import annotations

import re

from replyguard.engine.segment_rules import (
    BEFORE_NAME,
    BEFORE_NUMBER,
    CJK_TERMINALS,
    CLOSERS,
    FIRST_MARKERS,
    HOLD,
    NOT_START,
    NUMBER_SIGNS,
    OPENERS,
    QUOTATIVE,
    TERMINALS,
    Abbreviations,
)

#: The most read before or after an event (no abbreviation or starter is longer; reading the
#: whole piece at each period made a piece of many periods cost its length squared).
LOOKAHEAD = 256
#: An event: (start, end of its punctuation, start of its last sentence-end run or -1 for a
#: newline, that run's last character if it is a CJK sentence end else "").
Event = tuple[int, int, int, str]

_NONSPACE = re.compile(r"\S")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")  # a word, "I'm" and "don’t" included
_MARKER_WORD = re.compile(r"[0-9]{1,2}|[A-Za-z]")


def _marker_pattern(marker: str) -> re.Pattern[str]:
    """Finds the inline list marker `marker` (`1.`, `2.)`, `b)`) with whitespace on both sides
    (the marker first, so that `re` looks for its first character before trying the rest)."""
    return re.compile(rf"{marker}(?<!\S{marker})(?:\.\)?|\))(?=\s)")


#: Each marker's predecessor's pattern: `2` -> `1`, `b` -> `a`.
_PREDECESSOR = {
    after: _marker_pattern(before)
    for markers in ([str(i) for i in range(1, 100)], "abcdefghijklmnopqrstuvwxyz",
                    "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for before, after in zip(markers, markers[1:], strict=False)
}
#: A lower-case letter marker starting a sentence (`b. `, `b.) `, `b) `), or what may yet
#: become one at the end of the text.
_NEXT_MARKER = re.compile(r"[a-z](?:\.\)?|\))\s")
_NEXT_MARKER_START = re.compile(r"[a-z](?:\.\)?|\))?")


def sentence_end(buf: str, event: Event, m: int, final: bool, rules: Abbreviations) -> int | None:
    """Where a piece ends if the event ends a sentence, the next text starting at `m`: `m`, or
    the start of an inline list marker the event ends with ("a. Red b. Blue" ends before `b`);
    -1 for no end; None when what follows `buf` may decide it (`final`: nothing follows).

    A sentence ends when the next one starts with a capital, a digit, an opener or a Markdown
    marker, after `!`, `?`, an ellipsis or a period that is not an abbreviation's or an
    initial's (`Abbreviations.kind`); an inline list marker's period ends none. A CJK sentence
    end ends one before anything but punctuation (`。」次` ends; `３．１４`, `ｅｘ．ｃｏｍ` and
    `「行きます。」と` do not).
    """
    start, k, punct, cjk = event
    if _in_quoted_secret(buf, punct):
        return -1
    if cjk:
        return -1 if _cjk_goes_on(buf, cjk, k, m) or _marked_value(buf, start, k, m) else m
    j = _start_at(buf, m, final)
    if j is None:
        return None
    char = buf[j]
    if char.isspace() or char in NOT_START or _separates_digits(buf, punct, m, j):
        return -1
    if buf[punct] == "." and buf[punct + 1] not in TERMINALS:
        return _after_period(buf, punct, m, j, final, rules)
    if char.islower():
        return _before_marker(buf, m, j, final)
    if buf[punct] == "…" or buf[punct + 1] in ".…":
        return _after_ellipsis(buf, m, j, final, rules)
    return m


#: A secret's name given a quoted value that is still open where the text ends: `password =
#: "Horse. `, `{"password": "Qz7x! `, `DB_PASSWORD='…`, `"senha": "…` (on one line).
_OPEN_QUOTED_SECRET = re.compile(
    r"""(?i:pass(?:word|wd|phrase|code)?|pwd|secret|senha|token|api[_-]?key)[\w-]*["']?"""
    r"""[ \t]*(?::=|=>|[:=])[ \t]*(?P<q>["'])(?:(?!(?P=q))[^\n\\]|\\.)*\Z""")


def _in_quoted_secret(buf: str, punct: int) -> bool:
    """Is the event inside the quoted value of a secret's assignment (`password = "Horse.
    Battery9!"`)? A secret's value is one piece whatever it holds: cut at its `. `, its two
    halves would each read as no password."""
    head = buf[max(0, punct - LOOKAHEAD, buf.rfind("\n", 0, punct) + 1) : punct]
    if '"' not in head and "'" not in head:
        return False
    return _OPEN_QUOTED_SECRET.search(head) is not None


def _separates_digits(buf: str, punct: int, m: int, j: int) -> bool:
    """Is the event a period with one space on either side between two digits (`4539 . 1488
    . 0343 . 6467`)? It separates a number's groups, as `engine.detectors` reads it."""
    return (j == m == punct + 2 and punct >= 2 and buf[punct] == "." and buf[punct - 1] == " "
            and buf[punct - 2].isdigit() and buf[j].isdigit())


def _cjk_goes_on(buf: str, cjk: str, k: int, m: int) -> bool:
    """Does the sentence go on after a CJK sentence end `cjk` (its closers end at `k`)? Before
    punctuation; before a quotative particle right after a closed quotation (「行きます。」と
    言った); after `．` written between digits or letters (`３．１４`, `ｅｘ．ｃｏｍ`)."""
    char = buf[m]
    if char in NOT_START:
        return True
    if m == k and buf[k - 1] in CLOSERS and char in QUOTATIVE:
        return True
    return cjk == "．" and m == k and (char.isdigit() or char.islower())


#: The full-width `.!?` and the ideographic full stops (`engine.segment` reads them between
#: two Latin letters or digits as inside a value), and the Latin letters and digits, ASCII or
#: full-width.
_WIDE = frozenset("．！？。｡")
_LATIN = re.compile("[A-Za-z0-9\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")
def _marked_value(buf: str, start: int, k: int, m: int) -> bool:
    """Is the CJK sentence end at `start` (one character, nothing after it to `m`) written
    between a value's end in closers and a Latin letter or digit: an ASCII character, up to
    three closing quotes, brackets or emphasis marks (`**S3cret!Pw9**。No`, `(hunter2!)。acco`,
    `「Qz7xK2mP9w」。va`), then the stop? A value's characters run on across a full-width
    stop (as `engine.segment` reads one between two Latin letters or digits) and the
    detectors' view reads through emphasis: no sentence end, so that both read the same
    text. After CJK (`**こんにちは**。Then`) the stop ends a sentence."""
    if k != start + 1 or m != k or buf[start] not in _WIDE or not _LATIN.match(buf, m):
        return False
    i = start
    while i > 0 and start - i < 3 and buf[i - 1] in CLOSERS:
        i -= 1
    return 0 < i < start and "!" <= buf[i - 1] <= "~" and buf[i - 1] not in CLOSERS


def _start_at(buf: str, m: int, final: bool) -> int | None:
    """Where the character that tells whether a sentence starts at `m` is: past opening quotes,
    brackets and emphasis (`(see below)` starts no sentence); None: need more text."""
    j = m
    while j < len(buf) and buf[j] in OPENERS and j - m < LOOKAHEAD:
        j += 1
    if j == len(buf):
        return m if final else None
    return j


def _after_period(buf: str, punct: int, m: int, j: int, final: bool,
                  rules: Abbreviations) -> int | None:
    """`sentence_end` for a single period at `punct`: what the word before it means."""
    # The word the period ends and the one before it (words split at whitespace; none when
    # the period follows whitespace), as `str.rsplit` finds them from the right.
    head = buf[max(0, punct - LOOKAHEAD) : punct]
    if head[-1:].isspace():
        words = [*head.rsplit(None, 1)[-1:], ""]
    else:
        words = head.rsplit(None, 2)[-2:]
    raw = words[-1] if words else ""
    word = raw.lstrip(OPENERS)
    if not word.isascii():  # (CJK is written without spaces: `…です。ver.` ends in `ver`)
        word = _CJK_BEFORE.sub("", word)
    previous = words[-2].lstrip(OPENERS) if len(words) == 2 else ""
    if raw == word and (marker := _list_marker(buf, word, previous, punct - len(word))) is not None:
        return marker
    if buf[j].islower():
        return _before_marker(buf, m, j, final)
    if not word and previous.endswith("."):  # a spaced ellipsis (". . .")
        return _after_ellipsis(buf, m, j, final, rules)
    kind = rules.kind(word, previous)
    if kind == HOLD:
        return -1
    if kind == BEFORE_NUMBER:
        if buf[j].isdigit():
            return -1
        return _before_code(buf, m, j, final) if word.lower() in NUMBER_SIGNS else m
    if kind == BEFORE_NAME:
        starter = _word_at(buf, j, final)
        return None if starter is None else m if starter in rules.starters else -1
    return m


#: A code after a number sign: two or three capitals and a digit, a space between them or
#: not (`AB 12 34 56`, `AB123456C`, `QQ 12`), or a capital and a digit (`A1`); and what may
#: yet become one at the end of the text.
_CODE = re.compile(r"[A-Z]{2,3} ?[0-9]|[A-Z][0-9]")
_CODE_START = re.compile(r"[A-Z]{1,3}|[A-Z]{2,3} ")


def _before_code(buf: str, m: int, j: int, final: bool) -> int | None:
    """`sentence_end` after a number sign (`No.`, `n°.`) before a capital: no end before a
    code (`NI no. AB 12 34 56`, `Part No. A1`: the number the sign names), an end before a
    word ("I said no. AB testing is next."); None: need more text."""
    if _CODE.match(buf, j) is not None:
        return -1
    if not final and _CODE_START.fullmatch(buf, j) is not None:
        return None
    return m


#: A word's part up to its last CJK sentence end or comma (`_after_period`).
_CJK_BEFORE = re.compile(r"\A.*[" + CJK_TERMINALS + "\u3001\uff0c]")


def _after_ellipsis(buf: str, m: int, j: int, final: bool, rules: Abbreviations) -> int | None:
    """`sentence_end` after an ellipsis and a capital: an end, but before a word that goes on
    a sentence ("Well... I think so.")."""
    if not rules.after_ellipsis:
        return m
    word = _word_at(buf, j, final)
    return None if word is None else -1 if word in rules.after_ellipsis else m


def _word_at(buf: str, j: int, final: bool) -> str | None:
    """The word starting at `j` (letters, and apostrophes between them, written "'"): "" for
    none, None while it may go on past the end of `buf`. Read up to `LOOKAHEAD` characters."""
    found = _WORD.match(buf, j, j + LOOKAHEAD)
    if found is None:
        return ""
    end, n = found.end(), len(buf)
    if not final and (end == n or (end + 1 == n and buf[end] in "'’")):
        return None
    return found.group().replace("’", "'")


def _list_marker(buf: str, word: str, previous: str, w: int) -> int | None:
    """For a period after `word` (at `w`): -1 if the word is an inline list marker (its period
    ends no sentence), `w` if it is a marker whose item starts a piece (the one before it
    ended without a sentence end: "a. Red b. Blue"), None if it is no marker.

    A marker opens an item at a piece's start, after a colon ("Steps: 1. Open"; `1`, `a`,
    `A`) or after its predecessor's marker in the piece (`b` after `a`, `3` after `2`)."""
    if not _MARKER_WORD.fullmatch(word) or (w > 0 and not buf[w - 1].isspace()):
        return None
    if w <= LOOKAHEAD and _NONSPACE.search(buf, 0, w) is None:
        return -1  # (the piece starts with it)
    if word in FIRST_MARKERS and previous.endswith(":"):
        return -1
    return w if _follows(buf, w, word) else None


def _before_marker(buf: str, m: int, j: int, final: bool) -> int | None:
    """`sentence_end` before a lower-case letter: an end only before a letter marker that
    follows its predecessor's in the piece ("a. Red. b. Blue"); None: need more text."""
    if j != m:
        return -1
    if _NEXT_MARKER.match(buf, m) is None:
        if not final and _NEXT_MARKER_START.fullmatch(buf, m) is not None:
            return None
        return -1
    return m if _follows(buf, m, buf[m]) else -1


def _follows(buf: str, w: int, marker: str) -> bool:
    """Is there the marker before `marker` (`1` before `2`, `a` before `b`) in the
    `LOOKAHEAD` characters before `w`?"""
    before = _PREDECESSOR.get(marker)
    return before is not None and before.search(buf, max(0, w - LOOKAHEAD), w) is not None
