"""proxy.pipeline: the per-choice translator every API adapter shares. A whole reply is one
delta per field and a finish, so it gives what any cutting of it into deltas gives; refused
calls are held, judged whole and said; the chat adapter's event decoding."""

from __future__ import annotations

from functools import partial

import pytest
from conftest import SHOP_RULES
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine.reply import Piece, ReplyScreen
from replyguard.engine.rules import compile_rules
from replyguard.engine.tools import ToolRules, ToolSpec, compile_tools
from replyguard.proxy.api_chat import StreamScreen
from replyguard.proxy.choice_reply import ChoiceReply
from replyguard.proxy.errors import UpstreamError
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import CallDeltas, Calls, Finish, Text, TextDelta, WholeCalls
from replyguard.proxy.sse import SSEEvent

RULES = compile_rules(SHOP_RULES)
MAKE = partial(ReplyScreen, RULES, None, 2000)
TOOLS = compile_tools(ToolRules(tools={
    "refund_card": ToolSpec("refund_card", writes=True),
    "delete_account": ToolSpec("delete_account", writes=True, allowed=False)}), "en")
REPLY = "Sure. Your card 4111 1111 1111 1111 is on file. Anything else?"


def released(items: list, field: str = "content") -> str:
    return "".join(i.text for i in items if isinstance(i, Text) and i.field == field)


def test_a_whole_reply_is_one_delta_and_a_finish() -> None:
    choice = ChoiceReply(MAKE)
    items = [*choice.feed(TextDelta("content", REPLY)), *choice.feed(Finish("stop"))]
    assert released(items) == "Sure. Your card **** 1111 is on file. Anything else?"
    assert items[-1] == Finish("stop")
    assert choice.counts()["reply_pd_detected_card"] == 1


@settings(max_examples=100, deadline=None)
@given(cuts=st.lists(st.integers(0, len(REPLY)), max_size=12))
def test_any_cutting_gives_the_whole_reply(cuts: list[int]) -> None:
    whole = ChoiceReply(MAKE)
    expected = released([*whole.feed(TextDelta("content", REPLY)), *whole.finish("stop")])
    bounds = [0, *sorted(cuts), len(REPLY)]
    choice = ChoiceReply(MAKE)
    items = [i for a, b in zip(bounds, bounds[1:], strict=False)
             for i in choice.feed(TextDelta("content", REPLY[a:b]))]
    assert released([*items, *choice.finish("stop")]) == expected


def test_pieces_tell_the_products_sentences() -> None:
    choice = ChoiceReply(MAKE, CallFilter(RULES, TOOLS), pieces=True)
    choice.feed(CallDeltas([{"index": 0, "function": {"name": "delete_", "arguments": "{}"}}]))
    choice.feed(CallDeltas([{"index": 0, "function": {"name": "account"}}]))
    items = choice.finish("tool_calls")
    said = [i for i in items if isinstance(i, Text)]
    assert [p.product for p in said[0].sentences()] == [True]
    assert items[-1] == Finish("stop")  # no call left


def test_streamed_calls_are_held_then_judged_whole() -> None:
    choice = ChoiceReply(MAKE, CallFilter(RULES, TOOLS))
    assert choice.feed(CallDeltas([{"index": 0, "id": "a", "function": {"name": "refund_"}}])) \
        == []
    assert choice.feed(CallDeltas([{"index": 0, "function": {"name": "card",
                                                            "arguments": "{}"}}])) == []
    items = choice.finish("tool_calls")
    assert items == [Calls([{"index": 0, "id": "a", "function": {
        "name": "refund_card", "arguments": "{}"}}]), Finish("tool_calls")]


def test_held_counts_the_calls_arguments() -> None:
    choice = ChoiceReply(MAKE, CallFilter(RULES, TOOLS))
    choice.feed(CallDeltas([{"index": 0, "id": "a", "function": {"name": "refund_card",
                                                                 "arguments": '{"a"'}}]))
    choice.feed(CallDeltas(None, {"name": "lookup", "arguments": ": 1}"}))
    assert choice.held == 8
    choice.finish("tool_calls")
    assert choice.held == 0


