"""proxy.fake_upstream: exact SSE bytes, tool-call and n>1 streams, usage, faults, cancellation,
and wire compatibility with the real `openai` SDK."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import aiohttp
import orjson
import pytest
from conftest import whole_completion
from openai import AsyncOpenAI, InternalServerError, RateLimitError

from replyguard.proxy.fake_chat import fake_embedding
from replyguard.proxy.fake_script import SHOP_SCRIPT, Reply, scripted_model
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.sse import SSEDecoder

PARCEL = "the parcel for 4412 vanished"
CARD = "my card is **** 1111, is it on file?"
HEAD = '"object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","system_fingerprint":"fp_fake"'  # noqa: E501


def fixed(reply: Reply) -> ScriptedUpstream:
    """An upstream answering `reply` to everything, with a fixed `created`."""
    return ScriptedUpstream(lambda messages: reply, created=1)


def user(text: str) -> dict:
    return {"messages": [{"role": "user", "content": text}], "model": "m"}


def chunks(raw: bytes) -> list[dict | str]:
    """The stream's events: parsed chunks, and "[DONE]" as a string."""
    dec = SSEDecoder()
    events = dec.feed(raw) + dec.flush()
    return [e.data if e.data == "[DONE]" else orjson.loads(e.data) for e in events]


@pytest.fixture
async def served() -> AsyncIterator[Callable]:
    """Start upstreams on real ports (for the openai SDK); close them all afterwards."""
    started: list[ScriptedUpstream] = []

    async def start(up: ScriptedUpstream) -> str:
        started.append(up)
        return await up.start()

    yield start
    for up in started:
        await up.close()


async def test_exact_sse_bytes(aiohttp_client) -> None:
    client = await aiohttp_client(fixed(Reply(content="Hi there!")).app())
    async with client.post("/v1/chat/completions", json=user("x") | {"stream": True}) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "text/event-stream"
        assert resp.headers["Cache-Control"] == "no-cache"
        body = await resp.read()

    def chunk(delta: str, finish: str = "null") -> bytes:
        return (
            f'data: {{"id":"chatcmpl-1",{HEAD},"choices":[{{"index":0,"delta":{delta},'
            f'"logprobs":null,"finish_reason":{finish}}}]}}\n\n'
        ).encode()

    assert body == b"".join([
        chunk('{"role":"assistant","content":""}'),
        chunk('{"content":"Hi t"}'),
        chunk('{"content":"here"}'),
        chunk('{"content":"!"}'),
        chunk("{}", '"stop"'),
        b"data: [DONE]\n\n",
    ])  # fmt: skip


