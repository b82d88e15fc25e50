"""The HTTP protocol guarded against slow and malformed clients.

A connection must deliver a whole request head within `limits.header_timeout_s` of opening (on
a kept-alive connection, of the first byte of its next request), else it is closed and counted
(`replyguard_client_timeouts_total{phase="header"}`): trickled headers (slowloris) cannot hold
connections open. The body must then come within `limits.body_timeout_s` (proxy.body: 408).
A request aiohttp cannot parse is answered with a fixed OpenAI-shaped 400 that echoes none of
its bytes, and logged by its kind only.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from aiohttp import web
from aiohttp.web_protocol import RequestHandler

log = logging.getLogger("replyguard")
#: Idle kept-alive connections are closed after this many seconds (as `aiohttp.web.run_app`).
KEEPALIVE_S = 75.0
#: After an answer given before the whole body came (413, 408), the rest of the body is read
#: and dropped for at most this long, so that the client can read the answer, then the
#: connection is closed (aiohttp's default, 10 s, would let a slow client hold it).
LINGER_S = 1.0
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class GuardedHandler(RequestHandler):
    """aiohttp's HTTP/1.1 protocol with a deadline for the request head and errors that echo
    nothing. `head_done()` (from `head_read`, the first middleware) stops the head's clock;
    `request_done()` lets the connection's next byte start it again."""

    __slots__ = ("_head_timeout", "_head_timer", "_head_state", "_on_slow")

    def __init__(self, manager: Any, *, head_timeout_s: float,
                 on_slow: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._head_timeout = head_timeout_s
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_state = "head"  # head: waiting for one; busy: a request runs; idle: none
        self._on_slow = on_slow

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._head_state == "idle":
            self._head_state = "head"
            self._arm()
        super().data_received(data)

    def connection_lost(self, exc: BaseException | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def head_done(self) -> None:
        """A request's head was read: its clock stops."""
        self._head_state = "busy"
        self._disarm()

    def request_done(self) -> None:
        """The request was answered: the connection's next byte starts the clock again."""
        self._head_state = "idle"

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self._loop.call_later(self._head_timeout, self._expired)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _expired(self) -> None:
        self._head_timer = None
        if self._head_state == "head" and self.transport is not None:
            self._on_slow()
            self.force_close()

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """A request that could not be parsed, or a fault outside the app's own handling: a
        fixed error, logged by its kind (never its text, which may hold the client's bytes)."""
        log.warning(json.dumps({"event": "http_error", "status": status,
                                "error": type(exc).__name__ if exc is not None else None}))
        if request.writer.output_size > 0:
            raise ConnectionError("the response was begun: no error can be sent")
        bad = status == 400
        resp = web.Response(status=status, content_type="application/json", body=orjson.dumps(
            {"error": {"message": "the request is not valid HTTP" if bad else
                       "ReplyGuard failed to handle the request",
                       "type": "invalid_request_error" if bad else "server_error",
                       "param": None, "code": "bad_http_request" if bad else "internal_error"}}))
        resp.force_close()
        return resp


@web.middleware
async def head_read(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The first middleware: the request's head came (its clock stops); once it is answered,
    the connection's next byte starts the clock again."""
    protocol = request.protocol
    if isinstance(protocol, GuardedHandler):
        protocol.head_done()
        try:
            return await handler(request)
        finally:
            protocol.request_done()
    return await handler(request)
