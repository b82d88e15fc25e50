"""One `/metrics` for several worker processes on one port: the worker a scrape reaches asks
every other for its registry over a private socket and sums the series.

Why not prometheus_client's multiprocess mode: it keeps every value in memory-mapped files in
a writable directory (a read-only container needs a volume for it, and stale files must be
cleaned at each start), replaces every metric's storage process-wide (one global mode, not an
app's own registry), cannot serve callback gauges (`set_function`: the screen cache's size,
the upstream's reachability) and has no per-process `process_*` metrics. Asking the live
workers keeps each app's own registry as it is and needs no disk, at the cost of one local
round trip per worker per scrape. What is lost with it: the counts of a worker that died (the
master starts another in its place, from zero; Prometheus reads the drop of a sum as a
counter reset), where multiprocess mode would keep a dead process's file.

Sums: counters, histograms and gauges add up across workers (`_created` takes the earliest);
`replyguard_upstream_reachable` takes the lowest known value (0 if any worker's last call
could not connect); `process_*` series are kept per worker with a `worker` label. A worker
that does not answer within `PEER_TIMEOUT_S` fails the scrape (503) rather than serve a sum
that would read as a counter reset. The sockets are Linux abstract Unix sockets (no file) named
after the master's pid, answering only processes of the same user.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import struct
from collections.abc import Iterable, Iterator
from typing import Any

import orjson
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import Metric

PEER_TIMEOUT_S = 2.0
#: Gauges merged by their lowest known value rather than summed.
LOWEST = frozenset({"replyguard_upstream_reachable"})
#: Gauges merged by their highest value: what the most up-to-date worker saw.
HIGHEST = frozenset({"replyguard_records_chain_count", "replyguard_rules_version"})

Family = list[Any]  # [name, type, help, unit, [[sample name, labels, value], ...]]


def _plain(value: float) -> float | str:
    """A sample value JSON can carry: NaN and infinities as text (`nan`, `inf`)."""
    return value if math.isfinite(value) else str(value)


def snapshot(registry: CollectorRegistry) -> list[Family]:
    """Every metric family of `registry` as plain data (JSON-able)."""
    return [[m.name, m.type, m.documentation, m.unit,
             [[s.name, s.labels, _plain(s.value)] for s in m.samples]]
            for m in registry.collect()]


def _combine(name: str, sample: str, old: float, new: float) -> float:
    if sample.endswith("_created"):
        return min(old, new)
    if name in HIGHEST:
        return max(old, new)
    if name in LOWEST:
        known = [v for v in (old, new) if not math.isnan(v)]
        return min(known) if known else math.nan
    return old + new


def merge(snapshots: Iterable[tuple[int, list[Family]]]) -> list[Metric]:
    """The families of every worker's snapshot (worker index, families) summed as the module
    says; the result keeps the first worker's order of families and samples."""
    families: dict[str, Metric] = {}
    values: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = {}
    for worker, snap in snapshots:
        for name, kind, doc, unit, samples in snap:
            if name not in families:
                families[name], values[name] = Metric(name, doc, kind, unit), {}
            seen = values[name]
            for sample, labels, given in samples:
                value = float(given)
                if name.startswith("process_"):
                    labels = {**labels, "worker": str(worker)}
                key = (sample, tuple(sorted(labels.items())))
                seen[key] = value if key not in seen else _combine(name, sample, seen[key],
                                                                   value)
    for name, metric in families.items():
        for (sample, labels), value in values[name].items():
            metric.add_sample(sample, dict(labels), value)
    return list(families.values())


class _Merged:
    """A collector serving merged families (for generate_latest)."""

    def __init__(self, metrics: list[Metric]) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        yield from self.metrics


def render(metrics: list[Metric]) -> bytes:
    """The Prometheus text exposition of merged families."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Merged(metrics))
    return generate_latest(registry)


def address(group: str, index: int) -> str:
    """The abstract socket name of worker `index` of the server `group` (the master's pid)."""
    return f"\0replyguard-metrics-{group}-{index}"


class Peers:
    """Worker `index` of `count`: serves its registry's snapshot to the others (`start`,
    `close`) and renders the merged exposition for a scrape (`render`)."""

    def __init__(self, registry: CollectorRegistry, index: int, count: int, group: str) -> None:
        self.registry, self.index, self.count, self.group = registry, index, count, group
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(address(self.group, self.index))
        self._server = await asyncio.start_unix_server(self._serve, sock=sock)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            sock = writer.get_extra_info("socket")
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                    struct.calcsize("3i"))
            if struct.unpack("3i", creds)[1] == os.getuid():
                await asyncio.wait_for(reader.readexactly(1), PEER_TIMEOUT_S)
                data = orjson.dumps(snapshot(self.registry))
                writer.write(struct.pack("!I", len(data)) + data)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()

    async def _ask(self, index: int) -> list[Family]:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:  # connected here: uvloop refuses an abstract name given as a path
            await asyncio.get_running_loop().sock_connect(sock, address(self.group, index))
        except BaseException:
            sock.close()
            raise
        reader, writer = await asyncio.open_unix_connection(sock=sock)
        try:
            writer.write(b"m")
            await writer.drain()
            size = struct.unpack("!I", await reader.readexactly(4))[0]
            result: list[Family] = orjson.loads(await reader.readexactly(size))
            return result
        finally:
            writer.close()

    async def render(self) -> tuple[int, bytes, str]:
        """(status, body, content type) of a scrape: every worker's series merged, or 503
        naming the workers that did not answer in time."""
        others = [i for i in range(self.count) if i != self.index]
        results = await asyncio.gather(
            *(asyncio.wait_for(self._ask(i), PEER_TIMEOUT_S) for i in others),
            return_exceptions=True)
        missing = [str(i) for i, r in zip(others, results, strict=True)
                   if isinstance(r, BaseException)]
        if missing:
            return (503, f"worker {', '.join(missing)} of {self.count} did not answer the "
                         "metrics request\n".encode(), "text/plain; charset=utf-8")
        snaps = [(self.index, snapshot(self.registry))]
        snaps += [(i, r) for i, r in zip(others, results, strict=True)]  # type: ignore[misc]
        snaps.sort(key=lambda pair: pair[0])
        workers = Metric("replyguard_workers", "worker processes serving this port", "gauge")
        workers.add_sample("replyguard_workers", {}, float(self.count))
        return 200, render([*merge(snaps), workers]), CONTENT_TYPE_LATEST
