"""Relaying an upstream SSE stream to the client, screened (DESIGN section 2).

Bytes from the upstream go through the incremental SSE decoder, each chunk through the
StreamScreen, and only screened chunks are written. Fail closed: if the upstream drops, sends an
error, or screening raises, the client gets an SSE `error` event then `[DONE]`, never the held
text. If the client goes away, the upstream response is closed at once (the call is cancelled).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from engine.reply import ScreeningError
from proxy.direct import SSE_HEADERS
from proxy.errors import ProxyError, ScreeningFailed, UpstreamError, error_event
from proxy.sse import DONE, SSEDecodeError, SSEDecoder, encode_event
from proxy.stream import ChunkShapeError, StreamScreen

log = logging.getLogger("replyguard.relay")


class StreamStats:
    """What a relay measured: seconds spent in the proxy's own work, time of the first
    released text (perf_counter), and the outcome (`ok`, `upstream_dropped`,
    `upstream_error`, `screening_failed`, `client_gone`)."""

    def __init__(self) -> None:
        self.own_s = 0.0
        self.last_write = time.monotonic()
        self.first_text_at: float | None = None
        self.outcome = "ok"


KEEPALIVE = b": keep-alive\n\n"
KEEPALIVE_S = 10.0


class _ClientGone(Exception):
    """Writing to the client failed: it went away."""


async def relay(
    request: web.Request,
    upstream: aiohttp.ClientResponse,
    screen: StreamScreen,
    stats: StreamStats,
    headers: dict[str, str],
    max_event_chars: int = 1 << 24,
) -> web.StreamResponse:
    """Relay `upstream` (an SSE response with status 200) to the client through `screen`.
    An upstream event longer than `max_event_chars` ends the stream with an error event.

    Chunks screened before a fault are still sent, then the error event: the output does not
    depend on how the network cut the stream. Never swallows CancelledError.
    """
    response = web.StreamResponse(status=200, headers={**SSE_HEADERS, **headers})
    await response.prepare(request)
    decoder = SSEDecoder(max_event_chars=max_event_chars)
    out: list[bytes] = []  # screened bytes not yet written
    finished = False
    try:
        try:
            async for data in upstream.content.iter_any():
                started = time.perf_counter()
                try:
                    finished = _handle(decoder.feed(data), screen, out)
                finally:
                    stats.own_s += time.perf_counter() - started
                await _write(response, out, screen, stats)
                if finished:
                    break
            if not finished:
                finished = _handle(decoder.flush(), screen, out)
                if not finished and screen.complete():
                    # Every choice finished but the upstream left out `[DONE]`: end cleanly.
                    out.extend(_encode(c) for c in screen.end())
                    out.append(DONE)
                    finished = True
                await _write(response, out, screen, stats)
            if not finished:
                raise UpstreamError("the upstream closed the stream before it ended; nothing "
                                    "unscreened was sent", code="upstream_dropped")
            await _end(response)
        except _ClientGone:
            raise
        except (TimeoutError, aiohttp.ClientPayloadError, aiohttp.ClientConnectionError,
                SSEDecodeError) as exc:
            stats.outcome = "upstream_dropped"
            await _fail(response, out, UpstreamError(
                f"the upstream stream broke off ({type(exc).__name__}); nothing unscreened "
                "was sent", code="upstream_dropped"))
        except UpstreamError as exc:
            stats.outcome = "upstream_dropped" if exc.code == "upstream_dropped" else \
                "upstream_error"
            await _fail(response, out, exc)
        except ChunkShapeError as exc:
            stats.outcome = "upstream_error"
            await _fail(response, out, UpstreamError(f"{exc}; the rest of the reply was not sent",
                                                     code="upstream_protocol"))
        except Exception as exc:  # ScreeningError, or a fault nothing expected
            stats.outcome = "screening_failed"
            if isinstance(exc, ScreeningError):
                log.error("screening failed mid-stream: %s", exc)
            else:
                log.exception("screening failed mid-stream")
            await _fail(response, out, ScreeningFailed("screening the reply failed; the rest "
                                                       "of it was not sent"))
    except _ClientGone:
        stats.outcome = "client_gone"
    except asyncio.CancelledError:
        stats.outcome = "client_gone"
        raise
    finally:
        if not finished:
            upstream.close()
    return response


def _encode(chunk: dict[str, Any]) -> bytes:
    return encode_event(orjson.dumps(chunk))


def _handle(events: list[Any], screen: StreamScreen, out: list[bytes]) -> bool:
    """Screen a batch of decoded events, appending the bytes to send to `out` as each event
    is screened; returns whether `[DONE]` came. Raises UpstreamError, ScreeningError."""
    for event in events:
        if event.data == "[DONE]":
            out.extend(_encode(c) for c in screen.end())
            out.append(DONE)
            return True
        try:
            chunk = orjson.loads(event.data)
        except orjson.JSONDecodeError:
            raise UpstreamError("the upstream sent an event that is not JSON",
                                code="upstream_protocol") from None
        if not isinstance(chunk, dict):
            raise UpstreamError("the upstream sent an event that is not a JSON object",
                                code="upstream_protocol")
        if chunk.get("error") is not None or event.event == "error":
            message = _upstream_message(chunk)
            raise UpstreamError(f"the upstream reported an error mid-stream: {message}",
                                code="upstream_stream_error")
        out.extend(_encode(c) for c in screen.feed(chunk))
    return False


def _upstream_message(chunk: dict[str, Any]) -> str:
    """What the client is told of an upstream error event: its `type` and `code` only. The
    upstream's message is model-side text that was never screened, so it is not sent on."""
    error = chunk.get("error")
    if not isinstance(error, dict):
        return "no details"
    parts = [f"{k} {error[k]}" for k in ("type", "code")
             if isinstance(error.get(k), str) and error[k].isprintable() and len(error[k]) < 80]
    return ", ".join(parts) or "no details"


async def _write(response: web.StreamResponse, out: list[bytes], screen: StreamScreen,
                 stats: StreamStats) -> None:
    """Write and clear the pending screened bytes. While text is held back (a long sentence)
    and nothing was written for KEEPALIVE_S seconds, an SSE comment keeps the connection
    alive through proxies and load balancers that drop idle ones."""
    now = time.monotonic()
    if not out:
        if now - stats.last_write >= KEEPALIVE_S:
            out.append(KEEPALIVE)
        else:
            return
    stats.last_write = now
    data = b"".join(out)
    out.clear()
    if stats.first_text_at is None and screen.released_any:
        stats.first_text_at = time.perf_counter()
    try:
        await response.write(data)
    except ConnectionResetError:
        raise _ClientGone from None


async def _end(response: web.StreamResponse) -> None:
    try:
        await response.write_eof()
    except ConnectionResetError:
        raise _ClientGone from None


async def _fail(response: web.StreamResponse, out: list[bytes], error: ProxyError) -> None:
    """Send what was screened before the fault, the error event and `[DONE]`; end."""
    out.append(error_event(error) + DONE)
    data = b"".join(out)
    out.clear()
    try:
        await response.write(data)
    except ConnectionResetError:
        raise _ClientGone from None
    await _end(response)
