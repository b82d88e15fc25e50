"""The screened routes: `/v1/chat/completions` and the legacy `/v1/completions`.

Request: read and check the body, screen the turn and every other text the model is sent
(proxy.request_side); a withheld turn or an exact reply is answered directly. Reply:
a whole completion is screened whole; a stream is relayed through one ReplyScreen per choice.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.engine.context import TurnContext, content_text
from replyguard.engine.json_reply import JsonReplyScreen
from replyguard.engine.reply import Piece, ReplyScreen, ScreeningError
from replyguard.engine.request import RequestVerdict
from replyguard.engine.rules import LANGUAGES, Action, CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.engine.segment import split_sentences
from replyguard.engine.tools import CompiledTools
from replyguard.proxy import direct
from replyguard.proxy.api_chat import ChunkShapeError, Kind, StreamScreen, screen_completion
from replyguard.proxy.body import read_json
from replyguard.proxy.counts import add_counts
from replyguard.proxy.errors import (
    BadRequest,
    ProxyError,
    ScreeningFailed,
    UpstreamError,
    error_response,
)
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.offload import JSON_OFFLOAD_CHARS, Offload
from replyguard.proxy.output import OutputStage, stage_texts
from replyguard.proxy.overload import count_fault
from replyguard.proxy.permissions import CallFilter, offered_tools
from replyguard.proxy.pipeline import Slot, Text
from replyguard.proxy.relay import StreamStats, relay
from replyguard.proxy.request_side import check_output_kinds, verdict_chat, verdict_text
from replyguard.proxy.state import (
    AUDIENCES,
    GUARDRAILS,
    INFO,
    METRICS,
    OFFLOAD,
    REFUSING,
    RULES,
    SCREEN_CACHE,
    SESSION,
    SETTINGS,
    TOOLS,
)
from replyguard.proxy.upstream import error_from_status, fault, returned_headers, upstream_headers

LANGUAGE_HEADER = "X-ReplyGuard-Language"
AUDIENCE_HEADER = "X-ReplyGuard-Audience"
_LANGUAGES_BY_LOWER = {known.lower(): known for known in LANGUAGES}


def compiled_rules(request: web.Request) -> CompiledRules:
    """The rules for this request's language: the `X-ReplyGuard-Language` header (any case),
    else the settings' language (never guessed from the text, seed 000)."""
    app = request.app
    language = request.headers.get(LANGUAGE_HEADER) or app[SETTINGS].language
    language = _LANGUAGES_BY_LOWER.get(language.lower(), language)
    if language not in LANGUAGES:
        raise BadRequest(f"{LANGUAGE_HEADER}: not a language ReplyGuard reads (known: "
                         f"{', '.join(LANGUAGES)})", code="invalid_language")
    return app[RULES].for_language(language)


def compiled_tools(request: web.Request, language: str) -> tuple[CompiledTools | None, bool]:
    """The declared tools (settings `tools:`) for this request's language and audience (the
    `X-ReplyGuard-Audience` header, else the settings'), None when no tool is declared; and
    whether one of them is refused (`allowed: false`)."""
    app = request.app
    audience = (request.headers.get(AUDIENCE_HEADER) or app[SETTINGS].audience).lower()
    if audience not in AUDIENCES:
        raise BadRequest(f"{AUDIENCE_HEADER}: not an audience ReplyGuard knows (known: "
                         f"{', '.join(AUDIENCES)})", code="invalid_audience")
    tools = app[TOOLS]
    if not tools:
        return None, False
    return tools[language, audience], (language, audience) in app[REFUSING]


def _json_reply(body: dict[str, Any]) -> bool:
    """Did the client ask for a JSON document (`response_format` `json_object` or
    `json_schema`)? Its string values are then screened and the document kept valid."""
    fmt = body.get("response_format")
    return isinstance(fmt, dict) and fmt.get("type") in ("json_object", "json_schema")


async def completions(request: web.Request) -> web.StreamResponse:
    """`POST /v1/completions` (legacy text completions), screened both ways."""
    return await chat_completions(request, "text")


