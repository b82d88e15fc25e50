"""Relaying an upstream SSE stream to the client, screened.

Bytes from the upstream go through the incremental SSE decoder, each event through the API's
stream adapter (proxy.pipeline.StreamAdapter; chat: proxy.api_chat.StreamScreen), and only
screened chunks are written. Fail closed: if the upstream drops, sends an error, or screening
raises, the client gets the API's error event (chat: an SSE `error` event then `[DONE]`),
never the held text. If the client goes away, the upstream response is closed at once (the
call is cancelled).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.engine.reply import ScreeningError
from replyguard.proxy.direct import SSE_HEADERS
from replyguard.proxy.errors import ProxyError, ScreeningFailed, UpstreamError
from replyguard.proxy.offload import STREAM_OFFLOAD_CHARS, Offload
from replyguard.proxy.pipeline import Chunk, Out, StreamAdapter, Text
from replyguard.proxy.record import RequestRecord
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.sse import SSEDecodeError, SSEDecoder, encode_event
from replyguard.proxy.state import prepare
from replyguard.proxy.watchdog import ShuttingDown, Watchdog, watchdog

log = logging.getLogger("replyguard.relay")


class WriteClock:
    """When the relay last wrote to the client (time.monotonic) and how long it may stay
    silent before a keep-alive comment (`streams.keepalive_s`, set by the watchdog)."""

    __slots__ = ("last_write", "keepalive_s")

    def __init__(self) -> None:
        self.last_write = time.monotonic()
        self.keepalive_s = KEEPALIVE_S


KEEPALIVE = b": keep-alive\n\n"
KEEPALIVE_S = 10.0


class _ClientGone(Exception):
    """Writing to the client failed: it went away."""


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
    out = _Out(response, screen, record, clock) if stage is None else \
        _Pipelined(response, screen, record, clock, stage)
    try:
        try:
            await _pump(upstream, SSEDecoder(max_event_chars=max_event_chars), screen, out,
                        offload, record)
            await out.close()
        except _ClientGone:
            raise
        except Exception as exc:
            await out.fail(_failure(exc, watch, record))
    except _ClientGone:
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
                out: _Out, offload: Offload | None, record: RequestRecord) -> None:
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


def _encode(chunk: Chunk) -> bytes:
    # encode_event(orjson.dumps(body), event), short: JSON from orjson holds no line break.
    if chunk.event is None:
        return b"data: " + orjson.dumps(chunk.body) + b"\n\n"
    return encode_event(orjson.dumps(chunk.body), chunk.event)


async def _screened(events: list[Any], screen: StreamAdapter, out: _Out,
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


def _handle(events: list[Any], screen: StreamAdapter, out: _Out | list[Item]) -> bool:
    """Screen a batch of decoded events, appending what to send to `out` as each event is
    screened; returns whether the stream's end came. Raises what the adapter raises."""
    for event in events:
        items, ended = screen.event(event)
        out.extend(items)
        if ended:
            return True
    return False


Item = Out
#: The output stage (proxy/output.py): released text in, the text that may be sent out.
Stage = Callable[[Text], Awaitable[str]]


class _Out:
    """Screened output not yet written (chunk objects and raw event bytes, in order), and
    how it reaches the client: written as it comes. Keep-alive comments while text is held
    back (a long sentence) and nothing was written for `streams.keepalive_s` keep the
    connection open through proxies and load balancers that drop idle ones."""

    def __init__(self, response: web.StreamResponse, screen: StreamAdapter,
                 record: RequestRecord, clock: WriteClock) -> None:
        self.response, self.screen, self.record, self.clock = response, screen, record, clock
        self.items: list[Item] = []
        self.ended = False  # the upstream's stream ended (`[DONE]`): nothing more to read

    def append(self, item: Item) -> None:
        self.items.append(item)

    def extend(self, items: Iterable[Item]) -> None:
        self.items.extend(items)

    def _take(self) -> list[Item]:
        now = time.monotonic()
        if not self.items:
            if now - self.clock.last_write < self.clock.keepalive_s:
                return []
            self.items.append(KEEPALIVE)
        self.clock.last_write = now
        items, self.items = self.items, []
        return items

    async def write(self) -> None:
        """Write the pending output. Raises _ClientGone."""
        items = self._take()
        if not items:
            return
        if self.record.first_text_at is None and self.screen.released_any:
            self.record.first_text_at = time.perf_counter()
        if self.record.texts is not None:
            for item in items:
                _keep_texts(self.record, item)
        await _send(self.response, b"".join(_bytes(i) for i in items))

    async def close(self) -> None:
        """The stream ended well: write the rest and end the response."""
        await self.write()
        await _end(self.response)

    async def fail(self, error: ProxyError) -> None:
        """Send what was screened before the fault, the error event and `[DONE]`; end."""
        self.items.append(self.screen.error_event(error))
        await self.close()

    def cancel(self) -> None:
        """Stop any work still running (none here)."""


