"""Slow and malformed clients, on the server `replyguard serve` runs (proxy.server): a request
head trickled past `limits.header_timeout_s` is closed, a body past `limits.body_timeout_s`
gets 408, a request that is not HTTP gets a fixed 400 echoing none of its bytes; normal
requests are served meanwhile."""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess
from typing import Any

import orjson
import pytest
from conftest import answering_ok, on_server, user

from replyguard.proxy.state import METRICS
from replyguard.proxy.workers import bind


@pytest.fixture
def served(closers: list[Any]) -> Any:
    """`await served(**overrides) -> (port, app)`: the proxy on the guarded server, in front
    of a scripted upstream answering "Ok."."""

    async def start(**overrides: Any) -> tuple[int, Any]:
        app = await answering_ok(closers, **overrides)
        sock = bind("127.0.0.1", 0, 128)
        await on_server(app, closers, sock)
        return sock.getsockname()[1], app

    return start


async def _exchange(port: int, *parts: bytes, pause_s: float = 0.0) -> bytes:
    """Send `parts` (pausing between them) and read until the server closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for part in parts:
            writer.write(part)
            await writer.drain()
            await asyncio.sleep(pause_s)
        return await asyncio.wait_for(reader.read(), 5.0)
    except ConnectionResetError:
        return b""
    finally:
        writer.close()


def _post(body: bytes) -> bytes:
    return (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
            b"\r\nConnection: close\r\nContent-Length: " + str(len(body)).encode()
            + b"\r\n\r\n" + body)


async def test_a_trickled_head_is_closed_while_others_are_served(served) -> None:
    port, app = await served(limits__header_timeout_s=0.3)
    slow = [asyncio.ensure_future(_exchange(port, b"POST /v1/chat/completions HTTP/1.1\r\n",
                                            *[b"X-A: b\r\n"] * 10, pause_s=0.1))
            for _ in range(20)]
    body = orjson.dumps(user("hi"))
    ok = await _exchange(port, _post(body))
    assert ok.startswith(b"HTTP/1.1 200 OK") and b'"content":"Ok."' in ok
    got = await asyncio.gather(*slow)
    assert got == [b""] * 20  # closed without an answer
    metrics = app[METRICS]
    assert metrics.client_timeouts.labels("header")._value.get() == 20.0


async def test_an_idle_connection_gets_the_head_timeout_too(served) -> None:
    port, _ = await served(limits__header_timeout_s=0.2)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    assert await asyncio.wait_for(reader.read(), 2.0) == b""
    writer.close()


async def test_a_kept_alive_connection_times_the_next_head_from_its_first_byte(served) -> None:
    port, _ = await served(limits__header_timeout_s=0.3)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    first = await reader.readuntil(b"}}")
    assert first.startswith(b"HTTP/1.1 200 OK")
    await asyncio.sleep(0.5)  # idle past the head timeout: no head begun, kept
    writer.write(b"GET /healthz HTTP/1.1\r\n")
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 2.0) == b""  # closed 0.3 s after that byte
    writer.close()


async def test_a_slow_body_gets_408_and_the_connection_closes(served) -> None:
    port, app = await served(limits__body_timeout_s=0.3)
    body = orjson.dumps(user("hi"))
    raw = await _exchange(port, _post(body)[:-5], pause_s=1.0)
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 Request Timeout")
    assert b"Connection: close" in head
    assert orjson.loads(rest) == {"error": {
        "message": "the request body did not come within 0.3 s",
        "type": "invalid_request_error", "param": None, "code": "body_timeout"}}
    assert app[METRICS].client_timeouts.labels("body")._value.get() == 1.0


@pytest.mark.parametrize("request_bytes", [
    b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Card: 4111 1111 \x01 1111 1111\r\n\r\n",
    b"GE\x00T /4111111111111111 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /v1/models HTTP/9.9 4111111111111111\r\n\r\n",
])  # fmt: skip
async def test_a_request_that_is_not_http_gets_a_fixed_400(
        served, caplog: pytest.LogCaptureFixture, request_bytes: bytes) -> None:
    port, _ = await served()
    with caplog.at_level(logging.DEBUG):
        raw = await _exchange(port, request_bytes)
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert head.split(b" ", 1)[1].startswith(b"400 Bad Request\r\n")  # HTTP/1.0 or 1.1
    assert orjson.loads(rest) == {"error": {
        "message": "the request is not valid HTTP", "type": "invalid_request_error",
        "param": None, "code": "bad_http_request"}}
    assert "4111" not in caplog.text


def test_the_listen_backlog_is_the_setting() -> None:
    ss = shutil.which("ss")
    if ss is None:
        pytest.skip("ss (iproute2) reads a listening socket's backlog")
    sock = bind("127.0.0.1", 0, 1234)
    try:
        port = sock.getsockname()[1]
        out = subprocess.run([ss, "-ltnH", f"sport = :{port}"], capture_output=True,
                             text=True, check=True).stdout.split()
        assert out[0] == "LISTEN" and out[2] == "1234"  # Send-Q of a listener: its backlog
    finally:
        sock.close()
