"""The upstream's answer for every screened API: one POST (its latency observed, an output
guardrail's flag counted, a fault mapped to the client's error), and a whole reply read
within the size limit and screened (off the event loop when long).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.engine.reply import ScreeningError
from replyguard.proxy.errors import ScreeningFailed, UpstreamError
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.offload import JSON_OFFLOAD_CHARS, Offload
from replyguard.proxy.record import RECORD, RequestRecord
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.screen_pool import WorkerLost, in_place
from replyguard.proxy.state import METRICS, SESSION
from replyguard.proxy.upstream import json_object, read_body, unanswered

__all__ = ["call_upstream", "read_whole"]


async def call_upstream(request: web.Request, url: str, base: str, body: dict[str, Any],
                        headers: dict[str, str],
                        answer: Callable[[aiohttp.ClientResponse], Awaitable[web.StreamResponse]]
                        ) -> web.StreamResponse:
    """POST `body` to `url` with `headers` (each API's own) and hand the upstream's response
    to `answer`, its latency
    observed and an output guardrail's flag counted. An upstream that does not answer
    (refused, unreachable, timed out, broke off) is counted and raised as its fault, named
    by `base` (never a URL with credentials)."""
    metrics, record = request.app[METRICS], request[RECORD]
    started = time.perf_counter()
    answered = False
    try:
        async with request.app[SESSION].post(url, data=orjson.dumps(body),
                                             allow_redirects=False, headers=headers
                                             ) as upstream:
            answered = True
            metrics.upstream_latency_by(record.route, record.api).observe(
                time.perf_counter() - started)
            try:
                return await answer(upstream)
            finally:
                if record.guardrail_output:
                    metrics.guardrail_output_flagged.inc()
    except Exception as exc:
        if answered:
            raise
        raise unanswered(request.app, exc, record.api, base) from None


async def read_whole(upstream: aiohttp.ClientResponse,
                     screen: Callable[[dict[str, Any]], Counter[str]], record: RequestRecord,
                     own: float, metrics: Metrics, limit: int, offload: Offload,
                     json_reply: bool = False, key: str = "choices", process: bool = False
                     ) -> dict[str, Any]:
    """Read and screen a whole (non-streamed) upstream completion, its counts added to
    `record`'s; one over `limit` bytes is refused (502) rather than held in memory whole.
    `process`: `screen` can run in a screening process (picklable, and nothing but the
    completion changed by it is read after)."""
    raw = await read_body(upstream, limit)
    started = time.perf_counter()
    parsed = json_object(raw)
    if parsed is None:
        raise UpstreamError("the upstream answered with something that is not a JSON object",
                            code="upstream_protocol")
    if key not in parsed:  # e.g. a 200 carrying {"error": ...}: never sent on as it is
        raise UpstreamError(f"the upstream answered without any {key}",
                            code="upstream_protocol")
    try:
        screened, whole = await offload.run(
            len(raw), in_place, screen, parsed,
            threshold=JSON_OFFLOAD_CHARS if json_reply else None, process=process)
        record.counts.update(screened)
    except ChunkShapeError as exc:
        raise UpstreamError(f"{exc}; nothing of the reply was sent",
                            code="upstream_protocol") from exc
    except ScreeningError as exc:
        metrics.screening_errors_by("reply", record.api).inc()
        raise ScreeningFailed("screening the reply failed; nothing of it was sent") from exc
    except WorkerLost:
        metrics.screening_errors_by("reply", record.api).inc()
        raise
    metrics.added_latency_by(record.route, record.api).observe(
        own + time.perf_counter() - started)
    return whole
