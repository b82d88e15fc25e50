"""Every string the upstream is sent is screened first, as the fake upstream receives it: a
message's keys beside content and name (tool calls of any shape, refusal parts, reasoning of
any shape, extra keys), and the body's other fields (metadata, tools, stop, response_format),
on chat (streamed and not), legacy completions and embeddings. The tester's reproductions
(branch break1, 775ca91), with the exact bodies forwarded."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import streamed_text

from replyguard.engine.request_fields import MAX_DEPTH
from replyguard.engine.rules import ReplyRules
from replyguard.proxy.fake_script import Reply

RULES = ReplyRules(personal_data={"national_id": "withhold", "email": "redact"})
CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"


async def post(s: Any, body: dict[str, Any], path: str = "/v1/chat/completions"
               ) -> tuple[int, Any]:
    async with s.client.post(path, json=body) as resp:
        got = await resp.read() if body.get("stream") and resp.status == 200 else \
            await resp.json()
        return resp.status, got


def cache_lookups(text: str) -> tuple[float, float]:
    got = dict(line.rpartition(" ")[::2] for line in text.splitlines()
               if line.startswith("replyguard_screen_cache_"))
    return (float(got["replyguard_screen_cache_hits_total"]),
            float(got["replyguard_screen_cache_misses_total"]))


SENT_MESSAGES = [
    {"role": "user", "content": "hi", "reasoning_content": f"card {CARD}"},
    {"role": "assistant", "content": None,
     "function_call": {"name": "f", "arguments": f'{{"card": "{CARD}"}}'}},
    {"role": "function", "name": "f", "content": "done"},
    {"role": "assistant", "content": [{"type": "refusal", "refusal": f"not {CARD}"}],
     "reasoning_content": [f"card {CARD}"],
     "reasoning_details": [{"type": "reasoning.text", "text": [f"card {CARD}"]}]},
    {"role": "user", "content": "and?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "custom", "custom": {"name": "f", "input": f"card {CARD}"}},
        {"id": "c2", "type": "function",
         "function": {"name": "g", "arguments": {"card": CARD}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "done"},
    {"role": "tool", "tool_call_id": "c2", "content": "done"},
]
FORWARDED_MESSAGES = [
    {"role": "user", "content": "hi", "reasoning_content": "card **** 1111"},
    {"role": "assistant", "content": None,
     "function_call": {"name": "f", "arguments": '{"card": "**** 1111"}'}},
    {"role": "function", "name": "f", "content": "done"},
    {"role": "assistant", "content": [{"type": "refusal", "refusal": "not **** 1111"}],
     "reasoning_content": ["card **** 1111"],
     "reasoning_details": [{"type": "reasoning.text", "text": ["card **** 1111"]}]},
    {"role": "user", "content": "and?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "custom", "custom": {"name": "f", "input": "card **** 1111"}},
        {"id": "c2", "type": "function",
         "function": {"name": "g", "arguments": {"card": "**** 1111"}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "done"},
    {"role": "tool", "tool_call_id": "c2", "content": "done"},
]
SENT_FIELDS = {
    "metadata": {"ssn": SSN, "card": CARD},
    "tools": [{"type": "function", "function": {
        "name": "f", "description": f"the customer's card is {CARD}",
        "parameters": {"type": "object", "properties": {}}}}],
    "stop": [CARD],
    "response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "object", "description": f"ssn {SSN}"}}},
}
FORWARDED_FIELDS = {
    "metadata": {"ssn": "***6789", "card": "**** 1111"},
    "tools": [{"type": "function", "function": {
        "name": "f", "description": "the customer's card is **** 1111",
        "parameters": {"type": "object", "properties": {}}}}],
    "stop": ["**** 1111"],
    "response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "object", "description": "ssn ***6789"}}},
}


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_every_string_reaches_the_model_screened(stack: Any, stream: bool) -> None:
    s = await stack(Reply("Done."), rules=RULES)
    status, got = await post(s, {"model": "m", "stream": stream, "messages": SENT_MESSAGES,
                                 "tools": SENT_FIELDS["tools"]})
    assert status == 200
    assert s.upstream.seen == [{"model": "m", "stream": stream, "messages": FORWARDED_MESSAGES,
                                "tools": FORWARDED_FIELDS["tools"]}]
    assert (streamed_text(got) if stream else got["choices"][0]["message"]["content"]) \
        == "Done."
    # none of it was counted (the turn and this turn's tool results hold nothing)
    assert [line for line in (await s.metrics_text()).splitlines()
            if line.startswith("reply_pd_") and "_total " in line
            and not line.endswith(" 0.0")] == []


@pytest.mark.parametrize("field", sorted(SENT_FIELDS))
async def test_chat_top_level_fields_reach_the_model_screened(stack: Any, field: str) -> None:
    s = await stack(Reply("Done."), rules=RULES)
    messages = [{"role": "user", "content": "hi"}]
    status, _ = await post(s, {"model": "m", "messages": messages, field: SENT_FIELDS[field]})
    assert status == 200
    assert s.upstream.seen == [{"model": "m", "messages": messages,
                                field: FORWARDED_FIELDS[field]}]


@pytest.mark.parametrize("stream", [False, True])
async def test_legacy_completion_stop_and_metadata(stack: Any, stream: bool) -> None:
    s = await stack(Reply("Ok."), rules=RULES)
    status, _ = await post(s, {"model": "m", "prompt": "hi", "stream": stream,
                               "stop": [CARD], "metadata": {"c": SSN},
                               "messages": [{"role": "user", "content": CARD}]},
                           "/v1/completions")
    assert status == 200
    assert s.upstream.seen == [{"model": "m", "prompt": "hi", "stream": stream,
                                "stop": ["**** 1111"], "metadata": {"c": "***6789"},
                                "messages": [{"role": "user", "content": "**** 1111"}]}]


async def test_embeddings_other_fields_and_their_cache_lookups(stack: Any) -> None:
    s = await stack(Reply(), rules=RULES)
    body = {"model": "e", "input": "hi", "metadata": {"c": CARD}, "user": "u-1"}
    for _ in range(2):
        status, _ = await post(s, body, "/v1/embeddings")
        assert status == 200
    assert s.upstream.seen == [{"model": "e", "input": "hi", "metadata": {"c": "**** 1111"},
                                "user": "u-1"}] * 2
    # the card and the id: missed the first time, found the second
    assert cache_lookups(await s.metrics_text()) == (2.0, 2.0)


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"])
async def test_a_body_nested_too_deep_is_refused(stack: Any, path: str) -> None:
    s = await stack(Reply("Ok."), rules=RULES)
    deep: Any = CARD
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "prompt": "hi",
            "input": "hi", "metadata": {"x": deep}}
    status, got = await post(s, body, path)
    assert (status, got["error"]["code"]) == (400, "invalid_request")
    assert got["error"]["message"] == (f"the request is nested deeper than {MAX_DEPTH} "
                                       "objects and lists; it cannot be screened")
    assert s.upstream.seen == []


async def test_a_message_nested_too_deep_is_refused(stack: Any) -> None:
    s = await stack(Reply("Ok."), rules=RULES)
    deep: Any = CARD
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    status, got = await post(s, {"model": "m", "messages": [
        {"role": "user", "content": "hi", "x": deep}]})
    assert (status, got["error"]["code"]) == (400, "invalid_request")
    assert s.upstream.seen == []
