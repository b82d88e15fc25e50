"""Reasoning through output moderation, as reply text is: chat's reasoning fields, a Responses
reasoning summary and an Anthropic thinking block have each sentence moderation flags removed,
whole and streamed (the fake upstream's moderation flags "kill"). A thinking block moderation
changed loses its signature (counted in `replyguard_thinking_unsigned_total`); one it left as
it was keeps it."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from conftest import RawUpstream, events, sse, user

from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.sse import SSEDecoder

FLAGGED = "I could kill the job first. Then I check the order."
KEPT = "Then I check the order."
MODERATED = {"guardrails__moderation__enabled": True, "guardrails__moderation__input": False}


def upstream(reasoning: str) -> ScriptedUpstream:
    return ScriptedUpstream(lambda _m: Reply(content="Your order ships today.",
                                             reasoning=reasoning), created=1, chunk_chars=5)


def decoded(raw: bytes) -> list[dict[str, Any]]:
    decoder = SSEDecoder()
    return [orjson.loads(e.data) for e in decoder.feed(raw) + decoder.flush()]


async def counted(s: Any) -> dict[str, float]:
    got = {}
    for line in (await s.metrics_text()).splitlines():
        if line.startswith(("replyguard_thinking_unsigned_total",
                            "replyguard_guardrail_output_removed_total")):
            name, _, value = line.partition(" ")
            got[name] = float(value)
    return got


async def messages(s: Any, stream: bool) -> list[dict[str, Any]]:
    """The content blocks the client gets (a stream's rebuilt from its events)."""
    ask = {"model": "claude-fake", "max_tokens": 100, "stream": stream,
           "messages": [{"role": "user", "content": "where is my order?"}]}
    async with s.client.post("/v1/messages", json=ask) as resp:
        assert resp.status == 200
        if not stream:
            return (await resp.json())["content"]
        events = decoded(await resp.read())
    blocks: list[dict[str, Any]] = []
    for event in events:
        if event["type"] == "content_block_start":
            blocks.append(dict(event["content_block"]))
        elif event["type"] == "content_block_delta":
            delta, block = event["delta"], blocks[event["index"]]
            if delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            else:
                name = "thinking" if delta["type"] == "thinking_delta" else "text"
                block[name] += delta[name]
    return blocks


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_flagged_thinking_sentence_is_removed_and_the_signature_dropped(
        stack, stream: bool) -> None:
    s = await stack(upstream(FLAGGED), **MODERATED)
    assert await messages(s, stream) == [
        {"type": "thinking", "thinking": KEPT},
        {"type": "text", "text": "Your order ships today."}]
    assert await counted(s) == {"replyguard_thinking_unsigned_total": 1.0,
                                "replyguard_guardrail_output_removed_total": 1.0}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_thinking_moderation_leaves_as_it_was_keeps_its_signature(
        stack, stream: bool) -> None:
    s = await stack(upstream(KEPT), **MODERATED)
    blocks = await messages(s, stream)
    assert blocks == [
        {"type": "thinking", "thinking": KEPT, "signature": blocks[0]["signature"]},
        {"type": "text", "text": "Your order ships today."}]
    assert blocks[0]["signature"].startswith("sig_fake_")
    assert await counted(s) == {"replyguard_thinking_unsigned_total": 0.0,
                                "replyguard_guardrail_output_removed_total": 0.0}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_flagged_reasoning_summary_sentence_is_removed(stack, stream: bool) -> None:
    s = await stack(upstream(FLAGGED), **MODERATED)
    async with s.client.post("/v1/responses", json={"model": "m", "input": "where is it?",
                                                    "stream": stream}) as resp:
        assert resp.status == 200
        body = await resp.read()
    if stream:
        events = decoded(body)
        deltas = "".join(e["delta"] for e in events
                         if e["type"] == "response.reasoning_summary_text.delta")
        [done] = [e["text"] for e in events
                  if e["type"] == "response.reasoning_summary_text.done"]
        assert (deltas, done) == (KEPT, KEPT)
        whole = events[-1]["response"]
    else:
        whole = orjson.loads(body)
    assert [item.get("summary") or item.get("content") for item in whole["output"]] == [
        [{"type": "summary_text", "text": KEPT}],
        [{"type": "output_text", "text": "Your order ships today.", "annotations": []}]]
    assert await counted(s) == {"replyguard_thinking_unsigned_total": 0.0,
                                "replyguard_guardrail_output_removed_total": 1.0}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_flagged_chat_reasoning_sentence_is_removed(stack, stream: bool) -> None:
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    if stream:
        parts = [sse({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": end}]})
                 for delta, end in (({"reasoning_content": FLAGGED}, None),
                                    ({"content": "Your order ships today."}, None),
                                    ({}, "stop"))] + [b"data: [DONE]\n\n"]
        given = RawUpstream(parts)
    else:
        message = {"role": "assistant", "content": "Your order ships today.",
                   "reasoning_content": FLAGGED}
        given = RawUpstream([orjson.dumps({**head, "object": "chat.completion", "choices": [
            {"index": 0, "message": message, "finish_reason": "stop"}]})],
            content_type="application/json")
    moderation = ScriptedUpstream(lambda _m: Reply())
    url = await moderation.start()
    try:
        s = await stack(given, **MODERATED, guardrails__moderation__base_url=url)
        async with s.client.post("/v1/chat/completions",
                                 json=user("where is it?", stream=stream)) as resp:
            raw = await resp.read()
    finally:
        await moderation.close()
    if stream:
        deltas = [e["choices"][0]["delta"] for e in events(raw) if isinstance(e, dict)]
        reasoning = "".join(d.get("reasoning_content", "") for d in deltas)
    else:
        reasoning = orjson.loads(raw)["choices"][0]["message"]["reasoning_content"]
    assert reasoning == KEPT
    assert await counted(s) == {"replyguard_thinking_unsigned_total": 0.0,
                                "replyguard_guardrail_output_removed_total": 1.0}
