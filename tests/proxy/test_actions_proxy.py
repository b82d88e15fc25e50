"""Actions, outcomes and facts through the proxy with the openai SDK (DESIGN section 5, seed
000's counts): the shop's refund claims checked against the tool history the client sends,
values traced, refused tool calls removed, and the counts read back from /metrics."""

from __future__ import annotations

from typing import Any

import openai
import orjson
import pytest

from replyguard.engine.rules import ReplyRules
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream
from tests.proxy.conftest import RawUpstream, StartUpstream, events, streamed_text

REFUND = {
    "writes": True,
    "claims": {"en": ["refunded", "refund has been issued"], "pt-BR": ["reembolsei"]},
    "phrasing": {
        "en": {"done": "I've refunded {amount} for order {order_id}.",
               "failed": "The refund for order {order_id} did not go through.",
               "not_done": "I haven't refunded anything for this order."},
        "pt-BR": {"done": "Reembolsei {amount} do pedido {order_id}.",
                  "failed": "O reembolso do pedido {order_id} não foi concluído.",
                  "not_done": "Não reembolsei nada deste pedido."},
    },
}
TOOLS = {
    "refund_card": REFUND,
    "order_status": {"fresh_for_s": 300, "output_schema": {
        "type": "object", "properties": {"days_late": {"type": "integer", "minimum": 0,
                                                       "maximum": 60}}}},
    "delete_account": {"writes": True, "allowed": False},
}
ASK = {"role": "user", "content": "the parcel for 4412 vanished"}


def refund_turn(result: dict[str, Any] | None, amount: str = "12.50",
                card: str | None = None) -> list[dict[str, Any]]:
    """The conversation after the model called refund_card (and the client ran it, unless
    `result` is None)."""
    args: dict[str, Any] = {"order_id": "4412", "amount": amount}
    if card:
        args["card"] = card
    call = {"id": "call_1", "type": "function",
            "function": {"name": "refund_card", "arguments": orjson.dumps(args).decode()}}
    out = [ASK, {"role": "assistant", "content": None, "tool_calls": [call]}]
    if result is not None:
        out.append({"role": "tool", "tool_call_id": "call_1",
                    "content": orjson.dumps(result).decode()})
    return out


DONE = {"status": "refunded", "order_id": "4412", "amount": "12.50"}
DECLINED = {"status": "declined", "order_id": "4412"}


async def through(stack: StartUpstream, reply: str, messages: list[dict[str, Any]], *,
                  stream: bool, rules: ReplyRules | None = None, **settings: Any
                  ) -> tuple[str, str]:
    """(the reply the openai client got, the /metrics text)."""
    upstream = ScriptedUpstream(lambda _m: Reply(reply), created=1)
    s = await stack(upstream, rules=rules or ReplyRules(), tools=TOOLS, **settings)
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        if stream:
            parts = []
            async for chunk in await client.chat.completions.create(
                    model="m", messages=messages, stream=True):  # type: ignore[arg-type]
                parts += [c.delta.content or "" for c in chunk.choices]
            text = "".join(parts)
        else:
            done = await client.chat.completions.create(model="m", messages=messages)  # type: ignore[arg-type]
            text = done.choices[0].message.content or ""
    return text, await s.metrics_text()


def count(metrics: str, name: str) -> float:
    for line in metrics.splitlines():
        if line.startswith(f"{name}_total "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not exported")


SAID = "I've refunded 12.50 pounds for order 4412."


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("reply", "messages", "expected", "counted"), [
    (SAID, refund_turn(DONE), SAID, None),
    (SAID, refund_turn(DECLINED), "The refund for order 4412 did not go through.",
     "reply_outcome_replaced"),
    (SAID, [ASK], "I haven't refunded anything for this order.", "reply_assertion_refused"),
    (SAID, refund_turn(None), "I haven't refunded anything for this order.",
     "reply_outcome_replaced"),
    ("I've refunded 15.00 pounds for order 4412.", refund_turn(DONE),
     "I've refunded 12.50 for order 4412.", "reply_value_replaced"),
    ("Sorry about that. Anything else?", refund_turn(DONE),
     "Sorry about that. Anything else? I've refunded 12.50 for order 4412.",
     "reply_outcome_added"),
    ("Shall I refund it?", [ASK], "Shall I refund it?", None),
    ("I will refund it once it is confirmed.", [ASK], "I will refund it once it is confirmed.",
     None),
])
async def test_the_shop_claims(stack: StartUpstream, stream: bool, reply: str,
                               messages: list[dict[str, Any]], expected: str,
                               counted: str | None) -> None:
    text, metrics = await through(stack, reply, messages, stream=stream)
    assert text == expected
    for name in ("reply_assertion_refused", "reply_outcome_replaced", "reply_value_replaced",
                 "reply_outcome_added"):
        assert count(metrics, name) == (1.0 if name == counted else 0.0), name


