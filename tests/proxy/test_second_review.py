"""Leaks a second adversarial review found, each closed: an upstream's 4xx body is screened
and trimmed to the OpenAI error shape, a 200 without choices is refused, a vendor event
without choices is not passed on, a card written as a JSON number is masked."""

from __future__ import annotations

import orjson
from conftest import RawUpstream, events, sse, streamed_text, user

from proxy.fake_upstream import Reply

CARD = "4111 1111 1111 1111"


async def test_upstream_4xx_body_screened_and_trimmed(stack) -> None:
    body = orjson.dumps({"error": {"message": f"bad card {CARD}", "type": "invalid_request_error",
                                   "param": "messages", "code": "bad", "debug": CARD}})
    s = await stack(RawUpstream([body], status=400, content_type="application/json"))
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        status, raw = resp.status, await resp.read()
    assert status == 400
    assert orjson.loads(raw) == {"error": {"message": "bad card **** 1111",
                                           "type": "invalid_request_error",
                                           "param": "messages", "code": "bad"}}


async def test_200_without_choices_is_refused(stack) -> None:
    body = orjson.dumps({"error": {"message": f"echo {CARD}"}})
    s = await stack(RawUpstream([body], content_type="application/json"))
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        status, raw = resp.status, await resp.read()
    assert status == 502
    assert b"4111" not in raw
    assert orjson.loads(raw)["error"]["code"] == "upstream_protocol"


async def test_vendor_event_without_choices_is_not_passed_on(stack) -> None:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    parts = [sse({"type": "ping", "message": f"card {CARD}"}),
             sse({**chunk, "choices": [{"index": 0, "delta": {"content": "Ok."},
                                        "finish_reason": "stop"}]}),
             b"data: [DONE]\n\n"]
    s = await stack(RawUpstream(parts))
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert b"4111" not in raw
    assert streamed_text(raw) == "Ok."
    assert events(raw)[-1] == "[DONE]"


async def test_card_as_a_json_number_is_masked(stack) -> None:
    s = await stack(Reply(content='{"n": 4111111111111111, "qty": 3}'))
    body = user("hi", response_format={"type": "json_object"})
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        got = orjson.loads(await resp.read())["choices"][0]["message"]["content"]
    assert orjson.loads(got) == {"n": "**** 1111", "qty": 3}
