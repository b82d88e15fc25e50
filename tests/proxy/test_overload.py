"""Overload is told as such: a request that finds every upstream connection busy for
`upstream.pool_wait_s` gets 503 `overloaded` with Retry-After, counted in
`replyguard_overloaded_total`, never a 504 blamed on the upstream. The upstream's
reachability is a metric and a detail of the health routes, never readiness."""

from __future__ import annotations

import asyncio
import math
import socket
import time
from collections.abc import Iterator

import pytest
from conftest import RawUpstream, sse, user

from replyguard.proxy.ops_thread import BEAT_S, LATE_S, Heartbeat
from replyguard.proxy.overload import UpstreamWatch

CHUNK = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"content": "Hello there."}, "finish_reason": None}]}


def sample(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line == name:
            return float(line.split()[-1])
    raise AssertionError(f"{name} not exported")


async def test_a_request_waiting_too_long_for_a_connection_gets_503_overloaded(stack) -> None:
    up = RawUpstream([sse(CHUNK)], hang=True)  # the first stream holds the only connection
    s = await stack(up, upstream__max_connections=1, upstream__pool_wait_s=0.2,
                    upstream__retry_after_s=7)
    first = await s.client.post("/v1/chat/completions", json=user("hi", stream=True))
    assert first.status == 200
    await asyncio.sleep(0.2)  # the stream is open, its sentence held back
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        assert resp.status == 503
        assert resp.headers["Retry-After"] == "7"
        assert await resp.json() == {"error": {
            "message": "ReplyGuard is overloaded: every upstream connection is busy; retry "
                       "after 7 s",
            "type": "server_error", "param": None, "code": "overloaded"}}
    first.close()
    text = await s.metrics_text()
    assert sample(text, "replyguard_overloaded_total") == 1.0
    assert "replyguard_upstream_errors_total{" not in text
    assert sample(text, 'replyguard_requests_total{api="chat",route="/v1/chat/completions",'
                        'status="503"}') == 1.0


async def test_pool_wait_applies_to_passthrough_and_models(stack) -> None:
    up = RawUpstream([b"{}"], content_type="application/json", delay_s=1.0)
    s = await stack(up, upstream__max_connections=1, upstream__pool_wait_s=0.1)
    slow = asyncio.ensure_future(s.client.get("/v1/models"))
    await asyncio.sleep(0.05)
    async with s.client.get("/v1/models") as resp:
        assert resp.status == 503
        assert resp.headers["Retry-After"] == "2"
        assert (await resp.json())["error"]["code"] == "overloaded"
    assert (await slow).status == 200


async def test_an_unreachable_upstream_is_a_detail_not_unreadiness(stack) -> None:
    s = await stack("http://127.0.0.1:9/v1")  # nothing listens there
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        assert resp.status == 502
        assert (await resp.json())["error"]["code"] == "upstream_unreachable"
    async with s.client.get("/readyz") as resp:
        assert resp.status == 200
        got = await resp.json()
    assert got["status"] == "ready" and got["upstream"]["reachable"] is False
    async with s.client.get("/healthz") as resp:
        assert (await resp.json())["upstream"]["reachable"] is False
    assert sample(await s.metrics_text(), "replyguard_upstream_reachable") == 0.0
    assert sample(await s.metrics_text(),
                  'replyguard_upstream_errors_total{api="chat",kind="connect"}') == 1.0


async def test_a_reachable_upstream_is_reported(stack) -> None:
    s = await stack(RawUpstream([b'{"data":[]}'], content_type="application/json"))
    assert math.isnan(sample(await s.metrics_text(), "replyguard_upstream_reachable"))
    async with s.client.get("/v1/models") as resp:
        assert resp.status == 200
    assert sample(await s.metrics_text(), "replyguard_upstream_reachable") == 1.0
    async with s.client.get("/healthz") as resp:
        assert (await resp.json())["upstream"]["reachable"] is True


def test_watch_detail_before_any_call() -> None:
    watch = UpstreamWatch()
    assert watch.detail()["reachable"] is None
    assert math.isnan(watch.gauge())


@pytest.fixture
def no_answer() -> Iterator[str]:
    """An upstream URL whose connects hang: a listener with a backlog of 0, its one place
    taken by a connection it never accepts."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    held = socket.create_connection(listener.getsockname())
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        held.close()
        listener.close()


async def test_a_connect_timeout_is_the_upstreams_while_the_loop_keeps_time(
        stack, no_answer) -> None:
    s = await stack(no_answer, heartbeat=True, upstream__connect_timeout_s=0.3)
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        assert resp.status == 504
        assert (await resp.json())["error"]["code"] == "upstream_timeout"
    text = await s.metrics_text()
    assert sample(text, 'replyguard_upstream_errors_total{api="chat",kind="timeout"}') == 1.0
    assert sample(text, "replyguard_overloaded_total") == 0.0


async def test_a_connect_timeout_while_the_loop_ran_late_is_overload(stack, no_answer) -> None:
    s = await stack(no_answer, heartbeat=True, upstream__connect_timeout_s=0.3,
                    upstream__retry_after_s=3)
    await asyncio.sleep(0.3)  # the heartbeat stamped on time
    time.sleep(BEAT_S + LATE_S + 0.1)  # then the main loop is held: its next stamp is late
    await asyncio.sleep(0)
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        assert resp.status == 503
        assert resp.headers["Retry-After"] == "3"
        assert (await resp.json())["error"]["code"] == "overloaded"
    text = await s.metrics_text()
    assert sample(text, "replyguard_overloaded_total") == 1.0
    assert "replyguard_upstream_errors_total{" not in text
    assert sample(text, "replyguard_upstream_reachable") == 0.0  # unreachable all the same


def test_the_heartbeat_remembers_a_late_loop_for_the_time_asked() -> None:
    beat = Heartbeat()
    assert not beat.late_within(60.0)
    beat.last -= BEAT_S + LATE_S  # the stamp owed is a second late now
    assert beat.late_within(0.0)
    beat._beat_at(beat.last + BEAT_S + LATE_S + 0.2)  # then it came, late
    assert beat.late_at == beat.last
    assert beat.late_within(10.0)
    beat.late_at -= 11.0
    assert not beat.late_within(10.0)
