"""Overload and upstream reachability.

When every pooled upstream connection (`upstream.max_connections`) is busy, a request waits for
one; `PoolConnector` bounds that wait at `upstream.pool_wait_s` and raises `PoolTimeout`, which
is answered 503 `overloaded` with `Retry-After` (counted in `replyguard_overloaded_total`), not
told as an upstream timeout: the upstream did nothing wrong. `UpstreamWatch` reads the
upstream client's own events to tell whether the upstream could last be reached (a connection
made or a response begun: yes; a connection refused or timed out: no), a metric and a detail
of the health routes that never decides readiness.
"""

from __future__ import annotations

import asyncio
import math
import time
from types import SimpleNamespace
from typing import Any

import aiohttp

from replyguard.proxy.errors import ProxyError
from replyguard.proxy.metrics import Metrics


class PoolTimeout(aiohttp.ClientConnectionError):
    """No pooled upstream connection came free within the pool wait; the client may retry
    after `retry_after_s` seconds."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class PoolConnector(aiohttp.TCPConnector):
    """aiohttp's TCPConnector with the wait for a free connection bounded at `pool_wait_s`
    (PoolTimeout). aiohttp bounds that wait only together with opening the connection
    (`ClientTimeout.connect`), so overload would read as a connect timeout. (It overrides
    aiohttp's `_wait_for_available_connection`, there since aiohttp 3.10; the overload tests
    fail if a release renames it.)"""

    def __init__(self, *, pool_wait_s: float, retry_after_s: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pool_wait_s, self.retry_after_s = pool_wait_s, retry_after_s

    async def _wait_for_available_connection(self, *args: Any) -> None:
        try:
            async with asyncio.timeout(self.pool_wait_s):
                await super()._wait_for_available_connection(*args)
        except TimeoutError:
            raise PoolTimeout(f"no upstream connection came free in {self.pool_wait_s} s",
                              self.retry_after_s) from None


class Overloaded(ProxyError):
    """503: no upstream connection came free within `upstream.pool_wait_s`."""

    status = 503
    type = "server_error"
    code = "overloaded"

    def __init__(self, retry_after_s: int) -> None:
        super().__init__("ReplyGuard is overloaded: every upstream connection is busy; retry "
                         f"after {retry_after_s} s")
        self.headers = {"Retry-After": str(retry_after_s)}


def overloaded(exc: BaseException) -> Overloaded | None:
    """The Overloaded error for a PoolTimeout, else None."""
    return Overloaded(exc.retry_after_s) if isinstance(exc, PoolTimeout) else None


def connect_timeout(pool_wait_s: float, connect_timeout_s: float) -> tuple[float, float]:
    """aiohttp's (`connect`, `sock_connect`) timeouts: `connect` covers the wait for a pooled
    connection (bounded by PoolConnector itself) and opening one, so it is the pool wait plus
    the connect timeout; opening a connection alone stays bounded by the connect timeout."""
    return pool_wait_s + connect_timeout_s, connect_timeout_s


class UpstreamWatch:
    """The upstream client's trace hooks (`trace_config()`): whether the upstream could last
    be reached. `reachable` is None until the first call, then True or False; `since` is
    when it last changed (time.monotonic)."""

    def __init__(self, metrics: Metrics | None = None) -> None:
        self.reachable: bool | None = None
        self.since = time.monotonic()
        if metrics is not None:
            metrics.upstream_reachable.set_function(self.gauge)

    def gauge(self) -> float:
        """1 reachable, 0 not, NaN before the first call."""
        return math.nan if self.reachable is None else float(self.reachable)

    def detail(self) -> dict[str, object]:
        """What the health routes tell: {"reachable": bool | None, "since_s": seconds}."""
        return {"reachable": self.reachable,
                "since_s": round(time.monotonic() - self.since, 3)}

    def _set(self, reachable: bool) -> None:
        if reachable is not self.reachable:
            self.reachable, self.since = reachable, time.monotonic()

    def trace_config(self) -> aiohttp.TraceConfig:
        config = aiohttp.TraceConfig()
        config.on_connection_create_end.append(self._reached)
        config.on_request_end.append(self._reached)
        config.on_request_exception.append(self._failed)
        return config

    async def _reached(self, _s: object, _ctx: SimpleNamespace, _p: object) -> None:
        self._set(True)

    async def _failed(self, _s: object, _ctx: SimpleNamespace,
                      params: aiohttp.TraceRequestExceptionParams) -> None:
        if isinstance(params.exception,
                      aiohttp.ClientConnectorError | aiohttp.ConnectionTimeoutError):
            self._set(False)


def count_fault(metrics: Metrics, error: ProxyError, api: str) -> None:
    """Count an error raised for an upstream call of a request speaking `api`: overload in
    `replyguard_overloaded_total`, anything else as an upstream fault of its kind."""
    if isinstance(error, Overloaded):
        metrics.overloaded.inc()
    else:
        metrics.upstream_errors_by(getattr(error, "kind", "upstream_error"), api).inc()
