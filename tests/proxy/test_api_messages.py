"""The Messages adapter on its own (proxy.api_messages, proxy.api_messages_stream): any
cutting of a reply's text, thinking and tool input into deltas gives the content the whole
message gives (hypothesis), and the counts are the same."""

from __future__ import annotations

from typing import Any

import orjson
from conftest import SHOP_RULES
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine.context import TurnContext
from replyguard.engine.reply import ReplyScreen
from replyguard.engine.rules import compile_rules
from replyguard.proxy.api_messages import screen_message
from replyguard.proxy.api_messages_stream import MessageStream
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import Chunk
from replyguard.proxy.sse import SSEEvent

RULES = compile_rules(SHOP_RULES)
TEXT = ("Your card 4111 1111 1111 1111 is on file. It is a guaranteed refund. Call "
        "020 7946 0958 today.\n\nThanks!")
THINKING = "The card is 4111 1111 1111 1111. The user wants a refund."
INPUT = {"card": "4111 1111 1111 1111", "order_id": "4412", "note": ["a", "b 4111"]}
MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
           "content": [{"type": "thinking", "thinking": THINKING, "signature": "sig"},
                       {"type": "text", "text": TEXT},
                       {"type": "tool_use", "id": "toolu_1", "name": "refund",
                        "input": INPUT}],
           "stop_reason": "tool_use", "stop_sequence": None,
           "usage": {"input_tokens": 1, "output_tokens": 2}}


def _make() -> ReplyScreen:
    return ReplyScreen(RULES, TurnContext(), 2000)


def _cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def _events(cuts: list[int]) -> list[dict[str, Any]]:
    start = {**MESSAGE, "content": [], "stop_reason": None}
    out: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(MESSAGE["content"]):  # type: ignore[arg-type]
        kind = block["type"]
        if kind == "tool_use":
            head, name, value, delta = {**block, "input": {}}, "partial_json", \
                orjson.dumps(INPUT).decode(), "input_json_delta"
        else:
            head, name, value, delta = {"type": kind, kind: ""}, kind, block[kind], \
                f"{kind}_delta"
        out.append({"type": "content_block_start", "index": index, "content_block": head})
        out += [{"type": "content_block_delta", "index": index,
                 "delta": {"type": delta, name: piece}} for piece in _cut(value, cuts)]
        if kind == "thinking":
            out.append({"type": "content_block_delta", "index": index,
                        "delta": {"type": "signature_delta", "signature": "sig"}})
        out.append({"type": "content_block_stop", "index": index})
    out += [{"type": "message_delta", "delta": {"stop_reason": "tool_use",
                                                "stop_sequence": None},
             "usage": {"output_tokens": 2}},
            {"type": "message_stop"}]
    return out


def _assembled(chunks: list[Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for chunk in chunks:
        assert isinstance(chunk, Chunk)
        body = chunk.body
        if body["type"] == "content_block_start":
            blocks.append(dict(body["content_block"]))
        elif body["type"] == "content_block_delta":
            block, delta = blocks[body["index"]], body["delta"]
            for key in ("text", "thinking", "signature"):
                if key in delta:
                    block[key] = block.get(key, "") + delta[key]
            if "partial_json" in delta:
                block["input"] = orjson.loads(delta["partial_json"])
    return blocks


def test_the_whole_message_screened() -> None:
    out, counts = screen_message(MESSAGE, _make, CallFilter(RULES))
    assert out["content"] == [
        {"type": "thinking", "thinking": "The card is **** 1111. The user wants a refund."},
        {"type": "text", "text": "Your card **** 1111 is on file. Call 020 7946 0958 today."
                                 "\n\nThanks!"},
        {"type": "tool_use", "id": "toolu_1", "name": "refund",
         "input": {"card": "**** 1111", "order_id": "4412", "note": ["a", "b 4111"]}}]
    assert counts["replyguard_thinking_unsigned"] == 1
    assert counts["reply_wording_removed"] == 1
    # the card in the thinking, the text and the tool input: each counted
    assert (counts["reply_pd_detected_card"], counts["reply_pd_redacted"]) == (3, 3)


def test_a_streamed_tool_input_that_is_not_json_is_screened_as_text() -> None:
    stream = MessageStream(_make, CallFilter(RULES))
    start = {**MESSAGE, "content": [], "stop_reason": None}
    events = [{"type": "message_start", "message": start},
              {"type": "content_block_start", "index": 0, "content_block": {
                  "type": "tool_use", "id": "toolu_1", "name": "refund", "input": {}}},
              {"type": "content_block_delta", "index": 0, "delta": {
                  "type": "input_json_delta", "partial_json": '{"card": "4111 1111 '}},
              {"type": "content_block_delta", "index": 0, "delta": {
                  "type": "input_json_delta", "partial_json": '1111 1111"'}},
              {"type": "content_block_stop", "index": 0}]
    sent = [c.body for e in events
            for c in stream.event(SSEEvent(orjson.dumps(e).decode(), e["type"]))[0]
            if isinstance(c, Chunk)]
    assert sent[2] == {"type": "content_block_delta", "index": 0, "delta": {
        "type": "input_json_delta", "partial_json": '{"card": "**** 1111"'}}
    assert stream.counts()["reply_pd_detected_card"] == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 120), max_size=30))
def test_any_cutting_gives_the_whole_content(cuts: list[int]) -> None:
    whole, counts = screen_message(MESSAGE, _make, CallFilter(RULES))
    stream = MessageStream(_make, CallFilter(RULES))
    chunks: list[Any] = []
    ended = False
    for event in _events(cuts):
        out, ended = stream.event(SSEEvent(orjson.dumps(event).decode(), event["type"]))
        chunks += out
    assert ended
    assert _assembled(chunks) == whole["content"]
    assert stream.counts() == counts
