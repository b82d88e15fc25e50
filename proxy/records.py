"""Records of model requests, written off the request path: `Recorder.note` puts what the
request's end knows on a bounded queue (nothing else on the request path); a writer task
turns them into rows and writes them in batches at the end of the store's hash chain. A
record that cannot be written (queue full, store down) is counted in
`replyguard_records_dropped_total` and logged by request id, never lost silently.

A record holds no original value, key or token: ids, route, model name, rules version,
verdict, guardrail check and stage, the counts, statuses and latency; text only as screened
and only with `records.text: screened`. Fields in `records.redact` are stored as
`[redacted]`. The chain's head is logged and exported (`replyguard_records_chain_count`) at
intervals, an anchor outside the records table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from typing import Any

import orjson

from replyguard.config.settings import Settings
from replyguard.proxy.api_responses import rebuilt_text
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.request_id import client_request_id
from replyguard.proxy.store import Store, StoreError

log = logging.getLogger("replyguard.records")
#: Records written in one transaction at most.
BATCH = 500
#: Seconds the writer waits to fill a batch after the first record came: one transaction
#: per batch is most of a record's cost (bench_instructions --proxy: 0.05 s gave +5.1%
#: instructions per request with records on).
LINGER_S = 0.25
#: Seconds between purges and between logs of the chain's head.
PURGE_EVERY_S = 3600.0
ANCHOR_EVERY_S = 60.0
REDACTED = "[redacted]"
_MODEL = re.compile(rb'"model"\s*:\s*"([^"\\]{1,200})"')
#: Routes that are no model traffic: never recorded.
_NOT_MODEL = ("/metrics", "/healthz", "/readyz", "/v1/check-reply", "/v1/reply-rules",
              "/v1/records", "unmatched")
_SCREENED = frozenset({"/v1/chat/completions", "/v1/completions", "/v1/responses",
                       "/v1/embeddings", "/v1/messages"})
#: The stored-Response routes: a Response (or its input items) fetched and screened.
_STORED = frozenset({"/v1/responses/{id}", "/v1/responses/{id}/input_items"})
_OUTPUT_CHECKS = {"flagged": "moderation", "blocked_on_error": "moderation"}


def field(info: Any, name: str) -> Any:
    """One item of a request's screening info, whether a dict (`info["verdict"]`) or an
    object with attributes (`info.verdict`); None when it has none. The one place records
    read that info from."""
    if isinstance(info, dict):
        return info.get(name)
    return getattr(info, name, None)


def _guardrail(info: Any) -> tuple[str | None, str | None]:
    """(check, stage) of the guardrail that acted on the request, if any."""
    blocked = field(info, "guardrail")
    if blocked:
        return str(blocked).split(" ", 1)[0], "input"
    output = field(info, "guardrail_output")
    if output:
        return _OUTPUT_CHECKS.get(str(output), str(output)), "output"
    return None, None


def _message_text(message: dict[str, Any]) -> str | None:
    """An Anthropic message's `text` blocks, joined by blank lines (None when it has none)."""
    content = message.get("content")
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)] if isinstance(content, list) else []
    return "\n\n".join(texts) if texts else None


def verdict_of(info: Any, route: str, status: int) -> str:
    """forward, withhold, exact, blocked (the screen's verdict; forward too for a stored
    Response fetched and screened), passthrough (a route forwarded unscreened), or error
    (the request failed): one of `store.VERDICTS`."""
    verdict = field(info, "verdict")
    if status >= 500:
        return "error"
    if verdict:
        return str(verdict)
    if route in _STORED:
        return "forward" if status < 400 else "error"
    if route in _SCREENED or status >= 400:  # a screened route ended before its verdict
        return "error"
    return "passthrough"


def screened_text(released: bytes | str | None) -> str | None:
    """The reply text as it was sent to the client (screened): a stream's text as given
    (`str`), or each choice's message content (or legacy text) of a whole completion's body,
    joined by blank lines, a Response's `output_text` parts joined, or an Anthropic
    message's text blocks; None for anything else (an error, embeddings)."""
    if isinstance(released, str):
        return released or None
    if not released:
        return None
    try:
        document = orjson.loads(released)
    except orjson.JSONDecodeError:
        return None
    if isinstance(document, dict) and document.get("type") == "message":
        return _message_text(document)
    choices = document.get("choices") if isinstance(document, dict) else None
    if not isinstance(choices, list):
        output = document.get("output") if isinstance(document, dict) else None
        return rebuilt_text(output) or None if isinstance(output, list) else None
    texts = []
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        text = message.get("content") if isinstance(message, dict) else (
            choice.get("text") if isinstance(choice, dict) else None)
        if isinstance(text, str):
            texts.append(text)
    return "\n\n".join(texts) if texts else None


def is_model_route(route: str) -> bool:
    """Is `route` (a canonical route) model traffic, which gets a record?"""
    return not route.startswith(_NOT_MODEL)


