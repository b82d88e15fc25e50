"""`POST /v1/messages` streamed, byte for byte: the events a client gets from an upstream
whose card is split across text deltas, whose tool input comes in many `input_json_delta`s,
that sends an event type ReplyGuard does not know, an error event, or drops mid-stream; a
refused tool call; streamed equals whole for any cutting (hypothesis)."""

from __future__ import annotations

from typing import Any

import orjson
from conftest import RawUpstream
from fake_anthropic import FakeAnthropic, event, says, text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replyguard.engine.rules import ReplyRules

ASK = {"model": "claude-fake", "max_tokens": 50, "stream": True,
       "messages": [{"role": "user", "content": "hello"}]}
MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-fake",
           "content": [], "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 3, "output_tokens": 1}}
START = event("message_start", {"type": "message_start", "message": MESSAGE})
PING = event("ping", {"type": "ping"})
END = [event("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 9}}),
       event("message_stop", {"type": "message_stop"})]


def block_start(index: int, block: dict[str, Any]) -> bytes:
    return event("content_block_start", {"type": "content_block_start", "index": index,
                                         "content_block": block})


def delta(index: int, body: dict[str, Any]) -> bytes:
    return event("content_block_delta", {"type": "content_block_delta", "index": index,
                                         "delta": body})


def stop(index: int) -> bytes:
    return event("content_block_stop", {"type": "content_block_stop", "index": index})


def text_delta(index: int, value: str) -> bytes:
    return delta(index, {"type": "text_delta", "text": value})


async def post(s: Any, body: dict[str, Any] = ASK) -> tuple[int, bytes]:
    async with s.client.post("/v1/messages", json=body) as resp:
        return resp.status, await resp.read()


async def test_a_card_split_across_deltas_is_released_masked_by_sentence(stack) -> None:
    parts = [START, PING, block_start(0, {"type": "text", "text": ""}),
             text_delta(0, "Your card 4111 11"), text_delta(0, "11 1111 1111 is on file. "),
             text_delta(0, "Thanks"), text_delta(0, " for asking."), stop(0), *END]
    s = await stack(RawUpstream(parts))
    status, raw = await post(s)
    assert status == 200
    assert raw == b"".join([
        START, PING, block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Your card **** 1111 is on file. "),
        text_delta(0, "Thanks for asking."), stop(0), *END])


async def test_tool_input_over_many_deltas_is_sent_screened_as_one(stack) -> None:
    given = orjson.dumps({"card": "4111 1111 1111 1111", "order_id": "4412"}).decode()
    parts = [START, block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "charge",
                                    "input": {}}),
             *[delta(0, {"type": "input_json_delta", "partial_json": given[i:i + 3]})
               for i in range(0, len(given), 3)],
             stop(0), *END]
    s = await stack(RawUpstream(parts))
    _, raw = await post(s)
    assert raw == b"".join([
        START, block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "charge",
                               "input": {}}),
        delta(0, {"type": "input_json_delta",
                  "partial_json": '{"card":"**** 1111","order_id":"4412"}'}),
        stop(0), *END])


ERROR = event("error", {"type": "error", "error": {
    "type": "api_error", "message": "the upstream sent a stream event of a type ReplyGuard "
    "does not know, holding text; the rest of the reply was not sent"}})


async def test_an_unknown_event_holding_text_ends_the_stream(stack) -> None:
    parts = [START, block_start(0, {"type": "text", "text": ""}), text_delta(0, "Done. Now"),
             event("mystery", {"type": "mystery", "note": "card 4111 1111 1111 1111"}),
             text_delta(0, "More."), stop(0), *END]
    s = await stack(RawUpstream(parts))
    _, raw = await post(s)
    assert raw == b"".join([START, block_start(0, {"type": "text", "text": ""}),
                            text_delta(0, "Done. "), ERROR])


