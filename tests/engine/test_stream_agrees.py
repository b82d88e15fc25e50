"""A reply streamed in any deltas releases what the whole reply and the request side do, for
the layouts where the reply screen reads a piece with what came before it: a label a run of
blank (spaces, blank lines, invisible characters) parts from its value, a heading over blank
lines, a full-width stop after a label, a password table's header and rule line, a key block
listed or quoted line by line. Exact screened text on the request side, in a whole reply, and
streamed in 1-, 4- and 50-character deltas and cut anywhere."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from released import REDACT_ALL, every_way, streamed

from replyguard.engine.reply import screen_reply
from replyguard.engine.screen import screen_text

_KEY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0"
_BEGIN, _END = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
_ZWSP = "\u200b"


def _ways(text: str) -> set[str]:
    """Request side, whole reply, 1-, 4- and 50-character deltas, and cuts at every 37th
    position (every position for a short text)."""
    out = {screen_text(text, REDACT_ALL, "turn").text, screen_reply(text, REDACT_ALL)[0]}
    out |= {streamed(text, list(range(n, len(text), n)), REDACT_ALL) for n in (1, 4, 50)}
    step = 1 if len(text) < 200 else 37
    out |= {streamed(text, [cut], REDACT_ALL) for cut in range(1, len(text), step)}
    return out


MASKED = [
    # A label, then a run of blank longer than the sentence cap, then the value.
    ("password:" + " " * 2000 + "Qz7xK2mP9w", "password:" + " " * 2000 + "****"),
    ("password:" + " " * 5000 + "Qz7xK2mP9w", "password:" + " " * 5000 + "****"),
    ("password:" + _ZWSP * 2000 + "Qz7xK2mP9w", "password:" + _ZWSP * 2000 + "****"),
    ("password:" + " \u200b\n" * 700 + "Qz7xK2mP9w", "password:" + " \u200b\n" * 700 + "****"),
    ("Card:" + " " * 2000 + "4111 1111 1111 1111", "Card:" + " " * 2000 + "**** 1111"),
    # A heading over blank lines, the value, then more lines.
    ("### Password" + "\n" * 100 + "Qz7xK2mP9w", "### Password" + "\n" * 100 + "****"),
    ("### Password\n\n\n\nQz7xK2mP9w\nThanks.", "### Password\n\n\n\n****\nThanks."),
    ("### Password" + "\n" * 300 + "Qz7xK2mP9w\n\nThanks.",
     "### Password" + "\n" * 300 + "****\n\nThanks."),
    # A full-width stop right after a label's end is the value's, no sentence end.
    ("Password: \u3002Qz7xK2mP9w", "Password: ****"),
    ("Password:\u3002Qz7xK2mP9w", "Password:****"),
    ("password= \u3002Qz7xK2mP9w thanks", "password= **** thanks"),
    # A password table's header with its rule line: only the password column is masked.
    ("| user | password |\n|---|---|\n| bob | Qz7xK2mP9w |\n| amy | Hx8pL3vR7t |\nDone.",
     "| user | password |\n|---|---|\n| bob | **** |\n| amy | **** |\nDone."),
    # A phone number with a unit's word at the start of the next line: the line break parts
    # them, so the word is no unit of the number.
    ("Secret\n\n(202) 555-0143\nGB", "Secret\n\n***0143\nGB"),
    ("Call +44 20 7946 0123\n```GB", "Call ***0123\n```GB"),
    # A key block whose lines are list items, quoted or numbered: its BEGIN line's break is
    # the block's (masked with it), not released before the body is seen.
    (f"{_BEGIN}\n- {_KEY}\n{_END}\n\nThanks.", "[RSA PRIVATE KEY ****]\n\nThanks."),
    (f"Key:\n\n- {_BEGIN}\n- {_KEY}\n- {_END}\n\nThanks.",
     "Key:\n\n- [RSA PRIVATE KEY ****]\n\nThanks."),
    (f"{_BEGIN}\n- {_KEY}\n\n", "[RSA PRIVATE KEY ****]"),
    (f"{_BEGIN}\n\n- {_KEY}\n\n- {_KEY}\n\n{_END}\nok", "[RSA PRIVATE KEY ****]\nok"),
]

UNCHANGED = [
    "Set a password.\n\n\n\nThen sign in again.",
    "### Password" + "\n" * 10 + "Reset it from the link below.\n",
    "Remember:" + " " * 2000 + "the meeting is at 10.",
    "\u3053\u3093\u306b\u3061\u306f \u3002Thanks",
    "Done. \u3002Next one",
    "| user | role |\n|---|---|\n| bob | admin |",
    "The first line is " + _BEGIN.replace("-----", "") + " and that is all.",
]


@pytest.mark.parametrize(("text", "screened"), MASKED, ids=range(len(MASKED)))
def test_streamed_releases_what_the_whole_text_does(text: str, screened: str) -> None:
    assert _ways(text) == {screened}


@pytest.mark.parametrize("text", UNCHANGED, ids=range(len(UNCHANGED)))
def test_ordinary_text_near_these_layouts_comes_back_unchanged(text: str) -> None:
    assert every_way(text) == {text}


def test_a_begin_line_alone_keeps_its_line_break() -> None:
    # (the held break is released at the reply's end, or before text that is no key body)
    assert every_way(f"{_BEGIN}\n") == {"[RSA PRIVATE KEY ****]\n"}
    assert every_way(f"{_BEGIN}\n\nProse here.") == {"[RSA PRIVATE KEY ****]\n\nProse here."}


#: A label, and what may follow its value.
_LABELS = [("password:", ["", "\n", "\n\nThanks."]), ("### Password", ["", "\n\nThanks."]),
           ("Password: \u3002", ["", " thanks"]),
           ("| user | password |\n|---|---|\n| bob |", [" |", " |\nDone."])]
_BLANKS = st.text(alphabet=[" ", "\n", "\t", _ZWSP], min_size=0, max_size=40)


@settings(max_examples=80, deadline=None)
@given(label=st.sampled_from(_LABELS), blank=_BLANKS, pick=st.integers(0, 2),
       cuts=st.lists(st.integers(min_value=1, max_value=120), max_size=6))
def test_a_labelled_value_streamed_in_any_cuts_is_released_as_whole(
        label: tuple[str, list[str]], blank: str, pick: int, cuts: list[int]) -> None:
    name, afters = label
    if name.startswith("|"):
        blank = blank.replace("\n", " ")  # (a row is one line)
    if name.endswith("\u3002"):
        blank = ""  # (glued to the value: with a space after it, the stop ends a sentence)
    sep = "" if name.endswith("\u3002") else " "
    text = name + blank + sep + "Qz7xK2mP9w" + afters[pick % len(afters)]
    whole = screen_reply(text, REDACT_ALL)[0]
    assert "Qz7xK2mP9w" not in whole
    inside = sorted({c for c in cuts if c < len(text)})
    assert streamed(text, inside, REDACT_ALL) == whole
