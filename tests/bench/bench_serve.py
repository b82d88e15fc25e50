"""Load benchmarks of `replyguard serve` as deployed: workers, stream bursts and long-held
streams, slow clients. Run on demand (not collected by pytest); each scenario prints its
figures against the targets, `met` or `NOT MET`:

    python tests/bench/bench_serve.py workers   [--seconds 10] [--rounds 2]
    python tests/bench/bench_serve.py burst     [--streams 1000] [--within 5] [--rate 20]
    python tests/bench/bench_serve.py hold      [--streams 2000] [--rate 5] [--seconds 60]
    python tests/bench/bench_serve.py slowloris [--connections 2000] [--timeout 10]
    python tests/bench/bench_serve.py all

Every process runs on 127.0.0.1: a fast fake upstream (`--upstreams` uvloop processes on one
port, by default one a core; whole replies, or streams of 5-character tokens at a given rate, a
sentence every `--sentence` tokens, 0: the whole reply one sentence held to its end),
`replyguard serve` (shop rules, records in a SQLite store of its own), and the load generator
(this process; wrk for requests/s). On a 2-core machine they share the cores, so workers are
compared by requests per proxy CPU-second (the CPU time of the master, its workers and their
screening processes, from /proc) as well as by aggregate requests/s.

The machine is shared: each run prints the date, the load average before and after, and the
CPU time each party used (the proxy, the fake upstream, this load generator, everyone else on
the machine, from /proc/stat) out of what the cores had. Streams that do not end intact are
told by cause: the error event the proxy ended them with (its `code`), checked against the fake
upstream's own record of each stream (did it send its `[DONE]`, how late did it fall behind
its rate); a stream cut off with no error event is always the proxy's fault.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "config" / "reply-rules.example.yaml"
TOKEN = "word "  # a token: 5 characters; a sentence every 10 tokens
BODY = {"model": "bench", "messages": [{"role": "user", "content": "tell me a story"}]}


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ----------------------------------------------------------------------- the fake upstream

def serve_upstream(port: int, records: str) -> None:
    """Whole replies at once; with `x_tokens` and `x_rate` in the body, a stream of that many
    tokens at that rate (tokens/s), a sentence every `x_sentence` tokens, the connection cut
    at token `x_drop_at` if given. Each stream's outcome is appended to the file `records` (one
    JSON line: `x_id`, `done` when its `[DONE]` was written, `dropped` when it was cut, else
    `gone` (the proxy closed it) and the token reached; `late_s`, how far it
    fell behind its rate at worst: a starved upstream)."""
    import uvloop
    from aiohttp import web

    _raise_fd_limit()
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "bench"}
    whole = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "bench",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content":
                                     "Thanks for waiting. Your order shipped on Tuesday."},
                                     "finish_reason": "stop"}]}).encode()
    log = open(records, "a", buffering=1)  # one line a stream, kept open until exit

    def event(content: str | None, finish: str | None = None) -> bytes:
        delta = {} if content is None else {"content": content}
        return b"data: " + json.dumps({**head, "choices": [
            {"index": 0, "delta": delta, "finish_reason": finish}]}).encode() + b"\n\n"

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if not body.get("stream"):
            return web.Response(body=whole, content_type="application/json")
        tokens, rate = int(body.get("x_tokens", 20)), float(body.get("x_rate", 20))
        sentence = int(body.get("x_sentence", 10))
        drop_at = body.get("x_drop_at")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        outcome, i, late = "gone", 0, 0.0
        try:
            start = time.monotonic()
            for i in range(tokens):
                if i == drop_at and request.transport is not None:
                    request.transport.abort()  # a fault of the upstream's, on purpose
                    outcome = "dropped"
                    break
                await response.write(event(token(i, sentence)))
                delay = start + (i + 1) / rate - time.monotonic()
                late = max(late, -delay)
                if delay > 0:
                    await asyncio.sleep(delay)
            else:
                await response.write(event(None, "stop") + b"data: [DONE]\n\n")
                await response.write_eof()
                outcome = "done"
        except ConnectionError:
            pass
        finally:
            log.write(json.dumps({"id": body.get("x_id"), "outcome": outcome, "token": i,
                                  "late_s": round(late, 3)}) + "\n")
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    uvloop.install()
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, backlog=4096,
                reuse_port=True)


def token(i: int, sentence: int = 10) -> str:
    """Token `i` of a streamed reply, 5 characters (the last of a sentence 6): "Word word
    ... word. " with a sentence every `sentence` tokens; with `sentence` 0, "word word ...
    Word.word ...": a full stop every 10 tokens with no space after it, so that the whole
    reply is one sentence, held to its end (the text this benchmark sent until 2026-12-01)."""
    if not sentence:
        return "Word." if i % 10 == 9 else "word "
    if i % sentence == sentence - 1:
        return "word. "
    return "Word " if i % sentence == 0 else "word "


def expected_text(tokens: int, sentence: int = 10) -> str:
    return "".join(token(i, sentence) for i in range(tokens))


# ----------------------------------------------------------------------------- processes

def descendants(pid: int) -> list[int]:
    """`pid`'s children, theirs, and so on (from /proc)."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                              text=True).stdout.split()
    return [p for c in map(int, children) for p in (c, *descendants(c))]


