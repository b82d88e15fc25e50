"""The real `openai` SDK (sync in a thread, and async; streaming and not) pointed at ReplyGuard
in front of the scripted upstream: seed 000's shop conversation gives exactly the seed's
outputs, and the model is given exactly the seed's turns."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from conftest import user

from replyguard.proxy.demo import from_chunks
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream

TURNS = (
    "my card is 4111 1111 1111 1111, is it on file?",
    "my social security number is 123-45-6789",
    "the parcel for 4412 vanished",
)
SEED_REPLIES = [
    "Your card **** 1111 is on file; the card 4111 1111 1111 1112 is not.",
    "That message held details I can't take here, so I haven't read it or done anything. "
    "Please send it again without them.",
    "I've refunded 12.50 pounds for order 4412. Refunds reach the card in three to five "
    "working days.",
]
SEED_SEEN = ["my card is **** 1111, is it on file?", "the parcel for 4412 vanished",
             "the parcel for 4412 vanished"]
Answer = tuple[str, list[dict[str, str]]]


def from_message(completion: Any) -> Answer:
    message = completion.choices[0].message
    calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
             for c in message.tool_calls or ()]
    return message.content or "", calls


def sync_ask(base_url: str, stream: bool) -> Any:
    def ask(messages: list[dict[str, Any]]) -> Answer:
        with openai.OpenAI(base_url=base_url, api_key="k", max_retries=0) as client:
            if not stream:
                return from_message(client.chat.completions.create(
                    model="shop-model", messages=messages))
            with client.chat.completions.create(model="shop-model", messages=messages,
                                                stream=True) as chunks:
                return from_chunks(list(chunks))

    async def run(messages: list[dict[str, Any]]) -> Answer:
        return await asyncio.to_thread(ask, messages)

    return run


def async_ask(client: openai.AsyncOpenAI, stream: bool) -> Any:
    async def run(messages: list[dict[str, Any]]) -> Answer:
        if not stream:
            return from_message(await client.chat.completions.create(
                model="shop-model", messages=messages))
        async with await client.chat.completions.create(
                model="shop-model", messages=messages, stream=True) as chunks:
            return from_chunks([c async for c in chunks])

    return run


async def shop_conversation(ask: Any) -> tuple[list[str], list[dict[str, str]]]:
    """Seed 000's turns, the client running refund_card when asked; (replies, calls run)."""
    history: list[dict[str, Any]] = []
    replies, ran = [], []
    for text in TURNS:
        history.append({"role": "user", "content": text})
        reply, calls = await ask(history)
        while calls:
            history.append({"role": "assistant", "content": reply or None, "tool_calls": [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]})
            for call in calls:
                ran.append(call)
                args = json.loads(call["arguments"])
                result = {"status": "refunded", "order_id": args["order_id"],
                          "amount": args["amount"]}
                history.append({"role": "tool", "tool_call_id": call["id"],
                                "content": json.dumps(result)})
            reply, calls = await ask(history)
        history.append({"role": "assistant", "content": reply})
        replies.append(reply)
    return replies, ran


REFUND = [{"id": "call_1", "name": "refund_card",
           "arguments": '{"order_id":"4412","amount":12.5}'}]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_shop_with_sync_client(stack, stream: bool) -> None:
    s = await stack()
    replies, ran = await shop_conversation(sync_ask(s.base_url, stream))
    assert replies == SEED_REPLIES
    assert ran == REFUND
    assert s.upstream.last_user_turns == SEED_SEEN


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_shop_with_async_client(stack, stream: bool) -> None:
    s = await stack()
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        replies, ran = await shop_conversation(async_ask(client, stream))
    assert replies == SEED_REPLIES
    assert ran == REFUND
    assert s.upstream.last_user_turns == SEED_SEEN


@pytest.mark.parametrize("chunk_chars", [1, 3, 7, 64])
async def test_shop_any_chunking(stack, chunk_chars: int) -> None:
    from replyguard.proxy.fake_script import SHOP_SCRIPT, scripted_model

    s = await stack(ScriptedUpstream(scripted_model(SHOP_SCRIPT), chunk_chars=chunk_chars))
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        replies, _ = await shop_conversation(async_ask(client, True))
    assert replies == SEED_REPLIES


async def test_sdk_raises_on_mid_stream_error_event(stack) -> None:
    s = await stack(Reply(content="Hello there. This part is held back.", drop_after=5))
    got: list[str] = []
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        stream = await client.chat.completions.create(model="m", messages=user("hi")["messages"],
                                                      stream=True)
        async with stream:
            with pytest.raises(openai.APIError, match="the upstream stream broke off"):
                async for chunk in stream:
                    got.append(chunk.choices[0].delta.content or "")
    assert "".join(got) == "Hello there. "


async def test_sdk_sees_upstream_errors(stack) -> None:
    s = await stack(Reply(status=500))
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        with pytest.raises(openai.InternalServerError) as caught:
            await client.chat.completions.create(model="m", messages=user("hi")["messages"])
    assert caught.value.status_code == 502
    assert caught.value.code == "upstream_failed"


async def test_sdk_legacy_completions_and_embeddings(stack) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="Card 4111 1111 1111 1111. Bye"))
    s = await stack(up)
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        whole = await client.completions.create(model="m", prompt="hi")
        streamed = await client.completions.create(model="m", prompt="hi", stream=True)
        async with streamed:
            text = "".join([c.choices[0].text async for c in streamed])
        emb = await client.embeddings.create(model="e", input="card 4111 1111 1111 1111")
    assert whole.choices[0].text == "Card **** 1111. Bye"
    assert text == "Card **** 1111. Bye"
    assert len(emb.data[0].embedding) == 8
    assert up.seen[-1]["input"] == "card **** 1111"
