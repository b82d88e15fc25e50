"""`replyguard_upstream_errors_total{kind}`: every upstream fault the client sees as an error is
counted exactly once, under the kind docs/metrics.md gives it; a fault-free answer
counts none. Each case provokes one fault and reads the exact counters from `/metrics`."""

from __future__ import annotations

import socket
from typing import Any

import aiohttp
import orjson
import pytest
from conftest import DONE, RawUpstream, user

from replyguard.proxy.fake_script import Reply

ERRORS = "replyguard_upstream_errors_total"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def upstream_errors(text: str, api: str = "chat") -> dict[str, float]:
    """The exposition's `replyguard_upstream_errors_total` samples: kind -> value, every one
    labelled with `api`."""
    out = {}
    for line in text.splitlines():
        if line.startswith(ERRORS + "{"):
            labels, _, value = line.rpartition(" ")
            assert f'api="{api}"' in labels, line
            out[labels.split('kind="', 1)[1].split('"', 1)[0]] = float(value)
    return out


def sse(obj: Any) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else orjson.dumps(obj)) + b"\n\n"


CHUNK = {"id": "c1", "object": "chat.completion.chunk", "created": 7, "model": "m"}


def delta(text: str) -> bytes:
    return sse({**CHUNK, "choices": [{"index": 0, "delta": {"content": text},
                                      "finish_reason": None}]})


WHOLE = orjson.dumps({"choices": [{"index": 0, "message": {"role": "assistant",
                                                           "content": "Fine. " * 500}}]})
JSON = "application/json"


def raw(parts: list[bytes], **kwargs: Any) -> RawUpstream:
    return RawUpstream(parts, **kwargs)


