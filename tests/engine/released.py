"""How a text comes back in every way it can be screened, for tests that compare them: on the
request side, as a whole reply, and as a reply streamed in cuts. Imported by the test modules
beside it (pytest puts this folder on `sys.path`; tests/ is no package)."""

from __future__ import annotations

from typing import Any

import pytest

from replyguard.engine import ReplyScreen
from replyguard.engine.reply import screen_reply
from replyguard.engine.rules import CLASSES, CompiledRules, ReplyRules, compile_rules
from replyguard.engine.screen import screen_text

#: Every class of personal data set to `redact`, in English.
REDACT_ALL = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")


def released(text: str, rules: CompiledRules = REDACT_ALL) -> str:
    """The text as released on the request side, which a whole reply and a reply streamed
    in random cuts must equal (asserted)."""
    turn = screen_text(text, rules, "turn").text
    whole, _ = screen_reply(text, rules)
    streams = {screen_reply(text, rules, chunks=len(text) // 3 + 2, seed=seed)[0]
               for seed in range(3)}
    assert (whole, streams) == (turn, {turn})
    return turn


def streamed(text: str, cuts: list[int], rules: CompiledRules) -> str:
    """The reply `text` as released when streamed in pieces cut at `cuts`."""
    screen = ReplyScreen(rules)
    out = [screen.feed(text[a:b]) for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return "".join(out) + screen.finish()


def every_way(text: str, rules: CompiledRules = REDACT_ALL) -> set[str]:
    """The screened text on the request side, as a whole reply, streamed cut once at every
    position and streamed one character at a time (one item when they all agree)."""
    out = {screen_text(text, rules, "turn").text, screen_reply(text, rules)[0]}
    out |= {streamed(text, [cut], rules) for cut in range(1, len(text))}
    out.add(streamed(text, list(range(1, len(text))), rules))
    return out


def cases(tables: dict[str, list[tuple[str, str]]]) -> list[Any]:
    """Tables of `(text, as released)` by what they hold, as one list of test cases, each
    named by its table's key and its row."""
    return [pytest.param(text, out, id=f"{kind} {row}")
            for kind, table in tables.items() for row, (text, out) in enumerate(table)]
