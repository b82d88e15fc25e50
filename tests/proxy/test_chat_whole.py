"""Whole (non-streamed) chat completions through ReplyGuard, and the request side of chat:
the turn screened before forwarding, withheld and exact turns answered directly."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from conftest import DONE, RawUpstream, events, streamed_text, user, whole_completion

from replyguard.engine.request import WITHHELD_REPLY
from replyguard.engine.rules import ReplyExactly, ReplyRules
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.state import SCREEN_CACHE

CARD_TURN = "my card is 4111 1111 1111 1111, is it on file?"
SSN_TURN = "my social security number is 123-45-6789"
CARD_REPLY = "Your card **** 1111 is on file; the card 4111 1111 1111 1112 is not."


async def post(stack: Any, body: dict[str, Any], path: str = "/v1/chat/completions"
               ) -> tuple[int, Any]:
    async with stack.client.post(path, json=body) as resp:
        return resp.status, await resp.json()


async def test_whole_reply_screened_envelope_and_usage_kept(stack) -> None:
    s = await stack()
    status, got = await post(s, user(CARD_TURN))
    assert status == 200
    assert got == whole_completion(CARD_REPLY)


async def test_whole_reply_n2_each_choice_screened(stack) -> None:
    s = await stack(Reply(content="Card 4111 1111 1111 1111. It is a guaranteed refund. Ok."))
    status, got = await post(s, user("hi", n=2))
    assert status == 200
    assert [(c["index"], c["message"]["content"]) for c in got["choices"]] == [
        (0, "Card **** 1111. Ok."), (1, "Card **** 1111. Ok."),
    ]  # fmt: skip
    assert got["usage"] == {"prompt_tokens": 1, "completion_tokens": 22, "total_tokens": 23}


async def test_tool_calls_message_with_null_content_untouched(stack) -> None:
    s = await stack()
    status, got = await post(s, user("the parcel for 4412 vanished"))
    assert status == 200
    assert got["choices"] == [{
        "index": 0,
        "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "refund_card", "arguments": '{"order_id":"4412","amount":12.5}'}}],
            "refusal": None,
        },
        "logprobs": None, "finish_reason": "tool_calls",
    }]  # fmt: skip


async def test_card_turn_forwarded_masked(stack) -> None:
    s = await stack()
    await post(s, user(CARD_TURN))
    assert s.upstream.last_user_turns == ["my card is **** 1111, is it on file?"]
    assert s.upstream.seen == [user("my card is **** 1111, is it on file?")]


async def test_phone_regions_setting_reaches_both_screens(stack) -> None:
    """`replies.phone_regions: [BR]`: a Brazilian national number is a phone number on both
    sides, in English too; a US one is not any more."""
    rules = ReplyRules(personal_data={"phone": "redact"})
    s = await stack(Reply(content="Ligue (11) 98765-4321 ou (202) 555-0143. Ok."), rules=rules,
                    replies__phone_regions=["BR"])
    status, got = await post(s, user("meu celular é (11) 98765-4321"))
    assert (status, s.upstream.last_user_turns, got["choices"][0]["message"]["content"]) == (
        200, ["meu celular é ***4321"], "Ligue ***4321 ou (202) 555-0143. Ok.")


async def test_earlier_withheld_turn_dropped_from_history(stack) -> None:
    s = await stack()
    messages = [{"role": "user", "content": SSN_TURN},
                {"role": "assistant", "content": WITHHELD_REPLY["en"]},
                {"role": "user", "content": CARD_TURN}]
    await post(s, {"model": "m", "messages": messages})
    assert s.upstream.seen[0]["messages"] == [
        {"role": "assistant", "content": WITHHELD_REPLY["en"]},
        {"role": "user", "content": "my card is **** 1111, is it on file?"},
    ]  # fmt: skip


async def test_withheld_turn_answered_directly_whole(stack) -> None:
    s = await stack()
    status, got = await post(s, user(SSN_TURN, model="shop-model"))
    assert status == 200
    assert got["id"].startswith("chatcmpl-rg")
    assert isinstance(got["created"], int)
    assert {k: v for k, v in got.items() if k not in ("id", "created")} == {
        "object": "chat.completion", "model": "shop-model", "system_fingerprint": None,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": WITHHELD_REPLY["en"], "refusal": None},
            "logprobs": None, "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }  # fmt: skip
    assert s.upstream.seen == []


async def test_withheld_turn_answered_directly_streamed(stack) -> None:
    s = await stack()
    body = user(SSN_TURN, stream=True, stream_options={"include_usage": True})
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "text/event-stream; charset=utf-8"
        raw = await resp.read()
    got = events(raw)
    assert raw.endswith(DONE)
    head = {k: got[0][k] for k in ("id", "created")}
    envelope = {**head, "object": "chat.completion.chunk", "model": "m",
                "system_fingerprint": None}
    assert got == [
        {**envelope, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                  "logprobs": None, "finish_reason": None}]},
        {**envelope, "choices": [{"index": 0, "delta": {"content": WITHHELD_REPLY["en"]},
                                  "logprobs": None, "finish_reason": None}]},
        {**envelope, "choices": [{"index": 0, "delta": {}, "logprobs": None,
                                  "finish_reason": "stop"}]},
        {**envelope, "choices": [],
         "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}},
        "[DONE]",
    ]  # fmt: skip
    assert s.upstream.seen == []


ALLERGY = ReplyRules(reply_exactly=(ReplyExactly(
    say="Please check the label or ask our staff about allergens.", when_asked="allergy",
    words=("allergy", "allergic", "nut")),))


@pytest.mark.parametrize("stream", [False, True])
async def test_reply_exactly_when_asked_answered_directly(stack, stream: bool) -> None:
    s = await stack(rules=ALLERGY)
    body = user("Does this cake have a NUT in it?", stream=stream, n=2)
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        assert resp.status == 200
        if stream:
            raw = await resp.read()
            texts = [streamed_text(raw, 0), streamed_text(raw, 1)]
        else:
            texts = [c["message"]["content"] for c in (await resp.json())["choices"]]
    assert texts == ["Please check the label or ask our staff about allergens."] * 2
    assert s.upstream.seen == []


async def test_tool_result_turn_gets_the_disclaimer(stack) -> None:
    s = await stack()
    messages = [
        {"role": "user", "content": "the parcel for 4412 vanished"},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_1", "type": "function", "function": {
                "name": "refund_card", "arguments": '{"order_id":"4412","amount":12.5}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "refunded"}'},
    ]
    status, got = await post(s, {"model": "m", "messages": messages})
    assert status == 200
    assert got["choices"][0]["message"]["content"] == (
        "I've refunded 12.50 pounds for order 4412. "
        "Refunds reach the card in three to five working days.")


async def test_content_parts_turn_masked(stack) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="Ok."), created=1)
    s = await stack(up)
    parts = [{"type": "text", "text": CARD_TURN},
             {"type": "image_url", "image_url": {"url": "https://example.com/x.png"}}]
    status, _ = await post(s, {"model": "m", "messages": [{"role": "user", "content": parts}]})
    assert status == 200
    assert up.seen[0]["messages"][0]["content"] == [
        {"type": "text", "text": "my card is **** 1111, is it on file?"}, parts[1]]


async def test_language_header_unknown_is_400(stack) -> None:
    s = await stack()
    async with s.client.post("/v1/chat/completions", json=user("hi"),
                             headers={"X-ReplyGuard-Language": "fr"}) as resp:
        assert resp.status == 400
        assert (await resp.json())["error"]["code"] == "invalid_language"
    assert s.upstream.seen == []


@pytest.mark.parametrize("stream", [False, True])
async def test_json_reply_stays_valid_json(stack, stream: bool) -> None:
    doc = '{"card": "4111 1111 1111 1111", "note": "It is a guaranteed refund. Thanks."}'
    s = await stack(Reply(content=doc))
    body = user("hi", stream=stream, response_format={"type": "json_object"})
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        raw = await resp.read()
    text = streamed_text(raw) if stream else orjson.loads(raw)["choices"][0]["message"]["content"]
    assert orjson.loads(text) == {"card": "**** 1111", "note": "Thanks."}


async def test_stream_request_answered_whole_is_streamed_screened(stack) -> None:
    import openai

    whole = orjson.dumps({
        "id": "chatcmpl-w", "object": "chat.completion", "created": 5, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None, "message": {
            "role": "assistant", "content": "Your card 4111 1111 1111 1111 is on file."}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}})
    from conftest import RawUpstream

    s = await stack(RawUpstream([whole], content_type="application/json"))
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k") as client:
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True,
            stream_options={"include_usage": True})
        chunks = [c async for c in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Your card **** 1111 is on file."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.total_tokens == 3


async def test_internals_setting_reaches_the_reply_screen(stack) -> None:
    s = await stack(Reply(content="Pod api-7d9f8b6c5-x2x7k failed. Sorry about that."),
                    replies__internals="redact")
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        got = orjson.loads(await resp.read())["choices"][0]["message"]["content"]
    assert got == "Pod [internal] failed. Sorry about that."
    assert "replyguard_internals_redacted_total 1.0" in await s.metrics_text()


@dataclass
class CookieSettingUpstream(RawUpstream):
    """A raw upstream that sets a session cookie on every response and records the Cookie
    header each request came with."""

    cookies: list[str | None] = field(default_factory=list)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.cookies.append(request.headers.get("Cookie"))
        return await super()._handle(request)


async def test_a_cookie_the_upstream_sets_is_not_sent_on_later_requests(stack) -> None:
    """One upstream session serves every client: a cookie set on one client's request must
    not ride on the next one (no cookie jar)."""
    whole = orjson.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                          "choices": [{"index": 0, "finish_reason": "stop", "message": {
                              "role": "assistant", "content": "Hello."}}]})
    upstream = CookieSettingUpstream([whole], content_type="application/json",
                                     headers={"Set-Cookie": "session=alice-secret; Path=/"})
    server = TestServer(upstream.app(), host="127.0.0.1")
    await server.start_server()
    try:  # by name, not by IP: aiohttp's default jar keeps no cookie of an IP address
        s = await stack(f"http://localhost:{server.port}/v1")
        for _ in range(2):
            status, got = await post(s, user("hi"))
            assert (status, got["choices"][0]["message"]["content"]) == (200, "Hello.")
    finally:
        await server.close()
    assert upstream.cookies == [None, None]


async def test_resent_history_is_screened_from_the_cache_with_the_same_result(stack) -> None:
    """A client resends the whole conversation: the history is looked up in the server's
    screen cache (engine.ScreenCache), and what reaches the upstream and the counts are what
    screening it again gives."""
    s = await stack(Reply(content="Noted."))
    first = [{"role": "system", "content": "You are the shop's assistant."},
             {"role": "user", "content": CARD_TURN}]
    second = first + [{"role": "assistant", "content": "Noted."},
                      {"role": "user", "content": "and my mail is ana@example.com"}]
    for messages in (first, second):
        status, _ = await post(s, {"model": "gpt-4o-mini", "messages": messages})
        assert status == 200
    masked = "my card is **** 1111, is it on file?"
    assert [m["content"] for m in s.upstream.seen[1]["messages"]] == [
        "You are the shop's assistant.", masked, "Noted.", "and my mail is ana@example.com"]
    cache = s.app[SCREEN_CACHE]
    assert cache.hits == 2  # the system prompt and the card turn, the second time
    metrics = await s.metrics_text()
    assert "reply_pd_detected_card_total 1.0" in metrics  # the card turn counted once
    assert "reply_pd_detected_email_total 1.0" in metrics
