"""The canonical view's quick answers agree with its full reading: a text `plain` calls its
own view reads as itself through every table and edit, and `has_invisible` agrees with a
search for the invisible characters."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine import canon
from replyguard.engine.chars import FORMS_ONLY, ONE_FOR_ONE
from replyguard.engine.markup import EDIT
from replyguard.engine.plain import plain, read_one
from replyguard.engine.text import INVISIBLE, has_invisible

#: ASCII, every Latin-1 character above it, and a few beyond (a curly quote, a dash, a
#: zero-width space, a look-alike letter, a full-width digit, an ideograph).
_ALPHABET = st.sampled_from(
    [chr(c) for c in range(256)] + ["\u201c", "\u2014", "\u200b", "\u0430", "\uff11", "\u4e00"])
_TEXTS = st.text(_ALPHABET, max_size=60)


def _reads_as_itself(text: str, table: dict[int, str]) -> bool:
    one, may_edit, scripts = read_one(text, table)
    edits, _ = canon._edits(text, one, may_edit, scripts, True, EDIT)
    return one == text and not edits


@settings(max_examples=800, deadline=None)
@given(_TEXTS)
def test_a_plain_text_reads_as_itself(text: str) -> None:
    if plain(text) and not text.isascii():
        assert _reads_as_itself(text, ONE_FOR_ONE)
        assert _reads_as_itself(text, FORMS_ONLY)


def test_accented_prose_is_plain_and_its_own_view() -> None:
    text = "Obrigado, João! O pedido já saiu; Müller e Søn, 12 °C, 3 × 4 ½."
    assert plain(text)
    view = canon.canonical(text)
    assert view.text == text and not view.edited


def test_what_latin1_holds_that_is_no_plain_text() -> None:
    # no-break space, soft hyphen, a C1 control, two spaces, markup: each has something to undo
    for text in ("4111\u00a01111", "pass\u00adword", "a\x85b", "joão  silva", "_joão_",
                 "joão<b>x</b>", "joão&amp;"):
        assert not plain(text), text
    assert not plain("\u201cquoted\u201d")  # beyond Latin-1: the full reading decides


@given(st.text(st.sampled_from(["a", "é", " ", "\u201c", *INVISIBLE]), max_size=30))
def test_has_invisible_agrees_with_a_search(text: str) -> None:
    assert has_invisible(text) is (re.search(f"[{INVISIBLE}]", text) is not None)
