"""Load benchmarks of `replyguard serve` as deployed: workers, stream bursts and long-held
streams, slow clients. Run on demand (not collected by pytest); each scenario prints its
figures against the targets, `met` or `NOT MET`:

    python tests/bench/bench_serve.py workers   [--seconds 10] [--rounds 2]
    python tests/bench/bench_serve.py burst     [--streams 1000] [--within 5] [--rate 20]
    python tests/bench/bench_serve.py hold      [--streams 2000] [--rate 5] [--seconds 60]
    python tests/bench/bench_serve.py slowloris [--connections 2000] [--timeout 10]
    python tests/bench/bench_serve.py all

Every process runs on 127.0.0.1: a fast fake upstream (uvloop; whole replies, or streams of
4-character tokens at a given rate), `replyguard serve` (shop rules), and the load generator
(this process; wrk for requests/s). On a 2-core machine they share the cores, so workers are
compared by requests per proxy CPU-second (the CPU time of the master and its workers, from
/proc) as well as by aggregate requests/s.
"""

from __future__ import annotations

import argparse
import asyncio
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

def serve_upstream(port: int) -> None:
    """Whole replies at once; with `x_tokens` and `x_rate` in the body, a stream of that many
    tokens at that rate (tokens/s), one sentence every 10 tokens."""
    import uvloop
    from aiohttp import web

    _raise_fd_limit()
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "bench"}
    whole = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "bench",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content":
                                     "Thanks for waiting. Your order shipped on Tuesday."},
                                     "finish_reason": "stop"}]}).encode()

    def event(content: str | None, finish: str | None = None) -> bytes:
        delta = {} if content is None else {"content": content}
        return b"data: " + json.dumps({**head, "choices": [
            {"index": 0, "delta": delta, "finish_reason": finish}]}).encode() + b"\n\n"

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if not body.get("stream"):
            return web.Response(body=whole, content_type="application/json")
        tokens, rate = int(body.get("x_tokens", 20)), float(body.get("x_rate", 20))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        try:
            start = time.monotonic()
            for i in range(tokens):
                text = "Word." if i % 10 == 9 else TOKEN  # "word word ... Word."
                await response.write(event(text if i % 10 == 9 else text))
                delay = start + (i + 1) / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            await response.write(event(None, "stop") + b"data: [DONE]\n\n")
            await response.write_eof()
        except ConnectionError:
            pass
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    uvloop.install()
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, backlog=4096)


def expected_text(tokens: int) -> str:
    return "".join("Word." if i % 10 == 9 else TOKEN for i in range(tokens))


# ----------------------------------------------------------------------------- processes

class Proxy:
    """`replyguard serve` with `settings` (a dict written as the settings file)."""

    def __init__(self, settings: dict[str, Any]) -> None:
        folder = Path(tempfile.mkdtemp(prefix="rg-bench-"))
        (folder / "settings.json").write_text(json.dumps(settings))
        self.log = (folder / "serve.log").open("w+b")
        env = {k: v for k, v in os.environ.items() if not k.startswith("REPLYGUARD_")}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import resource as r; s, h = r.getrlimit(r.RLIMIT_NOFILE);"
             " r.setrlimit(r.RLIMIT_NOFILE, (h, h)); from replyguard.proxy.cli import main;"
             " raise SystemExit(main())", "serve", "--config", str(folder / "settings.json")],
            stderr=self.log, env=env)
        deadline = time.monotonic() + 30
        while True:
            self.log.seek(0)
            first = self.log.readline()
            if first:
                break
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("replyguard serve did not start")
            time.sleep(0.05)
        announced = json.loads(first)
        self.port, self.admin_port = int(announced["port"]), announced.get("admin_port")
        time.sleep(1.0)  # every worker up

    def pids(self) -> list[int]:
        children = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True,
                                  text=True).stdout.split()
        return [self.proc.pid, *map(int, children)]

    def cpu_s(self) -> float:
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def rss_mb(self) -> dict[int, float]:
        out = {}
        for pid in self.pids()[1:] or self.pids():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out[pid] = int(line.split()[1]) / 1024
        return out

    def stop(self) -> int:
        self.proc.terminate()
        return self.proc.wait(60)


def start_upstream() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "_upstream", str(port)])
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}/v1"


def base_settings(upstream: str, **listen: Any) -> dict[str, Any]:
    return {"listen": {"port": 0, **listen}, "upstream": {"base_url": upstream},
            "replies": {"rules": str(RULES)}, "log": {"access": False, "level": "info"}}


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


# ------------------------------------------------------------------------------ scenarios

