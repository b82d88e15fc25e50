"""The opt-in `internals` class of the reply screen: seed 003's REPLY_RULES kept out of
customer replies (default allow; redact -> `[internal]`; withhold -> the sentence removed)."""

from __future__ import annotations

import pytest

from replyguard.engine import ReplyRules, ReplyScreen, compile_rules
from replyguard.engine.internals import internal_spans

RULES = compile_rules(ReplyRules())
REPLY = ("We restarted pod api-7d9f8b6c5-x2x7k after a KeyError. "
         "Your order ships today. Card 4111 1111 1111 1111 is on file.")


def _screen(internals: str, cuts: int = 1) -> tuple[str, dict[str, int]]:
    screen = ReplyScreen(RULES, internals=internals)  # type: ignore[arg-type]
    size = max(1, len(REPLY) // cuts)
    out = "".join(screen.feed(REPLY[i:i + size]) for i in range(0, len(REPLY), size))
    return out + screen.finish(), dict(screen.counts)


@pytest.mark.parametrize("cuts", [1, 9, 60])
def test_redact_masks_each_internal(cuts: int) -> None:
    assert _screen("redact", cuts) == (
        "We restarted pod [internal] after a [internal]. Your order ships today. "
        "Card **** 1111 is on file.",
        {"replyguard_internals_redacted": 2, "reply_pd_detected_card": 1,
         "reply_pd_redacted": 1})


def test_withhold_removes_the_sentence() -> None:
    assert _screen("withhold") == (
        "Your order ships today. Card **** 1111 is on file.",
        {"replyguard_internals_withheld": 1, "reply_pd_detected_card": 1,
         "reply_pd_redacted": 1})


def test_allow_is_the_default() -> None:
    screen = ReplyScreen(RULES)
    assert screen.feed(REPLY) + screen.finish() == REPLY.replace(
        "4111 1111 1111 1111", "**** 1111")


def test_internal_spans_in_text_order() -> None:
    assert internal_spans("KeyError on db.internal") == [(0, 8, "exception_name"),
                                                        (12, 23, "internal_host")]