def cpu_s(pids: list[int]) -> float:
    """User and system CPU seconds used so far by the processes `pids` (those still there)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


class Proxy:
    """`replyguard serve` with `settings` (a dict written as the settings file; records go to
    a SQLite store in the same temporary folder unless the settings name one)."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="rg-bench-"))
        settings = {"store": {"url": f"sqlite:///{self.folder / 'replyguard.db'}"}, **settings}
        (self.folder / "settings.json").write_text(json.dumps(settings))
        self.log = (self.folder / "serve.log").open("w+b")
        env = {k: v for k, v in os.environ.items() if not k.startswith("REPLYGUARD_")}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import resource as r; s, h = r.getrlimit(r.RLIMIT_NOFILE);"
             " r.setrlimit(r.RLIMIT_NOFILE, (h, h)); from replyguard.proxy.cli import main;"
             " raise SystemExit(main())", "serve", "--config",
             str(self.folder / "settings.json")],
            stderr=self.log, env=env)
        deadline = time.monotonic() + 30
        while (announced := self._serving()) is None:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("replyguard serve did not start")
            time.sleep(0.05)
        self.port, self.admin_port = int(announced["port"]), announced.get("admin_port") or 0
        time.sleep(1.0)  # every worker up
        self.all_pids = [self.proc.pid, *descendants(self.proc.pid)]

    def _serving(self) -> dict[str, Any] | None:
        """The `serving` line of the log (the ports), once it is there."""
        self.log.seek(0)
        for line in self.log.read().splitlines():
            if line.startswith(b"{") and b'"event": "serving"' in line:
                return dict(json.loads(line))
        return None

    def pids(self) -> list[int]:
        children = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True,
                                  text=True).stdout.split()
        return [self.proc.pid, *map(int, children)]

    def cpu_s(self) -> float:
        """CPU seconds of the master, its workers and their screening processes."""
        self.all_pids = sorted({*self.all_pids, *descendants(self.proc.pid)})
        return cpu_s(self.all_pids)

    def rss_mb(self) -> dict[int, float]:
        out = {}
        for pid in self.pids()[1:] or self.pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    out[pid] = int(line.split()[1]) / 1024
        return out

    def stop(self) -> int | None:
        self.proc.terminate()
        try:
            return self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)
        finally:
            self.log.close()
            shutil.rmtree(self.folder, ignore_errors=True)


