"""Properties of the reply screen with tools (hypothesis): any cutting of the reply gives the
same released text, pieces and counts as the whole reply (split invariance, with the action
check per sentence and at the end on)."""

from __future__ import annotations

import codecs

from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine import Piece, ReplyScreen, compile_tools, read_context, screen_reply
from tests.data.action_cases import (
    CANCELLED,
    DONE,
    FAILED,
    NONE,
    RULES,
    SHOP_TOOLS,
    STAFF_TOOLS,
    WAITING,
    messages,
)
from tests.engine.test_reply_properties import FIELDS, TEMPLATES

WRITES = set(SHOP_TOOLS.tools)
CONTEXTS = [read_context(messages(calls), WRITES)
            for calls in (NONE, DONE, FAILED, WAITING, DONE + CANCELLED)]
TOOLS = [compile_tools(t, lang) for t in (SHOP_TOOLS, STAFF_TOOLS) for lang in ("en", "pt-BR")]
ACTION_TEMPLATES = [
    "I've refunded 12.50 pounds for order 4412.",
    "I've refunded 15.00 pounds for order 4412.",
    "I haven't refunded anything. ",
    "Shall I refund it?",
    'You said "I\'ve refunded it".',
    "I've refunded 12.50 pounds to card {card}.",
    "The refund has not been issued.",
    "Order 7788 shipped on 2024-11-29.",
    "Reembolsei R$ 12,50 do pedido 4412.",
    "Não consegui reembolsar o pedido.",
    "I've cancelled order 4412.",
]


@st.composite
def replies(draw: st.DrawFn) -> str:
    parts = []
    for template in draw(st.lists(st.sampled_from(TEMPLATES + ACTION_TEMPLATES * 2),
                                  min_size=1, max_size=8)):
        parts.append(template.format(**{name: draw(values) for name, values in FIELDS.items()
                                        if "{" + name + "}" in template}))
        parts.append(draw(st.sampled_from([" ", "\n", "\n\n", "  "])))
    return "".join(parts)


def _streamed(text: str, cuts: list[int], screen: ReplyScreen) -> list[Piece]:
    data = text.encode()
    decoder = codecs.getincrementaldecoder("utf-8")()
    out: list[Piece] = []
    bounds = [0, *sorted(set(cuts)), len(data)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        out += screen.feed_pieces(decoder.decode(data[start:end]))
    out += screen.feed_pieces(decoder.decode(b"", final=True))
    return out + screen.finish_pieces()


@settings(max_examples=200, deadline=None)
@given(st.data(), replies(), st.sampled_from(range(len(CONTEXTS))),
       st.sampled_from(range(len(TOOLS))))
def test_any_cutting_gives_the_whole_replys_screening_with_tools(
    data: st.DataObject, text: str, which: int, tools_at: int
) -> None:
    tools = TOOLS[tools_at]
    rules = RULES[tools.language]
    context = CONTEXTS[which]
    whole = screen_reply(text, rules, context, tools=tools, now=0.0)
    reference = ReplyScreen(rules, context, tools=tools, now=0.0)
    whole_pieces = reference.feed_pieces(text) + reference.finish_pieces()
    size = len(text.encode())
    cuts = data.draw(st.lists(st.integers(1, max(1, size - 1)), max_size=40))
    screen = ReplyScreen(rules, context, tools=tools, now=0.0)
    pieces = _streamed(text, cuts, screen)
    assert pieces == whole_pieces
    assert ("".join(p.text for p in pieces), dict(screen.counts)) == whole


@settings(max_examples=200, deadline=None)
@given(replies(), st.sampled_from(range(len(CONTEXTS))))
def test_product_pieces_are_whole_product_sentences(text: str, which: int) -> None:
    """Every product piece is one sentence the product wrote (a phrasing or a built-in, with
    its whitespace); a model piece never is marked as the product's."""
    tools = TOOLS[0]
    screen = ReplyScreen(RULES["en"], CONTEXTS[which], tools=tools, now=0.0)
    pieces = screen.feed_pieces(text) + screen.finish_pieces()
    phrasings = {getattr(p, o) for p in (tools.phrasing["refund_card"],)
                 for o in ("done", "failed", "not_done")}
    for piece in pieces:
        if piece.product:
            sentence = piece.text.strip()
            assert sentence.endswith(".") and sentence.count(". ") == 0
            assert any(sentence.startswith(t.split("{")[0]) for t in phrasings) or (
                "action" in sentence)