class Recorder:
    """The bounded queue of records and the task writing them to `store`."""

    def __init__(self, store: Store, settings: Settings, metrics: Metrics) -> None:
        self.store, self.metrics = store, metrics
        self.records = settings.records
        self.queue: deque[tuple[Any, ...]] = deque()
        self.limit = settings.records.queue
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._models: dict[bytes, tuple[bool, str]] = {}
        self.written = 0
        self.dropped = 0
        self._closing = False

    # -- on the request path -------------------------------------------------------------

    def note(self, request_id: str, method: str, route: str, info: Any,
             status: int, latency_s: float, version: int | None, body: bytes | None,
             released: bytes | str | None = None, upstream_status: int | None = None) -> None:
        """Queue one request's record (the work is the writer's). `body`: the request's
        (its model name is read from it); `released`: a whole response's body as sent, or a
        stream's text as sent (only read with `records.text: screened`)."""
        if len(self.queue) >= self.limit:
            self._drop([request_id], "queue full")
            return
        self.queue.append((time.time(), request_id, method, route, info, status, latency_s,
                           version, body, released, upstream_status))
        if len(self.queue) == 1:
            self._wake.set()

    # -- the writer ----------------------------------------------------------------------

    def start(self) -> None:
        """Start the writer and the purge task (on the running loop)."""
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._write_loop()), loop.create_task(self._keep())]

    async def close(self) -> None:
        """Write what is queued, then stop."""
        self._closing = True
        self._wake.set()
        writer = self._tasks[0] if self._tasks else None
        if writer is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(writer), timeout=10.0)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.queue:
            self._drop([q[1] for q in self.queue], "stopping")
            self.queue.clear()

    async def _write_loop(self) -> None:
        while not (self._closing and not self.queue):
            if not self.queue:
                self._wake.clear()
                await self._wake.wait()
                continue
            if len(self.queue) < BATCH and not self._closing:
                await asyncio.sleep(LINGER_S)
            await self.flush()

    async def flush(self) -> None:
        """Write one batch of the queue now."""
        batch = [self.queue.popleft() for _ in range(min(BATCH, len(self.queue)))]
        if not batch:
            return
        rows = [self.row(*item) for item in batch]
        try:
            await self.store.append_records(rows)
        except (StoreError, OSError) as exc:
            self._drop([item[1] for item in batch], str(exc)[:200])
            return
        except Exception as exc:  # noqa: BLE001 - the writer must outlive any one batch
            self._drop([item[1] for item in batch], type(exc).__name__)
            return
        self.written += len(rows)
        self.metrics.records_written.inc(len(rows))

    def _drop(self, request_ids: list[str], why: str) -> None:
        self.dropped += len(request_ids)
        self.metrics.records_dropped.inc(len(request_ids))
        log.error(json.dumps({"event": "records_dropped", "count": len(request_ids),
                              "why": why, "request_ids": request_ids}))

    def row(self, at: float, request_id: str, method: str, route: str,
            info: Any, status: int, latency_s: float, version: int | None,
            body: bytes | None, released: bytes | str | None = None,
            upstream_status: int | None = None) -> dict[str, Any]:
        """The stored form of one queued record."""
        check, stage = _guardrail(info)
        counts = field(info, "counts") or {}
        model = None
        if body:
            found = _MODEL.search(body, 0, 65536)
            model = self._model(found.group(1)) if found else None
        row: dict[str, Any] = {
            "created_at": float(at), "tenant": None, "key_id": None, "request_id": request_id,
            "api": field(info, "api") or "other", "route": route, "method": method, "model": model,
            "rules_version": version, "verdict": verdict_of(info, route, status),
            "guardrail": check, "stage": stage,
            "counts": orjson.dumps({k: v for k, v in counts.items() if v},
                                   option=orjson.OPT_SORT_KEYS).decode(),
            "status": status, "upstream_status": upstream_status,
            "latency_ms": round(latency_s * 1000.0, 3),
            "text": screened_text(released) if self.records.text == "screened" else None,
        }
        for name in self.records.redact:
            if row.get(name) is not None:
                row[name] = REDACTED
        return row

    def _model(self, given: bytes) -> str | None:
        """The model name asked for, kept only when it is of an id's shape and holds
        nothing the detectors find (as a client's request id: proxy.request_id); checked
        once per distinct name."""
        known = self._models.get(given)
        if known is None:
            text = given.decode("utf-8", "replace")
            known = client_request_id(text.replace("/", ":")) is not None, text
            if len(self._models) < 1024:
                self._models[given] = known
        return known[1] if known[0] else None

    # -- retention and the anchor --------------------------------------------------------

    async def _keep(self) -> None:
        next_purge = time.monotonic()
        while True:
            if self.records.retention_days and time.monotonic() >= next_purge:
                next_purge = time.monotonic() + PURGE_EVERY_S
                await self.purge()
            await self.anchor()
            await asyncio.sleep(ANCHOR_EVERY_S)

    async def purge(self) -> int:
        """Delete the records older than `records.retention_days` (a checkpoint stays)."""
        try:
            removed = await self.store.purge(time.time() - self.records.retention_days * 86400)
        except StoreError as exc:
            log.error(json.dumps({"event": "records_purge_failed", "error": str(exc)[:200]}))
            return 0
        if removed:
            log.info(json.dumps({"event": "records_purged", "count": removed}))
        return removed

    async def anchor(self) -> dict[str, Any] | None:
        """Log the chain's head and export its count: the anchor `records verify --anchor`
        compares with, kept outside the store."""
        try:
            head = await self.store.chain_head()
        except StoreError:
            return None
        self.metrics.records_chain_count.set(head["count"])
        log.info(json.dumps({"event": "records_chain_head", **head}))
        return head
