"""The admin listener's own thread (proxy.ops_thread): probes and scrapes are answered while
the main event loop is busy, `/healthz` says `stalled` once the main loop missed its heartbeat
for `STALL_S`, and both health routes report the main loop's lag."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from conftest import answering_ok, on_server

from replyguard.proxy import ops_thread
from replyguard.proxy.workers import bind


def _get(port: int, path: str) -> tuple[int, Any]:
    """A GET's status and body (JSON read, except /metrics')."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, body.decode() if path == "/metrics" else json.loads(body)
    finally:
        conn.close()


@pytest.fixture
def served(closers: list[Any]) -> Callable[..., Any]:
    """`await served(block) -> (main port, admin port)`: the proxy with its admin listener,
    and a route `/block` on the main port that holds the main loop while `block(admin port)`
    runs in another thread; `/block` answers what `block` returned."""

    async def start(block: Callable[[int], Any]) -> tuple[int, int]:
        app = await answering_ok(closers)
        main, admin = bind("127.0.0.1", 0, 128), bind("127.0.0.1", 0, 128)
        admin_port = admin.getsockname()[1]

        async def blocking(_request: web.Request) -> web.Response:
            out: list[Any] = []
            probe = threading.Thread(target=lambda: out.append(block(admin_port)))
            probe.start()
            probe.join(20)  # the main loop is held until the probe ended
            return web.json_response(out[0] if out else "no answer")

        app.router.add_get("/block", blocking)
        await on_server(app, closers, main, admin)
        return main.getsockname()[1], admin_port

    return start


async def test_probes_are_answered_while_the_main_loop_is_held(served) -> None:
    def probes(admin: int) -> list[Any]:
        (health, body), (ready, _), (scrape, text) = (
            _get(admin, path) for path in ("/healthz", "/readyz", "/metrics"))
        return [health, body["status"], ready, scrape, "replyguard_requests_total" in text]

    port, _ = await served(probes)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/block") as resp:
            assert await resp.json() == [200, "ok", 200, 200, True]


async def test_healthz_says_stalled_once_the_main_loop_missed_its_heartbeat(
        served, monkeypatch) -> None:
    monkeypatch.setattr(ops_thread, "STALL_S", 0.5)

    def until_stalled(admin: int) -> list[Any]:
        seen = []
        for _ in range(400):
            status, body = _get(admin, "/healthz")
            seen.append(status)
            if status == 503:
                return [seen[0], status, body["status"], body["loop_lag_ms"] >= 250]
            threading.Event().wait(0.01)
        return seen[:1]

    port, admin = await served(until_stalled)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/block") as resp:
            assert await resp.json() == [200, 503, "stalled", True]
        async with session.get(f"http://127.0.0.1:{admin}/healthz") as resp:
            body = await resp.json()
    assert resp.status == 200  # the loop runs again: stamped before this request was read
    assert body["status"] == "ok" and body["loop_lag_ms"] < 250


async def test_health_routes_report_the_main_loops_lag(served) -> None:
    port, admin = await served(lambda _admin: None)
    async with aiohttp.ClientSession() as session:
        for path in ("/healthz", "/readyz"):
            async with session.get(f"http://127.0.0.1:{port}{path}") as resp:
                body = await resp.json()
            assert resp.status == 200
            assert list(body) == ["status", "loop_lag_ms", "upstream"]