class Upstream:
    """The fake upstream: `count` processes serving one port (SO_REUSEPORT), each recording
    its streams' outcomes in a file of a temporary folder (`records()`)."""

    def __init__(self, count: int) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="rg-bench-up-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.procs = [subprocess.Popen([sys.executable, __file__, "_upstream", str(self.port),
                                        str(self.folder / f"streams-{n}.jsonl")])
                      for n in range(count)]
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise
                time.sleep(0.05)
        time.sleep(0.5)  # the others bound too

    def cpu_s(self) -> float:
        return cpu_s([p.pid for p in self.procs])

    def records(self) -> dict[Any, dict[str, Any]]:
        """Each stream's outcome by its `x_id` (see `serve_upstream`)."""
        out = {}
        for path in self.folder.glob("streams-*.jsonl"):
            for line in path.read_text().splitlines():
                record = json.loads(line)
                out[record["id"]] = record
        return out

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


class Machine:
    """What the machine did during a run: the load average (1 min) before, at its highest and
    after, and the CPU seconds every process on it used (/proc/stat), to tell apart from ours.
    `sample()` every second or so records the highest load."""

    def __init__(self) -> None:
        self.date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.load_before = self.load()
        self.load_peak = self.load_before
        self.busy_before, self.started = self.busy_s(), time.monotonic()
        self.self_before = self.own_s()
        self.overflows_before = self.listen_overflows()

    @staticmethod
    def load() -> float:
        return float(Path("/proc/loadavg").read_text().split()[0])

    @staticmethod
    def busy_s() -> float:
        """CPU seconds all cores spent on anything but idle and iowait since boot."""
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def listen_overflows() -> int:
        """Connections the kernel dropped at a full listen queue (TcpExt ListenOverflows)."""
        lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines()
                 if line.startswith("TcpExt:")]
        return int(dict(zip(lines[0], lines[1], strict=True)).get("ListenOverflows", 0))

    @staticmethod
    def own_s() -> float:
        """This load generator's CPU seconds, its finished children (the probes) included."""
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    def sample(self) -> None:
        self.load_peak = max(self.load_peak, self.load())

    def report(self, parties: dict[str, float]) -> str:
        """A line: the date, the load average, and the CPU seconds of each of `parties`
        (name: CPU seconds during the run), this load generator's and everyone else's, out
        of what the cores had."""
        wall = time.monotonic() - self.started
        cores = os.cpu_count() or 1
        busy = self.busy_s() - self.busy_before
        ours = {**parties, "load generator": self.own_s() - self.self_before}
        others = max(busy - sum(ours.values()), 0.0)
        used = ", ".join(f"{name} {v:.0f}" for name, v in {**ours, "others": others}.items())
        return (f"  machine: {self.date}, load average {self.load_before:.2f} before, "
                f"{max(self.load_peak, self.load()):.2f} at most, {self.load():.2f} after; "
                f"CPU-s over {wall:.0f} s x {cores} cores = {wall * cores:.0f}: {used}; "
                f"listen queue overflows {self.listen_overflows() - self.overflows_before}"
                f"{'  (LOADED by others)' if others > 0.25 * wall * cores else ''}")


def base_settings(upstream: str, **listen: Any) -> dict[str, Any]:
    return {"listen": {"port": 0, **listen}, "upstream": {"base_url": upstream},
            "replies": {"rules": str(RULES)}, "log": {"access": False, "level": "info"}}


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


# ------------------------------------------------------------------------------ scenarios

