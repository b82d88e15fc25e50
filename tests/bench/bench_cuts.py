"""Benchmark: no input stalls the screen or the proxy (run on demand, not collected by pytest).

    python tests/bench/bench_cuts.py [--quick] [--no-proxy] [--marks]

1. Doubling ratios: for each adversarial family (runs of `.`, `!`, `?`, `…`, the CJK sentence
   ends `。！？．｡`, mixed, closers, spaces, digits, newlines, tiny CJK sentences, list
   markers, ellipses, acronyms; markup the canonical view reads: `<`, `</`, ` <`, `<a `,
   `<!--`, `&#`, `&`; and the detectors' families of tests/engine/test_find.py), the
   CPU time of the screen at 64 KB, 128 KB, ... 1 MB, and the largest ratio between two
   sizes one doubling apart (linear time gives about 2; the target is <= 2.2). The reply
   screen reads each text whole and, for the sentence-end families, streamed in 4-character
   deltas (up to 256 KB); the detectors read each of theirs whole. Runs of marks repeated
   without a space (`*a*a…`, `**1`, `1*`, `_a`, `` `a ``, `\\_a`, `＊＊1`, `</b>_`, `&#95;a`:
   `MARK_RUNS`, `--marks` for them alone) are screened on the request side, whole and
   streamed, up to 256 KB.
2. `/healthz` latency (p50, p99, worst) of `replyguard serve` while it screens a request
   body of 4 MB and of 1 MB of each of the slowest families (`a://a:`, `fe80::1 `, table
   rows, `1. ` list markers, dots) and while it relays a stream of 1 MB of dots in
   4-character deltas, against the same probe with nothing else to do; on the main port and
   on the admin listener (where probes go in a deployment; served by its own thread). Target:
   p99 under 50 ms. `--workers N` serves with N processes.
3. (`--holds`) The longest stretch the screen of each of those bodies, and of 128 KB of each
   streamed in 4-character deltas, runs without a Python-level call or return (CPU time of
   its thread): an upper bound on the longest time it holds the interpreter in one go (a
   regex scan, a garbage collection), which the other threads of its process wait for. Not
   changed by the machine's load. With `--no-gc` the garbage collector is off.

CPU time of this process for parts 1 and 3 (other processes' load counts less); part 2 is
wall clock on a shared machine: run it three times and take the median.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from replyguard.engine import CLASSES, ReplyRules, compile_rules, find  # noqa: E402
from replyguard.engine.reply import ReplyScreen, screen_reply  # noqa: E402
from replyguard.engine.screen import screen_text  # noqa: E402
from tests.engine.test_find import ADVERSARIAL  # noqa: E402
from tests.engine.test_internals import ADVERSARIAL as INTERNALS_ADVERSARIAL  # noqa: E402
from tests.engine.test_internals import ALL_RULES  # noqa: E402

RULES = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")
SIZES = [64_000, 128_000, 256_000, 512_000, 1_024_000]


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda size: ("Please wait" + unit * (size // len(unit) + 1))[:size]


SENTENCE_ENDS: dict[str, Callable[[int], str]] = {
    "dots": _repeat("."), "bangs": _repeat("!"), "questions": _repeat("?"),
    "ellipses": _repeat("…"), "mixed ends": _repeat(".!?…"), "ends and closers": _repeat('."'),
    "ends and newlines": _repeat("…\n"), "spaces": _repeat(" "), "digits": _repeat("1"),
    "newlines": _repeat("\n"), "dot space": _repeat(". "),
    "ideographic stops": _repeat("。"), "full-width bangs": _repeat("！"),
    "full-width questions": _repeat("？"), "full-width stops": _repeat("．"),
    "halfwidth stops": _repeat("｡"), "mixed CJK ends": _repeat("。！？．｡"),
    "CJK ends and closers": _repeat("。」"), "CJK sentences": _repeat("あ。"),
    "full-width decimals": _repeat("３．"), "letter markers": _repeat("b. "),
    "ellipsis and I": _repeat("... I "), "acronym and name": _repeat("U.S. Army "),
}
#: Markup the canonical view reads (engine.canon), for the reply screen whole (the detectors
#: read the same families: tests/engine/test_find.py).
MARKUP: dict[str, Callable[[int], str]] = {
    "angle brackets": _repeat("<"), "closing tag starts": _repeat("</"),
    "spaced angle brackets": _repeat(" <"), "tag starts with attributes": _repeat("<a "),
    "comment starts": _repeat("<!--"), "numeric reference starts": _repeat("&#"),
    "ampersands": _repeat("&"),
}
#: Runs of emphasis and code marks, escapes, tags and references repeated without a space
#: (`*a*a*a…`: a run of marks inside a token looks for its pair and for a key's start a
#: bounded way on), on the request side, the reply whole and streamed in 4-character deltas.
MARK_RUNS: dict[str, Callable[[int], str]] = {
    name: _repeat(unit) for name, unit in (
        ("stars and letters", "*a"), ("double stars and digits", "**1"), ("digits and stars", "1*"),
        ("underscores", "_a"), ("digits and underscores", "1_"), ("tildes", "~~1"),
        ("backticks", "`a"), ("escaped marks", "\\_a"), ("mixed runs", "*_a"),
        ("full-width stars", "\uff0a\uff0a1"), ("closing tags and marks", "</b>_"),
        ("references of marks", "&#95;a"), ("stars in a key", "ghp_**a"))
}
#: Values laid out after their names, which the reply screen reads each piece of with the
#: name before it (a table's header, a heading, a label and a run of blank), streamed in
#: 50-character deltas: each piece is read once, whatever came before it.
LAYOUTS: dict[str, Callable[[int], str]] = {
    "password table rows": lambda size: (
        "| user | password |\n|---|---|\n" + "| user | Qz7xK2mP9w |\n" * (size // 22 + 1))[:size],
    "password CSV rows": lambda size: (
        "user,password\n" + "user,Qz7xK2mP9w\n" * (size // 16 + 1))[:size],
    "blank lines under a heading": lambda size: "### Password" + "\n" * size + "Qz7xK2mP9w",
    "spaces after a label": lambda size: "password:" + " " * size + "Qz7xK2mP9w",
    "label rows": lambda size: ("Password:\n\nQz7xK2mP9w\n\n" * (size // 24 + 1))[:size],
}


def _cpu(work: Callable[[], object]) -> float:
    """CPU seconds of one `work()`: repeated until 0.1 s have passed, for a steadier figure."""
    runs = 0
    start = time.process_time()
    while True:
        work()
        runs += 1
        spent = time.process_time() - start
        if spent >= 0.1:
            return spent / runs


def _request(text: str) -> None:
    screen_text(text, RULES, "turn")


def _streamed(text: str) -> None:
    screen = ReplyScreen(RULES)
    for i in range(0, len(text), 4):
        screen.feed(text[i : i + 4])
    screen.finish()


def _streamed_50(text: str) -> None:
    screen = ReplyScreen(RULES)
    for i in range(0, len(text), 50):
        screen.feed(text[i : i + 50])
    screen.finish()


def ratios(make: Callable[[int], str], work: Callable[[str], object],
           sizes: list[int]) -> tuple[float, list[float]]:
    times = []
    for size in sizes:
        text = make(size)
        times.append(min(_cpu(lambda: work(text)) for _ in range(3)))  # noqa: B023
    worst = max(b / max(a, 1e-4) for a, b in zip(times, times[1:], strict=False))
    return worst, times


def _repeated(unit: str) -> Callable[[int], str]:
    return lambda size: (unit * (size // len(unit) + 1))[:size]


def part_one(quick: bool, marks_only: bool = False) -> bool:
    sizes = SIZES[:3] if quick else SIZES
    ok = True
    print("doubling ratio (largest), CPU seconds at each size:")
    rows: list[tuple[str, Callable[[int], str], Callable[[str], object], list[int]]] = []
    for name, make in SENTENCE_ENDS.items():
        rows.append((f"reply, whole: {name}", make, lambda t: screen_reply(t, RULES), sizes))
        rows.append((f"reply, 4-char deltas: {name}", make, _streamed, sizes[:3]))
    for name, make in LAYOUTS.items():
        rows.append((f"reply, 50-char deltas: {name}", make, _streamed_50, sizes[:3]))
    for name, make in MARKUP.items():
        rows.append((f"reply, whole: {name}", make, lambda t: screen_reply(t, RULES), sizes))
    for name, make in MARK_RUNS.items():
        rows.append((f"request: {name}", make, _request, sizes[:3]))
        rows.append((f"reply, whole: {name}", make, lambda t: screen_reply(t, RULES), sizes[:3]))
        rows.append((f"reply, 4-char deltas: {name}", make, _streamed, sizes[:3]))
    if marks_only:
        rows = rows[-3 * len(MARK_RUNS):]
    for name, make in ADVERSARIAL.items() if not marks_only else ():
        rows.append((f"find: {name}", make, find, sizes))
    for rule in ALL_RULES if not marks_only else ():  # the internals and check_reply rules
        for unit in INTERNALS_ADVERSARIAL[rule.name]:
            rows.append((f"rule {rule.name}: {unit[:12]!r}", _repeated(unit),
                         lambda t, r=rule: sum(1 for _ in r.spans(t)), sizes))
    for label, make, work, at in rows:
        worst, times = ratios(make, work, at)
        ok &= worst <= 2.2
        shown = " ".join(f"{t:6.3f}" for t in times)
        print(f"  {label:<42} {worst:5.2f}  [{shown}]  {'ok' if worst <= 2.2 else 'OVER'}")
    return ok


# ---------------------------------------------------------------- part 2: the proxy

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_upstream(port: int) -> None:
    """A fake upstream answering chat with a short reply, or (a body with "x_dots") a stream
    of that many dots in 4-character deltas."""
    from aiohttp import web

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        dots = body.get("x_dots")
        if not dots:
            return web.json_response({
                "id": "c", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "Noted."}}]})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
        text = "Please wait" + "." * dots
        for i in range(0, len(text), 4):
            chunk = {**head, "choices": [{"index": 0, "delta": {"content": text[i:i + 4]},
                                          "finish_reason": None}]}
            await response.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            if i % 4096 == 0:
                await asyncio.sleep(0)
        end = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        await response.write(b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
        return response

    app = web.Application(client_max_size=64 << 20)
    app.router.add_post("/v1/chat/completions", chat)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


async def _probe(bases: list[str], busy: Callable[[], object] | None) -> list[list[float]]:
    """`/healthz` latencies at each of `bases` (probed in turn) while `busy()` runs."""
    import aiohttp

    latencies: list[list[float]] = [[] for _ in bases]
    async with aiohttp.ClientSession() as session:
        task = asyncio.ensure_future(busy()) if busy is not None else None  # type: ignore[arg-type]
        deadline = time.perf_counter() + (120 if task else 2)
        while time.perf_counter() < deadline and (task is None or not task.done()):
            for base, seen in zip(bases, latencies, strict=True):
                start = time.perf_counter()
                async with session.get(f"{base}/healthz") as resp:
                    await resp.read()
                seen.append(time.perf_counter() - start)
            await asyncio.sleep(0.005)
        if task is not None:
            await task
    return latencies


def _summary(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"p50 {statistics.median(ordered) * 1000:6.1f} ms  p99 {p99 * 1000:6.1f} ms  "
            f"worst {ordered[-1] * 1000:6.1f} ms  ({len(ordered)} probes)")


#: The slowest families of a request body (and of a streamed reply, part 3).
SLOWEST = {"a://a:": "a://a:", "fe80::1 ": "fe80::1 ", "table rows": "|a|\n",
           "1. markers": "1. ", "dots": "."}


def part_two(sizes: list[int], workers: int) -> bool:
    import aiohttp

    up, rg, admin = _free_port(), _free_port(), _free_port()
    env = {**os.environ, "REPLYGUARD_LOG_LEVEL": "warning", "REPLYGUARD_LOG_ACCESS": "false",
           "REPLYGUARD_LIMITS_MAX_BODY_BYTES": str(16 << 20),
           "REPLYGUARD_LISTEN_ADMIN_PORT": str(admin), "REPLYGUARD_LISTEN_ADMIN_HOST": "127.0.0.1"}
    procs = [subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up)]),
             subprocess.Popen([sys.executable, "-m", "replyguard.proxy.cli", "serve",
                               "--upstream", f"http://127.0.0.1:{up}/v1", "--port", str(rg),
                               "--workers", str(workers)],
                              env=env, cwd=ROOT, stderr=subprocess.DEVNULL)]
    base = f"http://127.0.0.1:{rg}"

    def big_body(unit: str, size: int) -> Callable[[], object]:
        body = json.dumps({"model": "m", "messages": [
            {"role": "user", "content": _repeated(unit)(size)}]}).encode()

        async def post() -> None:
            async with aiohttp.ClientSession() as session:
                async with session.post(f"{base}/v1/chat/completions", data=body,
                                        headers={"Content-Type": "application/json"}) as resp:
                    assert resp.status == 200, resp.status
                    await resp.read()
        return post

    async def dots() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{base}/v1/chat/completions",
                                    json={"model": "m", "stream": True, "x_dots": 1_000_000,
                                          "messages": [{"role": "user", "content": "hi"}]}
                                    ) as resp:
                assert resp.status == 200, resp.status
                await resp.read()

    try:
        for port in (up, rg, admin):
            for _ in range(300):
                try:
                    with socket.create_connection(("127.0.0.1", port), 0.2):
                        break
                except OSError:
                    time.sleep(0.1)
        asyncio.run(big_body("a://a:", 20_000)())  # (the screening processes started)
        ok = True
        cases: list[tuple[str, Callable[[], object] | None]] = [("idle", None)]
        cases += [(f"{size / 1e6:g} MB body of {name}", big_body(unit, size))
                  for size in sizes for name, unit in SLOWEST.items()]
        cases.append(("stream of 1 MB of dots, 4-char deltas", dots))
        for label, busy in cases:
            main, ops = asyncio.run(_probe([base, f"http://127.0.0.1:{admin}"], busy))
            for where, latencies in (("main port", main), ("admin listener", ops)):
                p99 = sorted(latencies)[min(len(latencies) - 1, int(len(latencies) * 0.99))]
                ok &= p99 < 0.050
                print(f"  /healthz on the {where:<14}, {label:<40} {_summary(latencies)}")
        return ok
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait()


# ---------------------------------------------------------------- part 3: holds

def longest_stretch(work: Callable[[], object]) -> tuple[float, str]:
    """The longest CPU time `work()` runs without a Python-level call or return (an upper
    bound on the longest time it holds the interpreter in one go), and where it ended."""
    clock = time.thread_time
    state: list[Any] = [clock(), 0.0, ""]

    def hook(frame: Any, event: str, arg: Any) -> None:
        now = clock()
        if now - state[0] > state[1]:
            name = getattr(arg, "__qualname__", "") if event.startswith("c_") else ""
            state[1:] = [now - state[0], f"{event} {name} {Path(frame.f_code.co_filename).name}"
                         f":{frame.f_lineno}"]
        state[0] = clock()

    sys.setprofile(hook)
    threading.setprofile(hook)
    try:
        work()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return state[1], state[2]


def part_three(sizes: list[int]) -> None:
    from replyguard.engine.screen_cache import ScreenCache
    from replyguard.proxy.request_side import verdict_chat

    for size in sizes:
        for name, unit in SLOWEST.items():
            body = {"model": "m", "messages": [{"role": "user",
                                                "content": _repeated(unit)(size)}]}
            hold, where = longest_stretch(
                lambda b=body: verdict_chat(b, RULES, None, ScreenCache()))  # type: ignore
            print(f"  request body, {size / 1e6:g} MB of {name:<12} {hold * 1000:7.2f} ms "
                  f"(ends at {where})")
    for name, unit in SLOWEST.items():
        text = _repeated(unit)(128_000)
        hold, where = longest_stretch(lambda t=text: _streamed(t))  # type: ignore[misc]
        print(f"  streamed reply, 128 KB of {name:<12} {hold * 1000:7.2f} ms (ends at {where})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="sizes up to 256 KB only")
    parser.add_argument("--no-proxy", action="store_true", help="part 1 only")
    parser.add_argument("--marks", action="store_true", help="part 1's runs of marks only")
    parser.add_argument("--proxy-only", action="store_true", help="part 2 only")
    parser.add_argument("--holds", action="store_true", help="part 3 only")
    parser.add_argument("--no-gc", action="store_true", help="part 3 with the collector off")
    parser.add_argument("--mb", default="4,1", help="body sizes of parts 2 and 3, in MB")
    parser.add_argument("--workers", type=int, default=1, help="server processes, part 2")
    parser.add_argument("--serve-upstream", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.serve_upstream)
        return 0
    sizes = [int(float(mb) * 1_000_000) for mb in args.mb.split(",")]
    if args.holds:
        if args.no_gc:
            import gc
            gc.disable()
        print("longest stretch without a Python call (CPU time):")
        part_three(sizes)
        return 0
    ok = True
    if args.marks:
        ok = part_one(args.quick, marks_only=True)
        print("all within target" if ok else "SOME OVER TARGET")
        return 0 if ok else 1
    if not args.proxy_only:
        ok = part_one(args.quick)
    if not args.no_proxy:
        print("the proxy, /healthz while it screens:")
        ok &= part_two(sizes, args.workers)
    print("all within target" if ok else "SOME OVER TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
