"""Markdown's emphasis and code marks (`*`, `_`, `~`, `` ` ``): whether a run of them at a
word's edge or inside a word is markup the canonical view reads through, or part of the word
(`DB_PASSWORD`, a mask `**** 1111`)."""

from __future__ import annotations

import re

from replyguard.engine.chars import in_word
from replyguard.engine.markup import ENCODED_ALNUM

#: What a known key or token starts with (`sk-`, `ghp_`, `whsec_`, `AKIA`, `eyJ`...), as
#: `engine.detectors` finds them.
KEY_START = (r"(?:sk-|[rsp]k_|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|AIza|hf_|npm_|SG\.|whsec_"
             r"|AKIA|ASIA|eyJ)")
#: Where a known key starts in a token: after no ASCII letter, digit or `-` (after brackets,
#: quotes, marks or a letter of a script written without spaces: `是ghp_…`, `__sk-…`).
_KEY_IN_TOKEN = re.compile(r"(?<![A-Za-z0-9-])(?=" + KEY_START + ")")
#: What may end a key's token after the key: punctuation, quotes and marks.
_AFTER_KEY = ".,;:!?)]}\"'*_~`"
#: A letter or digit URL-encoded: more of the word (`ghp_%31…`: the `_` is inside it).
_ENCODED_LETTER = re.compile(ENCODED_ALNUM)
#: The runs of marks that set apart part of a key in emphasis (`*`, `**`, `__`...; a single
#: `_` is a key's own: `sk_live_…`).
_EMPHASIS_RUNS = frozenset({"*", "**", "***", "__", "___"})


def marks_at_edge(one: str, start: int, end: int) -> bool:
    """Is the run of marks `one[start:end]` at a word's edge, as emphasis or a code span is:
    opening (the start, a space, punctuation or a letter of a script written without spaces
    before it: `(**x`, `:_x`, `-**6789`, `は__4111`), or closing (a word before it, then
    anything else: `x**-`, `x__|`; but `_` then `.` or `-` and a word, as inside a token:
    `eyJ…_.eyJ…`); an unpaired `_` beside a number alone is a stray mark (`4111 … 1111_`).
    Marks inside a word are kept (`DB_PASSWORD`, `ghp\\_abc`); a mark escaped by a backslash
    at a word's edge, and a run beside one, is read as one (`_escaped_edge`)."""
    size = len(one)
    if _a_mask(one, start, end):
        return False
    escaped = _escaped_edge(one, start, end)
    if escaped is not None:
        return escaped
    before = one[start - 1] if start else " "
    if before == ">" and not in_word(one[end] if end < size else " "):
        before = _before_closing_tags(one, start)  # (`…</b>_ ok`: closing what the word opened)
    if not in_word(before):
        return (one[start] != "_" or _closed(one, start, end)
                or _NUMBER_AFTER.match(one, end) is not None)
    after = one[end] if end < size else " "
    if in_word(after) or (after == "%" and _ENCODED_LETTER.match(one, end) is not None):
        return False
    if one[start] != "_" or after not in ".-":
        return one[start] != "_" or _opened(one, start, end) or _number_before(one, start)
    following = one[end + 1] if end + 1 < size else " "
    return (not following.isalnum() and _opened(one, start, end)) or _closes(one, start, end)


def _escaped_edge(one: str, start: int, end: int) -> bool | None:
    """For a run of marks escaped by a backslash (`\\_` shows as `_`) or followed by an escaped
    one (`_\\_`): is it at a word's edge, read as a mark whether paired or not (an escaped
    mark is shown as typed, no emphasis to pair: `\\_123-45-6789\\_`, `カードは\\_4111…`,
    `\\__4111 … 1111_\\_`)? Inside a word it is the word's (`ghp\\_abc`). None: neither."""
    size = len(one)
    if start and one[start - 1] == "\\":
        before = one[start - 2] if start > 1 else " "
        return not (in_word(before) and in_word(one[end] if end < size else " "))
    if end + 1 < size and one[end] == "\\" and one[end + 1] in "*_~`":
        before = one[start - 1] if start else " "
        return not (in_word(before) and in_word(one[end + 2] if end + 2 < size else " "))
    return None


#: A closing tag (`</b>`, `</span >`), matched whole from its `<` (`_before_closing_tags`).
_CLOSING_TAG = re.compile(r"</[A-Za-z][A-Za-z0-9-]{0,15}[ ]?>")


def _before_closing_tags(one: str, start: int) -> str:
    """The character before `one[start]`, past the closing tags (at most four) right before
    it: a mark after `</b>` closes what the word in the element ended
    (`_<b>4111 … 1111</b>_`, `_… <span>6467</span>_`)."""
    at = start
    for _ in range(4):
        if at == 0 or one[at - 1] != ">":
            break
        tag = one.rfind("<", max(0, at - 20), at)
        if tag < 0 or _CLOSING_TAG.fullmatch(one, tag, at) is None:
            break
        at = tag
    return one[at - 1] if at else " "


