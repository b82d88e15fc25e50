"""The other routes: embeddings (input screened as a turn), models and passthrough (forwarded
as they are). The operations routes (metrics, health, readiness) are in proxy.health."""

from __future__ import annotations

from typing import Any

import aiohttp
import orjson
from aiohttp import web
from yarl import URL

from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import Screened, screen_text
from replyguard.engine.screen_cache import ScreenCache
from replyguard.proxy.body import in_time, read_json
from replyguard.proxy.errors import (
    BadRequest,
    NotFound,
    ProxyError,
    ScreeningFailed,
    error_response,
)
from replyguard.proxy.paths import AmbiguousPath, canonical_path
from replyguard.proxy.record import RECORD
from replyguard.proxy.request_side import other_fields
from replyguard.proxy.state import METRICS, OFFLOAD, SCREEN_CACHE, SESSION, SETTINGS, prepare
from replyguard.proxy.turn import compiled_rules
from replyguard.proxy.upstream import (
    error_from_status,
    fault,
    returned_headers,
    unanswered,
    upstream_headers,
)

#: Upstream response headers passed on from a passthrough or models route (besides
#: `upstream.RETURNED`, the rate-limit and request-id headers): what a client needs to read
#: the body. Anything else the upstream sent (cookies, server and routing details, CORS and
#: caching policies of the upstream's own site) is not passed on.
_PASSED_BACK = ("content-type", "content-disposition", "content-language", "etag",
                "last-modified", "cache-control", "openai-organization")


def upstream_url(request: web.Request, path: str) -> URL:
    """The upstream URL for a client path: `/v1/x` -> `<base_url>/x` (base_url ends in /v1),
    the path in one canonical encoding and the query as the client sent it.

    Raises NotFound for a path an upstream could read as another route (`proxy.paths`):
    a `.` or `..` segment (`%2e%2e` and `%252e%252e` too), `..%5C`, `..;`, `..%00`,
    full-width dots, `%2F`, `//`: `/v1/files/../chat/completions` on a passthrough prefix
    would otherwise reach the chat route unscreened (RFC 3986 section 5.2.4)."""
    raw, mark, query = path.partition("?")
    try:
        plain = canonical_path(raw)
    except AmbiguousPath as exc:
        raise NotFound(f"this path is not served by ReplyGuard: {exc}") from None
    base = request.app[SETTINGS].upstream.base_url
    tail = plain[3:] if plain.startswith("/v1/") or plain == "/v1" else plain
    return URL(base + tail + mark + query, encoded=True)


def _screen_embeddings(inputs: list[str], body: dict[str, Any], rules: CompiledRules,
                       cache: ScreenCache) -> tuple[list[Screened], dict[str, Any]]:
    """Each input screened as a turn, and the other fields' strings (`other_fields`)."""
    return ([screen_text(text, rules, "turn") for text in inputs],
            other_fields(body, rules, cache, ("input",)))


async def embeddings(request: web.Request) -> web.StreamResponse:
    """`POST /v1/embeddings`: each input string screened as a turn before forwarding, and
    every other field's strings as in a chat request (`user`, `metadata`, ...). A withheld
    value in an input refuses the request (400, code `withheld`): there is no reply to give."""
    settings = request.app[SETTINGS]
    record = request[RECORD]
    body = await read_json(request, settings.limits.max_body_bytes)
    rules = compiled_rules(request)
    given = body.get("input")
    inputs = [given] if isinstance(given, str) else given
    if not isinstance(inputs, list) or not inputs or not all(isinstance(i, str) for i in inputs):
        raise BadRequest("'input' must be a string or a list of strings (token inputs cannot "
                         "be screened)", param="input", code="invalid_input")
    screened = []
    withheld: set[str] = set()
    cache, metrics = request.app[SCREEN_CACHE], request.app[METRICS]
    hits, misses = cache.hits, cache.misses  # this request's own: see proxy.completions
    try:
        results, fields = await request.app[OFFLOAD].run(
            request.content_length or 0, _screen_embeddings, inputs, body, rules, cache,
            process=True)
    except ProxyError:
        raise
    except Exception as exc:
        metrics.screening_errors_by("request", record.api).inc()
        raise ScreeningFailed(f"screening the input failed ({type(exc).__name__}); nothing "
                              "was sent upstream") from exc
    finally:
        metrics.cache_lookups(cache.hits - hits, cache.misses - misses)
    for result in results:
        record.counts.update(result.counts)
        withheld.update(result.withheld)
        screened.append(result.text)
    if withheld:
        record.verdict = "withhold"
        classes = ", ".join(sorted(withheld))
        raise BadRequest(f"the input holds details that are not sent on ({classes})",
                         param="input", code="withheld")
    record.verdict = "forward"
    forward = {**body, **fields, "input": screened[0] if isinstance(given, str) else screened}
    return await _forward(request, "POST", "/v1/embeddings", orjson.dumps(forward))


