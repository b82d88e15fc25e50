"""Overload is told as such: a request that finds every upstream connection busy for
`upstream.pool_wait_s` gets 503 `overloaded` with Retry-After, counted in
`replyguard_overloaded_total`, never a 504 blamed on the upstream. The upstream's
reachability is a metric and a detail of the health routes, never readiness."""

from __future__ import annotations

import asyncio
import math

from conftest import RawUpstream, sse, user

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
