"""`engine.text.PhrasePattern` finds exactly what the single pattern
`(?<!\\w)(?:phrases)(?!\\w)` finds (its docstring's claim), for any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine.text import phrase_pattern

PHRASES = ("guaranteed refund", "refund", "no fee", "$5 off", "fee", "ação grátis", "_x")
PATTERN = phrase_pattern(PHRASES, strip_accents=True)
assert PATTERN is not None
SINGLE = re.compile(PATTERN.pattern)
# Texts built from the phrases' own pieces, word characters and separators, so that phrases
# stand inside words, after them, overlapping and at the edges.
PIECES = st.sampled_from(["guaranteed", "refund", "re", "fund", "no", "fee", "fees", "$5", "off",
                          "acao", "gratis", "_x", "x", "a", "9", " ", "  ", "\n", ".", "-", "é"])


@settings(max_examples=300)
@given(st.lists(PIECES, max_size=24), st.integers(min_value=0, max_value=40))
def test_search_and_finditer_match_the_single_pattern(pieces: list[str], pos: int) -> None:
    text = "".join(pieces)
    ours = PATTERN.search(text, pos)
    theirs = SINGLE.search(text, pos)
    assert (ours and (ours.span(), ours.group())) == (theirs and (theirs.span(), theirs.group()))
    assert [m.span() for m in PATTERN.finditer(text)] == [m.span() for m in SINGLE.finditer(text)]


def test_examples() -> None:
    assert PATTERN.search("a guaranteed refund.").group() == "guaranteed refund"  # type: ignore[union-attr]
    assert PATTERN.search("refunded, unrefund, refunds") is None
    assert [m.group() for m in PATTERN.finditer("fee; no fee; nofee; fee")] == ["fee", "no fee",
                                                                                 "fee"]
    assert PATTERN.search("get $5 off") is not None and PATTERN.search("get a$5 off") is None


def test_compiled_rules_and_tools_compare_equal() -> None:
    """Two compilations of the same rules (or tools) are equal, as with `re.Pattern` fields
    (found by the breaker session)."""
    from replyguard.engine.rules import ReplyRules, compile_rules
    from replyguard.engine.tools import ToolRules, ToolSpec, compile_tools

    rules = ReplyRules(never_say=("guaranteed refund",), offers_markers=("discount",))
    assert compile_rules(rules, "en") == compile_rules(rules, "en")
    assert compile_rules(rules, "en") != compile_rules(ReplyRules(never_say=("refund",)), "en")
    tools = ToolRules(tools={"refund_card": ToolSpec("refund_card", writes=True,
                                                     claims={"*": ("refunded",)})})
    assert compile_tools(tools, "en") == compile_tools(tools, "en")
    assert hash(PATTERN) == hash(phrase_pattern(PHRASES, strip_accents=True))
