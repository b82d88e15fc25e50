"""The Anthropic Messages route, `POST /v1/messages`, screened both ways.

Request: `system` and every message's blocks screened as a chat request is
(proxy.messages_request); a withheld turn, an exact reply or a guardrail block is answered
directly as an Anthropic message (or its events), with no upstream call. Reply: screened
by the Messages adapter (proxy.api_messages, proxy.api_messages_stream), whole or streamed,
then through the output stage when one is on. Errors are in Anthropic's shape.
"""

from __future__ import annotations

import secrets
import time
from functools import partial
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.config.settings import Settings
from replyguard.engine.reply import ScreeningError
from replyguard.engine.request import RequestVerdict
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.engine.tools import CompiledTools
from replyguard.proxy import turn
from replyguard.proxy.api_messages import (
    THINKING_UNSIGNED,
    error_body,
    message_events,
    screen_message,
    unsigned_changed,
)
from replyguard.proxy.api_messages_stream import MessageStream
from replyguard.proxy.body import read_json
from replyguard.proxy.completions_reply import stream_metrics
from replyguard.proxy.direct import SSE_HEADERS
from replyguard.proxy.errors import ProxyError, ScreeningFailed, UpstreamError
from replyguard.proxy.messages_request import verdict_messages
from replyguard.proxy.output import OutputStage, stage_texts
from replyguard.proxy.permissions import CallFilter, offered_tools
from replyguard.proxy.pipeline import Slot
from replyguard.proxy.record import RECORD
from replyguard.proxy.relay import relay
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.sse import encode_event
from replyguard.proxy.state import (
    GUARDRAILS,
    METRICS,
    OFFLOAD,
    SCREEN_CACHE,
    SETTINGS,
    prepare,
)
from replyguard.proxy.upstream import (
    copy_headers,
    error_from_status,
    json_object,
    read_body,
    returned_headers,
)
from replyguard.proxy.upstream_reply import call_upstream

__all__ = ["FORWARDED", "RETURNED", "answer", "anthropic_error_response", "anthropic_path",
           "messages", "reply_message", "upstream_headers"]

#: Client headers sent on to a Messages upstream (besides the key, see `upstream_headers`).
FORWARDED = ("anthropic-version", "anthropic-beta", "user-agent", "accept")
#: Anthropic's upstream response headers sent back (besides `upstream.RETURNED`): its request
#: id and rate limits.
RETURNED = ("request-id", "anthropic-ratelimit-requests-limit",
            "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset",
            "anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining",
            "anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-input-tokens-limit",
            "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-output-tokens-limit",
            "anthropic-ratelimit-output-tokens-remaining",
            "anthropic-ratelimit-output-tokens-reset")
def upstream_headers(request: web.Request, settings: Settings) -> dict[str, str]:
    """Headers for the Messages upstream: `upstream.anthropic_api_key` as `x-api-key` when
    set, else the client's `x-api-key` (or its `Authorization`), and the Anthropic headers
    the client sent (`anthropic-version`, `anthropic-beta`). `upstream.api_key` (the OpenAI
    upstream's) is never sent."""
    headers = {"Content-Type": "application/json"}
    given = request.headers.get
    if settings.upstream.anthropic_api_key:
        headers["x-api-key"] = settings.upstream.anthropic_api_key
    elif (key := given("x-api-key")) is not None:
        headers["x-api-key"] = key
    elif (auth := given("Authorization")) is not None:
        headers["Authorization"] = auth
    copy_headers(request, FORWARDED, headers)
    return headers


async def messages(request: web.Request) -> web.StreamResponse:
    """`POST /v1/messages`: any error is answered in Anthropic's shape."""
    try:
        return await _messages(request)
    except ProxyError as exc:
        return anthropic_error_response(exc)


def anthropic_error_response(error: ProxyError) -> web.Response:
    """The JSON response for `error` in Anthropic's shape (`api_messages.error_body`), with
    the error's headers (`Retry-After`, `Allow`)."""
    response = web.Response(body=orjson.dumps(error_body(error)), status=error.status,
                            content_type="application/json", headers=error.headers)
    if error.close:
        response.force_close()
    return response


def anthropic_path(path: str) -> bool:
    """Does `path` belong to the Anthropic Messages API (`/v1/messages` and below it, such
    as `/v1/messages/count_tokens`): are its errors told in Anthropic's shape?"""
    return path == "/v1/messages" or path.startswith("/v1/messages/")


# ---------------------------------------------------------------- the route

