"""The screened routes: `/v1/chat/completions`, the legacy `/v1/completions` and the
Responses API's `/v1/responses` (its adapter: proxy.api_responses, proxy.responses_stream).

Request: read and check the body, screen the turn and every other text the model is sent
(proxy.request_side; what it is screened with: proxy.turn); a withheld turn or an exact
reply is answered directly. Reply (proxy.completions_reply; the upstream call:
proxy.upstream_reply): a whole completion is screened whole; a stream is relayed through one
ReplyScreen per choice.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from replyguard.engine.request import RequestVerdict
from replyguard.engine.rules import CompiledRules
from replyguard.engine.tools import CompiledTools
from replyguard.proxy import direct
from replyguard.proxy.body import read_json
from replyguard.proxy.completions_reply import Turn, forward
from replyguard.proxy.errors import ProxyError, ScreeningFailed
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.output import OutputStage
from replyguard.proxy.permissions import CallFilter, offered_tools
from replyguard.proxy.record import RECORD
from replyguard.proxy.request_side import check_output_kinds, verdict_chat, verdict_text
from replyguard.proxy.responses_request import verdict_responses
from replyguard.proxy.screen_pool import WorkerLost
from replyguard.proxy.state import GUARDRAILS, METRICS, OFFLOAD, SCREEN_CACHE, SETTINGS
from replyguard.proxy.turn import (
    Kind,
    blocked_reply,
    compiled_rules,
    compiled_tools,
    output_stage,
    product_reply,
    screen_maker,
)


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
    return await forward(request, turn)


async def _screen_turn(request: web.Request, kind: Kind) -> Turn | web.StreamResponse:
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
    return Turn(settings, metrics, record, kind, body,
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
    reply = await blocked_reply(request, body, verdict, kind, rules, stage)
    return None if reply is None else await direct.answer(request, body, reply, kind)


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