def scenario_workers(seconds: int, rounds: int) -> None:
    wrk = shutil.which("wrk")
    if wrk is None:
        sys.exit("wrk is not installed (apt-get install wrk)")
    up, url = start_upstream()
    script = Path(tempfile.mkdtemp()) / "post.lua"
    script.write_text('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                      f"wrk.body = '{json.dumps(BODY)}'\n")
    results: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    try:
        for _ in range(rounds):
            for workers in (1, 2):
                proxy = Proxy(base_settings(url, workers=workers))
                try:
                    subprocess.run([wrk, "-t1", "-c32", "-d2s", "-s", str(script),
                                    f"http://127.0.0.1:{proxy.port}/v1/chat/completions"],
                                   capture_output=True, check=True)  # warm-up
                    before = proxy.cpu_s()
                    out = subprocess.run(
                        [wrk, "-t2", "-c64", f"-d{seconds}s", "-s", str(script),
                         f"http://127.0.0.1:{proxy.port}/v1/chat/completions"],
                        capture_output=True, text=True, check=True).stdout
                    cpu = proxy.cpu_s() - before
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
    finally:
        up.terminate()
    rps = {w: statistics.median(r for r, _ in v) for w, v in results.items()}
    per_cpu = {w: statistics.median(c for _, c in v) for w, v in results.items()}
    print(f"workers: 2 workers / 1 worker, requests/s: {rps[2] / rps[1]:.2f}x "
          f"(target >= 1.5x: {verdict(rps[2] / rps[1] >= 1.5)})")
    print(f"workers: 2 workers / 1 worker, requests per proxy CPU-second: "
          f"{per_cpu[2] / per_cpu[1]:.2f} (target 0.9..1.1: "
          f"{verdict(0.9 <= per_cpu[2] / per_cpu[1] <= 1.1)})")


async def _stream(session: Any, url: str, tokens: int, rate: float,
                  out: dict[str, list[Any]], started: float) -> None:
    body = {**BODY, "stream": True, "x_tokens": tokens, "x_rate": rate}
    sent = time.monotonic()
    try:
        async with session.post(url, json=body) as resp:
            out["headers_s"].append(time.monotonic() - sent)
            raw = await resp.read()
        text = []
        for block in raw.split(b"\n\n"):
            if block.startswith(b"data: {"):
                chunk = json.loads(block[6:])
                for choice in chunk.get("choices") or ():
                    text.append((choice.get("delta") or {}).get("content") or "")
        intact = resp.status == 200 and raw.endswith(b"data: [DONE]\n\n") and \
            "".join(text) == expected_text(tokens)
        out["intact" if intact else "broken"].append(resp.status)
    except Exception as exc:  # noqa: BLE001 - counted, reported by kind
        out["errors"].append(type(exc).__name__)


def _client_session() -> Any:
    import aiohttp

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                 timeout=aiohttp.ClientTimeout(total=None, sock_read=120))


async def _burst(url: str, streams: int, within: float, tokens: int, rate: float
                 ) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {"headers_s": [], "intact": [], "broken": [], "errors": []}
    async with _client_session() as session:
        started = time.monotonic()
        tasks = []
        for i in range(streams):
            delay = started + i * within / streams - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.ensure_future(_stream(session, url, tokens, rate, out,
                                                       started)))
        await asyncio.gather(*tasks)
    return out


def _health_prober(port: int, seconds: float) -> subprocess.Popen[str]:
    code = (f"import http.client, time, json\nend = time.monotonic() + {seconds}\nlat = []\n"
            "while time.monotonic() < end:\n"
            f"    c = http.client.HTTPConnection('127.0.0.1', {port}, timeout=10)\n"
            "    t = time.monotonic()\n"
            "    try:\n"
            "        c.request('GET', '/healthz'); r = c.getresponse(); r.read(); s = r.status\n"
            "    except OSError:\n"
            "        s = 0\n"
            "    lat.append((time.monotonic() - t, s)); c.close()\n"
            "    time.sleep(0.1)\nprint(json.dumps(lat))\n")
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def scenario_burst(streams: int, within: float, rate: float, workers: str) -> None:
    up, url = start_upstream()
    proxy = Proxy({**base_settings(url, workers=workers, backlog=4096),
                   "upstream": {"base_url": url, "max_connections": streams + 100}})
    tokens = int(rate * 5)  # each stream lasts 5 s
    try:
        out = asyncio.run(_burst(f"http://127.0.0.1:{proxy.port}/v1/chat/completions",
                                 streams, within, tokens, rate))
        rss = proxy.rss_mb()
    finally:
        proxy.stop()
        up.terminate()
    heads = sorted(out["headers_s"])
    worst = heads[-1] if heads else float("nan")
    print(f"burst: {streams} streams opened over {within:g} s at {rate:g} tokens/s "
          f"({tokens} tokens each), workers={workers}")
    print(f"  headers: p50 {statistics.median(heads) * 1000:.0f} ms, "
          f"p99 {heads[int(len(heads) * 0.99) - 1] * 1000:.0f} ms, worst {worst * 1000:.0f} ms"
          f" (target all < 1 s: {verdict(worst < 1.0 and len(heads) == streams)})")
    print(f"  intact {len(out['intact'])}/{streams}, broken {len(out['broken'])}, errors "
          f"{len(out['errors'])} {sorted(set(out['errors']))} (target all intact: "
          f"{verdict(len(out['intact']) == streams)}); RSS per worker "
          f"{', '.join(f'{v:.0f} MB' for v in rss.values())}")


