"""While a long sentence is held back, the client still hears from ReplyGuard: an SSE comment
after KEEPALIVE_S seconds without a write, which clients ignore."""

from __future__ import annotations

import pytest
from conftest import events, streamed_text, user

from replyguard.proxy import relay
from replyguard.proxy.fake_upstream import Reply


async def test_keepalive_comments_while_text_is_held(stack, monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    monkeypatch.setattr(relay, "KEEPALIVE_S", 0.0)
    s = await stack(Reply(content="a long sentence with no end in sight yet", chunk_chars=4,
                          chunk_delay_s=0.005))
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert raw.count(b": keep-alive\n\n") >= 5
    assert streamed_text(raw) == "a long sentence with no end in sight yet"
    assert events(raw)[-1] == "[DONE]"


async def test_no_keepalive_when_writes_are_recent(stack) -> None:
    s = await stack(Reply(content="Short. Reply.", chunk_chars=4))
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert b"keep-alive" not in raw