def test_whole_calls_refused_are_taken_out_and_said() -> None:
    choice = ChoiceReply(MAKE, CallFilter(RULES, TOOLS))
    choice.feed(TextDelta("content", "Done."))
    calls = [{"id": "a", "type": "function", "function": {"name": "delete_account"}},
             {"id": "b", "type": "function", "function": {"name": "refund_card"}}]
    assert choice.feed(WholeCalls(calls)) == [Calls([calls[1]], None, whole=True)]
    items = choice.finish("tool_calls")
    assert released(items).startswith("Done. ")
    assert items[-1] == Finish("tool_calls")  # a call is left


CARD_ARGS = '{"order_id": "4412", "card": "4111 1111 1111 1111"}'
CALLS = [{"id": "call_a", "type": "function",
          "function": {"name": "refund_card", "arguments": CARD_ARGS}},
         {"id": "call_b", "type": "function",
          "function": {"name": "delete_account", "arguments": '{"user": "all"}'}},
         {"id": "call_c", "type": "function",
          "function": {"name": "lookup", "arguments": '{"q": "4111111111111111", "n": 2}'}}]


def _pieces(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(0, len(CARD_ARGS)), max_size=12), one_index=st.booleans())
def test_any_cutting_of_the_calls_gives_the_whole_calls(cuts: list[int],
                                                        one_index: bool) -> None:
    """Streamed equals whole for tool calls: the arguments cut anywhere (inside the card,
    the keys, the quotes), the calls on their own indexes or all on index 0 with their own
    ids (Ollama, some vLLM builds); each judged and screened on its own."""
    whole_filter = CallFilter(RULES, TOOLS)
    whole = ChoiceReply(MAKE, whole_filter)
    kept = whole.feed(WholeCalls(CALLS))[0]
    whole_items = whole.feed(Finish("tool_calls"))
    stream_filter = CallFilter(RULES, TOOLS)
    choice = ChoiceReply(MAKE, stream_filter)
    for n, given_call in enumerate(CALLS):
        index = 0 if one_index else n
        function = given_call["function"]
        choice.feed(CallDeltas([{"index": index, "id": given_call["id"], "type": "function",
                                 "function": {"name": function["name"], "arguments": ""}}]))
        for piece in _pieces(function["arguments"], cuts):
            choice.feed(CallDeltas([{"index": index, "function": {"arguments": piece}}]))
    items = choice.feed(Finish("tool_calls"))
    assert isinstance(kept, Calls) and isinstance(items[0], Calls)
    assert items[0].tool_calls == [{**c, "index": i} for i, c in enumerate(kept.tool_calls)]
    assert [c["function"]["arguments"] for c in kept.tool_calls] == [
        '{"order_id":"4412","card":"**** 1111"}', '{"q":"**** 1111","n":2}']
    assert items[1:] == whole_items
    assert stream_filter.counts == whole_filter.counts == {
        "replyguard_tool_calls_refused": 1, "reply_pd_detected_card": 2,
        "reply_pd_redacted": 2}


def test_text_after_the_finish_is_dropped() -> None:
    choice = ChoiceReply(MAKE)
    choice.finish("stop")
    assert choice.text("content", "Late 4111 1111 1111 1111.") == Text("content", "")


def test_a_text_without_pieces_is_one_model_sentence() -> None:
    assert Text("content", "Hi.").sentences() == (Piece("Hi.", False),)


def test_chat_adapter_refuses_done_before_any_choice() -> None:
    with pytest.raises(UpstreamError, match="without any choice"):
        StreamScreen(MAKE).event(SSEEvent("[DONE]", None, None))


def test_chat_adapter_ends_a_stream_closed_after_every_finish() -> None:
    screen = StreamScreen(MAKE)
    screen.event(SSEEvent('{"choices": [{"index": 0, "delta": {"content": "Hi."}, '
                          '"finish_reason": "stop"}]}', None, None))
    ending = screen.close()
    assert ending is not None and ending[-1] == b"data: [DONE]\n\n"
    assert StreamScreen(MAKE).close() is None