@pytest.mark.parametrize("stream", [False, True])
async def test_the_refunded_card_is_masked_even_when_cards_are_withheld(
        stack: StartUpstream, stream: bool) -> None:
    text, metrics = await through(
        stack, "I've refunded 12.50 pounds for order 4412 to 4111 1111 1111 1111.",
        refund_turn(DONE, card="4111 1111 1111 1111"), stream=stream,
        rules=ReplyRules(personal_data={"card": "withhold"}))
    assert text == "I've refunded 12.50 pounds for order 4412 to **** 1111."
    assert count(metrics, "reply_pd_masked") == 1.0
    assert count(metrics, "reply_pd_withheld") == 0.0


async def test_portuguese_claims(stack: StartUpstream) -> None:
    text, _ = await through(stack, "Reembolsei 12,50 do pedido 4412.", refund_turn(DECLINED),
                            stream=True, language="pt-BR")
    assert text == "O reembolso do pedido 4412 não foi concluído."


def status_turn(result: dict[str, Any]) -> list[dict[str, Any]]:
    call = {"id": "call_9", "type": "function",
            "function": {"name": "order_status", "arguments": '{"order_id": "4412"}'}}
    return [ASK, {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_9", "content": orjson.dumps(result).decode()}]


@pytest.mark.parametrize(("reply", "result", "expected"), [
    ("Order 4412 is 175 days late.", {"order_id": "4412", "days_late": 175},
     {"reply_facts_traced": 2, "reply_facts_out_of_range": 1}),
    ("Order 4412 ships on 2026-12-01.", {"order_id": "4412", "ships": "2026-12-01",
                                         "as_of": "2020-01-01T00:00:00Z"},
     # 4412 is also in the call's arguments, which do not go stale: only the date is
     {"reply_facts_traced": 2, "reply_facts_stale": 1}),
    ("Order 4412 costs 99.99 pounds.", {"order_id": "4412", "total": "12.50"},
     {"reply_facts_traced": 1, "reply_facts_untraced": 1}),
])
async def test_each_facts_count(stack: StartUpstream, reply: str, result: dict[str, Any],
                                expected: dict[str, int]) -> None:
    text, metrics = await through(stack, reply, status_turn(result), stream=True)
    assert text == reply
    for name in ("reply_facts_traced", "reply_facts_untraced", "reply_facts_conflict",
                 "reply_facts_stale", "reply_facts_out_of_range"):
        assert count(metrics, name) == float(expected.get(name, 0)), name


async def test_facts_conflict(stack: StartUpstream) -> None:
    calls = [{"id": f"call_{i}", "type": "function", "function": {
        "name": "order_status", "arguments": '{"order_id": "4412"}'}} for i in (1, 2)]
    messages = [ASK, {"role": "assistant", "content": None, "tool_calls": calls},
                {"role": "tool", "tool_call_id": "call_1", "content": '{"total": "12.50"}'},
                {"role": "tool", "tool_call_id": "call_2", "content": '{"total": "15.00"}'}]
    text, metrics = await through(stack, "The total is 12.50 pounds.", messages, stream=False)
    assert text == "The total is 12.50 pounds."
    assert count(metrics, "reply_facts_conflict") == 1.0


async def test_staff_see_untraced_values_highlighted(stack: StartUpstream) -> None:
    upstream = ScriptedUpstream(lambda _m: Reply("Order 4412 costs 99.99 pounds."), created=1)
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    body = {"model": "m", "messages": status_turn({"order_id": "4412", "total": "12.50"})}
    async with s.client.post("/v1/chat/completions", json=body,
                             headers={"X-ReplyGuard-Audience": "staff"}) as resp:
        got = await resp.json()
    assert got["choices"][0]["message"]["content"] == \
        "[unverified] Order 4412 costs 99.99 pounds."
    assert count(await s.metrics_text(), "reply_value_highlighted") == 1.0
    async with s.client.post("/v1/chat/completions", json=body,
                             headers={"X-ReplyGuard-Audience": "boss"}) as resp:
        assert resp.status == 400
        assert (await resp.json())["error"]["code"] == "invalid_audience"


DELETE = {"name": "delete_account", "arguments": {"account": "me"}}
CANNOT = "I can't do that here: the delete account action is not available."


async def test_a_refused_tool_call_is_removed_whole(stack: StartUpstream) -> None:
    upstream = ScriptedUpstream(lambda _m: Reply("", tool_calls=(DELETE,)), created=1)
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    offered = [{"type": "function", "function": {"name": n, "parameters": {}}}
               for n in ("delete_account", "refund_card")]
    async with s.client.post("/v1/chat/completions", json={
            "model": "m", "messages": [ASK], "tools": offered}) as resp:
        got = await resp.json()
    choice = got["choices"][0]
    assert choice["message"]["content"] == CANNOT
    assert "tool_calls" not in choice["message"]
    assert choice["finish_reason"] == "stop"
    assert [t["function"]["name"] for t in upstream.seen[0]["tools"]] == ["refund_card"]
    assert count(await s.metrics_text(), "replyguard_tool_calls_refused") == 1.0


async def test_a_refused_tool_call_never_reaches_a_streaming_client(
        stack: StartUpstream) -> None:
    refund = {"name": "refund_card", "arguments": {"order_id": "4412", "amount": "12.50"}}
    upstream = ScriptedUpstream(lambda _m: Reply("", tool_calls=(DELETE, refund)), created=1)
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    async with s.client.post("/v1/chat/completions",
                             json={"model": "m", "messages": [ASK], "stream": True}) as resp:
        raw = await resp.read()
    assert b"delete_account" not in raw
    deltas = [d for e in events(raw) if isinstance(e, dict)
              for c in e["choices"] for d in c["delta"].get("tool_calls") or ()]
    assert {d["index"] for d in deltas} == {0}  # renumbered: clients index calls from 0
    assert [d["function"]["name"] for d in deltas if d.get("function", {}).get("name")] == [
        "refund_card"]
    assert streamed_text(raw) == CANNOT
    finishes = [c["finish_reason"] for e in events(raw) if isinstance(e, dict)
                for c in e["choices"] if c.get("finish_reason")]
    assert finishes == ["tool_calls"]  # the refund call still went through


async def test_the_sdk_stream_helper_assembles_the_calls_kept(stack: StartUpstream) -> None:
    refund = {"name": "refund_card", "arguments": {"order_id": "4412", "amount": "12.50"}}
    upstream = ScriptedUpstream(lambda _m: Reply("", tool_calls=(DELETE, refund)), created=1)
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        async with client.chat.completions.stream(model="m", messages=[ASK]) as stream:  # type: ignore[arg-type]
            async for _ in stream:
                pass
            done = await stream.get_final_completion()
    message = done.choices[0].message
    assert [c.function.name for c in message.tool_calls or ()] == ["refund_card"]
    assert message.content == CANNOT


def legacy_reply(stream: bool) -> bytes:
    call = {"name": "delete_account", "arguments": "{}"}
    if not stream:
        return orjson.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                             "choices": [{"index": 0, "finish_reason": "function_call",
                                          "message": {"role": "assistant", "content": None,
                                                      "function_call": call}}]})
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunks = [{"role": "assistant", "function_call": {"name": "delete_account",
                                                      "arguments": ""}},
              {"function_call": {"arguments": "{}"}}]
    out = b"".join(b"data: " + orjson.dumps({**head, "choices": [
        {"index": 0, "delta": d, "finish_reason": None}]}) + b"\n\n" for d in chunks)
    out += b"data: " + orjson.dumps({**head, "choices": [
        {"index": 0, "delta": {}, "finish_reason": "function_call"}]}) + b"\n\n"
    return out + b"data: [DONE]\n\n"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_refused_legacy_function_call_is_removed(stack: StartUpstream,
                                                         stream: bool) -> None:
    upstream = RawUpstream([legacy_reply(stream)],
                           content_type="text/event-stream" if stream else "application/json")
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    body = {"model": "m", "messages": [ASK], "stream": stream,
            "functions": [{"name": "delete_account", "parameters": {}},
                          {"name": "refund_card", "parameters": {}}],
            "function_call": {"name": "delete_account"}}
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        raw = await resp.read()
    assert b"delete_account" not in raw
    sent = upstream.seen[0]
    assert [f["name"] for f in sent["functions"]] == ["refund_card"]
    assert "function_call" not in sent
    if stream:
        assert streamed_text(raw) == CANNOT
        finishes = [c["finish_reason"] for e in events(raw) if isinstance(e, dict)
                    for c in e["choices"] if c.get("finish_reason")]
        assert finishes == ["stop"]
    else:
        choice = orjson.loads(raw)["choices"][0]
        assert choice["message"] == {"role": "assistant", "content": CANNOT}
        assert choice["finish_reason"] == "stop"


