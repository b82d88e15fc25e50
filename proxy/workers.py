"""`replyguard serve`: bind the sockets once, then serve them from one process or from
`listen.workers` forked worker processes sharing them.

The master binds the main socket (and the admin listener's) with `listen.backlog` before it
forks, so every worker accepts from the same kernel queue: one port, no SO_REUSEPORT (which
would give each worker a queue of its own, lost when that worker stops, and lets another
program bind the port too), and a port 0 is chosen once for all. The master then only waits
for signals: SIGTERM or SIGINT stop every worker gracefully (each drains its requests within
`listen.shutdown_timeout_s`), SIGHUP makes each reload the rules file, a worker that dies is
replaced (too many deaths in a row stop the server). `/metrics` sums every worker's series
(proxy.peers).

`auto` workers: the CPUs this process may run on (its affinity) and its cgroup's CPU quota
(cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us`/`cpu.cfs_period_us`, along the cgroup's path up
to the root), the smaller, rounded down, at least 1: a container limited to 1 CPU on a 64-core
node gets 1 worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from replyguard.config.checks import without_userinfo
from replyguard.config.settings import Settings
from replyguard.engine.rules import ReplyRules
from replyguard.proxy.store import Store, open_store, shown_url

log = logging.getLogger("replyguard")
#: A worker dying more often than this within RESPAWN_WINDOW_S stops the server.
MAX_RESPAWNS = 5
RESPAWN_WINDOW_S = 60.0
_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD}


def _quota(folder: Path) -> float | None:
    """The CPU quota (CPUs) set in one cgroup folder, v2 or v1, or None."""
    try:
        quota, _, period = (folder / "cpu.max").read_text().strip().partition(" ")
        return None if quota == "max" else int(quota) / int(period or 100000)
    except (OSError, ValueError):
        pass
    try:
        quota = (folder / "cpu.cfs_quota_us").read_text().strip()
        period = (folder / "cpu.cfs_period_us").read_text().strip()
        return None if int(quota) <= 0 else int(quota) / int(period)
    except (OSError, ValueError):
        return None


def cgroup_cpus(root: Path = Path("/")) -> float | None:
    """The smallest CPU quota along this process's cgroup path (`/proc/self/cgroup`, read
    under `root`), in CPUs, or None when none is set."""
    try:
        lines = (root / "proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    mount = root / "sys/fs/cgroup"
    quotas: list[float] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        names = controllers.split(",")
        if controllers == "":  # v2: one hierarchy
            base = mount
        elif "cpu" in names:  # v1: the cpu controller's own hierarchy
            base = next((mount / d for d in (controllers, "cpu", "cpu,cpuacct")
                         if (mount / d).is_dir()), mount / "cpu")
        else:
            continue
        folder = base / path.lstrip("/")
        while True:  # the path, up to the hierarchy's root (a container sees only its own)
            if (q := _quota(folder)) is not None:
                quotas.append(q)
            if folder == base or base not in folder.parents:
                break
            folder = folder.parent
    return min(quotas) if quotas else None


def available_cpus(root: Path = Path("/"), affinity: int | None = None) -> int:
    """How many workers `auto` means: min(affinity, cgroup quota), rounded down, >= 1."""
    cpus = affinity if affinity is not None else len(os.sched_getaffinity(0))
    quota = cgroup_cpus(root)
    if quota is not None:
        cpus = min(cpus, math.floor(quota))
    return max(1, cpus)


def worker_count(setting: int | str) -> int:
    """`listen.workers` as a number (`auto`: available_cpus)."""
    return available_cpus() if setting == "auto" else int(setting)


def bind(host: str, port: int, backlog: int) -> socket.socket:
    """A listening TCP socket on (host, port) with `backlog`, shared by the workers."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=backlog)
    sock.setblocking(False)
    return sock


