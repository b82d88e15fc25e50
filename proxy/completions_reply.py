"""The reply side of the screened routes (proxy.completions): a screened turn sent upstream
and its answer back, screened: an error status as the client's error, a stream relayed
through the API's stream adapter, a whole reply screened whole."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.config.settings import Settings
from replyguard.engine.request_fields import screen_value
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.proxy import direct
from replyguard.proxy.api_chat import StreamScreen
from replyguard.proxy.api_chat_whole import screen_completion
from replyguard.proxy.api_responses import rebuilt_text, screen_response
from replyguard.proxy.errors import (
    UpstreamError,
    error_response,
)
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.output import OutputStage, stage_texts
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import Screen, Slot, StreamAdapter
from replyguard.proxy.record import RequestRecord
from replyguard.proxy.relay import relay
from replyguard.proxy.responses_events import response_events
from replyguard.proxy.responses_stream import ResponsesStream
from replyguard.proxy.state import (
    OFFLOAD,
)
from replyguard.proxy.turn import (
    Kind,
)
from replyguard.proxy.upstream import (
    error_from_status,
    returned_headers,
    upstream_headers,
)
from replyguard.proxy.upstream_reply import call_upstream, read_whole

__all__ = ["Turn", "forward", "stream_metrics"]

#: Each API's upstream path (under the base URL) and the key a whole reply must have.
_PATHS = {"chat": ("chat/completions", "choices"), "text": ("completions", "choices"),
          "responses": ("responses", "output")}


@dataclass(slots=True)
class Turn:
    """A request screened and ready to forward: what the reply is screened with."""

    settings: Settings
    metrics: Metrics
    record: RequestRecord
    kind: Kind
    body: dict[str, Any]
    forward: dict[str, Any]
    rules: CompiledRules
    make_screen: Callable[[], Screen]
    calls: CallFilter | None
    stage: OutputStage | None
    json_reply: bool
    started: float  # when the handler started (perf_counter)
    own_s: float  # the proxy's own seconds before the upstream call


async def forward(request: web.Request, turn: Turn) -> web.StreamResponse:
    """Send the turn upstream and its answer back, screened: an error status as the client's
    error, a stream relayed, a whole completion screened whole. An upstream that does not
    answer (refused, unreachable, timed out, broke off) is counted and answered as its
    fault."""
    base = turn.settings.upstream.base_url

    async def answer(upstream: aiohttp.ClientResponse) -> web.StreamResponse:
        if upstream.status >= 400:
            return await _refused(turn, upstream)
        if upstream.content_type == "text/event-stream":
            return await _relay(request, turn, upstream)
        return await _whole_reply(request, turn, upstream)

    return await call_upstream(request, f"{base}/{_PATHS[turn.kind][0]}", base, turn.forward,
                               upstream_headers(request, turn.settings), answer)


async def _refused(turn: Turn, upstream: aiohttp.ClientResponse) -> web.Response:
    """An upstream error status, counted, as the client's error (its text masked)."""
    turn.metrics.upstream_errors_by(f"http_{upstream.status // 100}xx", turn.record.api).inc()
    rules, headers = turn.rules, returned_headers(upstream)
    error = await error_from_status(upstream, turn.settings.upstream.base_url,
                                    lambda text: screen_text(text, rules, "tool").text)
    if isinstance(error, bytes):
        return web.Response(body=error, status=upstream.status, headers=headers,
                            content_type="application/json")
    return error_response(error, headers)


async def _relay(request: web.Request, turn: Turn,
                 upstream: aiohttp.ClientResponse) -> web.StreamResponse:
    """A streamed reply relayed through the chat adapter's StreamScreen; its outcome, time
    and counts go in the request's record and metrics."""
    settings, metrics, record = turn.settings, turn.metrics, turn.record
    pieces = turn.stage is not None
    mask = partial(screen_value, rules=turn.rules)
    screen: StreamAdapter = ResponsesStream(turn.make_screen, turn.body, turn.calls, pieces,
                                            mask) \
        if turn.kind == "responses" else \
        StreamScreen(turn.make_screen, turn.kind, turn.calls, pieces=pieces)
    metrics.active_streams.inc()
    record.outcome = "ok"
    try:
        return await relay(request, upstream, screen, record, returned_headers(upstream),
                           settings.limits.max_response_bytes, turn.stage,
                           request.app[OFFLOAD])
    finally:
        metrics.active_streams.dec()
        record.counts.update(screen.counts())
        stream_metrics(metrics, record, turn.own_s, turn.started)


def stream_metrics(metrics: Metrics, record: RequestRecord, own_s: float,
                   started: float) -> None:
    """A relayed stream's added latency (`own_s`, the proxy's seconds before the upstream
    call, and the relay's), time to first text (from `started`, perf_counter) and fault, by
    its outcome; the same on every API."""
    route, api, outcome = record.route, record.api, record.outcome or "ok"
    metrics.added_latency_by(route, api).observe(own_s + record.own_s)
    if record.first_text_at is not None:
        metrics.first_token_by(route, api).observe(record.first_text_at - started)
    if outcome == "screening_failed":
        metrics.screening_errors_by("reply", api).inc()
    elif outcome.startswith("upstream"):
        metrics.upstream_errors_by(record.fault or outcome, api).inc()
    elif outcome == "client_gone":
        metrics.client_disconnects.inc()


async def _whole_reply(request: web.Request, turn: Turn,
                       upstream: aiohttp.ClientResponse) -> web.StreamResponse:
    """A whole reply screened whole (through the output stage when there is one), sent as
    JSON, or as a stream when the client asked for one and the upstream ignored it."""
    settings, metrics, record = turn.settings, turn.metrics, turn.record
    headers = returned_headers(upstream)
    slots: list[Slot] = []
    texts = slots if turn.stage is not None else None
    screen: Callable[[dict[str, Any]], Counter[str]] = partial(
        screen_response, make_screen=turn.make_screen, request=turn.body, calls=turn.calls,
        pieces=texts is not None, texts=texts, mask=partial(screen_value, rules=turn.rules)
    ) if turn.kind == "responses" else partial(
        screen_completion, make_screen=turn.make_screen, kind=turn.kind, calls=turn.calls,
        pieces=texts is not None, texts=texts)
    try:
        parsed = await read_whole(upstream, screen, record, turn.own_s,
                              metrics, settings.limits.max_response_bytes,
                              request.app[OFFLOAD], turn.json_reply, _PATHS[turn.kind][1],
                              process=texts is None)
    except UpstreamError as exc:  # too large, broke off, timed out, not a completion
        metrics.upstream_errors_by(exc.kind, record.api).inc()
        raise
    if turn.stage is not None:
        await stage_texts(slots, turn.stage)
        if turn.kind == "responses" and "output_text" in parsed:
            parsed["output_text"] = rebuilt_text(parsed["output"])
    if turn.body.get("stream") is True:  # the upstream ignored `stream`: stream it anyway
        if turn.kind == "responses":
            return await direct.stream_events(request, response_events(parsed), headers)
        return await direct.stream_completion(request, turn.body, parsed, turn.kind, headers)
    return web.Response(body=orjson.dumps(parsed), status=upstream.status, headers=headers,
                        content_type="application/json")
