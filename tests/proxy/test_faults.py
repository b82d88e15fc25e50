"""Faults: the upstream down, slow, failing, refusing or dropping the stream; the client going
away; bad request bodies; screening raising. Every error is OpenAI-shaped, and no unscreened
text ever reaches the client (fail closed)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

import orjson
import pytest
from conftest import DONE, HEAD, RawUpstream, events, user, wait_for

from replyguard.engine.reply import ReplyScreen
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream

ROLE = {"role": "assistant", "content": ""}


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = orjson.dumps({"index": 0, "delta": delta, "logprobs": None,
                           "finish_reason": finish}).decode()
    return f'data: {{"id":"chatcmpl-1",{HEAD},"choices":[{choice}]}}\n\n'.encode()


def error_event(message: str, code: str, type_: str = "upstream_error") -> bytes:
    body = orjson.dumps({"error": {"message": message, "type": type_, "param": None,
                                   "code": code}})
    return b"event: error\ndata: " + body + b"\n\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def post(stack: Any, body: Any, **kwargs: Any) -> tuple[int, bytes, Any]:
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    async with stack.client.post("/v1/chat/completions", data=data, **kwargs) as resp:
        return resp.status, await resp.read(), resp.headers


# -- the upstream ----------------------------------------------------------------------------

#: (the upstream: None for one that is down, its reply else; settings overrides; the
#: client's status; its error's message (never the upstream's address); its error's code)
UPSTREAM_FAULTS = {
    "down is 502": (None, {}, 502,
                    "the upstream refused the connection or cannot be reached",
                    "upstream_unreachable"),
    "slow is 504": (Reply(content="late", delay_s=0.3), {"upstream__read_timeout_s": 0.05}, 504,
                    "the upstream did not answer in time", "upstream_timeout"),
    "500 is 502 without its unscreened message": (
        Reply(status=500), {}, 502, "the upstream answered HTTP 500", "upstream_failed"),
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("upstream", "overrides", "status", "message", "code"),
                         UPSTREAM_FAULTS.values(), ids=UPSTREAM_FAULTS.keys())
async def test_an_upstream_fault_is_an_upstream_error(
        stack, caplog: pytest.LogCaptureFixture, stream: bool, upstream: Reply | None,
        overrides: dict[str, float], status: int, message: str, code: str) -> None:
    s = await stack(upstream or f"http://127.0.0.1:{free_port()}/v1", **overrides)
    with caplog.at_level("WARNING", logger="replyguard"):
        answered, raw, _ = await post(s, user("hi", stream=stream))
    assert (answered, orjson.loads(raw)) == (status, {"error": {
        "message": message, "type": "upstream_error", "param": None, "code": code}})
    # The operators' log line names the upstream; the client's message does not.
    assert [r.getMessage().split(" (")[0] for r in caplog.records
            if r.name == "replyguard" and r.getMessage().startswith("upstream ")] == [
        f"upstream {s.upstream_url}: {code}"]


async def test_upstream_stalls_mid_stream(stack) -> None:
    # (the read timeout leaves a loaded machine time to answer the headers and first chunk;
    # the pause between chunks is well past it)
    s = await stack(Reply(content="Hello there. Held back", chunk_delay_s=0.6, drop_after=None),
                    upstream__read_timeout_s=0.25)
    status, raw, _ = await post(s, user("hi", stream=True))
    assert status == 200
    assert raw == chunk(ROLE) + error_event(
        "the upstream stream broke off (SocketTimeoutError); nothing unscreened was sent",
        "upstream_dropped") + DONE


@pytest.mark.parametrize("stream", [False, True])
async def test_upstream_429_passes_through(stack, stream: bool) -> None:
    body = (b'{"error":{"message":"Rate limit reached","type":"requests","param":null,'
            b'"code":"rate_limit_exceeded"}}')
    up = RawUpstream([body], content_type="application/json", status=429,
                     headers={"Retry-After": "7", "x-ratelimit-remaining-requests": "0"})
    s = await stack(up)
    status, raw, headers = await post(s, user("hi", stream=stream))
    assert status == 429
    assert raw == body
    assert headers["Retry-After"] == "7"
    assert headers["x-ratelimit-remaining-requests"] == "0"


async def test_upstream_4xx_without_json_error(stack) -> None:
    up = RawUpstream([b"<html>nope</html>"], content_type="text/html", status=403)
    s = await stack(up)
    status, raw, _ = await post(s, user("hi"))
    assert status == 403
    assert orjson.loads(raw)["error"]["code"] == "upstream_refused"


async def test_upstream_not_json_whole(stack) -> None:
    s = await stack(RawUpstream([b"<html>ok</html>"], content_type="text/html"))
    status, raw, _ = await post(s, user("hi"))
    assert status == 502
    assert orjson.loads(raw)["error"]["code"] == "upstream_protocol"


async def test_drop_mid_stream_never_releases_the_held_sentence(stack) -> None:
    # 4-char chunks; 5 written: "Hello there. This pa" then the connection is aborted.
    s = await stack(Reply(content="Hello there. This part is held back.", drop_after=5))
    status, raw, _ = await post(s, user("hi", stream=True))
    assert status == 200
    assert b"This" not in raw
    assert raw == b"".join([
        chunk(ROLE), chunk({"content": "Hello there. "}),
        error_event("the upstream stream broke off (ClientPayloadError); nothing unscreened "
                    "was sent", "upstream_dropped"),
        DONE,
    ])  # fmt: skip


def raw_event(obj: Any) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else orjson.dumps(obj)) + b"\n\n"


RAW = {"id": "c1", "object": "chat.completion.chunk", "created": 7, "model": "m"}


def raw_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {**RAW, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


@pytest.mark.parametrize(("bad", "message", "code"), [
    (raw_event({"error": {"message": "overloaded", "type": "server_error"}}),
     "the upstream reported an error mid-stream: type server_error", "upstream_stream_error"),
    (b'event: error\ndata: {"message": "boom"}\n\n',
     "the upstream reported an error mid-stream: no details", "upstream_stream_error"),
    (raw_event(b"not json"), "the upstream sent an event that is not JSON", "upstream_protocol"),
    (raw_event(b"[1, 2]"), "the upstream sent an event that is not a JSON object",
     "upstream_protocol"),
])  # fmt: skip
async def test_bad_event_mid_stream(stack, bad: bytes, message: str, code: str) -> None:
    up = RawUpstream([raw_event(raw_chunk({"content": "Fine. Held"})), bad,
                      raw_event(raw_chunk({"content": " text."})), DONE])
    s = await stack(up)
    status, raw, _ = await post(s, user("hi", stream=True))
    assert status == 200
    assert raw == (raw_event(raw_chunk({"content": "Fine. "}))
                   + error_event(message, code) + DONE)


async def test_stream_ends_before_any_choice(stack) -> None:
    s = await stack(RawUpstream([b": ping\n\n"]))
    status, raw, _ = await post(s, user("hi", stream=True))
    assert status == 200
    assert raw == error_event("the upstream closed the stream before it ended; nothing "
                              "unscreened was sent", "upstream_dropped") + DONE


async def test_stream_ends_with_choice_unfinished(stack) -> None:
    s = await stack(RawUpstream([raw_event(raw_chunk({"content": "Fine. Held"}))]))
    status, raw, _ = await post(s, user("hi", stream=True))
    assert raw == raw_event(raw_chunk({"content": "Fine. "})) + error_event(
        "the upstream closed the stream before it ended; nothing unscreened was sent",
        "upstream_dropped") + DONE


async def test_stream_not_utf8(stack) -> None:
    s = await stack(RawUpstream([raw_event(raw_chunk({"content": "Fine. Held"})),
                                 b"data: \xff\xfe\n\n"]))
    status, raw, _ = await post(s, user("hi", stream=True))
    assert raw == raw_event(raw_chunk({"content": "Fine. "})) + error_event(
        "the upstream stream broke off (SSEDecodeError); nothing unscreened was sent",
        "upstream_dropped") + DONE


# -- the client going away -----------------------------------------------------------------

async def test_client_disconnect_cancels_the_upstream(stack) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="Hello there. " * 100, chunk_delay_s=0.005),
                          created=1)
    s = await stack(up)
    gauge = s.metrics.active_streams
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        assert resp.status == 200
        await resp.content.readuntil(b"Hello there. ")
        assert gauge._value.get() == 1
        resp.close()
    await wait_for(lambda: up.cancelled == 1)
    await wait_for(lambda: gauge._value.get() == 0)
    text = await s.metrics_text()
    assert "replyguard_client_disconnects_total 1.0" in text
    assert ('replyguard_requests_total{api="chat",route="/v1/chat/completions",status="499"} 1.0'
            in text)


# -- bad bodies ------------------------------------------------------------------------------

CONTENT_SHAPE = ("a message's 'content' must be a string, a list of content parts (objects "
                 "whose 'text', if any, is a string) or null; other content cannot be screened")


@pytest.mark.parametrize(("data", "status", "message", "code"), [
    (b'{"model": "m", "messages": [', 400,
     "request body is not valid JSON: unexpected end of data: line 1 column 29 (char 28)",
     "invalid_json"),
    (b"[1, 2]", 400, "request body must be a JSON object, not list", "invalid_json"),
    (b'"text"', 400, "request body must be a JSON object, not str", "invalid_json"),
    (b'{"model": "m"}', 400, "'messages' must be a non-empty list of messages",
     "invalid_messages"),
    (b'{"model": "m", "messages": []}', 400, "'messages' must be a non-empty list of messages",
     "invalid_messages"),
    (b'{"model": "m", "messages": ["hi"]}', 400, "each entry of 'messages' must be an object",
     "invalid_messages"),
    (b'{"model": "m", "messages": [{"role": "user", "content": 4111111111111111}]}', 400,
     CONTENT_SHAPE, "invalid_messages"),
    (b'{"model": "m", "messages": [{"role": "user", "content": ["4111 1111 1111 1111"]}]}',
     400, CONTENT_SHAPE, "invalid_messages"),
    (b'{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", '
     b'"text": 4111111111111111}]}]}', 400, CONTENT_SHAPE, "invalid_messages"),
    (b"", 400, "request body is empty; expected a JSON object", "invalid_json"),
    (b"  \n", 400, "request body is empty; expected a JSON object", "invalid_json"),
    (b'{"model": "m", "messages": [{"role": "user", "content": "caf\xe9"}]}', 400,
     "request body is not valid UTF-8 (byte 60)", "invalid_utf8"),
    (b'{"model": "m", "pad": "' + b"x" * 300 + b'"}', 413,
     "request body of 325 bytes is over the limit of 256 bytes", "body_too_large"),
])  # fmt: skip
async def test_bad_body(stack, data: bytes, status: int, message: str, code: str) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="Ok."))
    s = await stack(up, limits__max_body_bytes=256)
    got_status, raw, _ = await post(s, data, headers={"Content-Type": "application/json"})
    assert got_status == status
    assert orjson.loads(raw) == {"error": {
        "message": message, "type": "invalid_request_error",
        "param": "messages" if code == "invalid_messages" else None, "code": code}}
    assert up.seen == []


async def test_oversize_chunked_body_is_413(stack) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="Ok."))
    s = await stack(up, limits__max_body_bytes=256)

    async def body() -> Any:
        for _ in range(10):
            yield b"x" * 100

    async with s.client.post("/v1/chat/completions", data=body()) as resp:
        status, raw = resp.status, await resp.read()
    assert status == 413
    assert orjson.loads(raw)["error"] == {
        "message": "request body is over the limit of 256 bytes",
        "type": "invalid_request_error", "param": None, "code": "body_too_large"}
    assert up.seen == []


# -- screening raising -------------------------------------------------------------------------

def _boom(self: ReplyScreen, sentence: str) -> str:
    raise RuntimeError("boom")


async def test_screening_raises_mid_stream_fails_closed(stack, monkeypatch) -> None:
    monkeypatch.setattr(ReplyScreen, "screen_sentence", _boom)
    s = await stack(Reply(content="Secret one. Secret two."))
    status, raw, _ = await post(s, user("hi", stream=True))
    assert status == 200
    assert b"Secret" not in raw
    assert raw == chunk(ROLE) + error_event(
        "screening the reply failed; the rest of it was not sent", "screening_failed",
        "server_error") + DONE
    assert 'replyguard_screening_errors_total{api="chat",stage="reply"} 1.0' \
        in await s.metrics_text()


async def test_screening_raises_whole_is_500(stack, monkeypatch) -> None:
    monkeypatch.setattr(ReplyScreen, "screen_sentence", _boom)
    s = await stack(Reply(content="Secret one. Secret two."))
    status, raw, _ = await post(s, user("hi"))
    assert status == 500
    assert orjson.loads(raw) == {"error": {
        "message": "screening the reply failed; nothing of it was sent",
        "type": "server_error", "param": None, "code": "screening_failed"}}


async def test_unexpected_stream_shape_fails_closed(stack) -> None:
    # A choice index that is not a number: the relay must still end with an error event.
    bad = {**RAW, "choices": [{"index": [0], "delta": {"content": "Secret."}}]}
    s = await stack(RawUpstream([raw_event(raw_chunk({"content": "Fine. Held"})),
                                 raw_event(bad), DONE]))
    status, raw, _ = await post(s, user("hi", stream=True))
    assert b"Secret" not in raw and b"Held" not in raw
    got = events(raw)
    assert got[-1] == "[DONE]"
    assert got[-2][0] == "error"
    assert got[-2][1]["error"]["code"] == "upstream_protocol"


async def test_whole_reply_of_a_shape_that_cannot_be_screened_is_502(stack) -> None:
    body = orjson.dumps({"choices": [
        {"message": {"content": "Card 4111 1111 1111 1111."}, "logprobs": {"x": 1}},
        "junk"], "usage": None})
    s = await stack(RawUpstream([body], content_type="application/json"))
    status, raw, _ = await post(s, user("hi"))
    assert status == 502
    assert b"4111" not in raw
    assert orjson.loads(raw)["error"]["code"] == "upstream_protocol"


async def test_error_event_message_is_not_sent_on(stack) -> None:
    leak = raw_event({"error": {"message": "echo 4111 1111 1111 1111", "type": "server_error"}})
    s = await stack(RawUpstream([leak]))
    status, raw, _ = await post(s, user("hi", stream=True))
    assert b"4111" not in raw
    assert events(raw)[-2][1]["error"]["message"] == (
        "the upstream reported an error mid-stream: type server_error")


async def test_embeddings_screening_raises_is_500(stack, monkeypatch) -> None:
    import replyguard.proxy.routes

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(replyguard.proxy.routes, "screen_text", boom)
    up = ScriptedUpstream(lambda _m: Reply())
    s = await stack(up)
    async with s.client.post("/v1/embeddings", json={"model": "e", "input": "x"}) as resp:
        assert resp.status == 500
        assert await resp.json() == {"error": {
            "message": "screening the input failed (RuntimeError); nothing was sent upstream",
            "type": "server_error", "param": None, "code": "screening_failed"}}
    assert up.seen == []


async def test_unexpected_exception_is_openai_500(stack, monkeypatch) -> None:
    import replyguard.proxy.routes

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(replyguard.proxy.routes, "upstream_url", boom)
    s = await stack(ScriptedUpstream(lambda _m: Reply()))
    async with s.client.get("/v1/models") as resp:
        assert resp.status == 500
        assert resp.headers["X-Request-Id"]
        assert await resp.json() == {"error": {
            "message": "ReplyGuard failed to handle the request", "type": "server_error",
            "param": None, "code": "internal_error"}}


async def test_client_gone_before_the_upstream_answers_is_counted(stack) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="Hello.", delay_s=5.0), created=1)
    s = await stack(up)
    task = asyncio.ensure_future(s.client.post("/v1/chat/completions", json=user("hi")))
    await asyncio.sleep(0.3)  # the proxy is waiting on the upstream's answer
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    text = ""
    for _ in range(100):
        text = await s.metrics_text()
        if "replyguard_client_disconnects_total 1.0" in text:
            break
        await asyncio.sleep(0.02)
    assert "replyguard_client_disconnects_total 1.0" in text
    assert ('replyguard_requests_total{api="chat",route="/v1/chat/completions",status="499"} 1.0'
            in text)