async def test_tool_call_stream(aiohttp_client) -> None:
    up = ScriptedUpstream(scripted_model(SHOP_SCRIPT), chunk_chars=16, created=1)
    client = await aiohttp_client(up.app())
    async with client.post("/v1/chat/completions", json=user(PARCEL) | {"stream": True}) as resp:
        events = chunks(await resp.read())
    deltas = [e["choices"][0]["delta"] for e in events[:-1]]  # type: ignore[index]
    assert deltas == [
        {"role": "assistant", "content": ""},
        {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                         "function": {"name": "refund_card", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"order_id":"441'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '2","amount":12.5'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]},
        {},
    ]  # fmt: skip
    assert events[-2]["choices"][0]["finish_reason"] == "tool_calls"  # type: ignore[index]
    assert events[-1] == "[DONE]"


async def test_n2_interleaves_choices(aiohttp_client) -> None:
    client = await aiohttp_client(fixed(Reply(content="abcdef")).app())
    body = user("x") | {"stream": True, "n": 2}
    async with client.post("/v1/chat/completions", json=body) as resp:
        events = chunks(await resp.read())
    got = [(e["choices"][0]["index"], e["choices"][0]["delta"]) for e in events[:-1]]  # type: ignore[index]
    assert got == [
        (0, {"role": "assistant", "content": ""}), (1, {"role": "assistant", "content": ""}),
        (0, {"content": "abcd"}), (1, {"content": "abcd"}),
        (0, {"content": "ef"}), (1, {"content": "ef"}),
        (0, {}), (1, {}),
    ]  # fmt: skip


async def test_include_usage_adds_final_chunk(aiohttp_client) -> None:
    client = await aiohttp_client(fixed(Reply(content="one two three")).app())
    options = {"stream": True, "stream_options": {"include_usage": True}}
    body = user("four words right here") | options
    async with client.post("/v1/chat/completions", json=body) as resp:
        events = chunks(await resp.read())
    assert events[-1] == "[DONE]"
    assert events[-2]["choices"] == []  # type: ignore[index]
    usage = {"prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7}
    assert events[-2]["usage"] == usage  # type: ignore[index]
    assert all(e["usage"] is None for e in events[:-2])  # type: ignore[index]


async def test_non_stream_json(aiohttp_client) -> None:
    up = ScriptedUpstream(scripted_model(SHOP_SCRIPT), created=1)
    client = await aiohttp_client(up.app())
    async with client.post("/v1/chat/completions", json=user(CARD)) as resp:
        assert resp.content_type == "application/json"
        got = await resp.json()
    text = "Your card 4111 1111 1111 1111 is on file; the card 4111 1111 1111 1112 is not."
    assert got == whole_completion(text)


async def test_non_stream_tool_call_has_null_content(aiohttp_client) -> None:
    client = await aiohttp_client(ScriptedUpstream(scripted_model(SHOP_SCRIPT)).app())
    async with client.post("/v1/chat/completions", json=user(PARCEL)) as resp:
        choice = (await resp.json())["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    assert choice["message"]["tool_calls"] == [{
        "id": "call_1", "type": "function",
        "function": {"name": "refund_card", "arguments": '{"order_id":"4412","amount":12.5}'},
    }]  # fmt: skip


@pytest.mark.parametrize("stream", [False, True])
async def test_status_fault(aiohttp_client, stream: bool) -> None:
    client = await aiohttp_client(fixed(Reply(content="x", status=429)).app())
    async with client.post("/v1/chat/completions", json=user("x") | {"stream": stream}) as resp:
        assert resp.status == 429
        err = (await resp.json())["error"]
    assert err["type"] == "requests"
    assert err["code"] == "rate_limit_exceeded"
    assert err["message"]


async def test_invalid_json_is_400(aiohttp_client) -> None:
    up = fixed(Reply())
    client = await aiohttp_client(up.app())
    async with client.post("/v1/chat/completions", data=b"{nope") as resp:
        assert resp.status == 400
        assert (await resp.json())["error"]["type"] == "invalid_request_error"
    assert up.seen == []


async def test_drop_after_closes_without_done(aiohttp_client) -> None:
    client = await aiohttp_client(fixed(Reply(content="abcdefghijkl", drop_after=2)).app())
    got = b""
    async with client.post("/v1/chat/completions", json=user("x") | {"stream": True}) as resp:
        with pytest.raises(aiohttp.ClientPayloadError):
            async for piece in resp.content.iter_any():
                got += piece
    deltas = [e["choices"][0]["delta"] for e in chunks(got)]  # type: ignore[index]
    role = {"role": "assistant", "content": ""}
    assert deltas == [role, {"content": "abcd"}, {"content": "efgh"}]
    assert b"[DONE]" not in got


async def test_client_disconnect_counts_cancelled(aiohttp_client) -> None:
    up = fixed(Reply(content="a" * 200, chunk_chars=1, chunk_delay_s=0.01))
    client = await aiohttp_client(up.app())
    async with client.post("/v1/chat/completions", json=user("x") | {"stream": True}) as resp:
        await resp.content.readuntil(b"\n\n")
        resp.close()
    for _ in range(100):
        if up.cancelled:
            break
        await asyncio.sleep(0.01)
    assert up.cancelled == 1


async def test_seen_and_last_user_turns(aiohttp_client) -> None:
    up = ScriptedUpstream(scripted_model(SHOP_SCRIPT))
    client = await aiohttp_client(up.app())
    call = {"id": "call_1", "type": "function",
            "function": {"name": "refund_card", "arguments": "{}"}}  # fmt: skip
    second = [
        {"role": "user", "content": PARCEL},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"ok": true}'},
    ]
    replies = []
    for body in (user("zork"), user(PARCEL), {"messages": second}):
        headers = {"Authorization": "Bearer k"}
        async with client.post("/v1/chat/completions", json=body, headers=headers) as resp:
            replies.append((await resp.json())["choices"][0]["message"]["content"])
    assert replies == ["", None, SHOP_SCRIPT[PARCEL][1]]
    assert up.last_user_turns == ["zork", PARCEL, PARCEL]
    assert up.seen == [user("zork"), user(PARCEL), {"messages": second}]
    assert up.seen_auth == ["Bearer k"] * 3


def test_scripted_model_unknown_turn() -> None:
    model = scripted_model(SHOP_SCRIPT)
    assert model([{"role": "user", "content": "what?"}]) == Reply(content="")
    assert model([{"role": "system", "content": "s"}]) == Reply(content="")


async def test_openai_sdk_non_stream(served) -> None:
    url = await served(ScriptedUpstream(scripted_model(SHOP_SCRIPT)))
    async with AsyncOpenAI(base_url=url, api_key="x", max_retries=0) as client:
        r = await client.chat.completions.create(model="m", messages=user(CARD)["messages"])
        assert r.choices[0].message.content == SHOP_SCRIPT[CARD][1]
        r = await client.chat.completions.create(model="m", messages=user(PARCEL)["messages"])
    (call,) = r.choices[0].message.tool_calls or []
    assert (call.id, call.function.name) == ("call_1", "refund_card")
    assert orjson.loads(call.function.arguments) == {"order_id": "4412", "amount": 12.5}
    assert r.choices[0].finish_reason == "tool_calls"


async def test_openai_sdk_stream(served) -> None:
    url = await served(ScriptedUpstream(scripted_model(SHOP_SCRIPT), chunk_chars=3))
    async with AsyncOpenAI(base_url=url, api_key="x", max_retries=0) as client:
        text = ""
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": CARD}], stream=True,
            stream_options={"include_usage": True},
        )  # fmt: skip
        async for chunk in stream:
            text += "".join(c.delta.content or "" for c in chunk.choices)
        assert text == SHOP_SCRIPT[CARD][1]
        async with client.chat.completions.stream(
            model="m", messages=[{"role": "user", "content": PARCEL}]
        ) as events:
            final = await events.get_final_completion()
    (call,) = final.choices[0].message.tool_calls or []
    assert call.function.name == "refund_card"
    assert orjson.loads(call.function.arguments) == {"order_id": "4412", "amount": 12.5}


