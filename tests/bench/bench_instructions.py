"""Instruction counts of the screening and of the proxy (run on demand, not collected by pytest).

    python tests/bench/bench_instructions.py [--proxy | --proxy-only] [--stub]

Wall-clock figures on a shared 2-core machine move by ±30% between runs; instruction counts
from valgrind's callgrind do not (the same binary, input and environment give the same count,
whatever else the machine is doing), so a change's effect can be told from noise. Each figure
is the difference between two runs of the same child process doing k and 0 (or 220 and 20)
units of work, divided by the units: start-up and imports cancel out.

Engine (in one process, default rules of the shop, `config/reply-rules.example.yaml`):
the request screen of bench_proxy's one-message turn, the whole-reply screen of its
315-character reply, the reply screen fed bench_reply's corpus in 4-character deltas (per
KB), and `find` + `screen_text` on 4 KB of bench_detectors' realistic corpus whole (per KB:
the detectors' cost on ordinary replies), each with a fixed hash seed and the garbage
collector off (its cost is left out, and with it most of the run-to-run spread). With
`--proxy`: a non-streamed bench_proxy request through a bare aiohttp pass-through and through
`replyguard serve` with records off (`store.url: none`) and on (a SQLite file; the writer's
own thread counted too), and the same turn and reply through the Anthropic Messages route
(`/v1/messages`, records off), per request (the server's own instructions; the fake upstream and
the client run outside valgrind); `--stub` adds ReplyGuard with its reply screen and request
screen stubbed out, which tells the proxy's own cost from the screening's.

Needs valgrind (Debian package `valgrind`); a few minutes (the proxy's part most of them).
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
_COLLECTED = re.compile(r"Collected : (\d+)")


def _valgrind(args: list[str]) -> list[str]:
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
            *args]


def _collected(stderr: str) -> int:
    match = _COLLECTED.search(stderr)
    if match is None:
        raise RuntimeError(f"callgrind printed no count:\n{stderr[-2000:]}")
    return int(match.group(1))


# ---------------------------------------------------------------- engine (child process)

def _engine_child(what: str, units: int) -> None:
    """Do `units` units of `what` after one warm-up unit (imports and first compiles)."""
    sys.path[:0] = [str(ROOT), str(BENCH)]
    import bench_detectors
    import bench_proxy
    import bench_reply

    from replyguard.engine import ReplyScreen, find, read_context, screen_request, screen_text

    rules = bench_reply.RULES
    messages: list[dict[str, Any]] = bench_proxy.BODY["messages"]  # type: ignore[assignment]
    context = read_context(messages)
    stream = bench_reply.corpus(4_000, seed=11)
    deltas = [stream[i : i + 4] for i in range(0, len(stream), 4)]
    realistic = bench_detectors.realistic(64_000, seed=5)
    corpus = bench_detectors.realistic(4_000, seed=11)

    def unit() -> None:
        if what == "detectors":  # 64 KB of bench_detectors' realistic corpus, as one text
            find(realistic)
        elif what == "detect":  # 4 KB of bench_detectors' realistic corpus, whole
            screen_text(corpus, bench_detectors.RULES, findings=find(corpus))
        elif what == "request":
            screen_request(messages, rules)
        elif what == "reply":
            screen = ReplyScreen(rules, context)
            screen.feed(bench_proxy.REPLY)
            screen.finish()
        else:  # "stream": 4 KB of the corpus in 4-character deltas
            screen = ReplyScreen(rules, bench_reply.CONTEXT)
            for delta in deltas:
                screen.feed(delta)
            screen.finish()

    unit()
    # The garbage collector off and the hash seed fixed (engine_counts): the two runs then
    # differ by the units alone, which took out most of the run-to-run spread of these counts.
    gc.collect()
    gc.disable()
    for _ in range(units):
        unit()


def engine_counts(units: int = 100) -> dict[str, float]:
    """Instructions per request screen, per whole reply, per streamed KB and per KB of the
    realistic corpus read by the detectors."""
    out = {}
    for what in ("request", "reply", "stream", "detectors", "detect"):
        counts = []
        for k in (0, units):
            run = subprocess.run(_valgrind([__file__, "--engine-child", what, str(k)]),
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "PYTHONHASHSEED": "0"})
            counts.append(_collected(run.stderr))
        per = {"stream": 4, "detectors": 64, "detect": 4}.get(what, 1)
        out[what] = (counts[1] - counts[0]) / units / per
    return out


# ---------------------------------------------------------------- proxy

def _serve_child(kind: str, port: int, upstream: str, stub: bool) -> None:
    """Serve as the bare pass-through or as ReplyGuard (screens stubbed out with `stub`)."""
    sys.path[:0] = [str(ROOT), str(BENCH)]
    if kind == "bare":
        import bench_proxy

        bench_proxy.serve_bare(port, upstream)
        return
    os.environ["REPLYGUARD_LOG_LEVEL"] = "warning"
    if stub:
        _stub_screens()
    from replyguard.proxy.cli import main

    sys.argv = ["replyguard", "serve", "--upstream", upstream, "--port", str(port),
                "--rules", str(ROOT / "config" / "reply-rules.example.yaml")]
    main()


def _stub_screens() -> None:
    """Reply text passes unscreened; the request verdict is computed once and reused."""
    from collections import Counter

    import replyguard.proxy.completions as completions
    import replyguard.proxy.request_side as request_side

    class PassThrough:
        def __init__(self, *args: object, **kwargs: object) -> None:
            self.counts: Counter[str] = Counter()

        def feed(self, delta: str) -> str:
            return delta

        def finish(self) -> str:
            return ""

    real = request_side.screen_request
    verdicts: dict[int, object] = {}

    def once(*args, **kwargs):  # type: ignore[no-untyped-def]
        if 0 not in verdicts:
            verdicts[0] = real(*args, **kwargs)
        return verdicts[0]

    completions.ReplyScreen = PassThrough  # type: ignore[misc,assignment]
    request_side.screen_request = once


#: The Anthropic Messages request of bench_proxy's turn.
MESSAGES = "/v1/messages"


def _requests(port: int, n: int, route: str = "/v1/chat/completions") -> None:
    """`n` sequential non-streamed requests to `route` on one keep-alive connection."""
    sys.path.insert(0, str(BENCH))
    import bench_proxy

    body = json.dumps(bench_proxy.BODY if route != MESSAGES else
                      {**bench_proxy.BODY, "max_tokens": 200})
    deadline = time.monotonic() + 120
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.connect()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    for _ in range(n):
        conn.request("POST", route, body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"status {response.status}: {data[:200]!r}")
    conn.close()


def _serve_and_count(kind: str, upstream: str, n: int, stub: bool, store: str = "none",
                     route: str = "/v1/chat/completions") -> int:
    """Server instructions for `n` requests to `route`; `store`: REPLYGUARD_STORE_URL
    (`none`: records off)."""
    sys.path.insert(0, str(BENCH))
    import bench_proxy

    port = bench_proxy.free_port()
    args = [__file__, "--serve-child", kind, str(port), upstream] + (["--stub"] if stub else [])
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPLYGUARD_")}
    env["REPLYGUARD_STORE_URL"] = store
    env["REPLYGUARD_UPSTREAM_ANTHROPIC_BASE_URL"] = upstream.removesuffix("/v1")
    server = subprocess.Popen(_valgrind(args), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              text=True, cwd=ROOT, env=env)
    try:
        _requests(port, n, route)
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=120)
    return _collected(stderr)


def proxy_counts(stub: bool) -> dict[str, float]:
    """Server instructions per non-streamed request: bare, ReplyGuard (and stubbed)."""
    sys.path.insert(0, str(BENCH))
    import bench_proxy

    port = bench_proxy.free_port()
    upstream = subprocess.Popen([sys.executable, str(BENCH / "bench_proxy.py"),
                                 "--serve-upstream", str(port)])
    try:
        bench_proxy.wait_port(port)
        url = f"http://127.0.0.1:{port}/v1"
        out = {}
        folder = tempfile.mkdtemp(prefix="replyguard-bench-")
        records = f"sqlite:///{folder}/records.db"
        chat = "/v1/chat/completions"
        targets = [("bare", "bare", False, "none", chat),
                   ("replyguard, records off", "replyguard", False, "none", chat),
                   ("replyguard, records on", "replyguard", False, records, chat),
                   ("replyguard, /v1/messages", "replyguard", False, "none", MESSAGES)]
        if stub:
            targets.append(("replyguard, screens stubbed", "replyguard", True, "none", chat))
        for name, kind, stubbed, store, route in targets:
            low = _serve_and_count(kind, url, 20, stubbed, store, route)
            high = _serve_and_count(kind, url, 220, stubbed, store, route)
            out[name] = (high - low) / 200
        shutil.rmtree(folder, ignore_errors=True)
        return out
    finally:
        upstream.terminate()
        upstream.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--proxy", action="store_true", help="also the proxy, per request")
    parser.add_argument("--stub", action="store_true", help="with --proxy: screens stubbed too")
    parser.add_argument("--engine-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--serve-child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--proxy-only", action="store_true", help="the proxy only")
    args, rest = parser.parse_known_args()
    if args.engine_child:
        _engine_child(args.engine_child[0], int(args.engine_child[1]))
        return 0
    if args.serve_child:
        kind, port, upstream = args.serve_child
        _serve_child(kind, int(port), upstream, "--stub" in rest or args.stub)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    if not args.proxy_only:
        _print_engine(engine_counts())
    if args.proxy or args.proxy_only:
        _print_proxy(proxy_counts(args.stub))
    return 0


def _print_engine(engine: dict[str, float]) -> None:
    print("instructions (callgrind), default shop rules:")
    print(f"  request screen, one short turn:        {engine['request']:>12,.0f}")
    print(f"  reply screen, the 315-character reply: {engine['reply']:>12,.0f}")
    print(f"  reply screen, 4-character deltas:      {engine['stream']:>12,.0f} per KB")
    print(f"  detectors, realistic corpus:           {engine['detectors']:>12,.0f} per KB")
    print(f"  find + screen_text, realistic corpus:  {engine['detect']:>12,.0f} per KB")


def _print_proxy(proxy: dict[str, float]) -> None:
    print("server instructions per non-streamed request:")
    for name, count in proxy.items():
        print(f"  {name:<30}{count:>12,.0f}   ({count / proxy['bare']:.2f}x bare)")
    on, off = proxy["replyguard, records on"], proxy["replyguard, records off"]
    print(f"  records on cost {100 * (on - off) / off:+.1f}% instructions per request "
          "(at most +5%)")
    anthropic = proxy["replyguard, /v1/messages"]
    print(f"  /v1/messages costs {100 * (anthropic - off) / off:+.1f}% instructions per "
          "request against chat (at most +15%)")


if __name__ == "__main__":
    sys.exit(main())
