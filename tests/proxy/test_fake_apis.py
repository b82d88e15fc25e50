"""The fake upstream's Responses and Anthropic Messages APIs (proxy.fake_apis): their exact
event sequences, and the real `openai` (`responses.create`, `responses.stream`) and
`anthropic` (`messages.create`, `messages.stream`) SDKs through ReplyGuard in front of it,
offline, with the shop's script: a card masked both ways, a withheld turn never sent, the
refund tool turn with its wording rules."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import orjson
import pytest

from replyguard.engine.request import WITHHELD_REPLY
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.sse import SSEDecoder

CARD_TURN = "my card is 4111 1111 1111 1111, is it on file?"
CARD_REPLY = "Your card **** 1111 is on file; the card 4111 1111 1111 1112 is not."
PARCEL = "the parcel for 4412 vanished"
REFUNDED = ("I've refunded 12.50 pounds for order 4412. Refunds reach the card in three to "
            "five working days.")
REFUND = {"name": "refund_card", "arguments": {"order_id": "4412", "amount": 12.5}}


def fixed(reply: Reply) -> ScriptedUpstream:
    return ScriptedUpstream(lambda _messages: reply, created=1)


def decoded(raw: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    decoder = SSEDecoder()
    return [(e.event, orjson.loads(e.data)) for e in decoder.feed(raw) + decoder.flush()]


# ---------------------------------------------------------------- the fake's own wire format

async def test_responses_stream_event_sequence(aiohttp_client) -> None:
    reply = Reply(content="Hi there.", reasoning="Look up.", tool_calls=(REFUND,))
    client = await aiohttp_client(fixed(reply).app())
    async with client.post("/v1/responses", json={"model": "m", "input": "hi",
                                                  "stream": True}) as resp:
        assert resp.headers["Content-Type"] == "text/event-stream"
        events = decoded(await resp.read())
    assert [(name, body["type"], body.get("delta")) for name, body in events] == [
        ("response.created", "response.created", None),
        ("response.in_progress", "response.in_progress", None),
        ("response.output_item.added", "response.output_item.added", None),
        ("response.reasoning_summary_part.added", "response.reasoning_summary_part.added",
         None),
        ("response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
         "Look"),
        ("response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
         " up."),
        ("response.reasoning_summary_text.done", "response.reasoning_summary_text.done", None),
        ("response.reasoning_summary_part.done", "response.reasoning_summary_part.done", None),
        ("response.output_item.done", "response.output_item.done", None),
        ("response.output_item.added", "response.output_item.added", None),
        ("response.content_part.added", "response.content_part.added", None),
        ("response.output_text.delta", "response.output_text.delta", "Hi t"),
        ("response.output_text.delta", "response.output_text.delta", "here"),
        ("response.output_text.delta", "response.output_text.delta", "."),
        ("response.output_text.done", "response.output_text.done", None),
        ("response.content_part.done", "response.content_part.done", None),
        ("response.output_item.done", "response.output_item.done", None),
        ("response.output_item.added", "response.output_item.added", None),
        *[("response.function_call_arguments.delta", "response.function_call_arguments.delta",
           piece) for piece in ('{"or', 'der_', 'id":', '"441', '2","', 'amou', 'nt":',
                                '12.5', '}')],
        ("response.function_call_arguments.done", "response.function_call_arguments.done",
         None),
        ("response.output_item.done", "response.output_item.done", None),
        ("response.completed", "response.completed", None),
    ]
    assert [body["sequence_number"] for _, body in events] == list(range(len(events)))
    whole = events[-1][1]["response"]
    assert [item["type"] for item in whole["output"]] == ["reasoning", "message",
                                                          "function_call"]
    assert events[14][1]["text"] == "Hi there."
    assert whole["output"][2]["arguments"] == '{"order_id":"4412","amount":12.5}'


async def test_messages_stream_event_sequence(aiohttp_client) -> None:
    reply = Reply(content="Hi there.", reasoning="Look.", tool_calls=(REFUND,))
    client = await aiohttp_client(fixed(reply).app())
    async with client.post("/v1/messages", json={
            "model": "claude-fake", "max_tokens": 10, "stream": True,
            "messages": [{"role": "user", "content": "hi"}]}) as resp:
        events = decoded(await resp.read())
    assert [(name, body.get("delta", {}).get("type")) for name, body in events] == [
        ("message_start", None), ("ping", None),
        ("content_block_start", None), ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "thinking_delta"), ("content_block_delta", "signature_delta"),
        ("content_block_stop", None),
        ("content_block_start", None), *[("content_block_delta", "text_delta")] * 3,
        ("content_block_stop", None),
        ("content_block_start", None), *[("content_block_delta", "input_json_delta")] * 9,
        ("content_block_stop", None),
        ("message_delta", None), ("message_stop", None)]
    assert events[2][1]["content_block"] == {"type": "thinking", "thinking": ""}
    assert events[-2][1]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}


async def test_messages_whole_and_its_error_shape(aiohttp_client) -> None:
    client = await aiohttp_client(fixed(Reply(content="Hello.")).app())
    async with client.post("/v1/messages", headers={"x-api-key": "sk-ant"}, json={
            "model": "claude-fake", "max_tokens": 10, "system": "Be brief.",
            "messages": [{"role": "user", "content": "hi there"}]}) as resp:
        body = await resp.json()
    assert body["content"] == [{"type": "text", "text": "Hello."}]
    assert (body["type"], body["stop_reason"], body["usage"]) == (
        "message", "end_turn", {"input_tokens": 4, "output_tokens": 1})
    client = await aiohttp_client(fixed(Reply(status=529)).app())
    async with client.post("/v1/messages", json={"model": "c", "max_tokens": 1,
                                                 "messages": []}) as resp:
        assert resp.status == 529
        assert await resp.json() == {"type": "error", "error": {
            "type": "overloaded_error", "message": "Scripted fault: status 529."}}


async def test_the_request_reaches_the_script_as_chat_messages(aiohttp_client) -> None:
    seen: list[list[dict[str, Any]]] = []

    def script(messages: list[dict[str, Any]]) -> Reply:
        seen.append(messages)
        return Reply(content="ok")

    client = await aiohttp_client(ScriptedUpstream(script).app())
    await client.post("/v1/responses", json={"model": "m", "instructions": "Be kind.", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "refund"}]},
        {"type": "function_call", "call_id": "c1", "name": "refund_card", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": '{"ok": true}'}]})
    await client.post("/v1/messages", json={"model": "c", "max_tokens": 5, "messages": [
        {"role": "user", "content": "refund"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                                           "name": "refund_card", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": '{"ok": true}'}]}]})
    call = {"type": "function", "function": {"name": "refund_card", "arguments": "{}"}}
    assert seen == [
        [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "refund"},
         {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", **call}]},
         {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'}],
        [{"role": "user", "content": "refund"},
         {"role": "assistant", "content": None, "tool_calls": [{"id": "t1", **call}]},
         {"role": "tool", "tool_call_id": "t1", "content": '{"ok": true}'}]]


# ---------------------------------------------------------------- the SDKs through ReplyGuard

async def responses_turn(s: Any, stream: bool, given: Any) -> Any:
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="sk-test",
                                  max_retries=0) as client:
        if not stream:
            return await client.responses.create(model="shop-model", input=given)
        async with client.responses.stream(model="shop-model", input=given) as events:
            return await events.get_final_response()


async def messages_turn(s: Any, stream: bool, messages: list[dict[str, Any]]) -> Any:
    async with anthropic.AsyncAnthropic(base_url=str(s.client.make_url("")),
                                        api_key="sk-ant", max_retries=0) as client:
        ask = {"model": "claude-fake", "max_tokens": 200, "messages": messages}
        if not stream:
            return await client.messages.create(**ask)
        async with client.messages.stream(**ask) as events:
            return await events.get_final_message()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_openai_responses_through_replyguard(stack, stream: bool) -> None:
    s = await stack()
    got = await responses_turn(s, stream, CARD_TURN)
    assert got.output_text == CARD_REPLY
    withheld = await responses_turn(s, stream, "my social security number is 123-45-6789")
    assert withheld.output_text == WITHHELD_REPLY["en"]
    asked = await responses_turn(s, stream, PARCEL)
    [call] = [item for item in asked.output if item.type == "function_call"]
    assert (call.name, json.loads(call.arguments)) == ("refund_card", REFUND["arguments"])
    result = {"status": "refunded", "order_id": "4412", "amount": 12.5}
    done = await responses_turn(s, stream, [
        {"role": "user", "content": PARCEL},
        {"type": "function_call", "call_id": call.call_id, "name": call.name,
         "arguments": call.arguments},
        {"type": "function_call_output", "call_id": call.call_id,
         "output": json.dumps(result)}])
    assert done.output_text == REFUNDED
    assert s.upstream.last_user_turns == ["my card is **** 1111, is it on file?", PARCEL,
                                          PARCEL]
    assert [b.get("stream", False) for b in s.upstream.seen] == [stream] * 3


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_anthropic_messages_through_replyguard(stack, stream: bool) -> None:
    s = await stack()
    got = await messages_turn(s, stream, [{"role": "user", "content": CARD_TURN}])
    assert [b.text for b in got.content] == [CARD_REPLY]
    withheld = await messages_turn(s, stream, [
        {"role": "user", "content": "my social security number is 123-45-6789"}])
    assert [b.text for b in withheld.content] == [WITHHELD_REPLY["en"]]
    asked = await messages_turn(s, stream, [{"role": "user", "content": PARCEL}])
    [call] = asked.content
    assert (call.type, call.name, call.input, asked.stop_reason) == (
        "tool_use", "refund_card", REFUND["arguments"], "tool_use")
    result = {"status": "refunded", "order_id": "4412", "amount": 12.5}
    done = await messages_turn(s, stream, [
        {"role": "user", "content": PARCEL},
        {"role": "assistant", "content": [call.model_dump(exclude_none=True)]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                      "content": json.dumps(result)}]}])
    assert [b.text for b in done.content] == [REFUNDED]
    assert s.upstream.last_user_turns == ["my card is **** 1111, is it on file?", PARCEL,
                                          PARCEL]
    # The SDK sends its key as `x-api-key` or (some versions) `Authorization: Bearer`.
    assert {auth.removeprefix("Bearer ") for auth in s.upstream.seen_auth} == {"sk-ant"}
