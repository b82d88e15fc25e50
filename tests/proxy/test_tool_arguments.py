"""Tool-call arguments in chat replies through ReplyGuard: every string value screened (the
JSON kept valid), counted as reply values, streamed calls held to the choice's end and sent
one delta per call; a tool opted out with `screen_arguments: false`; parallel calls a server
sends on one index told apart by their ids. Exact bytes where the stream's shape matters."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from replyguard.engine.rules import ReplyRules
from tests.proxy.conftest import RawUpstream, StartUpstream, events

TOOLS = {"refund_card": {"writes": True}, "charge_card": {"screen_arguments": False},
         "delete_account": {"allowed": False}}
ASK = {"role": "user", "content": "the parcel for 4412 vanished"}
CANNOT = "I can't do that here: the delete account action is not available."
HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "system_fingerprint": "fp_ollama"}
CARD_ARGS = '{"order_id": "4412", "card": "4111 1111 1111 1111"}'
CARD_SENT = '{"order_id":"4412","card":"**** 1111"}'


def sse(delta: dict[str, Any], finish: str | None = None) -> bytes:
    """One chunk in the envelope above, as ReplyGuard writes it (and the upstream sends)."""
    return b"data: " + orjson.dumps({**HEAD, "choices": [
        {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}) + b"\n\n"


def call(call_id: str, name: str, arguments: str, index: int = 0) -> dict[str, Any]:
    return {"id": call_id, "index": index, "type": "function",
            "function": {"name": name, "arguments": arguments}}


def count(metrics: str, name: str) -> float:
    """A counter's value, summed over its labels (0 when it was never counted)."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
               if line.startswith((f"{name}_total ", f"{name}_total{{")))


async def post(s: Any, stream: bool, **extra: Any) -> bytes:
    async with s.client.post("/v1/chat/completions", json={
            "model": "m", "messages": [ASK], "stream": stream, **extra}) as resp:
        assert resp.status == 200
        return await resp.read()


ROLE = {"role": "assistant", "content": ""}


async def test_parallel_calls_on_one_index_are_told_apart_by_their_ids(
        stack: StartUpstream) -> None:
    """Ollama's shape: each call whole in its own chunk, all on index 0, with their own ids.
    Merged by index they would be one call `refund_carddelete_account` and the refused call
    would go through."""
    upstream = RawUpstream([
        sse({**ROLE, "tool_calls": [call("call_a", "refund_card", CARD_ARGS)]}),
        sse({"tool_calls": [call("call_b", "delete_account", '{"user": "all"}')]}),
        sse({"tool_calls": [call("call_c", "refund_card", '{"order_id": "4413"}')]}),
        sse({}, "tool_calls"), b"data: [DONE]\n\n"])
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    raw = await post(s, True)
    assert raw == b"".join([
        sse(ROLE),
        sse({"tool_calls": [call("call_a", "refund_card", CARD_SENT),
                            call("call_c", "refund_card", '{"order_id": "4413"}', index=1)]}),
        sse({"content": CANNOT}),
        sse({}, "tool_calls"),
        b"data: [DONE]\n\n"])
    metrics = await s.metrics_text()
    assert count(metrics, "replyguard_tool_calls_refused") == 1.0
    assert count(metrics, "reply_pd_detected_card") == 1.0
    assert count(metrics, "reply_pd_redacted") == 1.0


async def test_openais_own_tool_call_stream(stack: StartUpstream) -> None:
    """OpenAI's shape: the first chunk carries `content` and `refusal` as null beside the
    call's id and name; the arguments follow in small deltas."""
    head = {"role": "assistant", "content": None, "refusal": None}
    upstream = RawUpstream([
        sse({**head, "tool_calls": [call("call_a", "refund_card", "")]}),
        *(sse({"tool_calls": [{"index": 0, "function": {"arguments": CARD_ARGS[i:i + 5]}}]})
          for i in range(0, len(CARD_ARGS), 5)),
        sse({}, "tool_calls"), b"data: [DONE]\n\n"])
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    raw = await post(s, True)
    assert raw == b"".join([
        sse(head),
        sse({"tool_calls": [call("call_a", "refund_card", CARD_SENT)]}),
        sse({}, "tool_calls"),
        b"data: [DONE]\n\n"])


