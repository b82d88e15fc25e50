"""The admin listener serves /healthz, /readyz and /metrics of the main app and nothing else;
several workers' metrics merge into one exposition (sums, the lowest reachability, process_*
per worker)."""

from __future__ import annotations

import math

from aiohttp.test_utils import TestClient, TestServer
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from replyguard.proxy.health import ops_app
from replyguard.proxy.peers import merge, render, snapshot


async def test_admin_listener_serves_only_the_ops_routes(stack) -> None:
    s = await stack()
    client = TestClient(TestServer(ops_app(s.app), host="127.0.0.1"))
    await client.start_server()
    try:
        async with client.get("/healthz") as resp:
            assert resp.status == 200 and (await resp.json())["status"] == "ok"
        async with client.get("/readyz") as resp:
            assert resp.status == 200 and (await resp.json())["status"] == "ready"
        async with client.get("/metrics") as resp:
            assert resp.status == 200
            assert "replyguard_requests_total" in await resp.text()
        for method, path in (("POST", "/v1/chat/completions"), ("GET", "/v1/models"),
                             ("POST", "/metrics")):
            async with client.request(method, path, json={}) as resp:
                assert resp.status == 404
                assert (await resp.json())["error"]["code"] == "unknown_route"
    finally:
        await client.close()


def _worker(requests: float, cache: float, reachable: float, rss: float) -> CollectorRegistry:
    r = CollectorRegistry()
    c = Counter("replyguard_requests", "requests", ("route",), registry=r)
    c.labels("/v1/chat/completions").inc(requests)
    h = Histogram("replyguard_request_seconds", "latency", buckets=(0.1, 1.0), registry=r)
    h.observe(0.05)
    Gauge("replyguard_screen_cache_entries", "entries", registry=r).set(cache)
    Gauge("replyguard_upstream_reachable", "up", registry=r).set(reachable)
    Gauge("process_resident_memory_bytes", "rss", registry=r).set(rss)
    return r


def _samples(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and "_created" not in line:
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def test_merge_sums_and_keeps_process_metrics_per_worker() -> None:
    snaps = [(0, snapshot(_worker(3, 10, 1, 100.0))), (1, snapshot(_worker(4, 5, 0, 200.0)))]
    got = _samples(render(merge(snaps)).decode())
    assert got == {
        'replyguard_requests_total{route="/v1/chat/completions"}': 7.0,
        'replyguard_request_seconds_bucket{le="0.1"}': 2.0,
        'replyguard_request_seconds_bucket{le="1.0"}': 2.0,
        'replyguard_request_seconds_bucket{le="+Inf"}': 2.0,
        "replyguard_request_seconds_count": 2.0,
        "replyguard_request_seconds_sum": 0.1,
        "replyguard_screen_cache_entries": 15.0,
        "replyguard_upstream_reachable": 0.0,
        'process_resident_memory_bytes{worker="0"}': 100.0,
        'process_resident_memory_bytes{worker="1"}': 200.0,
    }


def test_merge_reachability_ignores_workers_that_never_called() -> None:
    snaps = [(0, snapshot(_worker(0, 0, math.nan, 1))), (1, snapshot(_worker(0, 0, 1, 1)))]
    assert _samples(render(merge(snaps)).decode())["replyguard_upstream_reachable"] == 1.0