def scenario_hold(streams: int, rate: float, seconds: float, workers: str) -> None:
    up, url = start_upstream()
    proxy = Proxy({**base_settings(url, workers=workers, backlog=4096, admin_port=0),
                   "upstream": {"base_url": url, "max_connections": streams + 100}})
    tokens = int(rate * seconds)
    peak: dict[int, float] = {}

    async def run() -> dict[str, list[Any]]:
        sampler_stop = asyncio.Event()

        async def sample() -> None:
            while not sampler_stop.is_set():
                for pid, mb in proxy.rss_mb().items():
                    peak[pid] = max(peak.get(pid, 0.0), mb)
                await asyncio.sleep(1.0)

        sampler = asyncio.ensure_future(sample())
        out = await _burst(f"http://127.0.0.1:{proxy.port}/v1/chat/completions", streams,
                           5.0, tokens, rate)
        sampler_stop.set()
        await sampler
        return out

    try:
        probers = {"main port": _health_prober(proxy.port, seconds),
                   "admin listener": _health_prober(proxy.admin_port, seconds)}
        out = asyncio.run(run())
        healths = {where: json.loads(prober.communicate(timeout=120)[0])
                   for where, prober in probers.items()}
    finally:
        proxy.stop()
        up.terminate()
    print(f"hold: {streams} concurrent streams at {rate:g} tokens/s for {seconds:g} s, "
          f"workers={workers}, pool {streams + 100}")
    print(f"  intact {len(out['intact'])}/{streams}, broken {len(out['broken'])} "
          f"{sorted(set(out['broken']))}, errors {len(out['errors'])} "
          f"{sorted(set(out['errors']))} (target no error the upstream did not cause: "
          f"{verdict(len(out['intact']) == streams)})")
    for where, health in healths.items():
        lat = sorted(t for t, _ in health)
        p99 = lat[max(int(len(lat) * 0.99) - 1, 0)]
        target = f" (target p99 < 50 ms: {verdict(p99 < 0.05)})" if where != "main port" else ""
        print(f"  /healthz on the {where} during the load: p50 "
              f"{statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms over {len(lat)}"
              f" probes, all 200: {all(s == 200 for _, s in health)}{target}")
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


def scenario_slowloris(connections: int, timeout: float) -> None:
    up, url = start_upstream()
    proxy = Proxy({**base_settings(url, workers=1, backlog=4096),
                   "limits": {"header_timeout_s": timeout}})
    try:
        out = asyncio.run(_slowloris(proxy.port, connections, timeout * 2))
    finally:
        proxy.stop()
        up.terminate()
    closed = sorted(out["closed_at"])
    lat = sorted(t for t, _ in out["normal"])
    ok = sum(1 for _, s in out["normal"] if s == 200)
    print(f"slowloris: {connections} connections trickling headers, header timeout "
          f"{timeout:g} s")
    print(f"  closed by the server: {len(closed)}/{connections}, the last after "
          f"{closed[-1] if closed else float('nan'):.1f} s (target all closed: "
          f"{verdict(len(closed) == connections)})")
    print(f"  normal requests meanwhile: {ok}/{len(lat)} answered 200, p50 "
          f"{statistics.median(lat) * 1000:.1f} ms, p99 {lat[int(len(lat) * 0.99) - 1] * 1000:.1f}"
          f" ms (target all served: {verdict(ok == len(lat) > 0)})")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_upstream":
        serve_upstream(int(sys.argv[2]))
        return
    _raise_fd_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=("workers", "burst", "hold", "slowloris", "all"))
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--streams", type=int, default=None)
    parser.add_argument("--within", type=float, default=5.0)
    parser.add_argument("--rate", type=float, default=None)
    parser.add_argument("--workers", default="auto",
                        type=lambda v: v if v == "auto" else int(v))
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    if args.scenario in ("workers", "all"):
        scenario_workers(int(args.seconds or 10), args.rounds)
    if args.scenario in ("burst", "all"):
        scenario_burst(args.streams or 1000, args.within, args.rate or 20, args.workers)
    if args.scenario in ("hold", "all"):
        scenario_hold(args.streams or 2000, args.rate or 5, args.seconds or 60, args.workers)
    if args.scenario in ("slowloris", "all"):
        scenario_slowloris(args.connections, args.timeout)


if __name__ == "__main__":
    main()
