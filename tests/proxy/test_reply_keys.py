"""What of an upstream reply reaches the client besides the screened text (proxy.reply_keys):
the envelope, shape-checked choice fields and tool calls; any other key only if it holds no
text, whole or streamed, chat or legacy. Shape errors and upstream errors never repeat the
upstream's text; the fault kinds they are counted as. (The tester's reproductions, BREAK1.)"""

from __future__ import annotations

from typing import Any

import openai
import orjson
import pytest
from conftest import RawUpstream, sse, user
from test_upstream_errors import upstream_errors

from replyguard.proxy import reply_keys

CARD = "4111 1111 1111 1111"
HEAD = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
WHOLE = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
LEGACY = {"id": "c", "object": "text_completion", "created": 1, "model": "m"}
MSG = {"role": "assistant", "content": "Fine."}
DONE = b"data: [DONE]\n\n"
CHAT, TEXT = "/v1/chat/completions", "/v1/completions"


def whole(**top: Any) -> bytes:
    return orjson.dumps({**WHOLE, **top})


def ch(choice: dict[str, Any], head: dict[str, Any] = HEAD, **top: Any) -> bytes:
    return sse({**head, "choices": [choice], **top})


FINISH = ch({"index": 0, "delta": {}, "finish_reason": "stop"})


async def client_gets(stack: Any, parts: list[bytes], *, stream: bool, path: str = CHAT,
                      status: int = 200) -> tuple[int, bytes, dict[str, float]]:
    content_type = "text/event-stream" if parts[0].startswith((b"data:", b"event:")) \
        else "application/json"
    s = await stack(RawUpstream(parts, content_type=content_type, status=status))
    body = user("hi", stream=stream) if path == CHAT else \
        {"model": "m", "prompt": "hi", "stream": stream}
    async with s.client.post(path, json=body) as resp:
        raw = await resp.read()
    return resp.status, raw, upstream_errors(await s.metrics_text(),
                                             "chat" if path == CHAT else "completions")


def error_json(message: str, code: str = "upstream_protocol") -> dict[str, Any]:
    return {"error": {"message": message, "type": "upstream_error", "param": None,
                      "code": code}}


def error_event(message: str, code: str = "upstream_protocol") -> bytes:
    return b"event: error\ndata: " + orjson.dumps(error_json(message, code)) + b"\n\n" + DONE


ROLE_ERROR = "a `role` must be one of assistant, developer, function, system, tool, user, " \
             "not another string"
INDEX_ERROR = "a choice index must be a whole number from 0 to 65535, not another string"

#: Whole chat replies: the upstream's body, and the JSON the client gets (200).
WHOLE_KEPT = {
    "message_null_beside_text": (
        whole(choices=[{"index": 0, "message": None, "text": f"card {CARD}",
                        "finish_reason": "stop"}]),
        {**WHOLE, "choices": [{"index": 0, "message": None, "finish_reason": "stop"}]}),
    "delta_in_a_whole_reply": (
        whole(choices=[{"index": 0, "delta": {"content": f"card {CARD}"},
                        "finish_reason": "stop"}]),
        {**WHOLE, "choices": [{"index": 0, "finish_reason": "stop"}]}),
    "choice_level_reasoning": (
        whole(choices=[{"index": 0, "message": MSG, "reasoning_content": f"card {CARD}",
                        "stop_reason": None, "finish_reason": "stop"}]),
        {**WHOLE, "choices": [{"index": 0, "message": MSG, "stop_reason": None,
                               "finish_reason": "stop"}]}),
    "top_level_vendor_text": (
        whole(choices=[{"index": 0, "message": MSG, "finish_reason": "stop"}],
              search_results=[{"title": "x", "snippet": f"card {CARD}"}],
              x_timing={"queue_time": 0.5}, service_tier="default"),
        {**WHOLE, "choices": [{"index": 0, "message": MSG, "finish_reason": "stop"}],
         "x_timing": {"queue_time": 0.5}, "service_tier": "default"}),
    "message_keys_without_text_kept": (
        whole(choices=[{"index": 0, "message": {**MSG, "annotations": [], "audio": None,
                                                "thinking": f"card {CARD}"},
                        "finish_reason": "stop"}],
              usage={"total_tokens": 3, "note": f"card {CARD}",
                     "prompt_tokens_details": {"cached_tokens": 0}}),
        {**WHOLE, "choices": [{"index": 0, "message": {**MSG, "annotations": [], "audio": None},
                               "finish_reason": "stop"}],
         "usage": {"total_tokens": 3, "prompt_tokens_details": {"cached_tokens": 0}}}),
    "envelope_field_of_another_type": (
        whole(choices=[{"index": 0, "message": MSG, "finish_reason": "stop"}],
              system_fingerprint={"fp": f"card {CARD}"}),
        {**WHOLE, "choices": [{"index": 0, "message": MSG, "finish_reason": "stop"}]}),
}


