"""Screening that can take long runs off the event loop, so no request holds up another.

A request body, a whole reply or a turn read by the injection patterns of `OFFLOAD_CHARS`
or more (a JSON reply of `JSON_OFFLOAD_CHARS`) is screened in a screening process
(`proxy.screen_pool`, `PROCESSES` of them, started on first use): a thread is not enough
there, because a long text's screen holds the interpreter for long stretches the event loop
would wait for, and not only in its scans: its findings (one object or more per value)
trigger the garbage collector, one call that holds the interpreter for as long as there
are objects (measured: 24 ms on 1 MB of `a://a:`, 108 ms on 4 MB of `fe80::1 `). Streamed
events with what a stream's screens hold of `STREAM_OFFLOAD_CHARS` or more are screened in
one worker thread: a stream's screens carry its state from event to event, and a batch holds
the interpreter at most about 1 ms in one go (sentences of a few hundred characters; the
switch interval is set to `SWITCH_S`). Below the thresholds, screening on the loop costs
less than handing it over: the slowest input families measured screen at about 1.3 to
2.5 ms a kilobyte (`a://a:`, `fe80::1 `, table rows), so 16 KB is about 30-40 ms in the
worst case and well under 5 ms for ordinary text. A JSON reply screens each of its strings
as a reply of its own, which costs more a kilobyte.
"""

from __future__ import annotations

import asyncio
import sys
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from replyguard.proxy.errors import ProxyError
from replyguard.proxy.screen_pool import PROCESSES, ScreenPool

#: Texts of this many characters (bytes of a body) or more are screened in the worker thread.
OFFLOAD_CHARS = 16_384
#: A whole JSON reply (`response_format`) of this many bytes or more goes to the worker.
JSON_OFFLOAD_CHARS = 2_048
#: A batch of stream events (with what the stream's screens hold) of this many characters or
#: more goes to the worker: a streamed text is screened sentence by sentence, and a text of
#: tiny sentences (`あ。` repeated, a few characters each) costs up to 18 µs a character on
#: this 2-core machine, so 2 KB holds the loop at most ~37 ms (16 KB held it 290 ms).
STREAM_OFFLOAD_CHARS = 2_048
#: Jobs waiting for the worker at most; beyond it a request is refused (503, `overloaded`)
#: rather than queued without bound. A stream under way waits for room instead (`run(wait=
#: True)`): refused, it could only be cut off; it has one job at a time, and the streams are
#: as many as the upstream pool lets through.
MAX_WAITING = 32

#: The interpreter's switch interval while a worker exists (`sys.setswitchinterval`).
SWITCH_S = 0.001

T = TypeVar("T")


class Overloaded(ProxyError):
    """503: more long texts are waiting to be screened than `MAX_WAITING`."""

    status = 503
    code = "overloaded"

    def __init__(self) -> None:
        super().__init__("ReplyGuard is screening too many long texts; retry after 1 s")
        self.headers = {"Retry-After": "1"}


class Offload:
    """Runs `fn(*args)` on the event loop when `size` is under `threshold`, else in the
    screening processes (`process`: a job that can be sent there, `proxy.screen_pool`) or
    in the one worker thread, each started on first use; `refused` is called for each job
    refused (`Overloaded`). A job whose caller went away (client gone) still runs to its
    end: a thread cannot be stopped midway; its result is dropped."""

    def __init__(self, threshold: int = OFFLOAD_CHARS, max_waiting: int = MAX_WAITING,
                 refused: Callable[[], object] | None = None,
                 processes: int = PROCESSES) -> None:
        self.threshold = threshold
        self._refused = refused  # called for each job refused (a metric's `inc`)
        self._max_waiting = max_waiting
        self._waiting = 0
        self._pool: ThreadPoolExecutor | None = None
        #: Jobs (of streams under way) waiting for room, first in line first.
        self._room: deque[asyncio.Future[None]] = deque()
        #: The screening processes (`process` jobs).
        self.processes = ScreenPool(processes)
        self._closed = False

    async def run(self, size: int, fn: Callable[..., T], *args: Any,
                  threshold: int | None = None, process: bool = False,
                  wait: bool = False) -> T:
        """`fn(*args)`, here when `size` is under `threshold` (default: the offload's own),
        else in a screening process when `process` (`fn` and `args` picklable; what `fn`
        changes in place is not seen here), else in the worker thread. When too many jobs
        are waiting, raises Overloaded, or with `wait` (a stream under way, which a refusal
        would cut off) waits for room first. Raises WorkerLost when the screening process
        stopped before it answered."""
        if size < (self.threshold if threshold is None else threshold) or self._closed:
            return fn(*args)  # (closed: the app is stopping, a last stream is drained here)
        await self._admit(wait)  # counted in `_waiting` from here
        try:
            if process:
                return await self.processes.run(fn, args)
            return await asyncio.get_running_loop().run_in_executor(
                self._thread(), partial(fn, *args))
        finally:
            self._waiting -= 1
            self._wake()

    async def _admit(self, wait: bool) -> None:
        """Count a job in among those waiting; when too many wait (or others wait for room),
        raise Overloaded, or with `wait` wait for room first, first come first served."""
        if self._waiting < self._max_waiting and not self._room:
            self._waiting += 1
            return
        if not wait:
            if self._refused is not None:
                self._refused()
            raise Overloaded()
        room = asyncio.get_running_loop().create_future()
        self._room.append(room)
        try:
            await room  # set by `_wake` when a job ended and left room
            self._waiting += 1
        finally:  # (cancelled, the client gone: the turn passes on)
            self._room.remove(room)
            self._wake()

    @property
    def waiting_for_room(self) -> int:
        """Jobs of streams under way waiting for room (`run(wait=True)`)."""
        return len(self._room)

    @property
    def admitted(self) -> int:
        """Jobs admitted to the worker thread or the screening processes: running or queued."""
        return self._waiting

    def _wake(self) -> None:
        """Let the first job waiting for room try again, if there is room."""
        if self._room and self._waiting < self._max_waiting and not self._room[0].done():
            self._room[0].set_result(None)

    def _thread(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="replyguard-screen")
            # The loop waits for the interpreter at most this long while the worker screens
            # (Python's default is 5 ms: each step of an answer to another client waited that).
            sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_S))
        return self._pool

    def close(self) -> None:
        """Stop the worker thread once its job is done (jobs not started are cancelled) and
        the screening processes at once. A job run after it runs on the event loop."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self.processes.close()
