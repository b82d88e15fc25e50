"""Wording rules read past markup: Markdown emphasis, hyphens, no-break spaces and invisible
characters do not hide a `never_say` phrase or an offer marker."""

from __future__ import annotations

import pytest

from engine import ReplyRules, ReplyScreen, compile_rules

RULES = compile_rules(ReplyRules(never_say=("guaranteed refund",),
                                 offers_markers=("discount",), offers_allowed=("free delivery",)))


def _screen(text: str) -> tuple[str, dict[str, int]]:
    screen = ReplyScreen(RULES)
    return screen.feed(text) + screen.finish(), dict(screen.counts)


@pytest.mark.parametrize("sentence", [
    "A **guaranteed** refund.", "It's a guaranteed-refund.", "A guaran\u200bteed refund.",
    "A Guaranteed\u00a0Refund!", "A _guaranteed_ `refund`.", "A guaranteed\u2011refund.",
    "A guaranteed\u2014refund.", "A \u201cguaranteed\u201d refund.", "A 'guaranteed' refund.",
    "A guaranteed/refund.",
])
def test_never_say_read_past_markup(sentence: str) -> None:
    assert _screen(f"Hello. {sentence} Bye.") == ("Hello. Bye.", {"reply_wording_removed": 1})


@pytest.mark.parametrize(("text", "released"), [
    ("Get a dis\u00adcount now. Ok.", "Ok."),
    ("Free-delivery discount today. Ok.", "Free-delivery discount today. Ok."),
])
def test_offers_read_past_markup(text: str, released: str) -> None:
    assert _screen(text)[0] == released


def test_whole_words_still_required() -> None:
    assert _screen("Guaranteed refunds are rare.")[0] == "Guaranteed refunds are rare."
