"""A JSON reply (`response_format`) whose values are not strings: a card written as a JSON
number is masked, and the document stays valid JSON."""

from __future__ import annotations

import orjson
from conftest import user

from replyguard.proxy.fake_script import Reply


async def test_card_as_a_json_number_is_masked(stack) -> None:
    s = await stack(Reply(content='{"n": 4111111111111111, "qty": 3}'))
    body = user("hi", response_format={"type": "json_object"})
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        got = orjson.loads(await resp.read())["choices"][0]["message"]["content"]
    assert orjson.loads(got) == {"n": "**** 1111", "qty": 3}
