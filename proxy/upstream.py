"""Calling the upstream: headers to send on, timeouts, and upstream faults mapped to errors."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.config.checks import without_userinfo
from replyguard.config.settings import Settings
from replyguard.proxy.errors import ProxyError, UpstreamError
from replyguard.proxy.overload import Overloaded, connect_timeout, count_fault, overloaded
from replyguard.proxy.state import BEAT, METRICS, SETTINGS

log = logging.getLogger("replyguard")

#: Client headers sent on to the upstream (besides Authorization and Content-Type).
FORWARDED = ("openai-organization", "openai-project", "openai-beta", "user-agent", "accept")
#: Upstream headers sent back to the client.
RETURNED = ("retry-after", "x-request-id", "openai-processing-ms", "openai-version",
            "x-ratelimit-limit-requests", "x-ratelimit-limit-tokens",
            "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens",
            "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens")


def upstream_headers(request: web.Request, settings: Settings) -> dict[str, str]:
    """Headers for the upstream call: the settings' API key as a bearer token when set, else
    the client's own Authorization, unchanged."""
    headers = {"Content-Type": "application/json"}
    given = request.headers.get
    if settings.upstream.api_key:
        headers["Authorization"] = f"Bearer {settings.upstream.api_key}"
    elif (auth := given("Authorization")) is not None:
        headers["Authorization"] = auth
    copy_headers(request, FORWARDED, headers)
    return headers


def copy_headers(request: web.Request, names: tuple[str, ...], into: dict[str, str]) -> None:
    """Copy the client's headers named in `names` (those it sent) into `into`."""
    given = request.headers.get
    for name in names:
        if (value := given(name)) is not None:
            into[name] = value


def returned_headers(response: aiohttp.ClientResponse,
                     more: tuple[str, ...] = ()) -> dict[str, str]:
    """The upstream response headers a client may need (rate limits, request id), and those
    named in `more`: an allow-list, nothing else the upstream sent is passed on."""
    given = response.headers.get
    return {name: value for name in (*RETURNED, *more) if (value := given(name)) is not None}


def timeout(settings: Settings) -> aiohttp.ClientTimeout:
    """Connect timeout (the wait for a pooled connection included: `overload`), and read
    timeout between two reads of the response."""
    up = settings.upstream
    connect, sock_connect = connect_timeout(up.pool_wait_s, up.connect_timeout_s)
    return aiohttp.ClientTimeout(total=None, connect=connect, sock_connect=sock_connect,
                                 sock_read=up.read_timeout_s)


def fault(exc: BaseException, url: str, *,
          answered: bool = False) -> UpstreamError | Overloaded:
    """The client-facing error for an upstream exception (never the request body), raised
    before the upstream's response headers came, or after them (`answered`: reading the
    body). Its `kind` (metrics): `timeout` for a timeout; else `connect` before the headers,
    `upstream_dropped` after them (the reply broke off). A timeout while waiting for a
    pooled connection is no upstream fault: Overloaded (503), kind None. The client is not
    told the upstream's address (the network behind ReplyGuard is none of its business): the
    log line for operators names it (`url`, without any user info)."""
    if (busy := overloaded(exc)) is not None:
        return busy
    if isinstance(exc, (asyncio.TimeoutError, aiohttp.ServerTimeoutError)):
        error = UpstreamError("the upstream did not answer in time", code="upstream_timeout",
                              status=504)
    elif isinstance(exc, aiohttp.ClientConnectorError):
        error = UpstreamError("the upstream refused the connection or cannot be reached",
                              code="upstream_unreachable", status=502)
    else:
        error = UpstreamError(f"the upstream failed: {type(exc).__name__}",
                              code="upstream_error", status=502,
                              kind="upstream_dropped" if answered else "connect")
    _logged(url, error, type(exc).__name__)
    return error


def _logged(url: str, error: UpstreamError, cause: str) -> None:
    """The operators' line for an upstream fault: the upstream's address (none of its user
    info: none is accepted in a setting, never shown all the same), the code and the cause."""
    log.warning("upstream %s: %s (%s)", without_userinfo(url), error.code, cause)


def unanswered(app: web.Application, exc: BaseException, api: str, base: str
               ) -> UpstreamError | Overloaded:
    """The error for an upstream call of `app` to `base` that `exc` ended before its response
    headers (`fault`), counted in the metrics as overload or as an upstream fault of its kind.
    A connect timeout while the main event loop ran late (`Heartbeat.late_within` the
    connect's time) is overload too, not the upstream's: this process's own connect, spread
    over turns of a late loop, may have used up the time."""
    failed = fault(exc, base)
    if isinstance(exc, aiohttp.ConnectionTimeoutError) and _loop_late(app):
        failed = Overloaded(app[SETTINGS].upstream.retry_after_s)
    count_fault(app[METRICS], failed, api)
    return failed


def _loop_late(app: web.Application) -> bool:
    """Whether `app`'s main event loop ran late within the last connect's time."""
    up, beat = app[SETTINGS].upstream, app.get(BEAT)
    return beat is not None and beat.late_within(sum(connect_timeout(up.pool_wait_s,
                                                                     up.connect_timeout_s)))


async def error_from_status(response: aiohttp.ClientResponse, url: str,
                            mask: Callable[[str], str]) -> ProxyError | bytes:
    """For an upstream status >= 400: for a 4xx with an OpenAI error body, that error passes
    through with its status (bytes): its `message`, `type`, `param` and `code`, each put
    through `mask` (none was screened); any other field is left out. Otherwise an
    UpstreamError (502). A body that cannot be read (it broke off, or stalled) is read as
    empty: the fault is the status, already counted."""
    try:
        raw = await response.content.read(1 << 20)
    except (aiohttp.ClientError, TimeoutError):
        raw = b""
    if 400 <= response.status < 500:
        try:
            parsed: Any = orjson.loads(raw)
        except orjson.JSONDecodeError:
            parsed = None
        error = parsed.get("error") if isinstance(parsed, Mapping) else None
        if isinstance(error, Mapping):
            kept: dict[str, str | None] = {
                k: mask(error[k]) if isinstance(error.get(k), str) else None
                for k in ("message", "type", "param", "code")}
            kept["message"] = kept["message"] or ""
            return orjson.dumps({"error": kept})
        return UpstreamError(f"the upstream refused the request (HTTP {response.status})",
                             code="upstream_refused", status=response.status)
    # The upstream's own message is not sent on: it was never screened.
    error = UpstreamError(f"the upstream answered HTTP {response.status}",
                          code="upstream_failed", status=502)
    _logged(url, error, f"HTTP {response.status}")
    return error


async def read_body(upstream: aiohttp.ClientResponse, limit: int) -> bytes:
    """The upstream's whole body; one over `limit` bytes is refused (502
    `upstream_too_large`) rather than held in memory whole, a fault while reading it is the
    upstream's (`fault`)."""
    length = upstream.content_length
    if length is not None and length > limit:
        raise UpstreamError(f"the upstream's reply is over the limit of {limit} bytes",
                            code="upstream_too_large")
    pieces: list[bytes] = []
    size = 0
    content = upstream.content
    try:
        while piece := await content.readany():  # b"" at the end
            size += len(piece)
            if size > limit:
                raise UpstreamError(f"the upstream's reply is over the limit of {limit} bytes",
                                    code="upstream_too_large")
            pieces.append(piece)
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise fault(exc, str(upstream.url), answered=True) from None
    return b"".join(pieces)


def json_object(raw: bytes | str) -> dict[str, Any] | None:
    """`raw` parsed as JSON when it is a JSON object; None for anything else (not JSON, or
    JSON of another type)."""
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None