#: A number (digits, and `.`, `/` or `-` between them, up to the next space or punctuation)
#: after an unpaired opening `_`.
_NUMBER_AFTER = re.compile(r"[0-9][0-9./-]{0,31}(?![^\s,;:!?)\]])")
#: A number (as `_NUMBER_AFTER`, since the last space or bracket) before an unpaired closing `_`.
_NUMBER_BEFORE = re.compile(r"(?:\A|(?<=[\s(\[]))[0-9][0-9./-]{0,31}\Z")


def _number_before(one: str, start: int) -> bool:
    """Does a number stand before the unpaired run of `_` closing a word at `start` (a
    stray mark, `4111 … 1111_ ok`: no token's own, which holds letters too)?"""
    floor = max(0, start - 33)
    number = _NUMBER_BEFORE.search(one[floor:start])
    return number is not None and (floor == 0 or number.start() > 0)


def _closes(one: str, start: int, end: int) -> bool:
    """Does the run of marks `one[start:end]` close the same run opened at the start of the
    word before it (`@_example_.com`: a domain's label in emphasis), not a mark inside a
    token (`eyJ…_.eyJ…`)?"""
    word = start
    while word > 0 and in_word(one[word - 1]):
        word -= 1
    opening = word - (end - start)
    return (word < start and opening >= 0 and one[opening:word] == one[start:end]
            and not in_word(one[opening - 1] if opening else " "))


def inner_stars(one: str, start: int, end: int) -> int | None:
    """Where the emphasis in a run of marks inside a word starts, when it pairs with a run
    at the token's edge (so a key typed with part of it in bold is read whole): `**` closing
    what opened the token (`**AKIA**IOSFODNN7EXAMPLE`), or the `**` after a key's own `_`
    opening what closes the token (`ghp_**1234…**`, `pass**word**:` too). None: the run is
    part of the word (a value split by marks inside a word, `4111**1111**1111**1111`, is not
    read). Inside a known key's token, a pair of runs sets apart part of it in emphasis
    (`ghp_abc**def**…`, `sk-proj-ab__cd__…`): each run is read as nothing."""
    if _pair_in_a_key(one, start, end):
        return start
    run = one[start:end]
    stars = run.lstrip("_")
    if not stars or stars.strip("*"):
        return None
    if stars == run and _closing_the_opening(one, start, run):
        return start
    after = _token_end(one, end)
    tail = one[end:after].rstrip(".,;:!?)]}\"'")
    if tail.endswith(stars) and not tail[: -len(stars)].endswith("*"):
        return end - len(stars)
    return None


def _pair_in_a_key(one: str, start: int, end: int) -> bool:
    """Is the run of marks `one[start:end]` one of exactly two such runs inside a known key
    (from the key's start in its token, `KEY_START`, to the token's end, marks and
    punctuation after it left out), within 256 characters either side?"""
    run = one[start:end]
    if run not in _EMPHASIS_RUNS:
        return False
    floor = max(0, start - 256)
    token = max(one.rfind(" ", floor, start), one.rfind("\n", floor, start)) + 1
    if token == 0 and floor > 0:
        return False  # (a token longer than 256 characters: no key read in it)
    key = _KEY_IN_TOKEN.search(one, token, start)
    if key is None:
        return False
    after = _token_end(one, end)
    while after > end and one[after - 1] in _AFTER_KEY:
        after -= 1
    return one.count(run, key.end(), after) == 2


#: Up to 256 characters of a token, none of them whitespace (`_token_end`).
_TOKEN_REST = re.compile(r"\S{0,256}")


def _token_end(one: str, end: int) -> int:
    """Where the token going on at `end` ends: the next whitespace, at most 256 characters
    on (one bounded scan, so that a run of marks costs the same however long its token)."""
    match = _TOKEN_REST.match(one, end)
    assert match is not None  # (matches the empty string)
    return match.end()


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
    closing = _CLOSING.get(_underscores(one, start, end))
    if closing is None:
        return True
    stop = min(len(one), end + _PAIR_REACH)
    blank = one.find("\n\n", end, stop)
    return closing.search(one, end, stop if blank == -1 else blank) is not None


def _opened(one: str, start: int, end: int) -> bool:
    """Is the run of `_` closing a word at `one[start:end]` opened earlier in its paragraph (the
    same run after none of a word, before a character that is no space)? An unpaired one
    ends a token (`glpat-…xYz_`)."""
    opening = _OPENING.get(_underscores(one, start, end))
    if opening is None:
        return True
    floor = max(0, start - _PAIR_REACH)
    floor = max(floor, one.rfind("\n\n", floor, start) + 1)
    return opening.search(one, floor, start) is not None


def _underscores(one: str, start: int, end: int) -> int:
    """How many `_` a run of marks starting with one begins with: the outer run of an
    opening `_**`...  or the inner one of a closing `_**`, which pair with the same run
    of `_` on the other side (`_**x**_`, `**_x_**`, `_`x`_`)."""
    run = one[start:end]
    return len(run) - len(run.lstrip("_"))


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
            and not in_word(one[start - 2] if start > 1 else " "))
