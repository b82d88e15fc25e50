"""While a long sentence is held back, or the upstream is silent mid-stream, the client still
hears from ReplyGuard: an SSE comment after `streams.keepalive_s` without a write, which
clients ignore. An upstream silent for `streams.idle_timeout_s` ends the stream with an
`upstream_idle` error event then `[DONE]`."""

from __future__ import annotations

import time

from conftest import RawUpstream, events, sse, streamed_text, user

from replyguard.proxy.fake_script import Reply

KEEPALIVE = b": keep-alive\n\n"


def chunk(content: str | None, finish: str | None = None) -> dict:
    delta = {"content": content} if content is not None else {}
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


async def test_keepalive_comments_while_text_is_held(stack) -> None:
    s = await stack(Reply(content="a long sentence with no end in sight yet", chunk_chars=4,
                          chunk_delay_s=0.02), streams__keepalive_s=0.001)
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert raw.count(KEEPALIVE) >= 5
    assert streamed_text(raw) == "a long sentence with no end in sight yet"
    assert events(raw)[-1] == "[DONE]"


async def test_no_keepalive_when_writes_are_recent(stack) -> None:
    s = await stack(Reply(content="Short. Reply.", chunk_chars=4))
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert b"keep-alive" not in raw


async def test_keepalive_comments_while_the_upstream_is_silent(stack) -> None:
    # One sentence, then the upstream says nothing for 0.7 s, then ends: comments meanwhile.
    up = RawUpstream([sse(chunk("Hello there. ")), sse(chunk("Bye.")),
                      sse(chunk(None, "stop")), b"data: [DONE]\n\n"], pause_s=0.35)
    s = await stack(up, streams__keepalive_s=0.1)
    started = time.monotonic()
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        first = await resp.content.readuntil(b"\n\n")
        assert first == KEEPALIVE  # before any text: the first sentence is still held
        raw = first + await resp.read()
    assert time.monotonic() - started >= 1.0
    assert raw.count(KEEPALIVE) >= 4
    assert streamed_text(raw) == "Hello there. Bye."
    assert events(raw)[-1] == "[DONE]"


async def test_an_idle_upstream_ends_the_stream_with_an_error_event(stack) -> None:
    up = RawUpstream([sse(chunk("Hello there. ")), sse(chunk("And "))], hang=True)
    s = await stack(up, streams__keepalive_s=0.1, streams__idle_timeout_s=0.5)
    started = time.monotonic()
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert 0.5 <= time.monotonic() - started < 3.0
    got = [e for e in events(raw) if e != "[DONE]"]
    assert got[-1] == ("error", {"error": {
        "message": "the upstream sent nothing for 0.5 s; the rest of the reply was not sent",
        "type": "upstream_error", "param": None, "code": "upstream_idle"}})
    assert streamed_text(raw) == "Hello there. "
    assert events(raw)[-1] == "[DONE]"
    assert raw.count(KEEPALIVE) >= 2
    text = await s.metrics_text()
    assert 'replyguard_upstream_errors_total{api="chat",kind="idle"} 1.0' in text
