"""The process pool long request bodies and whole replies are screened in: a screen there
runs under an interpreter of its own, so neither its scans nor the garbage collections its
findings cause ever hold the interpreter that serves requests.

A job is `fn(*args)` with `fn` a module-level function (or a `functools.partial` of one)
and every argument picklable. The compiled rules and tools are sent by reference: their
source (`ReplyRules` or `ToolRules`, the language, the phone regions) goes with the job, and
each worker process compiles them once and keeps them by a digest of it (the last
`KEPT`); a `ScreenCache` argument stands for the worker process's own cache, whose hits
and misses are added to the caller's. What the worker changes in place is not seen by the
caller: a job returns what it changed. The worker processes are started fresh
(`multiprocessing`'s `spawn`: safe in a process running threads and uvloop, and, unlike a
fork server, needing no writable folder for a socket, which a read-only container may not
have) on first use, one set per serving process.
"""

from __future__ import annotations

import asyncio
import copyreg
import importlib
import io
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from hashlib import blake2b
from types import MappingProxyType
from typing import Any

from replyguard.engine.reply import ScreeningError
from replyguard.engine.rules import CompiledRules, compile_rules
from replyguard.engine.screen_cache import ScreenCache
from replyguard.engine.tools import CompiledTools, compile_tools
from replyguard.proxy.errors import ProxyError

#: Worker processes of one serving process.
PROCESSES = 2
#: Compiled rules and tools sets a worker process (and the caller) keeps by digest.
KEPT = 16
#: Modules each worker process imports as it starts, before its first job.
PRELOAD = ["replyguard.proxy.screen_pool", "replyguard.proxy.request_side",
           "replyguard.proxy.api_chat", "replyguard.engine.injection"]


class WorkerLost(ProxyError):
    """500: the process screening a text stopped before it answered (killed, out of memory);
    nothing of the text was released."""

    code = "screening_failed"

    def __init__(self) -> None:
        super().__init__("the process screening this text stopped; nothing of it was sent")


def _read_only(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


def _mapping_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, tuple[dict[Any, Any]]]:
    return _read_only, (dict(proxy),)


#: How objects are pickled here: as `pickle` does, and a read-only mapping (the settings'
#: frozen mappings) as a new one over a copy of its items.
_DISPATCH = {**copyreg.dispatch_table, MappingProxyType: _mapping_proxy}


def _source(obj: CompiledRules | CompiledTools) -> tuple[str, bytes]:
    """What a compiled object is rebuilt from, pickled: (digest, source)."""
    if isinstance(obj, CompiledRules):
        parts: tuple[Any, ...] = ("rules", obj.rules, obj.language, obj.phone_regions)
    else:
        parts = ("tools", obj.rules, obj.language)
    out = io.BytesIO()
    pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(parts)
    source = out.getvalue()
    return blake2b(source, digest_size=16).hexdigest(), source


def _compiled(source: bytes) -> CompiledRules | CompiledTools:
    kind, *parts = pickle.loads(source)
    return compile_rules(*parts) if kind == "rules" else compile_tools(*parts)


class _Kept:
    """Compiled objects by digest (the last `KEPT` used) and digests by object."""

    def __init__(self) -> None:
        self.by_digest: dict[str, Any] = {}
        self.digests: dict[int, tuple[Any, str, bytes]] = {}

    def digest(self, obj: CompiledRules | CompiledTools) -> tuple[str, bytes]:
        known = self.digests.get(id(obj))
        if known is None or known[0] is not obj:
            known = self._keep(obj, *_source(obj))
        return known[1], known[2]

    def get(self, digest: str, source: bytes | None) -> Any:
        obj = self.by_digest.get(digest)
        if obj is None:
            if source is None:
                raise ScreeningError("a compiled rules set is no longer known")
            obj = self._keep(_compiled(source), digest, source)[0]
        return obj

    def _keep(self, obj: Any, digest: str, source: bytes) -> tuple[Any, str, bytes]:
        known = self.digests[id(obj)] = (obj, digest, source)
        self.by_digest[digest] = obj
        if len(self.digests) > KEPT:
            old = self.digests.pop(next(iter(self.digests)))
            if self.by_digest.get(old[1]) is old[0]:
                del self.by_digest[old[1]]
        return known