def scenario_workers(seconds: int, rounds: int, upstreams: int) -> None:
    wrk = shutil.which("wrk")
    if wrk is None:
        sys.exit("wrk is not installed (apt-get install wrk)")
    up = Upstream(upstreams)
    script = Path(tempfile.mkdtemp()) / "post.lua"
    script.write_text('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                      f"wrk.body = '{json.dumps(BODY)}'\n")
    results: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    print(f"workers: wrk -t2 -c64, {seconds} s a run, a whole reply, fake upstream in "
          f"{upstreams} processes")
    try:
        for _ in range(rounds):
            for workers in (1, 2):
                proxy = Proxy(base_settings(up.url, workers=workers))
                try:
                    subprocess.run([wrk, "-t1", "-c32", "-d2s", "-s", str(script),
                                    f"http://127.0.0.1:{proxy.port}/v1/chat/completions"],
                                   capture_output=True, check=True)  # warm-up
                    machine = Machine()
                    before, up_before = proxy.cpu_s(), up.cpu_s()
                    out = subprocess.run(
                        [wrk, "-t2", "-c64", f"-d{seconds}s", "-s", str(script),
                         f"http://127.0.0.1:{proxy.port}/v1/chat/completions"],
                        capture_output=True, text=True, check=True).stdout
                    cpu = proxy.cpu_s() - before
                    where = machine.report({"proxy": cpu, "upstream": up.cpu_s() - up_before})
                finally:
                    proxy.stop()
                requests = int(next(line.split()[0] for line in out.splitlines()
                                    if "requests in" in line))
                errors = [line for line in out.splitlines() if "Non-2xx" in line or
                          "Socket errors" in line]
                results[workers].append((requests / seconds, requests / cpu))
                print(f"  workers={workers}: {requests / seconds:8.0f} requests/s, "
                      f"{requests / cpu:8.0f} requests per proxy CPU-second"
                      f"{'  ' + '; '.join(errors) if errors else ''}")
                print("  " + where)
    finally:
        up.stop()
        shutil.rmtree(script.parent, ignore_errors=True)
    rps = {w: statistics.median(r for r, _ in v) for w, v in results.items()}
    per_cpu = {w: statistics.median(c for _, c in v) for w, v in results.items()}
    print(f"workers: 2 workers / 1 worker, requests/s: {rps[2] / rps[1]:.2f}x "
          f"(target >= 1.5x: {verdict(rps[2] / rps[1] >= 1.5)})")
    print(f"workers: 2 workers / 1 worker, requests per proxy CPU-second: "
          f"{per_cpu[2] / per_cpu[1]:.2f} (target 0.9..1.1: "
          f"{verdict(0.9 <= per_cpu[2] / per_cpu[1] <= 1.1)})")


# ------------------------------------------------------------------------------- streams

async def _stream(session: Any, url: str, sid: int, shape: dict[str, Any],
                  out: dict[str, list[Any]]) -> None:
    """One stream: its time to headers in `out["headers_s"]`, its outcome in `out["ends"]`
    as (id, kind, error code, the last 300 bytes): kind `intact`, `error event` (the proxy
    ended it with an SSE `error` event), `cut off` (no `[DONE]` and no error event), `wrong
    text` (a `[DONE]`, no error event, not the text sent), `status N`, or the name of the
    exception the client got."""
    drop = shape.get("drop_every")
    body = {**BODY, "stream": True, "x_id": sid, **shape}
    if drop and sid % drop == drop - 1:  # the upstream cuts it halfway
        body["x_drop_at"] = shape["x_tokens"] // 2
    sent = time.monotonic()
    kind, code, raw = "", None, b""
    try:
        async with session.post(url, json=body) as resp:
            out["headers_s"].append(time.monotonic() - sent)
            raw = await resp.read()
        texts = []
        for block in raw.split(b"\n\n"):
            data = block.rpartition(b"\n")[2]  # (after an `event:` line)
            if data.startswith(b"data: {"):
                chunk = json.loads(data[6:])
                code = (chunk.get("error") or {}).get("code", code)
                for choice in chunk.get("choices") or ():
                    texts.append((choice.get("delta") or {}).get("content") or "")
        done = raw.endswith(b"data: [DONE]\n\n")
        if resp.status != 200:
            kind = f"status {resp.status}"
            code = _error_code(raw)
        elif b"event: error\n" in raw:
            kind = "error event"
        elif not done:
            kind = "cut off"
        elif "".join(texts) != expected_text(shape["x_tokens"], shape["x_sentence"]):
            kind = "wrong text"
        else:
            kind = "intact"
    except Exception as exc:  # noqa: BLE001 - counted, reported by kind
        kind = type(exc).__name__
    out["ends"].append((sid, kind, code, raw[-300:].decode(errors="replace")))


def _error_code(raw: bytes) -> str | None:
    try:
        return str(json.loads(raw)["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return None


def _client_session() -> Any:
    import aiohttp

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                 timeout=aiohttp.ClientTimeout(total=None, sock_read=120))


async def _burst(url: str, streams: int, within: float, shape: dict[str, Any]
                 ) -> dict[str, list[Any]]:
    """Open `streams` streams evenly over `within` seconds, wait for all to end. `out["lag_s"]`:
    how late this load generator's own loop ran a 50 ms tick (its headers times include it)."""
    out: dict[str, list[Any]] = {"headers_s": [], "ends": [], "lag_s": []}
    ticking = True

    async def tick() -> None:
        while ticking:
            t = time.monotonic()
            await asyncio.sleep(0.05)
            out["lag_s"].append(time.monotonic() - t - 0.05)

    ticker = asyncio.ensure_future(tick())
    async with _client_session() as session:
        started = time.monotonic()
        tasks = []
        for i in range(streams):
            delay = started + i * within / streams - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.ensure_future(_stream(session, url, i, shape, out)))
        await asyncio.gather(*tasks)
    ticking = False
    await ticker
    return out


#: Error codes the proxy ends a stream with for a fault of the upstream's.
UPSTREAM_CODES = ("upstream_dropped", "upstream_idle", "upstream_timeout", "upstream_error",
                  "upstream_protocol", "upstream_stream_error", "upstream_too_large")


def _cause(kind: str, code: str | None, record: dict[str, Any] | None) -> tuple[str, str]:
    """(`upstream`, `proxy`, `load generator` or `unclear`, what happened) for a stream that
    did not end intact, from what the client got and the fake upstream's record of it: only a
    fault the fake upstream made (it cut the stream) is the upstream's."""
    if kind == "error event" and code in UPSTREAM_CODES:
        if record is not None and record["outcome"] == "done":
            return "proxy", f"error event {code}, but the upstream sent its [DONE]"
        if record is not None and record["outcome"] == "dropped":
            return "upstream", f"error event {code} (the fake upstream cut it)"
        where = "has no record of it" if record is None else "was still sending"
        return "unclear", f"error event {code} (the fake upstream {where})"
    if kind == "error event":
        return "proxy", f"error event {code}"
    if kind.startswith("status") and code in UPSTREAM_CODES and record is None:
        # The fake upstream never got it; no listen queue overflowed (`Machine`): the proxy's
        # connect timed out on its own (its loop that late).
        return "proxy", f"{kind} {code}, the request never reached the fake upstream"
    if kind.startswith("status"):
        return ("upstream" if code in UPSTREAM_CODES else "proxy"), f"{kind} {code}"
    if kind in ("TimeoutError", "ServerTimeoutError"):  # its own 120 s read timeout
        return "load generator", f"{kind} (nothing read for 120 s)"
    return "proxy", kind


def _report_streams(out: dict[str, list[Any]], records: dict[Any, dict[str, Any]],
                    streams: int) -> bool:
    """Print the streams' outcomes by cause, the fake upstream's lateness and this load
    generator's loop lag; True when every stream that did not end intact was the
    upstream's fault."""
    causes: collections.Counter[tuple[str, str]] = collections.Counter()
    tails: dict[tuple[str, str], str] = {}
    for sid, kind, code, tail in out["ends"]:
        if kind != "intact":
            cause = _cause(kind, code, records.get(sid))
            causes[cause] += 1
            tails.setdefault(cause, tail)
    intact = sum(1 for _, kind, _, _ in out["ends"] if kind == "intact")
    ours = sum(n for (who, _), n in causes.items() if who != "upstream")
    print(f"  intact {intact}/{streams}; not intact, by cause: "
          f"{dict(causes) or 'none'} (target no error the upstream did not cause: "
          f"{verdict(intact + sum(causes.values()) == streams and ours == 0)})")
    for cause, tail in tails.items():
        print(f"    the last bytes of one {cause}: {tail[-200:]!r}")
    late = sorted(r["late_s"] for r in records.values()) or [0.0]
    done = sum(1 for r in records.values() if r["outcome"] == "done")
    lag = sorted(out["lag_s"]) or [0.0]
    print(f"  fake upstream: {done}/{len(records)} streams sent whole; behind its rate at "
          f"worst: p50 {statistics.median(late):.2f} s, p99 {_p99(late):.2f} s, max "
          f"{late[-1]:.2f} s; load generator's loop lag p99 {_p99(lag) * 1000:.0f} ms, max "
          f"{lag[-1] * 1000:.0f} ms")
    return ours == 0


def _sentences(sentence: int, drop: int = 0) -> str:
    text = f"a sentence every {sentence} tokens" if sentence else "one sentence, held to its end"
    return f"{text}; the upstream cuts every {drop}th halfway" if drop else text


def _p99(values: list[float]) -> float:
    return values[max(int(len(values) * 0.99) - 1, 0)]


def _health_prober(port: int, seconds: float) -> subprocess.Popen[str]:
    """A process probing `/healthz` on `port` every 0.1 s for `seconds`; prints a JSON list of
    (latency s, status, the main loop's lag in ms as the route tells it)."""
    code = (f"import http.client, time, json\nend = time.monotonic() + {seconds}\nlat = []\n"
            "while time.monotonic() < end:\n"
            f"    c = http.client.HTTPConnection('127.0.0.1', {port}, timeout=10)\n"
            "    t = time.monotonic()\n"
            "    try:\n"
            "        c.request('GET', '/healthz'); r = c.getresponse(); b = r.read()\n"
            "        s, lag = r.status, json.loads(b).get('loop_lag_ms', 0)\n"
            "    except (OSError, ValueError):\n"
            "        s, lag = 0, 0\n"
            "    lat.append((time.monotonic() - t, s, lag)); c.close()\n"
            "    time.sleep(0.1)\nprint(json.dumps(lat))\n")
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


async def _sampled(proxy: Proxy, machine: Machine, peak: dict[int, float],
                   run: Any) -> dict[str, list[Any]]:
    """Await `run` while sampling the workers' RSS (`peak`, MB by pid) and the load."""
    stop = asyncio.Event()

    async def sample() -> None:
        while not stop.is_set():
            for pid, mb in proxy.rss_mb().items():
                peak[pid] = max(peak.get(pid, 0.0), mb)
            machine.sample()
            await asyncio.sleep(1.0)

    sampler = asyncio.ensure_future(sample())
    try:
        return dict(await run)
    finally:
        stop.set()
        await sampler


def scenario_burst(streams: int, within: float, rate: float, workers: str | int,
                   sentence: int, upstreams: int, drop: int = 0) -> None:
    up = Upstream(upstreams)
    proxy = Proxy({**base_settings(up.url, workers=workers, backlog=4096),
                   "upstream": {"base_url": up.url, "max_connections": streams + 100}})
    tokens = int(rate * 5)  # each stream lasts 5 s
    shape = {"x_tokens": tokens, "x_rate": rate, "x_sentence": sentence, "drop_every": drop}
    peak: dict[int, float] = {}
    try:
        machine = Machine()
        before, up_before = proxy.cpu_s(), up.cpu_s()
        out = asyncio.run(_sampled(proxy, machine, peak, _burst(
            f"http://127.0.0.1:{proxy.port}/v1/chat/completions", streams, within, shape)))
        where = machine.report({"proxy": proxy.cpu_s() - before,
                                "upstream": up.cpu_s() - up_before})
        records = up.records()
    finally:
        proxy.stop()
        up.stop()
    heads = sorted(out["headers_s"]) or [float("nan")]
    print(f"burst: {streams} streams opened over {within:g} s at {rate:g} tokens/s "
          f"({tokens} tokens each, {_sentences(sentence, drop)}), workers={workers}, "
          f"fake upstream in {upstreams} processes")
    print(where)
    print(f"  headers: p50 {statistics.median(heads) * 1000:.0f} ms, "
          f"p99 {_p99(heads) * 1000:.0f} ms, worst {heads[-1] * 1000:.0f} ms"
          f" (target all < 1 s: {verdict(heads[-1] < 1.0 and len(heads) == streams)})")
    _report_streams(out, records, streams)
    print(f"  peak RSS per worker: {', '.join(f'{v:.0f} MB' for v in peak.values())}")


def scenario_hold(streams: int, rate: float, seconds: float, workers: str | int,
                  sentence: int, upstreams: int, drop: int = 0) -> None:
    up = Upstream(upstreams)
    proxy = Proxy({**base_settings(up.url, workers=workers, backlog=4096, admin_port=0),
                   "upstream": {"base_url": up.url, "max_connections": streams + 100}})
    tokens = int(rate * seconds)
    shape = {"x_tokens": tokens, "x_rate": rate, "x_sentence": sentence, "drop_every": drop}
    peak: dict[int, float] = {}
    probers: dict[str, subprocess.Popen[str]] = {}
    try:
        machine = Machine()
        before, up_before = proxy.cpu_s(), up.cpu_s()
        probers = {"main port": _health_prober(proxy.port, seconds),
                   "admin listener": _health_prober(proxy.admin_port, seconds)}
        out = asyncio.run(_sampled(proxy, machine, peak, _burst(
            f"http://127.0.0.1:{proxy.port}/v1/chat/completions", streams, 5.0, shape)))
        healths = {where: json.loads(prober.communicate(timeout=120)[0])
                   for where, prober in probers.items()}
        where = machine.report({"proxy": proxy.cpu_s() - before,
                                "upstream": up.cpu_s() - up_before})
        records = up.records()
    finally:
        for prober in probers.values():
            if prober.poll() is None:
                prober.kill()
                prober.wait()
        proxy.stop()
        up.stop()
    print(f"hold: {streams} concurrent streams at {rate:g} tokens/s for {seconds:g} s "
          f"({_sentences(sentence, drop)}), workers={workers}, pool "
          f"{streams + 100}, fake upstream in {upstreams} processes")
    print(where)
    _report_streams(out, records, streams)
    for place, health in healths.items():
        lat = sorted(t for t, _, _ in health)
        lags = sorted(lag for _, _, lag in health)
        p99 = _p99(lat)
        print(f"  /healthz on the {place} during the load: p50 "
              f"{statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, worst "
              f"{lat[-1] * 1000:.0f} ms over {len(lat)} probes, all 200: "
              f"{all(s == 200 for _, s, _ in health)} (target p99 < 50 ms: {verdict(p99 < 0.05)})"
              f"; the main loop's lag it told: p99 {_p99(lags):.0f} ms, max {lags[-1]:.0f} ms")
    print(f"  peak RSS per worker: {', '.join(f'{v:.0f} MB' for v in peak.values())}")


async def _slowloris(port: int, connections: int, seconds: float) -> dict[str, Any]:
    closed_at: list[float] = []
    normal: list[tuple[float, int]] = []
    started = time.monotonic()

    async def slow() -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return
        try:
            writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
            for _ in range(int(seconds * 2)):
                await asyncio.sleep(1.0)
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
                if reader.at_eof():
                    break
            data = await asyncio.wait_for(reader.read(), 1.0)
            if data == b"" or reader.at_eof():
                closed_at.append(time.monotonic() - started)
        except (ConnectionError, TimeoutError):
            closed_at.append(time.monotonic() - started)
        finally:
            writer.close()

    async def normals() -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            while time.monotonic() - started < seconds:
                t = time.monotonic()
                try:
                    async with session.post(f"http://127.0.0.1:{port}/v1/chat/completions",
                                            json=BODY) as resp:
                        await resp.read()
                        normal.append((time.monotonic() - t, resp.status))
                except aiohttp.ClientError:
                    normal.append((time.monotonic() - t, 0))
                await asyncio.sleep(0.05)

    await asyncio.gather(*(slow() for _ in range(connections)), normals())
    return {"closed_at": closed_at, "normal": normal}


def scenario_slowloris(connections: int, timeout: float, upstreams: int) -> None:
    up = Upstream(upstreams)
    proxy = Proxy({**base_settings(up.url, workers=1, backlog=4096),
                   "limits": {"header_timeout_s": timeout}})
    try:
        machine = Machine()
        before, up_before = proxy.cpu_s(), up.cpu_s()
        out = asyncio.run(_slowloris(proxy.port, connections, timeout * 2))
        where = machine.report({"proxy": proxy.cpu_s() - before,
                                "upstream": up.cpu_s() - up_before})
    finally:
        proxy.stop()
        up.stop()
    closed = sorted(out["closed_at"])
    lat = sorted(t for t, _ in out["normal"])
    ok = sum(1 for _, s in out["normal"] if s == 200)
    print(f"slowloris: {connections} connections trickling headers, header timeout "
          f"{timeout:g} s")
    print(where)
    print(f"  closed by the server: {len(closed)}/{connections}, the last after "
          f"{closed[-1] if closed else float('nan'):.1f} s (target all closed: "
          f"{verdict(len(closed) == connections)})")
    print(f"  normal requests meanwhile: {ok}/{len(lat)} answered 200, p50 "
          f"{statistics.median(lat) * 1000:.1f} ms, p99 {lat[int(len(lat) * 0.99) - 1] * 1000:.1f}"
          f" ms (target all served: {verdict(ok == len(lat) > 0)})")


def main() -> None:
    if len(sys.argv) > 3 and sys.argv[1] == "_upstream":
        serve_upstream(int(sys.argv[2]), sys.argv[3])
        return
    _raise_fd_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=("workers", "burst", "hold", "slowloris", "all"))
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--streams", type=int, default=None)
    parser.add_argument("--within", type=float, default=5.0)
    parser.add_argument("--rate", type=float, default=None)
    parser.add_argument("--sentence", type=int, default=10,
                        help="tokens a sentence (0: the whole reply one sentence)")
    parser.add_argument("--upstreams", type=int, default=os.cpu_count() or 1,
                        help="fake upstream processes (default: one a core)")
    parser.add_argument("--drop-every", type=int, default=0,
                        help="the fake upstream cuts every Nth stream halfway (burst, hold: "
                             "to see upstream faults told and counted as such)")
    parser.add_argument("--workers", default="auto",
                        type=lambda v: v if v == "auto" else int(v))
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    if args.scenario in ("workers", "all"):
        scenario_workers(int(args.seconds or 10), args.rounds, args.upstreams)
    if args.scenario in ("burst", "all"):
        scenario_burst(args.streams or 1000, args.within, args.rate or 20, args.workers,
                       args.sentence, args.upstreams, args.drop_every)
    if args.scenario in ("hold", "all"):
        scenario_hold(args.streams or 2000, args.rate or 5, args.seconds or 60, args.workers,
                      args.sentence, args.upstreams, args.drop_every)
    if args.scenario in ("slowloris", "all"):
        scenario_slowloris(args.connections, args.timeout, args.upstreams)


if __name__ == "__main__":
    main()
