"""Relaying an upstream SSE stream to the client, screened.

Bytes from the upstream go through the incremental SSE decoder, each event through the API's
stream adapter (proxy.pipeline.StreamAdapter; chat: proxy.api_chat.StreamScreen), and only
screened chunks are written. Fail closed: if the upstream drops, sends an error, or screening
raises, the client gets the API's error event (chat: an SSE `error` event then `[DONE]`),
never the held text. If the client goes away, the upstream response is closed at once (the
call is cancelled). Writing to the client (keep-alives, the output stage) is
proxy.stream_out's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import aiohttp
from aiohttp import web

from replyguard.engine.reply import ScreeningError
from replyguard.proxy.direct import SSE_HEADERS
from replyguard.proxy.errors import ProxyError, ScreeningFailed, UpstreamError
from replyguard.proxy.offload import STREAM_OFFLOAD_CHARS, Offload
from replyguard.proxy.pipeline import StreamAdapter
from replyguard.proxy.record import RequestRecord
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.sse import SSEDecodeError, SSEDecoder
from replyguard.proxy.state import prepare
from replyguard.proxy.stream_out import ClientGone, Item, Output, Pipelined, Stage, WriteClock
from replyguard.proxy.watchdog import ShuttingDown, Watchdog, watchdog

log = logging.getLogger("replyguard.relay")


async def relay(
    request: web.Request,
    upstream: aiohttp.ClientResponse,
    screen: StreamAdapter,
    record: RequestRecord,
    headers: dict[str, str],
    max_event_chars: int = 1 << 24,
    stage: Stage | None = None,
    offload: Offload | None = None,
) -> web.StreamResponse:
    """Relay `upstream` (an SSE response with status 200) to the client through `screen`.
    An upstream event longer than `max_event_chars` ends the stream with an error event.
    With `stage` (the output stage: moderation, rewording), each chunk's released text goes
    through it before it is written: the checks run while the upstream keeps streaming, and
    chunks are written in their order. With `offload`, events holding a long text are
    screened in its worker thread (`_screened`). The request's `record` gets the outcome,
    the upstream fault, the proxy's own time and when the first text went out.

    Chunks screened before a fault are still sent, then the error event: the output does not
    depend on how the network cut the stream. Never swallows CancelledError.
    """
    response = web.StreamResponse(status=200, headers={**SSE_HEADERS, **headers})
    await prepare(request, response)
    clock = WriteClock()
    watch = watchdog(request, response, upstream, clock)  # keep-alive, idle limit, shutdown
    out = Output(response, screen, record, clock) if stage is None else \
        Pipelined(response, screen, record, clock, stage)
    try:
        try:
            await _pump(upstream, SSEDecoder(max_event_chars=max_event_chars), screen, out,
                        offload, record)
            await out.close()
        except ClientGone:
            raise
        except Exception as exc:
            await out.fail(_failure(exc, watch, record))
    except ClientGone:
        record.outcome = "client_gone"
    except asyncio.CancelledError:
        record.outcome = "client_gone"
        raise
    finally:
        watch.cancel()
        out.cancel()
        if not out.ended:
            upstream.close()
    return response


async def _pump(upstream: aiohttp.ClientResponse, decoder: SSEDecoder, screen: StreamAdapter,
                out: Output, offload: Offload | None, record: RequestRecord) -> None:
    """Read, screen and write the upstream's events until its `[DONE]` (`out.ended`). Raises
    UpstreamError when the upstream closed the stream before that, or what screening or
    reading raised."""
    async for data in upstream.content.iter_any():
        started = time.perf_counter()
        try:
            out.ended = await _screened(decoder.feed(data), screen, out, offload)
        finally:
            record.own_s += time.perf_counter() - started
        await out.write()
        if out.ended:
            return
    out.ended = _handle(decoder.flush(), screen, out)
    if not out.ended and (ending := screen.close()) is not None:
        # Every choice finished but the upstream left out its end marker: end cleanly.
        out.extend(ending)
        out.ended = True
    await out.write()
    if not out.ended:
        raise UpstreamError("the upstream closed the stream before it ended; nothing "
                            "unscreened was sent", code="upstream_dropped")


def _failure(exc: Exception, watch: Watchdog, record: RequestRecord) -> ProxyError:
    """The error a stream that failed with `exc` ends with, its outcome (and upstream fault)
    noted in `record`; a screening fault is logged."""
    if isinstance(exc, (TimeoutError, aiohttp.ClientPayloadError,
                        aiohttp.ClientConnectionError, SSEDecodeError, UpstreamError)):
        error = watch.reason() or exc  # the watchdog ended it: idle upstream, shutdown
        if not isinstance(error, ProxyError):
            error = UpstreamError(f"the upstream stream broke off ({type(exc).__name__}); "
                                  "nothing unscreened was sent", code="upstream_dropped")
        record.outcome, record.fault = _outcome(error)
        return error
    if isinstance(exc, ChunkShapeError):
        record.outcome, record.fault = "upstream_error", "protocol"
        return UpstreamError(f"{exc}; the rest of the reply was not sent",
                             code="upstream_protocol")
    if isinstance(exc, ProxyError):  # the output stage held the rest back (OutputBlocked)
        record.outcome = "blocked"
        return exc
    record.outcome = "screening_failed"  # ScreeningError, or a fault nothing expected
    if isinstance(exc, ScreeningError):
        log.error("screening failed mid-stream: %s", exc)
    else:
        log.exception("screening failed mid-stream")
    return ScreeningFailed("screening the reply failed; the rest of it was not sent")


def _outcome(error: ProxyError) -> tuple[str, str | None]:
    """A failed stream's (outcome, upstream fault kind) for the request's record."""
    if isinstance(error, ShuttingDown):
        return "shutdown", None
    if error.code == "upstream_dropped":
        return "upstream_dropped", "upstream_dropped"
    return "upstream_error", getattr(error, "kind", None)


async def _screened(events: list[Any], screen: StreamAdapter, out: Output,
                    offload: Offload | None) -> bool:
    """`_handle`, a batch of events at a time (`_batches`), the loop running other clients'
    work between two batches once `_SLICE_S` has passed (a network read can hold thousands
    of small events). A batch whose events, with what the screens hold (`StreamAdapter.held`:
    a JSON reply held whole, choices' tails a finish releases), come to a long text is
    screened in `offload`'s worker thread, its chunks handed to `out` back on the loop; when
    too many jobs wait for it, the batch waits its turn (and the upstream read with it): the
    stream is under way, and a refusal would cut it off."""
    threshold = min(offload.threshold, STREAM_OFFLOAD_CHARS) if offload is not None else 1 << 62
    started = time.perf_counter()
    for batch, size in _batches(events, threshold):
        if time.perf_counter() - started > _SLICE_S:
            await asyncio.sleep(0)
            started = time.perf_counter()
        if offload is None or size + screen.held < threshold:
            if _handle(batch, screen, out):
                return True
            continue
        items: list[Item] = []
        try:
            if await offload.run(size + screen.held, _handle, batch, screen, items,
                                 threshold=threshold, wait=True):
                return True
        finally:
            out.extend(items)  # (what was screened before a fault is still sent, as on the loop)
    return False


#: Events screened on the loop in one batch at most (`_batches`), and the time after which
#: the loop serves others before the next batch.
_BATCH_EVENTS = 16
_SLICE_S = 0.002


def _batches(events: list[Any], threshold: int) -> list[tuple[list[Any], int]]:
    """`events` in batches, each with the characters of its data: an event of `threshold`
    characters or more alone, the others at most `_BATCH_EVENTS` and 4 KB a batch."""
    out: list[tuple[list[Any], int]] = []
    batch: list[Any] = []
    size = 0
    limit = min(threshold, 4096)
    for event in events:
        length = len(event.data)
        if batch and (size + length >= limit or len(batch) == _BATCH_EVENTS):
            out.append((batch, size))
            batch, size = [], 0
        batch.append(event)
        size += length
    if batch:
        out.append((batch, size))
    return out


def _handle(events: list[Any], screen: StreamAdapter, out: Output | list[Item]) -> bool:
    """Screen a batch of decoded events, appending what to send to `out` as each event is
    screened; returns whether the stream's end came. Raises what the adapter raises."""
    for event in events:
        items, ended = screen.event(event)
        out.extend(items)
        if ended:
            return True
    return False


