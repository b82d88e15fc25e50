"""Records under load (run on demand, not collected by pytest):

    python tests/bench/bench_store.py [--store sqlite|postgresql://...] [--rate 500]
                                      [--seconds 60] [--workers 1]

Starts bench_proxy's fast fake upstream and `replyguard serve` with records on, into a fresh
SQLite file (default) or the PostgreSQL URL given (a schema of its own is made and dropped).
Sends non-streamed requests open-loop at `--rate` per second for `--seconds`, then checks
that the records written equal the requests served (none dropped) and that
`replyguard records verify` holds. Prints the rate reached, latency p50/p99 and the counts;
exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import aiohttp

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import bench_proxy  # noqa: E402


async def _load(port: int, rate: float, seconds: float) -> tuple[int, int, list[float]]:
    """Open-loop load: a request started every 1/rate s. (served, failed, latencies)."""
    served = failed = 0
    latencies: list[float] = []
    body = json.dumps(bench_proxy.BODY)
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    connector = aiohttp.TCPConnector(limit=256)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def one() -> None:
            nonlocal served, failed
            started = time.perf_counter()
            try:
                async with session.post(url, data=body, headers={
                        "Content-Type": "application/json"}) as resp:
                    await resp.read()
                    ok = resp.status == 200
            except aiohttp.ClientError:
                ok = False
            latencies.append(time.perf_counter() - started)
            if ok:
                served += 1
            else:
                failed += 1

        tasks = []
        start = time.perf_counter()
        total = int(rate * seconds)
        for i in range(total):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.ensure_future(one()))
        await asyncio.gather(*tasks)
    return served, failed, latencies


def _metric(port: int, name: str) -> float:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _store_url(given: str, folder: str) -> tuple[str, str | None]:
    if given == "sqlite":
        return f"sqlite:///{folder}/bench.db", None
    schema = f"rg_bench_{uuid.uuid4().hex[:10]}"
    return f"{given}{'&' if '?' in given else '?'}schema={schema}", schema


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default="sqlite")
    parser.add_argument("--rate", type=float, default=500.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", default="1")
    args = parser.parse_args()
    up_port, port = bench_proxy.free_port(), bench_proxy.free_port()
    upstream = subprocess.Popen([sys.executable, str(BENCH / "bench_proxy.py"),
                                 "--serve-upstream", str(up_port)])
    with tempfile.TemporaryDirectory() as folder:
        url, schema = _store_url(args.store, folder)
        env = {k: v for k, v in os.environ.items() if not k.startswith("REPLYGUARD_")}
        env |= {"REPLYGUARD_STORE_URL": url, "REPLYGUARD_LOG_ACCESS": "false",
                "REPLYGUARD_LOG_LEVEL": "warning"}
        server = subprocess.Popen(
            [sys.executable, "-m", "replyguard.proxy.cli", "serve", "--port", str(port),
             "--upstream", f"http://127.0.0.1:{up_port}/v1", "--workers", args.workers],
            env=env)
        try:
            bench_proxy.wait_port(up_port)
            bench_proxy.wait_port(port)
            time.sleep(1.0)
            served, failed, lat = asyncio.run(_load(port, args.rate, args.seconds))
            deadline = time.monotonic() + 60
            while (written := _metric(port, "replyguard_records_written_total")) + \
                    (dropped := _metric(port, "replyguard_records_dropped_total")) < served:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.5)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
            upstream.terminate()
            upstream.wait(10)
        verify = subprocess.run([sys.executable, "-m", "replyguard.proxy.cli", "records",
                                 "verify", "--store", url], capture_output=True, text=True,
                                env={k: v for k, v in env.items()
                                     if not k.startswith("REPLYGUARD_")})
        if schema is not None:
            _drop(args.store, schema)
    lat.sort()
    rate = len(lat) / args.seconds
    print(f"store: {args.store}  target {args.rate:.0f} req/s for {args.seconds:.0f} s, "
          f"{args.workers} worker(s)")
    print(f"  served {served}, failed {failed}; offered {rate:.0f} req/s; latency p50 "
          f"{statistics.median(lat) * 1000:.1f} ms, p99 "
          f"{lat[int(len(lat) * 0.99) - 1] * 1000:.1f} ms")
    print(f"  records written {written:.0f}, dropped {dropped:.0f}; verify: "
          f"{verify.stdout.strip() or verify.stderr.strip()}")
    ok = failed == 0 and written == served and dropped == 0 and verify.returncode == 0
    print("  OK" if ok else "  FAILED")
    return 0 if ok else 1


def _drop(url: str, schema: str) -> None:
    import asyncpg

    async def drop() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await conn.close()

    asyncio.run(drop())


if __name__ == "__main__":
    sys.exit(main())