@pytest.mark.parametrize("case", sorted(WHOLE_KEPT))
async def test_whole_reply_keeps_only_keys_without_text(stack: Any, case: str) -> None:
    upstream, expected = WHOLE_KEPT[case]
    status, raw, faults = await client_gets(stack, [upstream], stream=False)
    assert (status, orjson.loads(raw), faults) == (200, expected, {})


async def test_whole_reply_streamed_to_the_client_has_no_vendor_text(stack: Any) -> None:
    """The upstream answered whole, the client asked to stream: no chunk carries it."""
    upstream = whole(choices=[{"index": 0, "message": MSG, "finish_reason": "stop"}],
                     search_results=[{"snippet": f"card {CARD}"}])
    status, raw, _ = await client_gets(stack, [upstream], stream=True)
    head = b'{"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":'
    assert (status, raw) == (200, b"".join([
        b"data: " + head + b'[{"index":0,"delta":{"role":"assistant","content":""},'
        b'"logprobs":null,"finish_reason":null}]}\n\n',
        b"data: " + head + b'[{"index":0,"delta":{"content":"Fine."},"logprobs":null,'
        b'"finish_reason":null}]}\n\n',
        b"data: " + head + b'[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}'
        b"\n\n",
        DONE]))


#: Whole chat replies refused (502 upstream_protocol, counted `protocol`), and the message.
WHOLE_REFUSED = {
    "function_call_string": (
        {"role": "assistant", "content": "ok", "function_call": f"card {CARD}"}, 0, "stop",
        "`function_call` must be an object, not another string"),
    "tool_calls_string": (
        {"role": "assistant", "content": "ok", "tool_calls": f"card {CARD}"}, 0, "stop",
        "`tool_calls` must be a list of objects, not another string"),
    "role_text": ({"role": f"card {CARD}", "content": "ok"}, 0, "stop", ROLE_ERROR),
    "index_text": (MSG, f"card {CARD}", "stop", INDEX_ERROR),
    "index_number": (MSG, 4111111111111111, "stop", "a choice index must be a whole number "
                     "from 0 to 65535, not a whole number out of that range"),
    "finish_reason_text": (MSG, 0, f"card {CARD}", "a choice's `finish_reason` must be a word "
                           "(letters and _), not another string"),
}


@pytest.mark.parametrize("case", sorted(WHOLE_REFUSED))
async def test_whole_reply_of_a_shape_not_screened_is_refused(stack: Any, case: str) -> None:
    message, index, finish, error = WHOLE_REFUSED[case]
    upstream = whole(choices=[{"index": index, "message": message, "finish_reason": finish}])
    status, raw, faults = await client_gets(stack, [upstream], stream=False)
    assert (status, orjson.loads(raw), faults) == (
        502, error_json(f"{error}; nothing of the reply was sent"), {"protocol": 1.0})