async def _verdict(request: web.Request, body: dict[str, Any], rules: CompiledRules,
                   tools: CompiledTools | None) -> tuple[RequestVerdict, dict[str, Any]]:
    """The request screened (in the offload's worker for a long one); fail closed."""
    app = request.app
    try:
        return await app[OFFLOAD].run(request.content_length or 0, verdict_messages, body,
                                      rules, tools, app[SCREEN_CACHE], process=True)
    except ProxyError:
        raise
    except Exception as exc:
        app[METRICS].screening_errors_by("request", request[RECORD].api).inc()
        raise ScreeningFailed(f"screening the request failed ({type(exc).__name__}); nothing "
                              "was sent upstream") from exc


async def _messages(request: web.Request) -> web.StreamResponse:
    app = request.app
    settings, record = app[SETTINGS], request[RECORD]
    started = time.perf_counter()
    body = await read_json(request, settings.limits.max_body_bytes)
    rules = turn.compiled_rules(request)
    tools = turn.compiled_tools(request, rules.language)
    verdict, fields = await _verdict(request, body, rules, tools)
    record.counts.update(verdict.counts)
    record.verdict = verdict.kind
    guard = app[GUARDRAILS]
    stage = turn.output_stage(request, body, rules, False) \
        if guard.output or settings.reply_temperature > 0 else None
    if verdict.kind != "forward":
        assert verdict.reply is not None
        return await answer(request, body, await _product(stage, verdict.reply, rules,
                                                          verdict.kind == "withhold"))
    checked = time.perf_counter()
    if guard.input and (blocked := await _input_checks(request, body, verdict, rules, stage)):
        return blocked
    # The proxy's own seconds before the upstream call (the guardrails' wait left out).
    record.own_s += checked - started
    forward = {**body, **fields}
    if tools is not None:
        forward = offered_tools(tools, forward)
    make_screen = turn.screen_maker(settings, "chat", verdict, rules, tools, False)
    calls = CallFilter(rules, tools)
    pieces = stage is not None
    return await _forward(request, settings, forward, body.get("stream") is True, stage,
                          partial(MessageStream, make_screen, calls, pieces),
                          partial(screen_message, make_screen=make_screen, calls=calls))


async def _product(stage: OutputStage | None, reply: str, rules: CompiledRules,
                   product: bool = True) -> str:
    """A reply the product writes (withheld, blocked) through the output stage when
    rewording is on (`reply_temperature`); an exact reply (`product` False) as it is."""
    if stage is None or not product or stage.temperature <= 0:
        return reply
    return await turn.product_reply(stage, reply, rules.language)


async def _input_checks(request: web.Request, body: dict[str, Any], verdict: RequestVerdict,
                        rules: CompiledRules, stage: OutputStage | None
                        ) -> web.StreamResponse | None:
    """The input guardrails on the screened turn, as on chat completions: the answer to a
    blocked turn, else None."""
    reply = await turn.blocked_reply(request, body, verdict, "chat", rules, stage)
    return None if reply is None else await answer(request, body, reply)


async def _forward(request: web.Request, settings: Settings, forward: dict[str, Any],
                   stream: bool, stage: OutputStage | None, make_stream: Any,
                   screen_whole: Any) -> web.StreamResponse:
    """Send the request upstream (`<upstream.anthropic_base_url>/v1/messages`) and its
    answer back, screened (and through the output stage, when there is one)."""
    base = settings.upstream.anthropic_base_url

    async def answer(upstream: aiohttp.ClientResponse) -> web.StreamResponse:
        return await _answered(request, settings, upstream, stream, stage, make_stream,
                               screen_whole)

    return await call_upstream(request, f"{base}/v1/messages", base, forward,
                               upstream_headers(request, settings), answer)


async def _answered(request: web.Request, settings: Settings, upstream: aiohttp.ClientResponse,
                    stream: bool, stage: OutputStage | None, make_stream: Any,
                    screen_whole: Any) -> web.StreamResponse:
    """The upstream's answer, screened: an error status as Anthropic's error, a stream
    relayed, a whole message screened whole."""
    metrics, record = request.app[METRICS], request[RECORD]
    if upstream.status >= 400:
        return await _refused(request, upstream)
    if upstream.content_type != "text/event-stream":
        return await _whole_reply(request, upstream, stream, stage, screen_whole)
    screen = make_stream()
    record.outcome = "ok"
    metrics.active_streams.inc()
    try:
        return await relay(request, upstream, screen, record,
                           returned_headers(upstream, RETURNED),
                           settings.limits.max_response_bytes, stage, request.app[OFFLOAD])
    finally:
        metrics.active_streams.dec()
        record.counts.update(screen.counts())
        stream_metrics(metrics, record, 0.0, record.started)