async def models(request: web.Request) -> web.StreamResponse:
    """`GET /v1/models` and `/v1/models/{model}` (and `HEAD`: forwarded as HEAD, answered
    without a body), passed through."""
    return await _forward(request, request.method, request.raw_path, None)


async def passthrough(request: web.Request) -> web.StreamResponse:
    """A route the settings list under `passthrough`: forwarded unscreened, streamed back."""
    limit = request.app[SETTINGS].limits.max_body_bytes
    data = await in_time(request, request.content.read(limit + 1)) \
        if request.can_read_body else None
    if data is not None and len(data) > limit:
        raise ProxyError(f"request body is over the limit of {limit} bytes",
                         code="body_too_large", status=413)
    return await _forward(request, request.method, request.raw_path, data, raw=True)


async def _refused(request: web.Request, upstream: aiohttp.ClientResponse) -> web.Response:
    """A screened route's answer to an upstream error status: its OpenAI error, masked."""
    rules = compiled_rules(request)
    error = await error_from_status(upstream, request.app[SETTINGS].upstream.base_url,
                                    lambda text: screen_text(text, rules, "tool").text)
    if isinstance(error, bytes):
        return web.Response(body=error, status=upstream.status, content_type="application/json",
                            headers=returned_headers(upstream))
    return error_response(error)


async def _forward(request: web.Request, method: str, path: str, data: bytes | None,
                   raw: bool = False) -> web.StreamResponse:
    """Send the request on and its answer back as it comes. Each upstream fault is counted
    once (`replyguard_upstream_errors_total`): an error status (an unscreened route's
    passes through as it is), or an exception. One after the answer began to go out cannot
    be told to the client: its connection is aborted, so the body is seen broken off, never
    as a whole answer (outcome `upstream_dropped`)."""
    app = request.app
    settings, metrics = app[SETTINGS], app[METRICS]
    headers = upstream_headers(request, settings)
    api = request[RECORD].api
    if raw and "Content-Type" in request.headers:
        headers["Content-Type"] = request.headers["Content-Type"]
    url = upstream_url(request, path)
    counted = False
    response: web.StreamResponse | None = None
    try:
        async with app[SESSION].request(method, url, data=data, headers=headers,
                                        allow_redirects=False) as upstream:
            if upstream.status >= 400:
                metrics.upstream_errors_by(f"http_{upstream.status // 100}xx", api).inc()
                counted = True
                if not raw:
                    return await _refused(request, upstream)
            kept = returned_headers(upstream, _PASSED_BACK)
            if method == "HEAD":  # the headers only: no body, and none read
                return web.Response(status=upstream.status, headers=kept)
            response = web.StreamResponse(status=upstream.status, headers=kept)
            await prepare(request, response)
            async for chunk in upstream.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response
    except (aiohttp.ClientError, TimeoutError) as exc:
        if isinstance(exc, ConnectionResetError):  # writing to the client: it went away
            raise
        if response is None or not response.prepared:
            if counted:  # (an upstream error status, counted: its body broke off)
                raise fault(exc, settings.upstream.base_url) from None
            raise unanswered(app, exc, api, settings.upstream.base_url) from None
        if not counted:
            metrics.upstream_errors_by("upstream_dropped", api).inc()
        request[RECORD].outcome = "upstream_dropped"
        if request.transport is not None:
            request.transport.abort()
        return response