#: Streamed chat replies: the upstream's first chunk (then a finish chunk and [DONE]) and the
#: bytes the client gets for it (then the finish chunk and [DONE], as sent).
STREAM_KEPT = {
    "choice_level_content": (
        ch({"index": 0, "delta": {"role": "assistant"}, "content": f"card {CARD}",
            "stop_reason": 7, "finish_reason": None}),
        b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":['
        b'{"index":0,"delta":{"role":"assistant"},"stop_reason":7,"finish_reason":null}]}'),
    "empty_choices_with_text": (
        sse({**HEAD, "choices": [], "text": f"card {CARD}"}),
        b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}'),
    "usage_only_with_text": (
        sse({**HEAD, "usage": {"total_tokens": 1}, "content": f"card {CARD}"}),
        b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"usage":{"total_tokens":1}}'),
    "top_level_beside_a_choice": (
        ch({"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None},
           search_results=[{"snippet": f"card {CARD}"}], x_queue={"ms": 3}),
        b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","x_queue":'
        b'{"ms":3},"choices":[{"index":0,"delta":{"role":"assistant","content":""},'
        b'"finish_reason":null}]}'),
    "delta_key_without_text_kept": (
        ch({"index": 0, "delta": {"role": "assistant", "annotations": [],
                                  "thinking": f"card {CARD}"}, "finish_reason": None}),
        b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":['
        b'{"index":0,"delta":{"role":"assistant","annotations":[]},"finish_reason":null}]}'),
}


@pytest.mark.parametrize("case", sorted(STREAM_KEPT))
async def test_stream_keeps_only_keys_without_text(stack: Any, case: str) -> None:
    upstream, expected = STREAM_KEPT[case]
    status, raw, faults = await client_gets(stack, [upstream, FINISH, DONE], stream=True)
    assert (status, raw, faults) == (200, b"data: " + expected + b"\n\n" + FINISH + DONE, {})


#: Streamed chat chunks refused mid-stream (an error event, counted `protocol`).
STREAM_REFUSED = {
    "delta_role_text": ({"index": 0, "delta": {"role": f"card {CARD}"}}, ROLE_ERROR),
    "delta_tool_calls_string": ({"index": 0, "delta": {"tool_calls": f"card {CARD}"}},
                                "`tool_calls` must be a list of objects, not another string"),
    "index_text": ({"index": f"card {CARD}", "delta": {"content": "x"}}, INDEX_ERROR),
    "delta_string": ({"index": 0, "delta": f"card {CARD}"},
                     "a choice's `delta` must be an object"),
}


@pytest.mark.parametrize("case", sorted(STREAM_REFUSED))
async def test_stream_chunk_of_a_shape_not_screened_is_refused(stack: Any, case: str) -> None:
    choice, error = STREAM_REFUSED[case]
    parts = [ch({**choice, "finish_reason": None}), FINISH, DONE]
    status, raw, faults = await client_gets(stack, parts, stream=True)
    assert (status, raw, faults) == (
        200, error_event(f"{error}; the rest of the reply was not sent"), {"protocol": 1.0})


async def test_legacy_whole_keeps_only_keys_without_text(stack: Any) -> None:
    upstream = orjson.dumps({**LEGACY, "choices": [
        {"index": 0, "text": f"Your card {CARD}.", "reasoning": f"card {CARD}",
         "stop_reason": None, "finish_reason": "stop"}], "citations": [f"card {CARD}"]})
    status, raw, _ = await client_gets(stack, [upstream], stream=False, path=TEXT)
    assert (status, orjson.loads(raw)) == (200, {**LEGACY, "choices": [
        {"index": 0, "text": "Your card **** 1111.", "stop_reason": None,
         "finish_reason": "stop"}]})


async def test_legacy_stream_keeps_only_keys_without_text(stack: Any) -> None:
    parts = [ch({"index": 0, "text": "", "delta": {"content": f"card {CARD}"},
                 "finish_reason": None}, LEGACY),
             ch({"index": 0, "text": "", "finish_reason": "stop"}, LEGACY), DONE]
    status, raw, _ = await client_gets(stack, parts, stream=True, path=TEXT)
    assert (status, raw) == (200, b"".join([
        ch({"index": 0, "text": "", "finish_reason": None}, LEGACY),
        ch({"index": 0, "text": "", "finish_reason": "stop"}, LEGACY), DONE]))


async def test_stream_error_event_type_and_code_only_as_words(stack: Any) -> None:
    first = ch({"index": 0, "delta": {"role": "assistant", "content": ""},
                "finish_reason": None})
    parts = [first, sse({"error": {"message": f"card {CARD}", "type": "server_error",
                                   "code": f"card {CARD}"}})]
    status, raw, faults = await client_gets(stack, parts, stream=True)
    assert (status, raw, faults) == (200, first + error_event(
        "the upstream reported an error mid-stream: type server_error",
        "upstream_stream_error"), {"upstream_error": 1.0})


@pytest.mark.parametrize("stream", [False, True])
async def test_upstream_4xx_error_fields_masked(stack: Any, stream: bool) -> None:
    body = orjson.dumps({"error": {"message": f"bad {CARD}", "type": "invalid_request_error",
                                   "param": f"card {CARD}", "code": f"card {CARD}",
                                   "extra": f"card {CARD}"}})
    status, raw, faults = await client_gets(stack, [body], stream=stream, status=400)
    assert (status, raw, faults) == (400, b'{"error":{"message":"bad **** 1111","type":'
                                          b'"invalid_request_error","param":"card **** 1111",'
                                          b'"code":"card **** 1111"}}', {"http_4xx": 1.0})


async def test_plain_text_error_event_is_the_upstreams_error(stack: Any) -> None:
    status, raw, faults = await client_gets(stack, [b"event: error\ndata: overloaded\n\n"],
                                            stream=True)
    assert (status, raw, faults) == (200, error_event(
        "the upstream reported an error mid-stream: no details", "upstream_stream_error"),
        {"upstream_error": 1.0})


@pytest.mark.parametrize("path", [CHAT, TEXT])
async def test_stream_without_any_choice_is_a_protocol_fault(stack: Any, path: str) -> None:
    """A stream that ends ([DONE]) having carried no choice is not a completion (one that
    stops without [DONE] is `upstream_dropped`, as one with an unfinished choice is)."""
    usage = sse({**HEAD, "choices": [], "usage": {"total_tokens": 0}})
    for parts, sent in (([DONE], b""), ([usage, DONE], usage)):
        status, raw, faults = await client_gets(stack, parts, stream=True, path=path)
        assert (status, raw, faults) == (200, sent + error_event(
            "the upstream ended its stream without any choice"), {"protocol": 1.0})


@pytest.mark.parametrize("stream", [False, True])
async def test_sdk_reads_a_reply_with_vendor_keys(stack: Any, stream: bool) -> None:
    if stream:
        parts = [ch({"index": 0, "delta": {"role": "assistant", "content": f"Card {CARD}."},
                     "finish_reason": None}, search_results=[{"snippet": CARD}],
                    x_queue={"ms": 3}), FINISH, DONE]
        content_type = "text/event-stream"
    else:
        parts = [whole(choices=[{"index": 0, "message": {"role": "assistant", "content":
                                                         f"Card {CARD}.", "annotations": []},
                                 "finish_reason": "stop"}],
                       search_results=[{"snippet": CARD}], x_queue={"ms": 3})]
        content_type = "application/json"
    s = await stack(RawUpstream(parts, content_type=content_type))
    client = openai.AsyncOpenAI(base_url=str(s.client.make_url("/v1")), api_key="k",
                                max_retries=0)
    async with client:
        if stream:
            got = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
            text = "".join([c.choices[0].delta.content or "" async for c in got if c.choices])
        else:
            reply = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}])
            text = reply.choices[0].message.content or ""
            assert reply.model_extra == {"x_queue": {"ms": 3}}
    assert text == "Card **** 1111."


PLAIN = [None, 1, 2.5, True, [], {}, [1, [None]], {"queue_time": {"ms": 1}}, {"n1": 1},
         {"cache_creation": {"ephemeral_5m_input_tokens": 3, "ephemeral_1h_input_tokens": 0}}]
NOT_PLAIN = ["", [["x"]], {"a": {"b": "c"}}, {"4111 1111 1111 1111": 1}, {"x4111": 1},
             {"a123b4567": 1}, {"1h": 1}, {"a b": 1}]


@pytest.mark.parametrize("value", PLAIN)
def test_plain_holds_no_text(value: Any) -> None:
    assert reply_keys.plain(value)


@pytest.mark.parametrize("value", NOT_PLAIN)
def test_not_plain_holds_text(value: Any) -> None:
    assert not reply_keys.plain(value)
