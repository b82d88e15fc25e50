"""`POST /v1/messages` whole, and its request side: exact bodies for block types passed,
screened or refused, the media of a request passed as it is, an upstream error in
Anthropic's shape, an upstream answering whole to a streamed request."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from conftest import RawUpstream
from fake_anthropic import FakeAnthropic, says, text

ASK = {"model": "claude-fake", "max_tokens": 50,
       "messages": [{"role": "user", "content": "hello"}]}
CARD = "4111 1111 1111 1111"


async def post(s: Any, body: dict[str, Any] = ASK) -> tuple[int, Any]:
    async with s.client.post("/v1/messages", json=body) as resp:
        raw = await resp.read()
        return resp.status, orjson.loads(raw) if resp.content_type == "application/json" \
            else raw


@pytest.mark.parametrize(("block", "sent"), [
    ({"type": "redacted_thinking", "data": "EuYBCkQYAiJA"},
     {"type": "redacted_thinking", "data": "EuYBCkQYAiJA"}),
    ({"type": "server_tool_result_marker", "id": "srv_1", "n": 2},
     {"type": "server_tool_result_marker", "id": "srv_1", "n": 2}),
    ({"type": "text", "text": f"Card {CARD} noted.", "citations": None},
     {"type": "text", "text": "Card **** 1111 noted.", "citations": None}),
], ids=["redacted-thinking", "unknown-without-text", "text-with-null-citations"])
async def test_blocks_passed_or_screened(stack, block: dict[str, Any],
                                         sent: dict[str, Any]) -> None:
    s = await stack(FakeAnthropic(says(block)))
    status, body = await post(s)
    assert status == 200
    assert body["content"] == [sent]


@pytest.mark.parametrize("block", [
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
     "input": {"query": f"card {CARD}"}},
    {"type": "text", "text": "Quoted.", "citations": [
        {"type": "char_location", "cited_text": f"card {CARD}", "document_index": 0}]},
], ids=["server-tool-use", "citations"])
async def test_blocks_holding_text_that_cannot_be_screened_fail_closed(
        stack, block: dict[str, Any]) -> None:
    s = await stack(FakeAnthropic(says(text("Fine."), block)))
    status, body = await post(s)
    assert status == 502
    assert body["type"] == "error"
    assert body["error"]["type"] == "api_error"
    assert "4111" not in orjson.dumps(body).decode()


async def test_media_passes_and_its_text_is_masked(stack) -> None:
    fake = FakeAnthropic(says(text("A cat.")))
    s = await stack(fake)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo="}}
    document = {"type": "document", "title": f"card {CARD}",
                "source": {"type": "text", "media_type": "text/plain", "data": "plain"}}
    content = [image, document, {"type": "text", "text": "what is this?"}]
    status, _ = await post(s, {**ASK, "messages": [{"role": "user", "content": content}]})
    assert status == 200
    assert fake.seen[0]["messages"][0]["content"] == [
        image, {**document, "title": "card **** 1111"}, {"type": "text", "text": "what is this?"}]


async def test_system_blocks_and_other_fields_masked(stack) -> None:
    fake = FakeAnthropic(says(text("Hi.")))
    s = await stack(fake)
    system = [{"type": "text", "text": f"Card on file: {CARD}.",
               "cache_control": {"type": "ephemeral"}}]
    status, _ = await post(s, {**ASK, "system": system, "metadata": {"user_id": CARD}})
    assert status == 200
    assert fake.seen[0]["system"] == [{"type": "text", "text": "Card on file: **** 1111.",
                                       "cache_control": {"type": "ephemeral"}}]
    assert fake.seen[0]["metadata"] == {"user_id": "**** 1111"}


async def test_an_upstream_error_passes_in_anthropic_shape_masked(stack) -> None:
    error = {"type": "error", "error": {"type": "rate_limit_error",
                                        "message": f"slow down, card {CARD}"}}
    s = await stack(RawUpstream([orjson.dumps(error)], content_type="application/json",
                                status=429, headers={"request-id": "req_1"}))
    async with s.client.post("/v1/messages", json=ASK) as resp:
        assert resp.status == 429
        assert resp.headers["request-id"] == "req_1"
        assert await resp.json() == {"type": "error", "error": {
            "type": "rate_limit_error", "message": "slow down, card **** 1111"}}


async def test_an_upstream_answer_that_is_not_a_message_is_refused(stack) -> None:
    s = await stack(RawUpstream([b'{"choices": []}'], content_type="application/json"))
    status, body = await post(s)
    assert status == 502
    assert body == {"type": "error", "error": {
        "type": "api_error", "message": "the upstream answered with something that is not "
        "a message"}}


async def test_a_whole_answer_to_a_streamed_request_is_streamed(stack) -> None:
    fake = FakeAnthropic(says(text(f"Card {CARD} noted.")))
    s = await stack(RawUpstream([orjson.dumps(fake.message(ASK))],
                                content_type="application/json"))
    status, raw = await post(s, {**ASK, "stream": True})
    assert status == 200
    assert b"4111" not in raw
    assert b'"delta":{"type":"text_delta","text":"Card **** 1111 noted."}' in raw
    assert raw.endswith(b'event: message_stop\ndata: {"type":"message_stop"}\n\n')


@pytest.mark.parametrize(("body", "message"), [
    ({"model": "m", "max_tokens": 5}, "'messages' must be a non-empty list of user and "
     "assistant messages"),
    ({**ASK, "messages": [{"role": "system", "content": "x"}]},
     "'messages' must be a non-empty list of user and assistant messages"),
    ({**ASK, "system": 5}, "'system' content must be a string or a list of content blocks "
     "(objects whose 'text', if any, is a string)"),
])
async def test_shapes_that_cannot_be_screened_get_400(stack, body: dict[str, Any],
                                                      message: str) -> None:
    fake = FakeAnthropic(says(text("never")))
    s = await stack(fake)
    status, got = await post(s, body)
    assert status == 400
    assert got == {"type": "error", "error": {"type": "invalid_request_error",
                                              "message": message}}
    assert fake.seen == []


async def test_a_whole_answer_in_many_network_writes_is_read_whole(stack) -> None:
    message = orjson.dumps(FakeAnthropic(says(text(f"Card {CARD} noted."))).message(ASK))
    parts = [message[i:i + 40] for i in range(0, len(message), 40)]
    s = await stack(RawUpstream(parts, content_type="application/json"))
    status, body = await post(s)
    assert status == 200
    assert body["content"] == [{"type": "text", "text": "Card **** 1111 noted."}]


async def test_a_whole_answer_over_the_limit_is_refused(stack) -> None:
    message = orjson.dumps(FakeAnthropic(says(text("x " * 2000))).message(ASK))
    s = await stack(RawUpstream([message], content_type="application/json"),
                    limits__max_response_bytes=1024)
    status, body = await post(s)
    assert status == 502
    assert body == {"type": "error", "error": {
        "type": "api_error", "message": "the upstream's reply is over the limit of 1024 bytes"}}
