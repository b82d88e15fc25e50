"""The request side, a whole reply and a reply streamed in any cuts release the same text for
the layouts the agreement fuzz (tests/engine/fuzz_texts.py) found them reading differently: a
password read after its label line against a value of another class on the next line, an
abbreviation before a number (`ver.`, `ref.`, a number sign before a code), a full-width stop
after a value's end in closers. Exact released text, checked with `every_way`; ordinary prose
near them comes back byte for byte."""

from __future__ import annotations

import random

import pytest
from fuzz_texts import focused_text
from hypothesis import given, settings
from hypothesis import strategies as st
from released import REDACT_ALL, cases, every_way, released, streamed

MASKED = {
    # A password's label line, then a value another detector reads too: the password
    # outranks it in the reply as in the whole text.
    "label line": [
        ("2) Password:\n(jane.doe@example.com)", "2) Password:\n(****)"),
        ("- Senha:\n(4539-1488-0343-6467)", "- Senha:\n(****)"),
        ("1. pwd:\n<b>AB123456C</b>", "1. pwd:\n<b>****</b>"),
        ("## \u5bc6\u7801:\n\u300c203.0.113.42\u300d", "## \u5bc6\u7801:\n****"),
        # (a key outranks a password: it keeps its own mask)
        ("Password:\nsk-proj-4fJk29sLqPz8XvTn7mWbQ1cD", "Password:\nsk-proj-****Q1cD"),
    ],
    # A number sign before a code ends no sentence: the labelled NINO is read whole.
    "number sign": [
        ("Your NI no. AB 12 34 56 is on file.", "Your NI no. ***3456 is on file."),
        ("National Insurance no. AB 12 34 56.", "National Insurance no. ***3456."),
        ("Part No. AB123456C ships today.", "Part No. ***456C ships today."),
    ],
    # A full-width stop after a value's end in closers, then a Latin letter: the value runs
    # on across it on every side.
    "closers then a stop": [
        ("mysql -p**S3cret!Pw9**\u3002No more.", "mysql -p**** more."),
        ("mysql -p(hunter2Secret!)\u3002acco", "mysql -p****"),
        ("Password (52998224725)\uff01t", "Password ****"),
        ("\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a\u300cQz7xK2mP9w\u300d\u3002va",
         "\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a****"),
        ("Set-Cookie: sid=(Qz7xK2mP9wLs8aB3)\uff01ok", "Set-Cookie: sid=****"),
    ],
    # A password's value ends at a full-width stop before CJK text, as the sentence does.
    "stop before CJK": [
        ("\u30d1\u30b9\u30ef\u30fc\u30c9\uff1aQz7xK2mP9w\u3002\u6b21\u3067\u3059",
         "\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a****\u3002\u6b21\u3067\u3059"),
        ("password: Qz7xK2mP9w\u3002\u8c22\u8c22", "password: ****\u3002\u8c22\u8c22"),
        # (before a Latin letter the stop is inside the value)
        ("password: Qz7xK2mP9w\u3002Then", "password: ****"),
    ],
    # A value alone at a piece's end, the line going on after it: no value alone on its
    # line (the whole text reads the assignment, or the value's own class).
    "line goes on": [
        ("password: [S3cr3t-value]!  More later.", "password: [****]!  More later."),
        ("API key: jane.doe@example.com... Use it.", "API key: j***@example.com... Use it."),
        ("Password (52998224725)! Then log in.", "Password (***4725)! Then log in."),
        ("password: [S3cr3t-value]!  ", "password: ****  "),
        ("### Password\n\nQz7xK2mP9w\nThanks.", "### Password\n\n****\nThanks."),
    ],
}

UNCHANGED = [
    # A version or a reference before its number is read with it (no IPv4, no phone).
    "Update to ver. 10.0.0.1 today.",
    "Quote ref. (020) 7946 0123 when you call.",
    "\u4e86\u89e3\u3067\u3059\u3002ver. 10.0.0.1 \u3067\u3059\u3002",
    "Install ver. 2 of the app.",
    "\u4e86\u89e3\u3067\u3059\u3002Part N\u00b0. 192.168.1.1 today.",
    # Ordinary prose near these layouts.
    "I said no. AB testing starts Monday.",
    "The answer was no. UK sales rose.",
    "I checked the ver. Then I left.",
    "**\u3053\u3093\u306b\u3061\u306f**\u3002Then we left.",
    "\u300c\u3053\u3093\u306b\u3061\u306f\u300d\u3002Then we left.",
    "(see above)\u3002Then we left.",
    "Password:\nReset it from the link below.",
    "Password:\n(see above)",
    "Password? Yes. Reset it from the link below.",
]


@pytest.mark.parametrize(("text", "screened"), cases(MASKED))
def test_every_side_releases_the_same_text(text: str, screened: str) -> None:
    assert every_way(text) == {screened}


@pytest.mark.parametrize("text", UNCHANGED, ids=range(len(UNCHANGED)))
def test_ordinary_text_near_these_layouts_comes_back_unchanged(text: str) -> None:
    assert every_way(text) == {text}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.integers(1, 200), max_size=5))
def test_these_layouts_agree_however_streamed(seed: int, cuts: list[int]) -> None:
    """A label line then a value of any class, an abbreviation before a number or a code, a
    value alone with its line going on: the request side, the whole reply, random-cut streams
    and the given cuts all release the same text (the long run: tests/bench/fuzz_agreement.py)."""
    text = focused_text(random.Random(seed), kinds=(0, 1, 3))
    inside = sorted({c for c in cuts if c < len(text)})
    assert streamed(text, inside, REDACT_ALL) == released(text)