async def test_the_headers_are_read_in_any_case_and_checked_without_tools(
        stack: StartUpstream) -> None:
    upstream = ScriptedUpstream(lambda _m: Reply("Olá."), created=1)
    s = await stack(upstream, rules=ReplyRules())
    for headers, status in (({"X-ReplyGuard-Language": "pt-br"}, 200),
                            ({"X-ReplyGuard-Audience": "Staff"}, 200),
                            ({"X-ReplyGuard-Audience": "boss"}, 400),
                            ({"X-ReplyGuard-Language": "fr"}, 400)):
        async with s.client.post("/v1/chat/completions", headers=headers,
                                 json={"model": "m", "messages": [ASK]}) as resp:
            assert resp.status == status, headers


def call_stream(deltas: list[dict[str, Any]]) -> bytes:
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    out = b"".join(b"data: " + orjson.dumps({**head, "choices": [
        {"index": 0, "delta": {"tool_calls": [d]}, "finish_reason": None}]}) + b"\n\n"
        for d in deltas)
    out += b"data: " + orjson.dumps({**head, "choices": [
        {"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}) + b"\n\n"
    return out + b"data: [DONE]\n\n"


def fn(name: str | None = None, arguments: str = "") -> dict[str, Any]:
    return {"name": name, "arguments": arguments} if name is not None else \
        {"arguments": arguments}


@pytest.mark.parametrize("deltas", [
    pytest.param([{"index": 0, "id": "a", "type": "function", "function": fn("delete_")},
                  {"index": 0, "function": fn("account")},
                  {"index": 0, "function": fn(arguments='{"user": "all"}')}],
                 id="name-split-over-deltas"),
    pytest.param([{"index": 0, "id": "a", "type": "function", "function": fn(arguments="{")},
                  {"index": 0, "function": fn("delete_account", '"user": "all"}')}],
                 id="name-after-the-arguments"),
    pytest.param([{"id": "r", "type": "function", "function": fn("refund_card", "{}")},
                  {"id": "d", "type": "function", "function": fn("delete_account", "{}")}],
                 id="no-index"),
])
async def test_a_refused_call_never_reaches_the_client_however_it_streams(
        stack: StartUpstream, deltas: list[dict[str, Any]]) -> None:
    s, raw = await _streamed_calls(stack, deltas, TOOLS)
    assert b"delete_" not in raw and b'"user' not in raw and b'"account' not in raw
    assert CANNOT in streamed_text(raw)
    assert count(await s.metrics_text(), "replyguard_tool_calls_refused") == 1.0


async def _streamed_calls(stack: StartUpstream, deltas: list[dict[str, Any]],
                          tools: dict[str, Any]) -> tuple[Any, bytes]:
    """The stack with `tools`, and what the client got of a streamed reply making the calls
    of `deltas` (upstream chunks' tool-call deltas) to the shop's turn."""
    s = await stack(RawUpstream([call_stream(deltas)]), rules=ReplyRules(), tools=tools)
    async with s.client.post("/v1/chat/completions",
                             json={"model": "m", "messages": [ASK], "stream": True}) as resp:
        return s, await resp.read()


PREFIX_TOOLS = {**TOOLS, "delete": {"allowed": True}}


@pytest.mark.parametrize("deltas", [
    pytest.param([{"index": 0, "id": "a", "type": "function", "function": fn("delete", "{")},
                  {"index": 0, "function": fn("_account", '"user": "all"}')}],
                 id="name-continues-after-the-arguments"),
    pytest.param([{"index": 0, "id": "a", "type": "function", "function": fn("delete")},
                  {"index": 1, "id": "b", "type": "function", "function": fn("delete")},
                  {"index": 0, "function": fn("_account", '{"user": "all"}')},
                  {"index": 1, "function": fn(arguments='{"id": 1}')}],
                 id="interleaved-calls"),
])
async def test_an_allowed_prefix_never_lets_a_refused_name_through(
        stack: StartUpstream, deltas: list[dict[str, Any]]) -> None:
    s, raw = await _streamed_calls(stack, deltas, PREFIX_TOOLS)
    assert b"_account" not in raw and b'"user' not in raw
    calls = [d for e in events(raw) if isinstance(e, dict) for c in e["choices"]
             for d in (c["delta"].get("tool_calls") or ())]
    assert [(d["index"], d["function"]["name"]) for d in calls] == (
        [(0, "delete")] if len(deltas) == 4 else [])
    assert CANNOT in streamed_text(raw)


async def test_a_streamed_legacy_function_call_split_over_deltas_is_refused(
        stack: StartUpstream) -> None:
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    parts = [{"function_call": {"name": "delete_", "arguments": ""}},
             {"function_call": {"name": "account", "arguments": "{}"}}]
    raw_up = b"".join(b"data: " + orjson.dumps({**head, "choices": [
        {"index": 0, "delta": d, "finish_reason": None}]}) + b"\n\n" for d in parts)
    raw_up += b"data: " + orjson.dumps({**head, "choices": [
        {"index": 0, "delta": {}, "finish_reason": "function_call"}]}) + b"\n\ndata: [DONE]\n\n"
    s = await stack(RawUpstream([raw_up]), rules=ReplyRules(), tools=TOOLS)
    async with s.client.post("/v1/chat/completions",
                             json={"model": "m", "messages": [ASK], "stream": True}) as resp:
        raw = await resp.read()
    assert b"function_call" not in raw.replace(b'"finish_reason":"function_call"', b"")
    assert streamed_text(raw) == CANNOT


@pytest.mark.parametrize("stream", [False, True])
async def test_custom_tool_calls_are_judged_too(stack: StartUpstream, stream: bool) -> None:
    custom = {"type": "custom", "custom": {"name": "delete_account", "input": "all"}}
    head = {"id": "c", "created": 1, "model": "m"}
    if stream:
        raw_up = b"data: " + orjson.dumps({**head, "object": "chat.completion.chunk",
                                           "choices": [{"index": 0, "delta": {"tool_calls": [
                                               {"index": 0, "id": "x", **custom}]},
                                               "finish_reason": "tool_calls"}]})
        raw_up += b"\n\ndata: [DONE]\n\n"
    else:
        raw_up = orjson.dumps({**head, "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": [{"id": "x", **custom}]}}]})
    upstream = RawUpstream([raw_up], content_type="text/event-stream" if stream
                           else "application/json")
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    offered = [{"type": "custom", "custom": {"name": "delete_account"}}]
    async with s.client.post("/v1/chat/completions", json={
            "model": "m", "messages": [ASK], "stream": stream, "tools": offered}) as resp:
        raw = await resp.read()
    assert b'"input"' not in raw
    assert "tools" not in upstream.seen[0]
    text = streamed_text(raw) if stream else orjson.loads(raw)["choices"][0]["message"][
        "content"]
    assert text == CANNOT