async def chat_completions(request: web.Request, kind: Kind = "chat") -> web.StreamResponse:
    """`POST /v1/chat/completions`, screened both ways; with `kind` "text", the legacy
    completions (`completions`). The chat route is this handler itself, without a coroutine
    wrapped around it."""
    app = request.app
    settings, metrics = app[SETTINGS], app[METRICS]
    info = request[INFO]
    started = time.perf_counter()
    body = await read_json(request, settings.limits.max_body_bytes)
    rules = compiled_rules(request)
    check_output_kinds(body)
    tools, refusing = compiled_tools(request, rules.language)
    tools = tools if kind == "chat" else None
    # The screen cache's hits and misses made by this request's screen (it runs on the event
    # loop, the cache's only user, so the difference is this request's own).
    cache = app[SCREEN_CACHE]
    hits, misses = cache.hits, cache.misses
    size = request.content_length or 0
    try:
        if kind == "chat":
            verdict, fields = await app[OFFLOAD].run(size, verdict_chat, body, rules, tools,
                                                     cache)
        else:
            verdict, fields = await app[OFFLOAD].run(size, verdict_text, body, rules, cache)
    except ProxyError:
        raise
    except Exception as exc:
        metrics.screening_errors.labels("request").inc()
        raise ScreeningFailed(f"screening the request failed ({type(exc).__name__}); nothing "
                              "was sent upstream") from exc
    finally:
        metrics.cache_lookups(cache.hits - hits, cache.misses - misses)
    counts: Counter[str] = info["counts"]
    add_counts(counts, verdict.counts)
    info["verdict"] = verdict.kind
    guard = app[GUARDRAILS]
    json_reply = kind == "chat" and _json_reply(body)
    stage = None
    if guard.output or settings.reply_temperature > 0:
        stage = OutputStage(
            app[SESSION], guard=guard if guard.output else None,
            temperature=settings.reply_temperature, base_url=settings.upstream.base_url,
            model=str(body.get("model") or ""), auth=upstream_headers(request, settings),
            rules=rules, internals=settings.replies.internals,  # type: ignore[arg-type]
            info=info, counts=counts,
            whole=json_reply)
    if verdict.kind != "forward":
        assert verdict.reply is not None
        reply = verdict.reply
        if verdict.kind == "withhold" and settings.reply_temperature > 0 and stage is not None:
            reply = await _product_reply(stage, reply, rules.language)
        return await direct.answer(request, body, reply, kind)
    waited = 0.0
    if guard.input:
        checked = time.perf_counter()
        check, how = await guard.check_turn(app[SESSION], _turn_text(verdict, kind),
                                            str(body.get("model") or ""),
                                            upstream_headers(request, settings),
                                            _user_text(verdict, kind))
        waited = time.perf_counter() - checked
        if check is not None:
            metrics.guardrail_blocks.labels(check).inc()
            info["verdict"], info["guardrail"] = "blocked", f"{check} ({how})"
            reply = guard.block_message(check, rules.language)
            if settings.reply_temperature > 0 and stage is not None:
                reply = await _product_reply(stage, reply, rules.language)
            return await direct.answer(request, body, reply, kind)
    if kind == "chat":
        forward = {**body, **fields, "messages": verdict.messages}
        if tools is not None:
            forward = offered_tools(tools, forward)
    else:
        prompts = [m["content"] for m in verdict.messages]
        forward = {**body, **fields,
                   "prompt": prompts[0] if isinstance(body["prompt"], str) else prompts}
    screen_class = JsonReplyScreen if json_reply else ReplyScreen
    internals: Action = settings.replies.internals  # type: ignore[assignment]
    context = verdict.context if kind == "chat" else TurnContext()
    if tools is None:
        make_screen = partial(screen_class, rules, context, settings.replies.max_sentence_chars,
                              internals=internals)
    else:
        make_screen = partial(screen_class, rules, context, settings.replies.max_sentence_chars,
                              internals=internals, tools=tools, now=time.time())
    calls = CallFilter(tools) if tools is not None and refusing else None
    url = f"{settings.upstream.base_url}/{'chat/completions' if kind == 'chat' else 'completions'}"
    session = app[SESSION]
    upstream_started = time.perf_counter()
    own = upstream_started - started - waited
    try:
        upstream_cm = session.post(url, data=orjson.dumps(forward), allow_redirects=False,
                                   headers=upstream_headers(request, settings))
        upstream = await upstream_cm.__aenter__()
    except Exception as exc:  # no answer: refused, unreachable, timed out, broke off
        failed = fault(exc, settings.upstream.base_url)
        count_fault(metrics, failed)  # overload (503) or an upstream fault
        raise failed from None
    try:
        metrics.upstream_latency_by(info["route"]).observe(
            time.perf_counter() - upstream_started)
        headers = returned_headers(upstream)
        if upstream.status >= 400:
            metrics.upstream_errors_by(f"http_{upstream.status // 100}xx").inc()
            error = await error_from_status(upstream, settings.upstream.base_url,
                                            lambda text: screen_text(text, rules, "tool").text)
            if isinstance(error, bytes):
                return web.Response(body=error, status=upstream.status, headers=headers,
                                    content_type="application/json")
            return error_response(error, headers)
        streaming = upstream.content_type == "text/event-stream"
        if streaming:
            screen = StreamScreen(make_screen, kind, calls, pieces=stage is not None)
            stats = StreamStats()
            metrics.active_streams.inc()
            try:
                response = await relay(request, upstream, screen, stats, headers,
                                       settings.limits.max_response_bytes, stage,
                                       app[OFFLOAD])
            finally:
                metrics.active_streams.dec()
                add_counts(counts, screen.counts())
                info["outcome"] = stats.outcome
                metrics.added_latency_by(info["route"]).observe(own + stats.own_s)
                if stats.first_text_at is not None:
                    metrics.first_token_by(info["route"]).observe(
                        stats.first_text_at - started)
                if stats.outcome == "screening_failed":
                    metrics.screening_errors.labels("reply").inc()
                elif stats.outcome.startswith("upstream"):
                    metrics.upstream_errors_by(stats.fault or stats.outcome).inc()
                elif stats.outcome == "client_gone":
                    metrics.client_disconnects.inc()
            return response
        slots: list[Slot] = []
        try:
            parsed = await _whole(upstream, partial(screen_completion, make_screen=make_screen,
                                                    kind=kind, calls=calls,
                                                    pieces=stage is not None, texts=slots),
                                  counts, info["route"], own, metrics,
                                  settings.limits.max_response_bytes, app[OFFLOAD], json_reply)
        except UpstreamError as exc:  # too large, broke off, timed out, not a completion
            metrics.upstream_errors_by(exc.kind).inc()
            raise
        if stage is not None:
            await stage_texts(slots, stage)
        if body.get("stream") is True:  # the upstream ignored `stream`: stream it anyway
            return await direct.stream_completion(request, body, parsed, kind, headers)
        return web.Response(body=orjson.dumps(parsed), status=upstream.status, headers=headers,
                            content_type="application/json")
    finally:
        await upstream_cm.__aexit__(None, None, None)
        if info.get("guardrail_output"):
            metrics.guardrail_output_flagged.inc()