async def test_an_unknown_event_holding_no_text_is_dropped(stack) -> None:
    parts = [START, event("mystery", {"type": "mystery", "n": 3}),
             block_start(0, {"type": "text", "text": ""}), text_delta(0, "Done."), stop(0),
             *END]
    s = await stack(RawUpstream(parts))
    _, raw = await post(s)
    assert raw == b"".join([START, block_start(0, {"type": "text", "text": ""}),
                            text_delta(0, "Done."), stop(0), *END])


async def test_an_upstream_error_event_ends_the_stream_without_its_text(stack) -> None:
    parts = [START, block_start(0, {"type": "text", "text": ""}), text_delta(0, "Half a"),
             event("error", {"type": "error", "error": {
                 "type": "overloaded_error", "message": "card 4111 1111 1111 1111"}})]
    s = await stack(RawUpstream(parts))
    _, raw = await post(s)
    assert raw == b"".join([START, block_start(0, {"type": "text", "text": ""}), event(
        "error", {"type": "error", "error": {
            "type": "api_error", "message": "the upstream reported an error mid-stream"}})])


async def test_an_upstream_drop_mid_stream_never_releases_the_held_text(stack) -> None:
    parts = [START, block_start(0, {"type": "text", "text": ""}),
             text_delta(0, "Your card 4111 1111")]
    s = await stack(RawUpstream(parts))
    _, raw = await post(s)
    assert b"4111" not in raw
    assert raw == b"".join([START, block_start(0, {"type": "text", "text": ""}), event(
        "error", {"type": "error", "error": {
            "type": "api_error", "message": "the upstream closed the stream before it ended; "
            "nothing unscreened was sent"}})])


TOOLS = {"delete_account": {"writes": True, "allowed": False}}
CANNOT = "I can't do that here: the delete account action is not available."


async def test_a_refused_call_is_dropped_and_said(stack) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "delete_account",
            "input": {"account": "me"}}
    fake = FakeAnthropic(says(call))
    s = await stack(fake, rules=ReplyRules(), tools=TOOLS)
    offered = [{"name": "delete_account", "input_schema": {"type": "object"}},
               {"name": "order_status", "input_schema": {"type": "object"}}]
    _, raw = await post(s, {**ASK, "tools": offered})
    assert b"delete_account" not in raw
    assert raw.endswith(b"".join([
        block_start(0, {"type": "text", "text": ""}), text_delta(0, CANNOT), stop(0),
        event("message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                "usage": {"output_tokens": 7}}),
        event("message_stop", {"type": "message_stop"})]))
    assert [t["name"] for t in fake.seen[0]["tools"]] == ["order_status"]
    async with s.client.post("/v1/messages", json={**ASK, "stream": False}) as resp:
        whole = await resp.json()
    assert whole["content"] == [{"type": "text", "text": CANNOT}]
    assert whole["stop_reason"] == "end_turn"


REPLY = ("Your card 4111 1111 1111 1111 is on file. Refunds reach the card in three to "
         "five working days.\n\nCall 020 7946 0958 today.")


def assembled(raw: bytes) -> list[dict[str, Any]]:
    """The content blocks a client builds from a stream's events."""
    from conftest import events

    blocks: list[dict[str, Any]] = []
    for e in events(raw):
        if e.get("type") == "content_block_start":
            blocks.append(dict(e["content_block"]))
        elif e.get("type") == "content_block_delta":
            block, d = blocks[e["index"]], e["delta"]
            for key in ("text", "thinking", "signature", "partial_json"):
                if key in d:
                    block[key] = block.get(key, "") + d[key]
    return blocks


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, 40))
async def test_streamed_equals_whole(stack, size: int) -> None:
    fake = FakeAnthropic(says({"type": "thinking", "thinking": REPLY, "signature": "s"},
                              text(REPLY)), chunk_chars=size)
    s = await stack(fake)
    _, whole = await post(s, {**ASK, "stream": False})
    _, raw = await post(s)
    content = orjson.loads(whole)["content"]
    assert assembled(raw) == content
    assert content[1]["text"] == (
        "Your card **** 1111 is on file. Refunds reach the card in three to five working "
        "days.\n\nCall 020 7946 0958 today.")
