"""The operations routes: `/healthz` (the process is up), `/readyz` (it can take requests)
and `/metrics` (Prometheus), on the main port and on the admin listener (`ops_app`).

Readiness never follows the upstream's health: as a sidecar, a pod not ready is taken out of
service whole, app and all, so a provider outage would take down every pod at once. The
upstream's reachability is a detail of both health routes and a metric
(`replyguard_upstream_reachable`) instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from replyguard.proxy.errors import NotFound, error_response
from replyguard.proxy.live_rules import LIVE
from replyguard.proxy.slow_clients import head_read
from replyguard.proxy.state import BEAT, LIFECYCLE, METRICS, PEERS, SESSION, WATCH

#: The app whose state an admin listener's routes read.
MAIN = web.AppKey("main", web.Application)


def _main(request: web.Request) -> web.Application:
    return request.app.get(MAIN) or request.app


def _loop(app: web.Application) -> dict[str, float]:
    beat = app.get(BEAT)
    return {} if beat is None else {"loop_lag_ms": round(beat.lag_s() * 1000, 1)}


async def healthz(request: web.Request) -> web.Response:
    """`GET /healthz`: the process is up and its main event loop runs (503 `stalled` once
    the loop missed its heartbeat for `ops_thread.STALL_S`); `upstream`: could it last
    reach the upstream; `loop_lag_ms`: how late the main loop is."""
    app = _main(request)
    beat = app.get(BEAT)
    body = {"status": "ok", **_loop(app), "upstream": app[WATCH].detail()}
    if beat is not None and beat.stalled():
        return web.json_response({**body, "status": "stalled"}, status=503)
    return web.json_response(body)


async def readyz(request: web.Request) -> web.Response:
    """`GET /readyz`: 200 once the rules are loaded (the store's active version, or the rules
    file while the store cannot be reached) and the upstream client is open, until
    shutdown begins (503 `starting` / `stopping`); whatever the upstream's health."""
    app = _main(request)
    session = app.get(SESSION)
    details = {**_loop(app), "upstream": app[WATCH].detail()}
    if app[LIFECYCLE].stopping:
        return web.json_response({"status": "stopping", **details}, status=503)
    if session is None or session.closed:
        return web.json_response({"status": "starting", **details}, status=503)
    live = app.get(LIVE)
    if live is not None and not live.ready:  # the store unreachable, no rules file to use
        return web.json_response({"status": "starting", "rules": "not loaded",
                                  **details}, status=503)
    return web.json_response({"status": "ready", **details})


async def metrics(request: web.Request) -> web.Response:
    """`GET /metrics`: the Prometheus text format; with several workers, every worker's
    series summed (proxy.peers)."""
    app = _main(request)
    peers = app.get(PEERS)
    if peers is not None:
        status, body, content_type = await peers.render()
        return web.Response(status=status, body=body, headers={"Content-Type": content_type})
    body, content_type = app[METRICS].render()
    return web.Response(body=body, headers={"Content-Type": content_type})


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def _only_ops(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Any other route on the admin listener: an OpenAI-style 404 (model traffic is never
    served there)."""
    try:
        return await handler(request)
    except web.HTTPNotFound:
        return error_response(NotFound("the admin listener serves /healthz, /readyz and "
                                       "/metrics only"))
    except web.HTTPMethodNotAllowed:
        return error_response(NotFound("the admin listener serves GET only"))


def ops_app(main: web.Application) -> web.Application:
    """The admin listener's application: `/healthz`, `/readyz` and `/metrics` of `main`."""
    app = web.Application(middlewares=[head_read, _only_ops])
    app[MAIN] = main
    for path, handler in (("/healthz", healthz), ("/readyz", readyz), ("/metrics", metrics)):
        app.router.add_get(path, handler)
    return app