async def test_openai_sdk_error_and_other_routes(served) -> None:
    replies = iter([Reply(status=429), Reply(status=500), Reply(content="ok")])
    url = await served(ScriptedUpstream(lambda messages: next(replies)))
    async with AsyncOpenAI(base_url=url, api_key="x", max_retries=0) as client:
        with pytest.raises(RateLimitError):
            await client.chat.completions.create(model="m", messages=[])
        with pytest.raises(InternalServerError):
            await client.chat.completions.create(model="m", messages=[])
        done = await client.completions.create(model="m", prompt="hello")
        assert (done.object, done.choices[0].text) == ("text_completion", "ok")
        emb = await client.embeddings.create(model="e", input=["a", "b"])
        assert [d.embedding for d in emb.data] == [fake_embedding("a"), fake_embedding("b")]
        mod = await client.moderations.create(input=["I will kill it", "a nice day"])
        assert [r.flagged for r in mod.results] == [True, False]
        assert mod.results[0].categories.violence is True
        models = await client.models.list()
        assert [m.id for m in models.data] == ["gpt-4o-mini"]


async def test_legacy_completion_stream(aiohttp_client) -> None:
    client = await aiohttp_client(fixed(Reply(content="hello!")).app())
    body = {"model": "m", "prompt": ["p", "q"], "stream": True}
    async with client.post("/v1/completions", json=body) as resp:
        events = chunks(await resp.read())
    got = [(e["choices"][0]["index"], e["choices"][0]["text"]) for e in events[:-1]]  # type: ignore[index]
    assert got == [(0, "hell"), (1, "hell"), (0, "o!"), (1, "o!"), (0, ""), (1, "")]
    assert events[0]["object"] == "text_completion"  # type: ignore[index]
    assert events[-1] == "[DONE]"


def test_fake_embedding_is_deterministic_unit_vector() -> None:
    vec = fake_embedding("hello")
    assert vec == fake_embedding("hello") != fake_embedding("hellp")
    assert len(vec) == 8
    assert abs(sum(x * x for x in vec) - 1.0) < 1e-6


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/completions"])
@pytest.mark.parametrize("n", [0, "2", True])
async def test_bad_n_is_400(aiohttp_client, path: str, n: object) -> None:
    client = await aiohttp_client(fixed(Reply()).app())
    async with client.post(path, json=user("x") | {"prompt": "x", "n": n}) as resp:
        assert resp.status == 400
        assert (await resp.json())["error"]["param"] == "n"