class _Pipelined(_Out):
    """Output put through the output stage chunk by chunk before it is written. A writer
    task takes the items in order; a chunk with released text waits for its stage, which
    started when the chunk was screened, so the upstream keeps streaming while sentences are
    checked and order is kept."""

    def __init__(self, response: web.StreamResponse, screen: StreamAdapter,
                 record: RequestRecord, clock: WriteClock, stage: Stage) -> None:
        super().__init__(response, screen, record, clock)
        self.stage = stage
        self.queue: asyncio.Queue[Item | asyncio.Future[bytes] | None] = asyncio.Queue()
        self.writer = asyncio.ensure_future(self._run())
        self.pending: list[asyncio.Future[bytes]] = []

    async def write(self) -> None:
        if self.writer.done():  # the client went away, or a check failed: stop reading
            self.writer.result()
            raise _ClientGone
        for item in self._take():
            if isinstance(item, Chunk) and item.texts:
                future = asyncio.ensure_future(self._checked(item))
                self.pending.append(future)
                self.queue.put_nowait(future)
            else:
                self.queue.put_nowait(item)

    async def _checked(self, chunk: Chunk) -> bytes:
        """The chunk with each text field as the output check lets it through; b"" when
        nothing of a text-only chunk is left."""
        for holder, text in chunk.texts:
            holder[text.field] = await self.stage(text)
        if chunk.text_only and not any(holder[text.field] for holder, text in chunk.texts):
            return b""
        if self.record.first_text_at is None:
            self.record.first_text_at = time.perf_counter()
        if self.record.texts is not None:
            _keep_texts(self.record, chunk)
        return _encode(chunk)

    async def _run(self) -> None:
        while (item := await self.queue.get()) is not None:
            data = await item if isinstance(item, asyncio.Future) else _bytes(item)
            if data:
                await _send(self.response, data)

    async def close(self) -> None:
        await self.write()
        self.queue.put_nowait(None)
        await self.writer
        await _end(self.response)

    async def fail(self, error: ProxyError) -> None:
        event = self.screen.error_event(error)
        if not self.writer.done():  # queue the error after what is pending, then wait
            self.items.append(event)
            for item in self._take():
                self.queue.put_nowait(item)
            self.queue.put_nowait(None)
            try:
                await self.writer
            except _ClientGone:
                raise
            except Exception:  # a stage failed on a pending chunk: the error is not written
                log.exception("the output stage failed while the stream was ending")
            else:
                await _end(self.response)
                return
        elif isinstance(self.writer.exception(), _ClientGone):
            raise _ClientGone
        await _send(self.response, event)  # the writer stopped: nothing after it was sent
        await _end(self.response)

    def cancel(self) -> None:
        futures: list[asyncio.Future[Any]] = [self.writer, *self.pending]
        for future in futures:
            if future.done():
                if not future.cancelled():
                    future.exception()  # retrieved: never logged as unhandled
            else:
                future.cancel()


def _keep_texts(record: RequestRecord, item: Item) -> None:
    """Add the reply text a chunk carries, as sent, to the record's texts (records that
    keep the screened text): chat's and legacy completions' `content` and `text`, a
    Responses `output_text` delta, an Anthropic `text` delta; never reasoning or thinking."""
    if isinstance(item, Chunk) and record.texts is not None:
        record.texts += [str(holder.get(text.field) or "") for holder, text in item.texts
                         if text.field in ("content", "text") or (
                             text.field == "delta"
                             and holder.get("type") == "response.output_text.delta")]


def _bytes(item: Item) -> bytes:
    if isinstance(item, bytes):
        return item
    if item.keep is not None and not item.keep():
        return b""
    return _encode(item)


async def _send(response: web.StreamResponse, data: bytes) -> None:
    try:
        await response.write(data)
    except ConnectionResetError:
        raise _ClientGone from None


async def _end(response: web.StreamResponse) -> None:
    try:
        await response.write_eof()
    except ConnectionResetError:
        raise _ClientGone from None