async def test_parallel_calls_on_one_index_split_over_deltas(stack: StartUpstream) -> None:
    """vLLM's shape: a call's id and name first, its arguments in later deltas without an id;
    the next call starts on the same index with a new id."""
    upstream = RawUpstream([
        sse({"tool_calls": [call("call_a", "refund_card", "")]}),
        sse({"tool_calls": [{"index": 0, "function": {"arguments": CARD_ARGS[:20]}}]}),
        sse({"tool_calls": [{"index": 0, "function": {"arguments": CARD_ARGS[20:]}}]}),
        sse({"tool_calls": [call("call_b", "delete_", "")]}),
        sse({"tool_calls": [{"index": 0, "function": {"name": "account",
                                                      "arguments": "{}"}}]}),
        sse({}, "tool_calls"), b"data: [DONE]\n\n"])
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    raw = await post(s, True)
    assert raw == b"".join([
        sse({"tool_calls": [call("call_a", "refund_card", CARD_SENT)]}),
        sse({"content": CANNOT}),
        sse({}, "tool_calls"),
        b"data: [DONE]\n\n"])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_an_opted_out_tool_gets_its_arguments_as_the_model_wrote_them(
        stack: StartUpstream, stream: bool) -> None:
    given = [call("call_a", "charge_card", CARD_ARGS), call("call_b", "refund_card", CARD_ARGS,
                                                          index=1)]
    if stream:
        parts = [sse({"tool_calls": given}), sse({}, "tool_calls"), b"data: [DONE]\n\n"]
    else:
        parts = [orjson.dumps({**HEAD, "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{k: v for k, v in c.items() if k != "index"}
                               for c in given]}}]})]
    upstream = RawUpstream(parts, content_type="text/event-stream" if stream
                           else "application/json")
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    raw = await post(s, stream)
    if stream:
        sent = [d for e in events(raw) if isinstance(e, dict) for c in e["choices"]
                for d in c["delta"].get("tool_calls") or ()]
    else:
        sent = orjson.loads(raw)["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["arguments"] for c in sent] == [CARD_ARGS, CARD_SENT]
    assert count(await s.metrics_text(), "reply_pd_detected_card") == 1.0


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_legacy_function_call_has_its_arguments_screened(
        stack: StartUpstream, stream: bool) -> None:
    if stream:
        parts = [sse({"role": "assistant", "function_call": {"name": "refund_card",
                                                             "arguments": ""}}),
                 *(sse({"function_call": {"arguments": CARD_ARGS[i:i + 7]}})
                   for i in range(0, len(CARD_ARGS), 7)),
                 sse({}, "function_call"), b"data: [DONE]\n\n"]
    else:
        parts = [orjson.dumps({**HEAD, "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "function_call", "message": {
                "role": "assistant", "content": None,
                "function_call": {"name": "refund_card", "arguments": CARD_ARGS}}}]})]
    upstream = RawUpstream(parts, content_type="text/event-stream" if stream
                           else "application/json")
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    raw = await post(s, stream)
    if stream:
        assert raw == b"".join([
            sse({"role": "assistant"}),
            sse({"function_call": {"name": "refund_card", "arguments": CARD_SENT}}),
            sse({}, "function_call"), b"data: [DONE]\n\n"])
    else:
        assert orjson.loads(raw)["choices"][0]["message"]["function_call"] == {
            "name": "refund_card", "arguments": CARD_SENT}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_custom_tools_free_text_input_is_screened(stack: StartUpstream,
                                                          stream: bool) -> None:
    custom = {"id": "call_a", "type": "custom",
              "custom": {"name": "notes", "input": "card 4111 1111 1111 1111 on file"}}
    if stream:
        parts = [sse({"tool_calls": [{"index": 0, **custom}]}), sse({}, "tool_calls"),
                 b"data: [DONE]\n\n"]
    else:
        parts = [orjson.dumps({**HEAD, "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": [custom]}}]})]
    upstream = RawUpstream(parts, content_type="text/event-stream" if stream
                           else "application/json")
    s = await stack(upstream, rules=ReplyRules())
    raw = await post(s, stream)
    assert b"4111 1111" not in raw
    assert b'"input":"card **** 1111 on file"' in raw
