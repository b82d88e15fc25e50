"""An upstream's error body never carries unscreened text to the client: a 4xx body is screened
and trimmed to the OpenAI error shape; a 200 holding an error instead of choices is refused."""

from __future__ import annotations

import orjson
from conftest import RawUpstream, user

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