async def _refused(request: web.Request, upstream: aiohttp.ClientResponse) -> web.Response:
    """An upstream error status as the client's Anthropic error (its text masked)."""
    request.app[METRICS].upstream_errors_by(f"http_{upstream.status // 100}xx",
                                            request[RECORD].api).inc()
    rules = turn.compiled_rules(request)
    error = await error_from_status(upstream,
                                    request.app[SETTINGS].upstream.anthropic_base_url,
                                    lambda text: screen_text(text, rules, "tool").text)
    if isinstance(error, bytes):
        inner = orjson.loads(error)["error"]
        error = ProxyError(inner.get("message") or "", status=upstream.status)
        body = error_body(error)
        if inner.get("type"):
            body["error"]["type"] = inner["type"]
        return web.Response(body=orjson.dumps(body), status=upstream.status,
                            headers=returned_headers(upstream, RETURNED),
                            content_type="application/json")
    raise error


async def _whole_reply(request: web.Request, upstream: aiohttp.ClientResponse, stream: bool,
                       stage: OutputStage | None, screen_whole: Any) -> web.StreamResponse:
    """A whole message, read (within the limit) and screened, then through the output stage
    when there is one; streamed when the client asked for a stream and the upstream
    answered whole."""
    record, metrics = request[RECORD], request.app[METRICS]
    slots: list[Slot] | None = [] if stage is not None else None
    try:
        screened = await _screened_message(request, upstream, partial(screen_whole,
                                                                      texts=slots))
    except UpstreamError as exc:  # too large, broke off, timed out, not a message
        metrics.upstream_errors_by(exc.kind, record.api).inc()
        raise
    if stage is not None and slots:
        await stage_texts(slots, stage)
        record.counts[THINKING_UNSIGNED] += unsigned_changed(slots)
    headers = returned_headers(upstream, RETURNED)
    if stream:
        return await _stream(request, screened, headers)
    return web.Response(body=orjson.dumps(screened), headers=headers,
                        content_type="application/json")


async def _screened_message(request: web.Request, upstream: aiohttp.ClientResponse,
                            screen_whole: Any) -> dict[str, Any]:
    """The upstream's whole message, screened (its counts and the proxy's time recorded).
    Raises UpstreamError (not a message, a shape that cannot be screened, too large),
    ScreeningFailed."""
    record, limit = request[RECORD], request.app[SETTINGS].limits.max_response_bytes
    raw = await read_body(upstream, limit)
    started = time.perf_counter()
    parsed = json_object(raw)
    if parsed is None or parsed.get("type") != "message":
        raise UpstreamError("the upstream answered with something that is not a message",
                            code="upstream_protocol")
    try:
        screened, counts = await request.app[OFFLOAD].run(len(raw), screen_whole, parsed)
    except ChunkShapeError as exc:
        raise UpstreamError(f"{exc}; nothing of the reply was sent",
                            code="upstream_protocol") from exc
    except ScreeningError as exc:
        request.app[METRICS].screening_errors_by("reply", record.api).inc()
        raise ScreeningFailed("screening the reply failed; nothing of it was sent") from exc
    record.counts.update(counts)
    request.app[METRICS].added_latency_by(record.route, record.api).observe(
        record.own_s + time.perf_counter() - started)
    return screened


# ---------------------------------------------------------------- direct answers

def reply_message(body: dict[str, Any], text: str) -> dict[str, Any]:
    """A whole Anthropic message saying `text` (a reply ReplyGuard gives itself)."""
    model = body.get("model") if isinstance(body.get("model"), str) else "replyguard"
    return {"id": f"msg_rg{secrets.token_hex(12)}", "type": "message", "role": "assistant",
            "model": model, "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0}}


async def _stream(request: web.Request, message: dict[str, Any],
                  headers: dict[str, str] | None = None) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={**SSE_HEADERS, **(headers or {})})
    await prepare(request, response)
    await response.write(b"".join(encode_event(orjson.dumps(data), name)
                                  for name, data in message_events(message)))
    await response.write_eof()
    return response


async def answer(request: web.Request, body: dict[str, Any], text: str) -> web.StreamResponse:
    """Answer with `text` as the whole reply, as the events that stream it if asked."""
    message = reply_message(body, text)
    if body.get("stream") is True:
        return await _stream(request, message)
    return web.json_response(message, dumps=lambda o: orjson.dumps(o).decode())

