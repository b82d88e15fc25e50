"""The aiohttp application: routes, the request middleware, and the upstream session.

`create_app(settings, rules)` is the only way in. Screened routes: chat completions, legacy
completions, the Responses API (`POST /v1/responses`), the Anthropic Messages API
(`POST /v1/messages`, proxy.messages), embeddings (input screened as a turn);
`GET /v1/models` passes through. Any other route is an OpenAI-style 404 unless
`passthrough` lists it: no unscreened route is open by default. `/metrics`, `/healthz`,
`/readyz` serve operations.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from time import perf_counter

import aiohttp
import orjson
from aiohttp import web

from replyguard.config.settings import Settings
from replyguard.engine.rules import ReplyRules
from replyguard.engine.screen_cache import ScreenCache
from replyguard.proxy import health, responses_get, routes
from replyguard.proxy.admin import check_reply_route
from replyguard.proxy.completions import chat_completions, completions, responses
from replyguard.proxy.errors import MethodNotAllowed, NotFound, ProxyError, error_response
from replyguard.proxy.guardrails import Guardrails
from replyguard.proxy.messages import anthropic_error_response, anthropic_path, messages
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.offload import Offload
from replyguard.proxy.overload import PoolConnector, UpstreamWatch
from replyguard.proxy.record import RECORD, ROUTE_APIS, RequestRecord
from replyguard.proxy.request_id import client_request_id
from replyguard.proxy.slow_clients import head_read
from replyguard.proxy.state import (
    GUARDRAILS,
    LIFECYCLE,
    METRICS,
    OFFLOAD,
    RULES,
    SCREEN_CACHE,
    SESSION,
    SETTINGS,
    TOOLS,
    WATCH,
    ActiveRules,
    Lifecycle,
    compile_all_tools,
    stamp,
)
from replyguard.proxy.store import Store
from replyguard.proxy.store_app import install, store_middleware, upstream_trace
from replyguard.proxy.upstream import timeout
from replyguard.proxy.watchdog import STREAMS, LiveStreams

access_log = logging.getLogger("replyguard.access")
log = logging.getLogger("replyguard")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_OPS_ROUTES = frozenset({"/metrics", "/healthz", "/readyz"})
#: The status recorded (metrics, access log) when the client went away first (nginx's 499).
CLIENT_GONE = 499


@web.middleware
async def screening_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Request id, OpenAI-shaped errors, and the request's record (`RequestRecord`), written
    out at the end by `record_request` (metrics, the JSON access log).

    A client gone before the end is recorded as 499; an unexpected exception is answered as
    an OpenAI-style 500 (`internal_error`) and logged. A response not yet sent gets its
    request id headers here (`stamp`); a streamed one got them from its route just before it
    was prepared.
    """
    started = perf_counter()
    app = request.app
    request_id = (client_request_id(request.headers.get("X-Request-Id"))
                  or secrets.token_hex(8))
    resource = request.match_info.route.resource
    route = resource.canonical if resource is not None else "unmatched"
    record = request[RECORD] = RequestRecord(request_id, route, request.method,
                                             _api(route, request.match_info.handler))
    record.started = started
    try:
        try:
            response = await handler(request)
        except ProxyError as exc:
            response = error_response(exc)
        except web.HTTPException as exc:
            response = _answer(request, _from_http(exc, request.path))
        except (asyncio.CancelledError, ConnectionResetError):
            record.status = CLIENT_GONE
            if record.outcome != "client_gone":  # a relay counts the ones it saw
                record.outcome = "client_gone"
                app[METRICS].client_disconnects.inc()
            raise
        except Exception:
            log.exception("unexpected error handling %s %s", request.method, route)
            response = error_response(ProxyError("ReplyGuard failed to handle the request",
                                                 code="internal_error"))
        record.status = CLIENT_GONE if record.outcome == "client_gone" else response.status
        if not response.prepared:
            stamp(response, record)
        return response
    finally:
        record.latency_s = perf_counter() - started
        record_request(app, record)


def _api(route: str, handler: object) -> str:
    """The API a request's route speaks (`RequestRecord.api`)."""
    if handler is routes.passthrough:
        return "passthrough"
    return ROUTE_APIS.get(route, "other")


def record_request(app: web.Application, record: RequestRecord) -> None:
    """The end of every request, its record finished: the counts and request metrics
    (labelled by the API), and the access log line (request id, API, route, status, latency,
    verdict, outcome and counts: never any text of the request or the reply)."""
    metrics = app[METRICS]
    if record.counts:
        metrics.count(record.counts)
    if record.route in _OPS_ROUTES:
        return
    metrics.requests_by(record.route, record.status, record.api).inc()
    metrics.request_latency_by(record.route, record.api).observe(record.latency_s)
    if record.verdict:
        metrics.turns_by(record.verdict, record.api).inc()
    if app[SETTINGS].log.access and access_log.isEnabledFor(logging.INFO):
        access_log.info(orjson.dumps(record.access_line()).decode())


