"""Running an app on sockets: the HTTP protocol guarded against slow clients
(proxy.slow_clients), the admin listener, graceful shutdown and rules reload (SIGHUP). Used by
`replyguard serve`, in its one process or in each worker (proxy.workers)."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
from collections.abc import Awaitable, Callable

from aiohttp import web

from replyguard.config.errors import ConfigError
from replyguard.config.rules import load_rules
from replyguard.config.settings import Settings
from replyguard.proxy.health import ops_app
from replyguard.proxy.live_rules import LIVE
from replyguard.proxy.ops_thread import Heartbeat, OpsThread
from replyguard.proxy.slow_clients import KEEPALIVE_S, LINGER_S, GuardedHandler
from replyguard.proxy.state import BEAT, LIFECYCLE, METRICS, RULES, SETTINGS
from replyguard.proxy.watchdog import STREAMS

log = logging.getLogger("replyguard")
#: Seconds before `listen.shutdown_timeout_s` ends at which live streams are told to stop, so
#: that their error event and `[DONE]` are written before the server cancels what is left.
STOP_MARGIN_S = 1.0


class _GuardedSite(web.SockSite):
    """A SockSite whose connections use GuardedHandler."""

    def __init__(self, runner: web.BaseRunner, sock: socket.socket, backlog: int,
                 head_timeout_s: float, on_slow: Callable[[], None]) -> None:
        super().__init__(runner, sock, backlog=backlog)
        self._factory_args = (head_timeout_s, on_slow)

    async def start(self) -> None:
        await web.BaseSite.start(self)
        loop = asyncio.get_running_loop()
        manager = self._runner.server
        head_timeout_s, on_slow = self._factory_args

        def factory() -> GuardedHandler:
            return GuardedHandler(manager, loop=loop, head_timeout_s=head_timeout_s,
                                  on_slow=on_slow, keepalive_timeout=KEEPALIVE_S,
                                  lingering_time=LINGER_S, access_log=None)

        self._server = await loop.create_server(factory, sock=self._sock,
                                                backlog=self._backlog)


class Server:
    """An app served on `main` until `close()`; its ops routes also on `admin`, when given,
    served by a thread of its own (proxy.ops_thread) so that probes and scrapes are answered
    however busy the main event loop is."""

    def __init__(self, app: web.Application) -> None:
        self.app = app
        self.runner: web.AppRunner | None = None
        self.ops: OpsThread | None = None

    async def start(self, main: socket.socket, admin: socket.socket | None) -> None:
        settings = self.app[SETTINGS]
        timeout = settings.listen.shutdown_timeout_s
        self.app.on_shutdown.append(_stop_streams_before(timeout - STOP_MARGIN_S))
        beat = self.app[BEAT] = Heartbeat()
        self.runner = web.AppRunner(self.app, handle_signals=False, access_log=None,
                                    handler_cancellation=True, shutdown_timeout=timeout)
        await self.runner.setup()
        await self._site(self.runner, main).start()
        beat.start()
        if admin is not None:
            self.ops = OpsThread(ops_app(self.app), admin, self._site, timeout)
            await self.ops.start()

    def _site(self, runner: web.AppRunner, sock: socket.socket) -> _GuardedSite:
        settings, metrics = self.app[SETTINGS], self.app[METRICS]
        return _GuardedSite(runner, sock, settings.listen.backlog,
                            settings.limits.header_timeout_s,
                            metrics.client_timeouts_by("header").inc)

    async def close(self) -> None:
        """Stop accepting, let requests finish (`listen.shutdown_timeout_s`; streams still
        open near its end get an error event and `[DONE]`), then close. The ops routes
        answer meanwhile (`/readyz` 503 `stopping`) and stop last."""
        self.app[LIFECYCLE].stopping = True
        if self.runner is not None:
            await self.runner.cleanup()
        self.app[BEAT].stop()
        if self.ops is not None:
            await self.ops.stop()


def _stop_streams_before(delay_s: float) -> Callable[[web.Application], Awaitable[None]]:
    async def on_shutdown(app: web.Application) -> None:
        streams = app.get(STREAMS)
        if streams is not None:
            asyncio.get_running_loop().call_later(max(delay_s, 0.0), streams.stop_all)

    return on_shutdown


async def reload_rules(app: web.Application) -> bool:
    """Read the rules file again (SIGHUP) and make it the rules in force; a file that cannot
    be used keeps the rules in force (logged with its errors, counted as `error`)."""
    live = app.get(LIVE)
    if live is not None:  # the rules file as a new version, and the store's active one
        return await live.reload()
    settings: Settings = app[SETTINGS]
    metrics = app[METRICS]
    path = settings.replies.rules
    if path is None:
        return False
    try:
        rules = await asyncio.to_thread(load_rules, path)
        await asyncio.to_thread(app[RULES].swap, rules)
    except ConfigError as exc:
        metrics.rules_reloads.labels("error").inc()
        log.error(json.dumps({"event": "rules_reload_failed", "errors": exc.errors}))
        return False
    metrics.rules_reloads.labels("ok").inc()
    log.info(json.dumps({"event": "rules_reloaded", "version": app[RULES].version}))
    return True


async def serve_until_stopped(app: web.Application, main: socket.socket,
                              admin: socket.socket | None,
                              started: Callable[[], None] | None = None) -> None:
    """Serve `app` until SIGTERM or SIGINT; SIGHUP reloads the rules."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    reloads: set[asyncio.Task[bool]] = set()

    def reload() -> None:
        task = loop.create_task(reload_rules(app))
        reloads.add(task)
        task.add_done_callback(reloads.discard)

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, reload)
    server = Server(app)
    await server.start(main, admin)
    if started is not None:
        started()
    try:
        await stop.wait()
    finally:
        await server.close()
