"""A streamed reply's watchdog: keep-alive comments while the upstream is silent, the idle
limit, and the stop at shutdown; and the registry of live streams a stopping server ends.

One timer per stream, re-armed at most once per keep-alive interval (never per chunk): when it
fires it reads how many bytes the upstream sent since (aiohttp's `StreamReader.total_bytes`)
and when the client was last written to. After `streams.keepalive_s` without a write it
writes an SSE comment (`: keep-alive`), which clients ignore and proxies and load balancers
read as traffic; after `streams.idle_timeout_s` without an upstream byte it closes the
upstream response, and the relay ends the stream with an `upstream_idle` error event and
`[DONE]`. A server shutting down closes each live stream's upstream the same way (error
`shutting_down`), so that no client is left with a stream cut off in the middle.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import aiohttp
from aiohttp import web

from replyguard.proxy.errors import ProxyError, UpstreamError
from replyguard.proxy.state import SETTINGS

KEEPALIVE = b": keep-alive\n\n"


class ShuttingDown(ProxyError):
    """503: the server is stopping; what was screened was sent, the rest is not."""

    status = 503
    type = "server_error"
    code = "shutting_down"


class Watchdog:
    """The timer of one streamed reply (see the module). `stats` is the relay's WriteClock
    (`last_write`, time.monotonic). `reason()` is the error to end the stream with once the
    watchdog closed the upstream, else None."""

    def __init__(self, response: web.StreamResponse, upstream: aiohttp.ClientResponse,
                 stats: Any, keepalive_s: float, idle_s: float) -> None:
        self.response, self.upstream, self.stats = response, upstream, stats
        self.keepalive_s, self.idle_s = keepalive_s, idle_s
        self.loop = asyncio.get_running_loop()
        self.bytes = upstream.content.total_bytes
        self.last_read = time.monotonic()
        self.why: ProxyError | None = None
        self.writes: set[asyncio.Task[None]] = set()
        self.on_cancel: Callable[[Watchdog], None] | None = None
        self.timer: asyncio.TimerHandle | None = self.loop.call_later(
            min(keepalive_s, idle_s), self._check)

    def _check(self) -> None:
        now = time.monotonic()
        total = self.upstream.content.total_bytes
        if total != self.bytes:
            self.bytes, self.last_read = total, now
        if now - self.last_read >= self.idle_s:
            self.end(UpstreamError(f"the upstream sent nothing for {self.idle_s:g} s; the rest "
                                   "of the reply was not sent", code="upstream_idle"))
            return
        if now - self.stats.last_write >= self.keepalive_s:
            self.stats.last_write = now
            task = self.loop.create_task(self._keepalive())
            self.writes.add(task)
            task.add_done_callback(self.writes.discard)
        due = min(self.last_read + self.idle_s, self.stats.last_write + self.keepalive_s)
        self.timer = self.loop.call_later(max(due - now, 0.01), self._check)

    async def _keepalive(self) -> None:
        try:
            await self.response.write(KEEPALIVE)
        except (ConnectionError, RuntimeError):  # the client went away, or the stream ended
            pass

    def end(self, why: ProxyError) -> None:
        """Close the upstream: the relay's read fails and it ends the stream with `why`."""
        if self.why is None:
            self.why = why
            self.upstream.close()

    def reason(self) -> ProxyError | None:
        return self.why

    def cancel(self) -> None:
        if self.on_cancel is not None:
            self.on_cancel(self)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        for task in self.writes:
            task.cancel()


class LiveStreams:
    """The watchdogs of the streams being relayed now; `stop_all()` ends each (shutdown)."""

    def __init__(self) -> None:
        self.live: set[Watchdog] = set()
        self.stopping = False

    def add(self, watchdog: Watchdog) -> None:
        self.live.add(watchdog)
        if self.stopping:
            self._stop(watchdog)

    def discard(self, watchdog: Watchdog) -> None:
        self.live.discard(watchdog)

    def stop_all(self) -> None:
        self.stopping = True
        for watchdog in list(self.live):
            self._stop(watchdog)

    @staticmethod
    def _stop(watchdog: Watchdog) -> None:
        watchdog.end(ShuttingDown("ReplyGuard is shutting down; the rest of the reply was not "
                                  "sent"))


def watchdog(request: web.Request, response: web.StreamResponse,
             upstream: aiohttp.ClientResponse, stats: Any) -> Watchdog:
    """Start the watchdog of a stream just prepared, with the app's `streams` settings, and
    register it with the app's live streams (shutdown). `stats.keepalive_s` is set too (the
    relay's keep-alive while text is held back; `stats` is the relay's WriteClock)."""
    settings = request.app[SETTINGS]
    stats.keepalive_s = settings.streams.keepalive_s
    watch = Watchdog(response, upstream, stats, settings.streams.keepalive_s,
                     settings.streams.idle_timeout_s)
    live = request.app.get(STREAMS)
    if live is not None:
        live.add(watch)
        watch.on_cancel = live.discard
    return watch


#: The streams being relayed now, ended with an error event at shutdown.
STREAMS = web.AppKey("streams", LiveStreams)