def install_uvloop() -> None:
    """Use uvloop's event loop where it is installed (not on Windows)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency off Windows
        return
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def _announce(settings: Settings, main: socket.socket, admin: socket.socket | None,
              workers: int) -> None:
    log.info(json.dumps({
        "event": "serving", "host": settings.listen.host, "port": main.getsockname()[1],
        "admin_port": admin.getsockname()[1] if admin is not None else None,
        "workers": workers, "backlog": settings.listen.backlog,
        "upstream": without_userinfo(settings.upstream.base_url),
        "rules": str(settings.replies.rules or "(defaults)"),
        "store": shown_url(settings.store.url) if settings.store.url else None}))


def run_worker(settings: Settings, rules: ReplyRules, main: socket.socket,
               admin: socket.socket | None, index: int = 0, count: int = 1,
               group: str = "", started: Callable[[], None] | None = None) -> int:
    """Serve until SIGTERM/SIGINT in this process (worker `index` of `count`)."""
    from replyguard.proxy.app import create_app
    from replyguard.proxy.peers import Peers
    from replyguard.proxy.server import serve_until_stopped
    from replyguard.proxy.state import METRICS, PEERS

    async def main_task() -> None:
        app = create_app(settings, rules, store=store_for(settings))
        peers = None
        if count > 1:
            peers = app[PEERS] = Peers(app[METRICS].registry, index, count, group)
            await peers.start()
        try:
            await serve_until_stopped(app, main, admin, started)
        finally:
            if peers is not None:
                await peers.close()

    install_uvloop()
    asyncio.run(main_task())
    return 0


def store_for(settings: Settings) -> Store | None:
    """The store `store.url` names (each worker opens its own), None for `none`."""
    if settings.store.url is None:
        return None
    return open_store(settings.store.url, settings.store.password)


def serve(settings: Settings, rules: ReplyRules) -> int:
    """`replyguard serve`: bind, then serve in this process or in forked workers."""
    count = worker_count(settings.listen.workers)
    listen = settings.listen
    addresses = [(listen.host, listen.port)]
    if listen.admin_port is not None:
        addresses.append((listen.admin_host, listen.admin_port))
    sockets: list[socket.socket] = []
    for host, port in addresses:
        try:
            sockets.append(bind(host, port, listen.backlog))
        except OSError as exc:
            sys.stderr.write(f"replyguard: cannot listen on {host}:{port}: "
                             f"{exc.strerror or exc}\n")
            return 1
    main, admin = sockets[0], (sockets[1] if len(sockets) > 1 else None)
    if count == 1:
        # A SIGHUP before the server's own handler is installed (while the app starts) is
        # ignored rather than fatal: the rules file is read at start anyway.
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        return run_worker(settings, rules, main, admin,
                          started=lambda: _announce(settings, main, admin, 1))
    return Master(settings, rules, main, admin, count).run()


class Master:
    """Forks `count` workers on the bound sockets and waits for signals (see the module)."""

    def __init__(self, settings: Settings, rules: ReplyRules, main: socket.socket,
                 admin: socket.socket | None, count: int) -> None:
        self.settings, self.rules, self.main, self.admin = settings, rules, main, admin
        self.count, self.group = count, str(os.getpid())
        self.children: dict[int, int] = {}  # pid -> worker index
        self.deaths: list[float] = []
        self.stopping = False

    def _spawn(self, index: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker: default signal handling, then serve
            signal.signal(signal.SIGHUP, signal.SIG_IGN)  # until it reloads on SIGHUP
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
            code = 1
            try:
                code = run_worker(self.settings, self.rules, self.main, self.admin, index,
                                  self.count, self.group)
            except BaseException:  # noqa: BLE001 - a worker never returns into the master
                log.exception("worker %d failed", index)
            finally:
                os._exit(code)
        self.children[pid] = index

    def run(self) -> int:
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        for index in range(self.count):
            self._spawn(index)
        _announce(self.settings, self.main, self.admin, self.count)
        deadline: float | None = None
        while self.children:
            info = signal.sigtimedwait(_SIGNALS, 1.0)
            if info is not None and info.si_signo in (signal.SIGTERM, signal.SIGINT):
                deadline = self._stop()
            elif info is not None and info.si_signo == signal.SIGHUP:
                self._send(signal.SIGHUP)
            self._reap()
            if deadline is not None and time.monotonic() > deadline:
                self._send(signal.SIGKILL)
        return 1 if len(self.deaths) > MAX_RESPAWNS else 0

    def _stop(self) -> float:
        if not self.stopping:
            self.stopping = True
            self.main.close()  # the workers hold the sockets until each has drained
            if self.admin is not None:
                self.admin.close()
            self._send(signal.SIGTERM)
        return time.monotonic() + self.settings.listen.shutdown_timeout_s + 10.0

    def _send(self, sig: int) -> None:
        for pid in list(self.children):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            index = self.children.pop(pid, None)
            if index is None or self.stopping:
                continue
            now = time.monotonic()
            self.deaths = [t for t in self.deaths if now - t < RESPAWN_WINDOW_S] + [now]
            log.error(json.dumps({"event": "worker_died", "worker": index,
                                  "status": os.waitstatus_to_exitcode(status)}))
            if len(self.deaths) > MAX_RESPAWNS:
                log.error(json.dumps({"event": "stopping", "reason": "workers keep dying"}))
                self._stop()
            else:
                self._spawn(index)
