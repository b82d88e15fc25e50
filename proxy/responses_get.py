"""`GET /v1/responses/{id}` and `GET /v1/responses/{id}/input_items`: a stored Response (whole,
or its stream resumed) and the items it was given, fetched from the upstream and screened
before the client sees them. No turn of this request is known: the reply screen reads the
Response alone (a claim about a call is judged against no call)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.engine.request import RequestVerdict
from replyguard.engine.request_fields import screen_value
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.engine.screen_cache import ScreenCache
from replyguard.proxy.api_responses import screen_response
from replyguard.proxy.completions import stream_metrics
from replyguard.proxy.errors import UpstreamError, error_response
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.record import RECORD
from replyguard.proxy.relay import relay
from replyguard.proxy.responses_stream import ResponsesStream
from replyguard.proxy.state import METRICS, OFFLOAD, SCREEN_CACHE, SESSION, SETTINGS
from replyguard.proxy.turn import compiled_rules, compiled_tools, screen_maker
from replyguard.proxy.upstream import (
    error_from_status,
    returned_headers,
    unanswered,
    upstream_headers,
)
from replyguard.proxy.upstream_reply import read_whole

__all__ = ["stored_input_items", "stored_response"]

#: A Response id as a route segment: letters, digits, `_` and `-` (anything else is a 404).
ID = r"{id:[A-Za-z0-9_-]{1,200}}"


async def stored_response(request: web.Request) -> web.StreamResponse:
    """`GET /v1/responses/{id}`: the upstream's Response screened as a reply (its stream,
    with `stream=true`, screened as it comes)."""
    return await _get(request, "")


async def stored_input_items(request: web.Request) -> web.StreamResponse:
    """`GET /v1/responses/{id}/input_items`: every string of the list masked, as a request's
    history is (withhold acting as redact, not counted)."""
    return await _get(request, "/input_items")


async def _get(request: web.Request, tail: str) -> web.StreamResponse:
    app = request.app
    settings = app[SETTINGS]
    query = f"?{request.query_string}" if request.query_string else ""
    url = f"{settings.upstream.base_url}/responses/{request.match_info['id']}{tail}{query}"
    answered = False
    try:
        async with app[SESSION].get(url, headers=upstream_headers(request, settings),
                                    allow_redirects=False) as upstream:
            answered = True
            return await _answer(request, upstream, tail)
    except Exception as exc:
        if answered:
            raise
        raise unanswered(app, exc, request[RECORD].api, settings.upstream.base_url) from None


async def _answer(request: web.Request, upstream: aiohttp.ClientResponse,
                  tail: str) -> web.StreamResponse:
    app = request.app
    settings, metrics, record = app[SETTINGS], app[METRICS], request[RECORD]
    rules = compiled_rules(request)
    headers = returned_headers(upstream)
    if upstream.status >= 400:
        metrics.upstream_errors_by(f"http_{upstream.status // 100}xx", record.api).inc()
        error = await error_from_status(upstream, settings.upstream.base_url,
                                        lambda text: screen_text(text, rules, "tool").text)
        if isinstance(error, bytes):
            return web.Response(body=error, status=upstream.status, headers=headers,
                                content_type="application/json")
        return error_response(error, headers)
    tools = compiled_tools(request, rules.language)
    make = screen_maker(settings, "responses", RequestVerdict("forward", []), rules, tools,
                        False)
    calls = CallFilter(rules, tools)
    limit = settings.limits.max_response_bytes
    if upstream.content_type == "text/event-stream" and not tail:
        stream = ResponsesStream(make, {}, calls, mask=partial(screen_value, rules=rules))
        record.outcome = "ok"
        metrics.active_streams.inc()
        try:
            return await relay(request, upstream, stream, record, headers, limit, None,
                               app[OFFLOAD])
        finally:
            metrics.active_streams.dec()
            record.counts.update(stream.counts())
            stream_metrics(metrics, record, 0.0, record.started)
    if tail:
        screen: Callable[[dict[str, Any]], Counter[str]] = partial(
            _screen_items, rules=rules, cache=app[SCREEN_CACHE])
        key = "data"
    else:
        screen = partial(screen_response, make_screen=make, request={}, calls=calls,
                         mask=partial(screen_value, rules=rules))
        key = "output"
    try:
        parsed = await read_whole(upstream, screen, record, 0.0, metrics,
                                  limit, app[OFFLOAD], False, key)
    except UpstreamError as exc:
        metrics.upstream_errors_by(exc.kind, record.api).inc()
        raise
    return web.Response(body=orjson.dumps(parsed), headers=headers,
                        content_type="application/json")


def _screen_items(document: dict[str, Any], rules: CompiledRules,
                  cache: ScreenCache) -> Counter[str]:
    """The input items list, every string masked in place; nothing is counted."""
    screened = screen_value(document, rules, cache)
    document.clear()
    document.update(screened)
    return Counter()