class _Pickler(pickle.Pickler):
    """Pickles compiled rules and tools and a screen cache by reference; `send_source`:
    with what to rebuild the compiled objects from (caller to worker)."""

    def __init__(self, file: io.BytesIO, kept: _Kept, send_source: bool) -> None:
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = _DISPATCH
        self.kept, self.send_source = kept, send_source
        self.caches: list[ScreenCache] = []

    def persistent_id(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is CompiledRules or kind is CompiledTools:
            digest, source = self.kept.digest(obj)
            return ("compiled", digest, source if self.send_source else None)
        if kind is ScreenCache:
            self.caches.append(obj)
            return ("cache",)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, kept: _Kept, cache: ScreenCache | None) -> None:
        super().__init__(io.BytesIO(data))
        self.kept, self.cache = kept, cache

    def persistent_load(self, pid: Any) -> Any:
        if pid[0] == "compiled":
            return self.kept.get(pid[1], pid[2])
        if self.cache is None:
            raise ScreeningError("a screen cache came back with no cache to stand for")
        return self.cache


def _dumps(obj: Any, kept: _Kept, send_source: bool) -> tuple[bytes, list[ScreenCache]]:
    out = io.BytesIO()
    pickler = _Pickler(out, kept, send_source)
    pickler.dump(obj)
    return out.getvalue(), pickler.caches


# ---------------------------------------------------------------- in the worker process

# A worker process's own state (it serves one pool, whose jobs all share it): the compiled
# rules it was sent, and its screen cache.
_WORKER_KEPT = _Kept()
_WORKER_CACHE = ScreenCache()


def _preload() -> None:
    for name in PRELOAD:
        importlib.import_module(name)


def _job(data: bytes) -> bytes:
    """Runs one job in a worker process: `(fn, args)` in, `((ok, result or error), (cache
    hits, cache misses))` out, both pickled with the compiled objects by reference."""
    cache = _WORKER_CACHE
    hits, misses = cache.hits, cache.misses
    try:
        fn, args = _Unpickler(data, _WORKER_KEPT, cache).load()
        answer: tuple[bool, Any] = (True, fn(*args))
    except Exception as exc:  # noqa: BLE001 - raised again in the caller
        answer = (False, exc)
    counted = (cache.hits - hits, cache.misses - misses)
    try:
        return _dumps((answer, counted), _WORKER_KEPT, False)[0]
    except Exception as exc:  # noqa: BLE001 - an answer that cannot be sent is a failure
        failed = ScreeningError(f"the screen's answer could not be sent ({type(exc).__name__})")
        return _dumps(((False, failed), counted), _WORKER_KEPT, False)[0]


# ---------------------------------------------------------------- in the serving process

class ScreenPool:
    """`processes` worker processes, started on first use; `run` sends them a job."""

    def __init__(self, processes: int = PROCESSES) -> None:
        self.processes = processes
        self._kept = _Kept()
        self._executor: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=_preload)
        return self._executor

    async def run(self, fn: Any, args: tuple[Any, ...]) -> Any:
        """`fn(*args)` in a worker process: its result, or the exception it raised raised
        here. Raises WorkerLost when the worker process stopped before it answered (the
        pool is then started afresh for the next job)."""
        data, caches = _dumps((fn, args), self._kept, True)
        executor = self._started()
        try:
            answer = await asyncio.wrap_future(executor.submit(_job, data))
        except BrokenProcessPool:
            if self._executor is executor:
                self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise WorkerLost() from None
        (ok, result), (hits, misses) = _Unpickler(
            answer, self._kept, caches[0] if caches else None).load()
        for cache in caches[:1]:
            cache.hits += hits
            cache.misses += misses
        if not ok:
            raise result
        return result

    def pids(self) -> list[int]:
        """The worker processes' ids (none before the first job)."""
        executor = self._executor
        # `_processes` is the executor's own table; 3.11 has no public way to list them.
        return sorted(executor._processes) if executor is not None else []  # noqa: SLF001

    def close(self) -> None:
        """Stop the worker processes at once (a job still running is dropped: its caller
        gets WorkerLost) and wait for them to end, so none is left behind."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list(executor._processes.values())  # noqa: SLF001 (as in `pids`)
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join()


def in_place(fn: Any, obj: Any) -> tuple[Any, Any]:
    """`(fn(obj), obj)`: a job that changes `obj` in place sends it back changed."""
    return fn(obj), obj