def _from_http(exc: web.HTTPException, path: str) -> ProxyError:
    """The error the router raised (no route, a route asked with another method) as the
    client is told it."""
    if exc.status == 404:
        if anthropic_path(path):
            return NotFound("this route is not served by ReplyGuard: of the Anthropic API only "
                            "POST /v1/messages is (a `passthrough` route goes to "
                            "`upstream.base_url` unscreened, not to the Anthropic upstream)")
        return NotFound("this route is not served by ReplyGuard (add it to `passthrough` to "
                        "forward it unscreened)")
    if isinstance(exc, web.HTTPMethodNotAllowed):
        return MethodNotAllowed(exc.method, sorted(exc.allowed_methods))
    if exc.status == 413:
        return ProxyError("request body is too large", code="body_too_large", status=413)
    return ProxyError(exc.reason, code="http_error", status=exc.status)


def _answer(request: web.Request, error: ProxyError) -> web.Response:
    """`error` in the shape of the API the request's path speaks: Anthropic's on
    `/v1/messages` and under it, OpenAI's anywhere else."""
    if anthropic_path(request.path):
        return anthropic_error_response(error)
    return error_response(error)


async def _session_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    connector = PoolConnector(limit=settings.upstream.max_connections,
                              pool_wait_s=settings.upstream.pool_wait_s,
                              retry_after_s=settings.upstream.retry_after_s,
                              enable_cleanup_closed=True)
    # No cookie jar: the session is shared by every client, so a cookie the upstream set on one
    # client's request must not ride on the next client's (each request's own `Cookie` header
    # goes through as the client sent it).
    app[SESSION] = aiohttp.ClientSession(connector=connector, auto_decompress=True,
                                         cookie_jar=aiohttp.DummyCookieJar(),
                                         timeout=timeout(settings),
                                         trace_configs=[app[WATCH].trace_config(),
                                                        upstream_trace()],
                                         json_serialize=lambda o: orjson.dumps(o).decode())
    yield
    await app[SESSION].close()
    app[OFFLOAD].close()


def _watch_offload(metrics: Metrics, offload: Offload) -> None:
    """`replyguard_long_screens` read from `offload` at each scrape."""
    metrics.long_screens.labels(state="admitted").set_function(lambda: offload.admitted)
    metrics.long_screens.labels(state="waiting_for_room").set_function(
        lambda: offload.waiting_for_room)


def create_app(settings: Settings, rules: ReplyRules | None = None,
               metrics: Metrics | None = None, store: Store | None = None) -> web.Application:
    """The ReplyGuard application for `settings` and `rules` (default rules if None), with
    rules versions and records in `store` (not yet opened; None: the rules file only, no
    records).

    The upstream ClientSession is created on startup and closed on cleanup; the store is
    opened on startup (proxy.store_app).
    """
    app = web.Application(middlewares=[head_read, screening_middleware, store_middleware],
                          client_max_size=settings.limits.max_body_bytes)
    app[SETTINGS] = settings
    app[RULES] = ActiveRules(rules if rules is not None else ReplyRules(),
                             phone_regions=settings.replies.phone_regions)
    app[METRICS] = metrics if metrics is not None else Metrics()
    app[GUARDRAILS] = Guardrails(settings.guardrails, app[METRICS], settings.upstream.base_url)
    app[TOOLS] = compile_all_tools(settings)
    app[WATCH] = UpstreamWatch(app[METRICS])
    app[STREAMS] = LiveStreams()
    app[LIFECYCLE] = Lifecycle()
    app[SCREEN_CACHE] = ScreenCache()
    app[OFFLOAD] = Offload(refused=app[METRICS].overloaded.inc)
    app[GUARDRAILS].offload = app[OFFLOAD]
    _watch_offload(app[METRICS], app[OFFLOAD])
    app[METRICS].screen_cache_entries.set_function(app[SCREEN_CACHE].__len__)
    app.cleanup_ctx.append(_session_ctx)
    app.router.add_post("/v1/chat/completions", chat_completions)
    app.router.add_post("/v1/completions", completions)
    app.router.add_post("/v1/responses", responses)
    app.router.add_get(f"/v1/responses/{responses_get.ID}", responses_get.stored_response)
    app.router.add_get(f"/v1/responses/{responses_get.ID}/input_items",
                       responses_get.stored_input_items)
    app.router.add_post("/v1/messages", messages)
    app.router.add_post("/v1/embeddings", routes.embeddings)
    app.router.add_get("/v1/models", routes.models)
    app.router.add_get("/v1/models/{model}", routes.models)
    app.router.add_post("/v1/check-reply", check_reply_route)
    app.router.add_get("/metrics", health.metrics)
    app.router.add_get("/healthz", health.healthz)
    app.router.add_get("/readyz", health.readyz)
    install(app, store)
    for prefix in settings.passthrough:
        app.router.add_route("*", prefix.rstrip("/") + "{tail:(/.*)?}", routes.passthrough)
    return app