# (upstream, settings overrides, stream, status the client gets, error code it is told, kind).
# An error told in-stream (status 200) is the SSE `error` event's code.
CHAT_CASES = {
    "refused": (None, {}, False, 502, "upstream_unreachable", "connect"),
    "refused, stream": (None, {}, True, 502, "upstream_unreachable", "connect"),
    "no headers in time": (Reply(content="late", delay_s=0.3), {"upstream__read_timeout_s": 0.05},
                           False, 504, "upstream_timeout", "timeout"),
    "no headers in time, stream": (Reply(content="late", delay_s=0.3),
                                   {"upstream__read_timeout_s": 0.05}, True, 504,
                                   "upstream_timeout", "timeout"),
    "HTTP 500": (Reply(status=500), {}, False, 502, "upstream_failed", "http_5xx"),
    "HTTP 500, stream": (Reply(status=500), {}, True, 502, "upstream_failed", "http_5xx"),
    "HTTP 500 whose body stalls": (
        raw([], content_type=JSON, status=500, hang=True),
        {"upstream__read_timeout_s": 0.1}, False, 502, "upstream_failed", "http_5xx"),
    "HTTP 429": (raw([b'{"error": {"message": "slow down", "type": "requests", '
                      b'"code": "rate_limit_exceeded"}}'], content_type=JSON, status=429),
                 {}, False, 429, "rate_limit_exceeded", "http_4xx"),
    "HTTP 403 without an OpenAI error": (raw([b"<html>no</html>"], content_type="text/html",
                                             status=403),
                                         {}, False, 403, "upstream_refused", "http_4xx"),
    "whole reply over the limit, by its length": (
        raw([WHOLE], content_type=JSON, headers={"Content-Length": str(len(WHOLE))}),
        {"limits__max_response_bytes": 2048}, False, 502, "upstream_too_large", "too_large"),
    "whole reply over the limit, read": (
        raw([WHOLE[:1500], WHOLE[1500:]], content_type=JSON),
        {"limits__max_response_bytes": 2048}, False, 502, "upstream_too_large", "too_large"),
    "whole reply not JSON": (raw([b"<html>ok</html>"], content_type="text/html"), {}, False,
                             502, "upstream_protocol", "protocol"),
    "whole reply without choices": (raw([b'{"error": {"message": "x"}}'], content_type=JSON),
                                    {}, False, 502, "upstream_protocol", "protocol"),
    "whole reply of a shape that cannot be screened": (
        raw([b'{"choices": ["junk"]}'], content_type=JSON), {}, False, 502,
        "upstream_protocol", "protocol"),
    "whole reply stalls": (raw([WHOLE[:100]], content_type=JSON, hang=True),
                           {"upstream__read_timeout_s": 0.1}, False, 504, "upstream_timeout",
                           "timeout"),
    "whole reply broken off": (raw([WHOLE[:100]], content_type=JSON, abort=True), {}, False,
                               502, "upstream_error", "upstream_dropped"),
    "stream broken off": (Reply(content="Hello there. Held back.", drop_after=3), {}, True, 200,
                          "upstream_dropped", "upstream_dropped"),
    "stream stalls": (Reply(content="Hello there. Held back", chunk_delay_s=0.05),
                      {"upstream__read_timeout_s": 0.03}, True, 200, "upstream_dropped",
                      "upstream_dropped"),
    "stream ends before it is done": (raw([delta("Fine. Held")]), {}, True, 200,
                                      "upstream_dropped", "upstream_dropped"),
    "stream not UTF-8": (raw([delta("Fine."), b"data: \xff\xfe\n\n"]), {}, True, 200,
                         "upstream_dropped", "upstream_dropped"),
    "stream event over the limit": (raw([b"data: " + b"x" * 3000]),
                                    {"limits__max_response_bytes": 2048}, True, 200,
                                    "upstream_dropped", "upstream_dropped"),
    "stream error event": (raw([delta("Fine."), sse({"error": {"type": "server_error"}})]), {},
                           True, 200, "upstream_stream_error", "upstream_error"),
    "stream event not JSON": (raw([delta("Fine."), sse(b"not json"), DONE]), {}, True, 200,
                              "upstream_protocol", "protocol"),
    "stream event not an object": (raw([delta("Fine."), sse(b"[1, 2]"), DONE]), {}, True, 200,
                                   "upstream_protocol", "protocol"),
    "stream chunk of a shape that cannot be screened": (
        raw([delta("Fine."), sse({**CHUNK, "choices": [{"index": [0], "delta": {}}]}), DONE]),
        {}, True, 200, "upstream_protocol", "protocol"),
}


def error_code(status: int, body: bytes) -> str:
    """The error code the client was told: the JSON error's, or the stream's error event's."""
    if status != 200:
        return orjson.loads(body)["error"]["code"]
    events = [e for e in body.split(b"\n\n") if e.startswith(b"event: error\n")]
    assert len(events) == 1, body
    return orjson.loads(events[0].split(b"data: ", 1)[1])["error"]["code"]


@pytest.mark.parametrize(("upstream", "overrides", "stream", "status", "code", "kind"),
                         list(CHAT_CASES.values()), ids=list(CHAT_CASES))
async def test_chat_fault_counted_once(stack, upstream: Any, overrides: dict[str, Any],
                                       stream: bool, status: int, code: str, kind: str) -> None:
    s = await stack(upstream or f"http://127.0.0.1:{free_port()}/v1", **overrides)
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=stream)) as resp:
        got_status, body = resp.status, await resp.read()
    assert (got_status, error_code(got_status, body)) == (status, code)
    assert upstream_errors(await s.metrics_text()) == {kind: 1.0}


@pytest.mark.parametrize("stream", [False, True])
async def test_fault_free_answers_count_none(stack, stream: bool) -> None:
    s = await stack(Reply(content="Hello there. All fine."))
    for _ in range(2):
        async with s.client.post("/v1/chat/completions", json=user("hi", stream=stream)) as resp:
            assert resp.status == 200
            await resp.read()
    assert upstream_errors(await s.metrics_text()) == {}