async def _product_reply(stage: OutputStage, text: str, language: str) -> str:
    """A reply the product writes whole (withheld, blocked) through the output stage, each
    sentence a product sentence (reworded at `reply_temperature`)."""
    pieces = tuple(Piece(s, True) for s in split_sentences(text, language))
    return await stage(Text("content", "".join(p.text for p in pieces), pieces))


def _user_text(verdict: RequestVerdict, kind: Kind) -> str:
    """Every screened user message (every prompt), joined by newlines."""
    if kind == "text":
        return _turn_text(verdict, kind)
    return "\n".join(content_text(m.get("content")) for m in verdict.messages
                     if isinstance(m, dict) and m.get("role") == "user")


def _turn_text(verdict: RequestVerdict, kind: Kind) -> str:
    """The screened turn the guardrails read: the last user message (chat), every prompt
    (legacy completions)."""
    if kind == "text":
        return "\n".join(str(m["content"]) for m in verdict.messages)
    for message in reversed(verdict.messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


async def _whole(upstream: aiohttp.ClientResponse, screen: Callable[[dict[str, Any]], Counter[str]],
                 counts: Counter[str], route: str, own: float, metrics: Metrics,
                 limit: int, offload: Offload, json_reply: bool = False) -> dict[str, Any]:
    """Read and screen a whole (non-streamed) upstream completion; one over `limit` bytes is
    refused (502) rather than held in memory whole."""
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
    raw = b"".join(pieces)
    started = time.perf_counter()
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise UpstreamError("the upstream answered with something that is not a JSON object",
                            code="upstream_protocol")
    if "choices" not in parsed:  # e.g. a 200 carrying {"error": ...}: never sent on as it is
        raise UpstreamError("the upstream answered without any choices", code="upstream_protocol")
    try:
        add_counts(counts, await offload.run(
            len(raw), screen, parsed, threshold=JSON_OFFLOAD_CHARS if json_reply else None))
    except ChunkShapeError as exc:
        raise UpstreamError(f"{exc}; nothing of the reply was sent",
                            code="upstream_protocol") from exc
    except ScreeningError as exc:
        metrics.screening_errors.labels("reply").inc()
        raise ScreeningFailed("screening the reply failed; nothing of it was sent") from exc
    metrics.added_latency_by(route).observe(own + time.perf_counter() - started)
    return parsed
