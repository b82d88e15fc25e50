"""Where a mask's span starts and ends: a value's span may hold one tag or emphasis mark of a
pair whose other one stands right outside it (`4111 <span>1111</span>`, `<b>4111</b> 1111…`,
`*_Qz7xK2mP9w_*`); the mask then covers that one too, so that the markup left around a mask
is balanced (`**** 1111`, not `**** 1111</span>` or `<b>**** 1111`)."""

from __future__ import annotations

import re

#: A tag (its `/` if closing, its name) or a run of Markdown's emphasis and code marks.
_MARKUP = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,15})(?:\s[^<>]{0,200})?(/?)>|[*_~`]+")
#: Elements that have no closing tag (HTML's void elements).
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr"})
_MARKS = "*_~`"
#: How far before a value an opening tag that pairs with a closing one inside it may start.
_TAG_REACH = 256

#: One half of a pair: `("tag", name)` or `("marks", the opening run)`.
Half = tuple[str, str]


def balanced(text: str, start: int, end: int, floor: int = 0) -> tuple[int, int]:
    """The span of a mask over the value `text[start:end]`: wider by each tag or run of marks
    right before `start` (not before `floor`) that opens one closed inside the value, and by
    each right after `end` that closes one opened inside it, innermost first (an element or
    emphasis wholly inside the value, or wholly around it, is left as it is; so are halves
    that pair up around the mask: `<td>4003</td><td>4006</td>` -> `<td>**** 4006</td>`).
    Bounded by the markup inside the value: linear in its length."""
    opened, unopened = _unpaired(text, start, end)
    if unopened == opened[::-1]:
        return start, end  # (`<td>4003</td><td>4006</td>`: what is left around pairs up)
    for half in reversed(opened):
        after = _closing_at(text, end, half)
        if after is None:
            break
        end = after
    for half in unopened:
        before = _opening_before(text, start, half, floor)
        if before is None:
            break
        start = before
    return start, end


def _unpaired(text: str, start: int, end: int) -> tuple[list[Half], list[Half]]:
    """The halves inside `text[start:end]` opened and not closed there (outermost first), and
    those closed there and not opened there (in order: innermost pair first)."""
    opened: list[Half] = []
    unopened: list[Half] = []
    for match in _MARKUP.finditer(text, start, end):
        role, half = _role(text, match)
        if role == "open":
            opened.append(half)
        elif role == "close":
            if opened and opened[-1] == half:
                opened.pop()
            elif not opened:
                unopened.append(half)
    return opened, unopened


def _role(text: str, match: re.Match[str]) -> tuple[str, Half]:
    """Whether a tag or a run of marks opens, closes or is neither (a void element, a mark
    inside a word: `DB_PASSWORD`), and the pair it is half of."""
    if match.group(2) is not None:
        name = match.group(2).lower()
        if name in _VOID or match.group(3):
            return "", ("tag", name)
        return ("close" if match.group(1) else "open"), ("tag", name)
    run = match.group()
    i, j = match.span()
    before = text[i - 1] if i else " "
    after = text[j] if j < len(text) else " "
    opens = not before.isalnum() and not after.isspace()
    closes = not before.isspace() and not after.isalnum()
    if opens == closes:
        return "", ("marks", run)
    return ("open", ("marks", run)) if opens else ("close", ("marks", run[::-1]))


def _closing_at(text: str, at: int, half: Half) -> int | None:
    """Where the half closing `half` that starts at `at` ends, if one does."""
    kind, what = half
    if kind == "tag":
        close = f"</{what}>"
        return at + len(close) if text[at:at + len(close)].lower() == close else None
    closing = what[::-1]
    after = at + len(closing)
    if text.startswith(closing, at) and (after == len(text) or text[after] not in _MARKS):
        return after
    return None


def _opening_before(text: str, at: int, half: Half, floor: int) -> int | None:
    """Where the half opening `half` that ends at `at` starts (not before `floor`), if one
    does."""
    kind, what = half
    if kind == "tag":
        lt = text.rfind("<", max(floor, at - _TAG_REACH), at)
        tag = _MARKUP.fullmatch(text, lt, at) if lt >= 0 else None
        if tag is None or tag.group(1) or (tag.group(2) or "").lower() != what:
            return None
        return lt
    opening = at - len(what)
    if opening < floor or text[opening:at] != what or (opening and text[opening - 1] in _MARKS):
        return None
    return opening
