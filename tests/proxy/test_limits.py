"""`limits.max_response_bytes`: an upstream reply too large to screen is refused, never held
whole in memory and never passed on unscreened."""

from __future__ import annotations

import orjson
from conftest import RawUpstream, events, user


async def test_whole_reply_over_the_limit_is_502(stack) -> None:
    body = orjson.dumps({"choices": [{"index": 0, "message": {
        "role": "assistant", "content": "Card 4111 1111 1111 1111. " + "x" * 5000}}]})
    s = await stack(RawUpstream([body[:3000], body[3000:]], content_type="application/json"),
                    limits__max_response_bytes=2048)
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        status, raw = resp.status, await resp.read()
    assert status == 502
    assert orjson.loads(raw)["error"] == {
        "message": "the upstream's reply is over the limit of 2048 bytes",
        "type": "upstream_error", "param": None, "code": "upstream_too_large"}


async def test_streamed_event_over_the_limit_ends_with_an_error_event(stack) -> None:
    s = await stack(RawUpstream([b"data: " + b"4111 1111 1111 1111 " * 200]),
                    limits__max_response_bytes=2048)
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert b"4111" not in raw
    got = events(raw)
    assert got[-1] == "[DONE]"
    assert got[-2][0] == "error"
    assert got[-2][1]["error"]["code"] == "upstream_dropped"


async def test_long_whole_reply_is_screened_off_the_loop(stack) -> None:
    content = "Your card 4111 1111 1111 1111 is on file. " * 8000  # ~340 KB
    body = orjson.dumps({"choices": [{"index": 0, "message": {"role": "assistant",
                                                              "content": content}}]})
    s = await stack(RawUpstream([body], content_type="application/json"))
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        got = orjson.loads(await resp.read())["choices"][0]["message"]["content"]
    assert got == "Your card **** 1111 is on file. " * 8000
