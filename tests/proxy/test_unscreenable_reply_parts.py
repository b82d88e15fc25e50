"""Parts of an upstream reply that cannot be screened never reach the client: a vendor event
without choices, an `audio` field and its transcript, reasoning details, content parts whose
text is nested a level down; and a request for spoken output is refused before any call."""

from __future__ import annotations

from typing import Any

import orjson
from conftest import RawUpstream, events, sse, streamed_text, user

from replyguard.proxy.fake_script import Reply

CARD = "4111 1111 1111 1111"


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


async def test_audio_output_is_refused_and_never_passed_on(stack: Any) -> None:
    """Spoken output cannot be screened: a request for it is refused, and an `audio` field
    an upstream sends anyway is dropped (its transcript held a card number)."""

    s = await stack(Reply("Hello there."))
    for extra in ({"modalities": ["text", "audio"]}, {"audio": {"voice": "alloy",
                                                                "format": "wav"}}):
        async with s.client.post("/v1/chat/completions", json={
                "model": "m", "messages": [{"role": "user", "content": "hi"}], **extra}) as resp:
            assert resp.status == 400
            assert (await resp.json())["error"]["code"] == "unscreenable_output"
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunk = {**head, "choices": [{"index": 0, "finish_reason": "stop", "delta": {
        "content": "Hi.", "audio": {"id": "a", "transcript": "card 4111 1111 1111 1111"},
        "reasoning_details": [{"type": "reasoning.text", "text": "4111 1111 1111 1111"}]}}]}
    raw_up = RawUpstream([b"data: " + orjson.dumps(chunk) + b"\n\ndata: [DONE]\n\n"])
    s2 = await stack(raw_up)
    async with s2.client.post("/v1/chat/completions", json={
            "model": "m", "messages": [{"role": "user", "content": "hi"}],
            "stream": True}) as resp:
        raw = await resp.read()
    assert b"4111" not in raw and b"audio" not in raw
    assert events(raw)[-1] == "[DONE]"


async def test_content_parts_without_text_of_their_own_are_never_passed_on(stack: Any) -> None:
    """A `thinking` part nests its text one level down: it is not screened, so it is not
    sent (fail closed), streamed or not."""
    parts = [{"type": "thinking", "thinking": [{"type": "text",
                                                "text": "the card is 4111 1111 1111 1111"}]}]
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunk = {**head, "choices": [{"index": 0, "delta": {"content": parts},
                                  "finish_reason": "stop"}]}
    whole = {**head, "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": parts},
         "finish_reason": "stop"}]}
    for raw_reply, stream in ((b"data: " + orjson.dumps(chunk) + b"\n\ndata: [DONE]\n\n", True),
                              (orjson.dumps(whole), False)):
        upstream = RawUpstream([raw_reply], content_type="text/event-stream" if stream
                               else "application/json")
        s = await stack(upstream)
        async with s.client.post("/v1/chat/completions", json={
                "model": "m", "messages": [{"role": "user", "content": "hi"}],
                "stream": stream}) as resp:
            raw = await resp.read()
        assert resp.status == 200
        assert b"4111" not in raw and b"thinking" not in raw
