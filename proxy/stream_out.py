"""Writing a relayed stream to the client: the screened output in order (chunks and raw event
bytes), keep-alive comments while text is held back, and, with an output stage (moderation,
rewording), each chunk's released text checked while the upstream keeps streaming."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import orjson
from aiohttp import web

from replyguard.proxy.errors import ProxyError
from replyguard.proxy.pipeline import Chunk, Out, StreamAdapter, Text
from replyguard.proxy.record import RequestRecord
from replyguard.proxy.sse import encode_event
from replyguard.proxy.watchdog import KEEPALIVE

log = logging.getLogger("replyguard.relay")

__all__ = ["KEEPALIVE_S", "ClientGone", "Item", "Output", "Pipelined", "Stage", "WriteClock",
           "chunk_bytes", "item_bytes"]


class WriteClock:
    """When the relay last wrote to the client (time.monotonic) and how long it may stay
    silent before a keep-alive comment (`streams.keepalive_s`, set by the watchdog)."""

    __slots__ = ("last_write", "keepalive_s")

    def __init__(self) -> None:
        self.last_write = time.monotonic()
        self.keepalive_s = KEEPALIVE_S


KEEPALIVE_S = 10.0


class ClientGone(Exception):
    """Writing to the client failed: it went away."""


def chunk_bytes(chunk: Chunk) -> bytes:
    """A chunk as the SSE event the client gets."""
    # encode_event(orjson.dumps(body), event), short: JSON from orjson holds no line break.
    # 418k instructions for a streamed reply's 82 chunks instead of 1,659k through
    # encode_event (docs/performance.md, speed tricks).
    if chunk.event is None:
        return b"data: " + orjson.dumps(chunk.body) + b"\n\n"
    return encode_event(orjson.dumps(chunk.body), chunk.event)


Item = Out
#: The output stage (proxy/output.py): released text in, the text that may be sent out.
Stage = Callable[[Text], Awaitable[str]]


class Output:
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
        """Write the pending output. Raises ClientGone."""
        items = self._take()
        if not items:
            return
        if self.record.first_text_at is None and self.screen.released_any:
            self.record.first_text_at = time.perf_counter()
        if self.record.texts is not None:
            for item in items:
                _keep_texts(self.record, item)
        await _send(self.response, b"".join(item_bytes(i) for i in items))

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


class Pipelined(Output):
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
            raise ClientGone
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
        return chunk_bytes(chunk)

    async def _run(self) -> None:
        while (item := await self.queue.get()) is not None:
            data = await item if isinstance(item, asyncio.Future) else item_bytes(item)
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
            except ClientGone:
                raise
            except Exception:  # a stage failed on a pending chunk: the error is not written
                log.exception("the output stage failed while the stream was ending")
            else:
                await _end(self.response)
                return
        elif isinstance(self.writer.exception(), ClientGone):
            raise ClientGone
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


def item_bytes(item: Item) -> bytes:
    if isinstance(item, bytes):
        return item
    if item.keep is not None and not item.keep():
        return b""
    return chunk_bytes(item)


async def _send(response: web.StreamResponse, data: bytes) -> None:
    try:
        await response.write(data)
    except ConnectionResetError:
        raise ClientGone from None


async def _end(response: web.StreamResponse) -> None:
    try:
        await response.write_eof()
    except ConnectionResetError:
        raise ClientGone from None

