"""The screened routes: `/v1/chat/completions`, the legacy `/v1/completions` and the
Responses API's `/v1/responses` (its adapter: proxy.api_responses, proxy.responses_stream).

Request: read and check the body, screen the turn and every other text the model is sent
(proxy.request_side; what it is screened with: proxy.turn); a withheld turn or an exact
reply is answered directly. Reply (the upstream call: proxy.upstream_reply): a whole
completion is screened whole; a stream is relayed through one ReplyScreen per choice.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.config.settings import Settings
from replyguard.engine.request import RequestVerdict
from replyguard.engine.request_fields import screen_value
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.engine.tools import CompiledTools
from replyguard.proxy import direct
from replyguard.proxy.api_chat import StreamScreen
from replyguard.proxy.api_chat_whole import screen_completion
from replyguard.proxy.api_responses import rebuilt_text, screen_response
from replyguard.proxy.body import read_json
from replyguard.proxy.errors import (
    ProxyError,
    ScreeningFailed,
    UpstreamError,
    error_response,
)
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.output import OutputStage, stage_texts
from replyguard.proxy.permissions import CallFilter, offered_tools
from replyguard.proxy.pipeline import Screen, Slot, StreamAdapter
from replyguard.proxy.record import RECORD, RequestRecord
from replyguard.proxy.relay import relay
from replyguard.proxy.request_side import check_output_kinds, verdict_chat, verdict_text
from replyguard.proxy.responses_events import response_events
from replyguard.proxy.responses_request import verdict_responses
from replyguard.proxy.responses_stream import ResponsesStream
from replyguard.proxy.screen_pool import WorkerLost
from replyguard.proxy.state import (
    GUARDRAILS,
    METRICS,
    OFFLOAD,
    SCREEN_CACHE,
    SESSION,
    SETTINGS,
)
from replyguard.proxy.turn import (
    Kind,
    compiled_rules,
    compiled_tools,
    output_stage,
    product_reply,
    screen_maker,
    turn_text,
    user_text,
)
from replyguard.proxy.upstream import (
    error_from_status,
    returned_headers,
    upstream_headers,
)
from replyguard.proxy.upstream_reply import call_upstream, read_whole

#: Each API's upstream path (under the base URL) and the key a whole reply must have.
_PATHS = {"chat": ("chat/completions", "choices"), "text": ("completions", "choices"),
          "responses": ("responses", "output")}


def _json_reply(body: dict[str, Any]) -> bool:
    """Did the client ask for a JSON document (`response_format` `json_object` or
    `json_schema`; the Responses API's `text.format`)? Its string values are then screened
    and the document kept valid."""
    fmt = body.get("response_format")
    text = body.get("text")
    if fmt is None and isinstance(text, dict):
        fmt = text.get("format")
    return isinstance(fmt, dict) and fmt.get("type") in ("json_object", "json_schema")


async def responses(request: web.Request) -> web.StreamResponse:
    """`POST /v1/responses` (the Responses API), screened both ways."""
    return await chat_completions(request, "responses")


async def completions(request: web.Request) -> web.StreamResponse:
    """`POST /v1/completions` (legacy text completions), screened both ways."""
    return await chat_completions(request, "text")


async def chat_completions(request: web.Request, kind: Kind = "chat") -> web.StreamResponse:
    """`POST /v1/chat/completions`, screened both ways; with `kind` "text", the legacy
    completions (`completions`). The chat route is this handler itself, without a coroutine
    wrapped around it. Screen the request (a withheld turn, an exact reply or a guardrail
    block is answered here), forward it, then relay the stream or screen the whole reply;
    the request's record is written out by the middleware."""
    turn = await _screen_turn(request, kind)
    if isinstance(turn, web.StreamResponse):
        return turn
    return await _forward(request, turn)


@dataclass(slots=True)
class _Turn:
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


async def _screen_turn(request: web.Request, kind: Kind) -> _Turn | web.StreamResponse:
    """Read and screen the request; the turn to forward, or the answer given directly."""
    app = request.app
    settings, metrics, record = app[SETTINGS], app[METRICS], request[RECORD]
    started = time.perf_counter()
    body = await read_json(request, settings.limits.max_body_bytes)
    rules = compiled_rules(request)
    check_output_kinds(body)
    tools = compiled_tools(request, rules.language)  # (the audience header checked)
    tools = tools if kind != "text" else None
    verdict, fields = await _verdict(request, metrics, kind, body, rules, tools)
    record.counts.update(verdict.counts)
    record.verdict = verdict.kind
    json_reply = kind != "text" and _json_reply(body)
    guard = app[GUARDRAILS]
    stage = output_stage(request, body, rules, json_reply) \
        if guard.output or settings.reply_temperature > 0 else None
    if verdict.kind != "forward":
        assert verdict.reply is not None
        reply = verdict.reply
        if verdict.kind == "withhold" and settings.reply_temperature > 0 and stage is not None:
            reply = await product_reply(stage, reply, rules.language)
        return await direct.answer(request, body, reply, kind)
    waited = 0.0
    if guard.input:
        checked = time.perf_counter()
        blocked = await _input_guardrails(request, kind, body, verdict, rules, stage)
        if blocked is not None:
            return blocked
        waited = time.perf_counter() - checked
    return _Turn(settings, metrics, record, kind, body,
                 _forward_body(kind, body, fields, verdict, tools,
                               whole=kind == "responses" and stage is not None), rules,
                 screen_maker(settings, kind, verdict, rules, tools, json_reply),
                 CallFilter(rules, tools) if kind != "text" else None, stage,
                 json_reply, started, time.perf_counter() - started - waited)


async def _verdict(request: web.Request, metrics: Metrics, kind: Kind, body: dict[str, Any],
                   rules: CompiledRules, tools: CompiledTools | None
                   ) -> tuple[RequestVerdict, dict[str, Any]]:
    """The request screened (in the offload's worker for a long one): the verdict and the
    fields to forward in place of the client's. Fail closed: a fault is a 500 and nothing
    is sent upstream."""
    app = request.app
    # The screen cache's hits and misses made by this request's screen (it runs on the event
    # loop, the cache's only user, so the difference is this request's own).
    cache = app[SCREEN_CACHE]
    hits, misses = cache.hits, cache.misses
    size = request.content_length or 0
    try:
        if kind == "chat":
            return await app[OFFLOAD].run(size, verdict_chat, body, rules, tools, cache,
                                          process=True)
        if kind == "responses":
            return await app[OFFLOAD].run(size, verdict_responses, body, rules, tools, cache,
                                          process=True)
        return await app[OFFLOAD].run(size, verdict_text, body, rules, cache, process=True)
    except WorkerLost:
        metrics.screening_errors_by("request", request[RECORD].api).inc()
        raise
    except ProxyError:
        raise
    except Exception as exc:
        metrics.screening_errors_by("request", request[RECORD].api).inc()
        raise ScreeningFailed(f"screening the request failed ({type(exc).__name__}); nothing "
                              "was sent upstream") from exc
    finally:
        metrics.cache_lookups(cache.hits - hits, cache.misses - misses)


async def _input_guardrails(request: web.Request, kind: Kind, body: dict[str, Any],
                            verdict: RequestVerdict, rules: CompiledRules,
                            stage: OutputStage | None) -> web.StreamResponse | None:
    """The input guardrails (on) on the screened turn: the answer to a blocked one, else
    None."""
    app = request.app
    settings, guard, record = app[SETTINGS], app[GUARDRAILS], request[RECORD]
    check, how = await guard.check_turn(app[SESSION], turn_text(verdict, kind),
                                        str(body.get("model") or ""),
                                        upstream_headers(request, settings),
                                        user_text(verdict, kind), api=record.api)
    if check is None:
        return None
    app[METRICS].guardrail_blocks_by(check, record.api).inc()
    record.verdict, record.guardrail = "blocked", f"{check} ({how})"
    reply = guard.block_message(check, rules.language)
    if settings.reply_temperature > 0 and stage is not None:
        reply = await product_reply(stage, reply, rules.language)
    return await direct.answer(request, body, reply, kind)


def _forward_body(kind: Kind, body: dict[str, Any], fields: dict[str, Any],
                  verdict: RequestVerdict, tools: CompiledTools | None,
                  whole: bool = False) -> dict[str, Any]:
    """The body sent upstream: the screened messages (prompts) and fields, refused tools
    taken out of what the model is offered. `whole`: a stream is asked for whole (a
    streamed Response through the output stage is checked whole, then streamed: its `done`
    events and `response.completed` repeat the text, which must be what the stage let
    through)."""
    if kind != "text":
        forward = {**body, **fields}
        if kind == "chat":
            forward["messages"] = verdict.messages
        if whole and forward.get("stream") is True:
            forward["stream"] = False
            forward.pop("stream_options", None)
        return offered_tools(tools, forward) if tools is not None else forward
    prompts = [m["content"] for m in verdict.messages]
    return {**body, **fields, "prompt": prompts[0] if isinstance(body["prompt"], str) else prompts}


async def _forward(request: web.Request, turn: _Turn) -> web.StreamResponse:
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


async def _refused(turn: _Turn, upstream: aiohttp.ClientResponse) -> web.Response:
    """An upstream error status, counted, as the client's error (its text masked)."""
    turn.metrics.upstream_errors_by(f"http_{upstream.status // 100}xx", turn.record.api).inc()
    rules, headers = turn.rules, returned_headers(upstream)
    error = await error_from_status(upstream, turn.settings.upstream.base_url,
                                    lambda text: screen_text(text, rules, "tool").text)
    if isinstance(error, bytes):
        return web.Response(body=error, status=upstream.status, headers=headers,
                            content_type="application/json")
    return error_response(error, headers)


async def _relay(request: web.Request, turn: _Turn,
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


async def _whole_reply(request: web.Request, turn: _Turn,
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


