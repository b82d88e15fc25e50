"""Where a known key's or a secret's value goes on past what would end a word: a line break
inside it (a key's, a JWT's, a Slack webhook's path, a password's value), a code's joined
strings (`"sk-proj-Ab" + "3dEf…"`), an inline element ending inside it."""

from __future__ import annotations

import re

from replyguard.engine.marks import KEY_START


def key_goes_on(one: str, start: int, end: int) -> bool:
    """Does the line ending at `start` end inside a known key's token, its next line at `end`
    going on with more of it: the key's start and 6 characters of it at least, the two lines
    joined (a break inside its start too: `xox` / `b-1234…`, `e` / `yJhb…`), and the next
    line's letters and digits read as more of a key (`more_of_a_key`), or the line before
    holding fewer than 12 of the key's characters (no whole key yet: `xoxb-1` / `234…`);
    or inside a Slack webhook's path (`…/services/T0A1B2C3D/` / `B4E5…`)?"""
    head = token_before(one, start)
    word = _KEY_CHARS.match(one, end, min(len(one), end + 64)).group()  # type: ignore[union-attr]
    if one[end] == ".":  # (a JWT's part ending its line, `eyJ…` / `.eyJ…`)
        return _JWT_PART.search(head) is not None and len(word) > 1
    if one[start - 1] == "/":
        return _SLACK_PATH.search(head) is not None and word != ""
    if _SLACK_PATH.search(head) is not None:
        return more_of_a_key(word)
    key = _KEY_JOINED.search(head + word)
    if key is None or key.start() >= len(head):
        return False
    return len(head) - key.start() < 12 or word[0] in "-_" or more_of_a_key(word)


#: A key's characters at a line's start (`key_goes_on`): letters, digits, `_`, `-`, a dot.
_KEY_CHARS = re.compile(r"[\w.-]*")


#: A JWT's header or payload ending a token, before the dot after it (`key_goes_on`).
_JWT_PART = re.compile(r"(?<![\w-])eyJ[\w-]{4,}\Z|\.eyJ[\w-]{4,}\Z")


#: A Slack webhook's path, up to a line's end (`key_goes_on`).
_SLACK_PATH = re.compile(r"hooks\.slack\.com/services/[A-Za-z0-9/]*\Z")


#: A known key's start and 6 characters of it at least, ending a token: read on two lines
#: joined (`key_goes_on`).
_KEY_JOINED = re.compile(r"(?<![A-Za-z0-9])" + KEY_START + r"[\w.-]{6,}\Z")


def password_goes_on(one: str, start: int, end: int) -> bool:
    """Does the line ending at `start` give a password's or a secret's value after its name
    and `:` or `=` (`password: Qz7xK2mP9w`), the next line going on with more of it: letters
    and digits reading as more of a key (`more_of_a_key`: `Ls8aB3dE`, not `Then`)?"""
    return more_of_a_key(token_after(one, end)) and _gives_a_value(one, start)


def _gives_a_value(one: str, start: int) -> bool:
    """Does the line ending at `start` (its last 300 characters) end in a password's or a
    secret's value after its name and `:` or `=` (`_PASSWORD_LINE`)?"""
    floor = max(0, start - 300)
    line = one[max(one.rfind("\n", floor, start) + 1, floor):start]
    return ("=" in line or ":" in line) and _PASSWORD_LINE.search(line) is not None


#: A line giving a password's or a secret's value, up to its end (`password_goes_on`).
_PASSWORD_LINE = re.compile(
    r"(?i:pass(?:word|wd|phrase)?|pwd|secret|token|senha)[\w.-]{0,24}[\"'`]?[ \t]*[:=]"
    r"[ \t]*[\"'`]?(?![0-9]+\Z)[^\s\"'`]+\Z")


def more_of_a_key(word: str) -> bool:
    """Does `word`, the letters and digits starting a line after a key's or a token's part,
    read as more of it (a digit in it, or letters of mixed case: `Pz8XvTn7`), not as a word
    of prose (`Then`, `the`, `OK`)?"""
    return any(c.isdigit() for c in word) or not (word[1:].islower() or word.isupper())


def token_before(one: str, at: int) -> str:
    """The run of characters that are no space ending at `at` (its last 300 at most)."""
    floor = max(0, at - 300)
    return one[max(one.rfind(" ", floor, at), one.rfind("\n", floor, at), floor - 1) + 1:at]


def token_after(one: str, at: int) -> str:
    """The letters and digits from `at` on (64 at most)."""
    end = at
    limit = min(len(one), at + 64)
    while end < limit and one[end].isalnum():
        end += 1
    return one[at:end]


def strings_joined(one: str, start: int) -> bool:
    """Does the `" + "` at `start` (a quote, `+`, the same quote: a code's joined strings)
    join two parts of one value: the strings before it starting with a known key's start
    (`"sk-proj-Ab" + "3dEf…"`), or the strings joined from the first of them doing so (a
    key's start split across them: `"gh" + "p_…"`, `"sk" + "-proj-" + "…"`), or given
    after a password's or a secret's name and operator (`password = "Qz7x" + "K2mP9w"`)?
    Read back over up to 8 strings so joined (a card's groups so written are read each in its
    string: `engine.lists`)."""
    quote = one[start]
    at = start
    for _ in range(8):
        opening = one.rfind(quote, max(0, at - 256), at)
        if opening == -1:
            return False
        if _KEY_OPENING.match(one, opening + 1) is not None:
            return True
        before = one[max(0, opening - 64):opening]
        if _NAMED_VALUE.search(before) is not None:
            return True
        joined = _JOINED_BEFORE.search(before)
        if joined is None:
            return _KEY_OPENING.match(_strings_from(one, opening, quote)) is not None
        at = opening - (len(before) - joined.start())
    return False


def _strings_from(one: str, opening: int, quote: str) -> str:
    """What the strings joined with `+` from the one opening at `opening` hold, joined (their
    first 16 characters at most, 8 strings at most): where a key's start is split across
    them (`"gh" + "p_…"`, `"sk" + "-proj-…"`)."""
    at = opening + 1
    held = ""
    for _ in range(8):
        close = one.find(quote, at, at + 17)
        if close == -1:
            return held + one[at:at + 16]
        held += one[at:close]
        joined = _JOINED_AFTER.match(one, close + 1)
        if len(held) >= 16 or joined is None or one[joined.end():joined.end() + 1] != quote:
            return held
        at = joined.end() + 1
    return held


#: A known key's start opening a string (`strings_joined`).
_KEY_OPENING = re.compile(KEY_START)


#: A password's or a secret's name and its operator, before a string (`strings_joined`).
_NAMED_VALUE = re.compile(
    r"(?i:pass(?:word|wd|phrase)?|(?<![A-Za-z])pwd?|secret|token|senha|api[_-]?key)[\w.-]{0,24}"
    r"[\"'`]?\]?"
    r"[ \t]*(?::=|=>|[:=])[ \t]*@?\Z")


#: A string's quote, `+` and spaces ending what stands before a string (`strings_joined`).
_JOINED_BEFORE = re.compile(r"[\"'][ \t]*\+[ \t]*\Z")
#: `+` and spaces between a string's closing quote and the next one's opening (`_strings_from`).
_JOINED_AFTER = re.compile(r"[ \t]*\+[ \t]*")


def in_password_value(one: str, start: int) -> bool:
    """Does the line ending at `start` give a password's or a secret's value after its name
    and `:` or `=`, the value's first part in an inline element (`Password:
    <span>Qz7x</span><span>K2mP9w</span>`: the elements read as one word)?"""
    return _gives_a_value(one, start)