async def test_each_fault_counted_again(stack) -> None:
    s = await stack(Reply(status=503))
    for _ in range(3):
        async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
            assert resp.status == 502
    assert upstream_errors(await s.metrics_text()) == {"http_5xx": 3.0}


async def test_legacy_completions_fault_counted(stack) -> None:
    s = await stack(raw([b"[]"], content_type=JSON))
    async with s.client.post("/v1/completions", json={"model": "m", "prompt": "hi"}) as resp:
        assert resp.status == 502
        assert (await resp.json())["error"]["code"] == "upstream_protocol"
    assert upstream_errors(await s.metrics_text(), "completions") == {"protocol": 1.0}


# -- the other routes: embeddings, models, passthrough ----------------------------------------

EMBED = {"model": "e", "input": "hi"}
OTHER_CASES = {
    "embeddings refused": (None, {}, "POST", "/v1/embeddings", 502, "upstream_unreachable",
                           "connect"),
    "embeddings no headers in time": (raw([b"{}"], content_type=JSON, delay_s=0.3),
                                      {"upstream__read_timeout_s": 0.05}, "POST",
                                      "/v1/embeddings", 504, "upstream_timeout", "timeout"),
    "embeddings HTTP 500": (raw([b"overloaded"], content_type="text/plain", status=500), {},
                            "POST", "/v1/embeddings", 502, "upstream_failed", "http_5xx"),
    "models HTTP 401": (raw([b'{"error": {"message": "no key", "type": "auth", '
                             b'"code": "invalid_api_key"}}'], content_type=JSON, status=401),
                        {}, "GET", "/v1/models", 401, "invalid_api_key", "http_4xx"),
    "models refused": (None, {}, "GET", "/v1/models", 502, "upstream_unreachable", "connect"),
    "passthrough HTTP 404, passed as it is": (
        raw([b'{"error": {"message": "no file", "code": "not_found"}}'], content_type=JSON,
            status=404), {"passthrough": "/v1/files"}, "GET", "/v1/files/f1", 404, "not_found",
        "http_4xx"),
    "passthrough refused": (None, {"passthrough": "/v1/files"}, "GET", "/v1/files", 502,
                            "upstream_unreachable", "connect"),
}


@pytest.mark.parametrize(("upstream", "overrides", "method", "path", "status", "code", "kind"),
                         list(OTHER_CASES.values()), ids=list(OTHER_CASES))
async def test_other_route_fault_counted_once(stack, upstream: Any, overrides: dict[str, Any],
                                              method: str, path: str, status: int, code: str,
                                              kind: str) -> None:
    s = await stack(upstream or f"http://127.0.0.1:{free_port()}/v1", **overrides)
    body = EMBED if method == "POST" else None
    async with s.client.request(method, path, json=body) as resp:
        assert resp.status == status
        assert (await resp.json())["error"]["code"] == code
    api = path.split("/")[2] if "files" not in path else "passthrough"
    assert upstream_errors(await s.metrics_text(), api) == {kind: 1.0}


async def test_passthrough_broken_off_mid_body_is_counted_and_never_ends_clean(stack) -> None:
    # The answer's status and first bytes went out before the upstream broke off: the client
    # cannot be told, so its connection is aborted (a broken body, not a short clean one).
    up = raw([b'{"object": "list", ', b'"data": [1'], content_type=JSON, abort=True)
    s = await stack(up, passthrough="/v1/files")
    async with s.client.get("/v1/files", timeout=aiohttp.ClientTimeout(total=5)) as resp:
        assert resp.status == 200
        with pytest.raises(aiohttp.ClientPayloadError):
            await resp.read()
    text = await s.metrics_text()
    assert upstream_errors(text, "passthrough") == {"upstream_dropped": 1.0}
    assert ('replyguard_requests_total{api="passthrough",route="/v1/files{tail}",'
            'status="200"} 1.0') in text
