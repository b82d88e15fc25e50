"""The store in the app: `install(app, store)` adds the live rules, the records writer, the
rules and records routes, and `store_middleware`, which answers 503 on model routes while
no rules could be loaded, stamps `X-ReplyGuard-Rules-Version` on every response, and queues
each model request's record when the request ends."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any

import aiohttp
from aiohttp import web

from replyguard.proxy import records_api, rules_admin
from replyguard.proxy.errors import ProxyError
from replyguard.proxy.live_rules import LIVE, LiveRules, version_header
from replyguard.proxy.records import Recorder, field, is_model_route
from replyguard.proxy.state import METRICS, PINNED, RECORD, RULES, SETTINGS
from replyguard.proxy.store import Store

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
#: The upstream status of the request being handled (its record's `upstream_status`): a
#: one-item list the upstream session's trace fills in, in the request's own context.
_UPSTREAM: ContextVar[list[int | None]] = ContextVar("replyguard_upstream_status")
RECORDER = web.AppKey("recorder", Recorder)
#: The rules version a request started on (the header's value).
VERSION: Any = web.RequestKey("replyguard_rules_version", str) \
    if hasattr(web, "RequestKey") else "replyguard_rules_version"
HEADER = "X-ReplyGuard-Rules-Version"
CLIENT_GONE = 499


class RulesNotLoaded(ProxyError):
    status = 503
    type = "server_error"
    code = "rules_unavailable"
    headers = {"Retry-After": "2"}


def _status(exc: BaseException) -> int:
    if isinstance(exc, ProxyError):
        return exc.status
    if isinstance(exc, web.HTTPException):
        return exc.status
    return 500


@web.middleware
async def store_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The rules version header, the 503 while no rules are loaded, and the record."""
    app = request.app
    live = app.get(LIVE)
    request[VERSION] = version_header(live)
    request[PINNED] = app[RULES].compiled  # the rules that version names, for this request
    version = live.version if live is not None else None
    resource = request.match_info.route.resource
    route = resource.canonical if resource is not None else "unmatched"
    model = is_model_route(route)
    if model and live is not None and not live.ready:
        raise RulesNotLoaded("the reply rules are not loaded yet (the store cannot be "
                             "reached); retry shortly")
    recorder = app.get(RECORDER) if model else None
    if recorder is None:
        return await handler(request)
    started = time.perf_counter()
    status = 500
    released: bytes | str | None = None
    keep_text = recorder.records.text == "screened"
    record = request.get(RECORD)
    if keep_text and record is not None:
        record.texts = []  # (a stream's text, as sent: `relay`)
    upstream: list[int | None] = [None]
    token = _UPSTREAM.set(upstream)
    try:
        response = await handler(request)
        status = response.status
        if keep_text and isinstance(response, web.Response) \
                and isinstance(response.body, bytes):
            released = response.body
        return response
    except BaseException as exc:
        status = CLIENT_GONE if not isinstance(exc, Exception) or isinstance(
            exc, ConnectionResetError) else _status(exc)
        raise
    finally:
        _UPSTREAM.reset(token)
        info = record or {}
        if released is None and record is not None and record.texts:
            released = "".join(record.texts)
        if field(info, "outcome") == "client_gone":
            status = CLIENT_GONE
        recorder.note(str(field(info, "request_id") or ""), request.method, route, info, status,
                      time.perf_counter() - started, version,
                      getattr(request, "_read_bytes", None), released, upstream[0])


async def _upstream_answered(_session: object, _ctx: object,
                             params: aiohttp.TraceRequestEndParams) -> None:
    holder = _UPSTREAM.get(None)
    if holder is not None and not params.url.raw_path.endswith("/moderations"):
        holder[0] = params.response.status  # the last call but moderation: the model's


def upstream_trace() -> aiohttp.TraceConfig:
    """The upstream session's trace that tells each record its upstream status (the status
    of the request's last upstream call other than a moderation check: guardrail judges
    are asked before the model, moderation of the reply after it)."""
    config = aiohttp.TraceConfig()
    config.on_request_end.append(_upstream_answered)
    return config


async def _stamp_version(request: web.Request, response: web.StreamResponse) -> None:
    version = request.get(VERSION)
    if version is not None:
        response.headers[HEADER] = version


def install(app: web.Application, store: Store | None, document: object = None) -> None:
    """Live rules (from `store` and the rules file), records (when `store` is given), and
    their routes, on `app` (before it starts)."""
    settings, metrics = app[SETTINGS], app[METRICS]
    live = app[LIVE] = LiveRules(app[RULES], settings, metrics, store, document)
    if store is not None:
        app[RECORDER] = Recorder(store, settings, metrics)
    app.on_response_prepare.append(_stamp_version)
    rules_admin.add_routes(app)
    records_api.add_routes(app)

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        await live.start()
        recorder = app.get(RECORDER)
        if recorder is not None:
            recorder.start()
        yield
        if recorder is not None:
            await recorder.close()
        await live.stop()

    app.cleanup_ctx.append(lifetime)
