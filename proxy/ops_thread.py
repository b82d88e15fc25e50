"""The admin listener served by a thread of its own, and the main event loop's heartbeat.

Kubernetes probes and Prometheus scrapes go to the admin listener. Served on the main event
loop, a probe would wait behind whatever that loop has queued (a burst of thousands of
streams opening at once puts seconds of work in front of it). Served by its own thread and
event loop, it is answered within the interpreter's switch interval, whatever the main
loop's queue. It still tells when the main loop is stuck: the main loop stamps a heartbeat
every `BEAT_S`, and `/healthz` answers 503 `stalled` once the last stamp is older than
`STALL_S`, so a liveness probe restarts a process whose loop no longer runs, and not one
that is merely busy. Both health routes report the main loop's lag (`loop_lag_ms`).
"""

from __future__ import annotations

import asyncio
import math
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from aiohttp import web

#: Seconds between two stamps of the main loop's heartbeat.
BEAT_S = 0.25
#: A main loop whose last stamp is older than this many seconds is stalled (`/healthz` 503).
STALL_S = 30.0
#: A main loop that ran a stamp this many seconds late was overloaded (`Heartbeat.late_within`).
LATE_S = 1.0


class Heartbeat:
    """Stamped by the main loop every `BEAT_S`; read from any thread."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        #: When the main loop last ran a stamp `LATE_S` or more late (never: -inf).
        self.late_at = -math.inf
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self.last = time.monotonic()
        self._handle = asyncio.get_running_loop().call_later(BEAT_S, self._beat)

    def _beat(self) -> None:
        self._beat_at(time.monotonic())
        self._handle = asyncio.get_running_loop().call_later(BEAT_S, self._beat)

    def _beat_at(self, now: float) -> None:
        if now - self.last - BEAT_S >= LATE_S:
            self.late_at = now
        self.last = now

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def lag_s(self) -> float:
        """How late the main loop is: seconds since the stamp it owed last."""
        return max(time.monotonic() - self.last - BEAT_S, 0.0)

    def late_within(self, seconds: float) -> bool:
        """Whether the main loop ran `LATE_S` or more late at some time in the last `seconds`
        (now included): work queued on it then waited that long, whatever that work was."""
        now = time.monotonic()
        return now - self.late_at <= seconds or now - self.last - BEAT_S >= LATE_S

    def stalled(self) -> bool:
        return time.monotonic() - self.last > STALL_S


class OpsThread:
    """Serves `make_site(runner, sock)`'s site for `app` on `sock` in a thread with its own
    event loop, from `start()` until `stop()`. Errors while starting are raised by `start()`."""

    def __init__(self, app: web.Application, sock: socket.socket,
                 make_site: Callable[[web.AppRunner, socket.socket], web.BaseSite],
                 shutdown_timeout_s: float) -> None:
        self.app, self.sock, self.make_site = app, sock, make_site
        self.shutdown_timeout_s = shutdown_timeout_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started: Future[None] = Future()
        self._thread = threading.Thread(target=self._run, name="replyguard-admin", daemon=True)

    async def start(self) -> None:
        self._thread.start()
        await asyncio.wrap_future(self._started)

    async def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        await asyncio.to_thread(self._thread.join)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        runner = web.AppRunner(self.app, handle_signals=False, access_log=None,
                               handler_cancellation=True,
                               shutdown_timeout=self.shutdown_timeout_s)
        try:
            await runner.setup()
            await self.make_site(runner, self.sock).start()
        except BaseException as exc:  # told to the caller of start(), which raises it
            self._started.set_exception(exc)
            await runner.cleanup()
            return
        self._started.set_result(None)
        try:
            await self._stop.wait()
        finally:
            await runner.cleanup()

