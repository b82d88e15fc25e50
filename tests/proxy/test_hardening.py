"""Nothing a client controls is echoed or logged unchecked: request ids kept only when safe,
no header value in an error; the upstream's response headers pass from an allow-list; HEAD is
forwarded as HEAD and answered without a body."""

from __future__ import annotations

import asyncio
import logging

import pytest
from conftest import RawUpstream, Stack, user

from replyguard.proxy.fake_script import Reply
from replyguard.proxy.request_id import client_request_id


@pytest.mark.parametrize(("given", "kept"), [
    ("req-42", True),
    ("550e8400-e29b-41d4-a716-446655440000", True),
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", True),
    ("01ARZ3NDEKTSV4RRFFQ69G5FAV", True),
    ("host.example:1234_req", True),
    ("x" * 64, True),
    ("x" * 65, False),
    ("", False),
    ("req 42", False),
    ("req/42", False),
    ('req"42', False),
    ("réq-42", False),
    ("req-4111-1111-1111-1111", False),     # a card number
    ("req_4111111111111111", False),
    ("trace-123-45-6789-x", False),         # a US SSN
    ("x-AKIAIOSFODNN7EXAMPLE", False),      # an AWS access key id
    ("GB82WEST12345698765432", False),      # an IBAN
    ("10.0.0.1", False),                    # an IP address
])  # fmt: skip
def test_client_request_id(given: str, kept: bool) -> None:
    assert client_request_id(given) == (given if kept else None)


async def test_an_unsafe_request_id_is_replaced_and_never_logged(
        stack, caplog: pytest.LogCaptureFixture) -> None:
    s = await stack(Reply(content="Ok."), log__access=True)
    with caplog.at_level(logging.INFO, logger="replyguard.access"):
        async with s.client.post("/v1/chat/completions", json=user("hi"),
                                 headers={"X-Request-Id": "req-4111-1111-1111-1111"}) as resp:
            assert resp.status == 200
    rid = resp.headers["X-Request-Id"]
    assert resp.headers["X-ReplyGuard-Request-Id"] == rid
    assert len(rid) == 16 and int(rid, 16) >= 0
    assert "4111" not in caplog.text
    assert f'"request_id":"{rid}"' in caplog.text


@pytest.mark.parametrize(("header", "value", "message", "code"), [
    ("X-ReplyGuard-Language", "4111 1111 1111 1111",
     "X-ReplyGuard-Language: not a language ReplyGuard reads (known: en, pt-BR)",
     "invalid_language"),
    ("X-ReplyGuard-Audience", "<script>alert(1)</script>",
     "X-ReplyGuard-Audience: not an audience ReplyGuard knows (known: customer, staff)",
     "invalid_audience"),
])  # fmt: skip
async def test_a_bad_header_is_not_echoed(stack, header: str, value: str, message: str,
                                          code: str) -> None:
    s = await stack(Reply(content="Ok."))
    async with s.client.post("/v1/chat/completions", json=user("hi"),
                             headers={header: value}) as resp:
        assert resp.status == 400
        assert await resp.json() == {"error": {
            "message": message, "type": "invalid_request_error", "param": None, "code": code}}


UPSTREAM_HEADERS = {
    "Set-Cookie": "session=abc", "Server": "upstream/1.2.3", "X-Internal-Route": "pod-7",
    "Access-Control-Allow-Origin": "*", "x-request-id": "req_up", "retry-after": "3",
    "x-ratelimit-remaining-requests": "99", "openai-processing-ms": "12",
    "Content-Disposition": 'attachment; filename="a.jsonl"', "ETag": '"e1"',
}


async def test_passthrough_returns_only_allowed_upstream_headers(stack) -> None:
    up = RawUpstream([b'{"a":1}'], content_type="application/json", headers=UPSTREAM_HEADERS)
    s = await stack(up, passthrough="/v1/files")
    async with s.client.get("/v1/files/abc/content") as resp:
        assert resp.status == 200
        assert await resp.read() == b'{"a":1}'
        got = {k.lower() for k in resp.headers}
    assert {"x-request-id", "retry-after", "x-ratelimit-remaining-requests",
            "openai-processing-ms", "content-disposition", "etag", "content-type"} <= got
    assert not got & {"set-cookie", "x-internal-route", "access-control-allow-origin"}
    assert resp.headers.get("Server", "").startswith("upstream") is False


async def test_screened_route_returns_only_allowed_upstream_headers(stack) -> None:
    completion = (b'{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":'
                  b'[{"index":0,"message":{"role":"assistant","content":"Ok."},'
                  b'"finish_reason":"stop"}]}')
    up = RawUpstream([completion], content_type="application/json", headers=UPSTREAM_HEADERS)
    s = await stack(up)
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        assert resp.status == 200
        got = {k.lower() for k in resp.headers}
    assert {"x-request-id", "retry-after", "x-ratelimit-remaining-requests"} <= got
    assert not got & {"set-cookie", "x-internal-route", "access-control-allow-origin",
                      "content-disposition", "etag"}


async def _raw_exchange(port: int, data: bytes) -> bytes:
    """Send `data` on one connection and read until the server closes it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    got = await asyncio.wait_for(reader.read(), 5.0)
    writer.close()
    return got


async def _head_then(s: Stack, then: bytes) -> tuple[bytes, bytes]:
    """HEAD /v1/models then `then` (a GET that closes) on one kept-alive connection to the
    proxy: the HEAD's status line and headers, and all that came after them."""
    port = s.client.port
    assert port is not None
    raw = await _raw_exchange(port, b"HEAD /v1/models HTTP/1.1\r\nHost: x\r\n\r\n" + then)
    first, _, rest = raw.partition(b"\r\n\r\n")
    return first, rest


async def test_head_is_forwarded_as_head_and_answered_without_a_body(stack) -> None:
    body = b'{"object":"list","data":[]}'
    up = RawUpstream([body], content_type="application/json")
    # HEAD then GET on one kept-alive connection: the GET's answer must be read as the second
    # response, whole, so the HEAD's carried no body.
    first, rest = await _head_then(
        await stack(up), b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert first.startswith(b"HTTP/1.1 200 OK\r\n")
    assert rest.startswith(b"HTTP/1.1 200 OK\r\n")
    second_head, _, second_body = rest.partition(b"\r\n\r\n")
    assert body in second_body and b"HTTP/1.1" not in second_body
    assert up.methods == ["HEAD", "GET"]
    assert up.paths == ["/v1/models", "/v1/models"]


async def test_head_error_has_no_body(stack) -> None:
    first, rest = await _head_then(
        await stack("http://127.0.0.1:9/v1"),  # nothing listens: a 502, as HEAD
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert first.startswith(b"HTTP/1.1 502 Bad Gateway\r\n")
    assert rest.startswith(b"HTTP/1.1 200 OK\r\n")