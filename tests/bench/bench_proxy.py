"""Proxy benchmark: ReplyGuard against a direct connection and a bare aiohttp pass-through.

Run on demand (not collected by pytest):

    python tests/bench/bench_proxy.py [--rounds 5] [--requests 400] [--seconds 5]

It starts, each in its own process on 127.0.0.1: a fast fake upstream, a bare pass-through
(aiohttp, forwards bytes, parses nothing) and `replyguard serve` with the shop's rules. Then,
interleaving the three targets in rounds, it measures: one request at a time, p50/p99 latency
(non-streamed); requests/s at 32 connections (wrk, if installed); streaming chunks/s and the
per-chunk cost; and the added time to first token, against the time the first sentence
boundary reached the client on a direct connection. Reported as medians of round medians.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPLY = (
    "Thanks for waiting. Your order 4412 shipped on Tuesday and should arrive by Friday. "
    "The card ending 4111 1111 1111 1111 was charged 12.50 pounds. "
    "If it does not arrive, reply here and we will look into it. "
    "You can also track it from your account page, under Orders. "
    "Is there anything else I can help you with today?"
)
CHUNK = 4
BODY = {"model": "bench", "messages": [{"role": "user", "content": "where is order 4412?"}]}


# ---------------------------------------------------------------- servers (child processes)

def _chunks(delay_s: float) -> tuple[list[bytes], float]:
    head = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1,
            "model": "bench", "system_fingerprint": "fp_bench"}
    events = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "logprobs": None, "finish_reason": None}]}]
    for i in range(0, len(REPLY), CHUNK):
        events.append({**head, "choices": [{"index": 0, "delta": {"content": REPLY[i:i + CHUNK]},
                                            "logprobs": None, "finish_reason": None}]})
    events.append({**head, "choices": [{"index": 0, "delta": {}, "logprobs": None,
                                        "finish_reason": "stop"}]})
    return [b"data: " + json.dumps(e).encode() + b"\n\n" for e in events] + [b"data: [DONE]\n\n"], \
        delay_s


def serve_upstream(port: int) -> None:
    """A fast fake upstream: fixed JSON, or a fixed stream (all at once, or paced with
    `"x_delay_ms"` in the body); `/v1/messages` answers the same reply as an Anthropic
    message (whole)."""
    import uvloop
    from aiohttp import web

    whole = json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 1, "model": "bench",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 60, "total_tokens": 65}}).encode()
    events, _ = _chunks(0)
    joined = b"".join(events)

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if not body.get("stream"):
            return web.Response(body=whole, content_type="application/json")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        delay = body.get("x_delay_ms", 0) / 1000
        try:
            if not delay:
                await response.write(joined)
            else:
                for event in events:
                    await response.write(event)
                    await asyncio.sleep(delay)
            await response.write_eof()
        except ConnectionResetError:  # the client stopped reading after [DONE]
            pass
        return response

    message = json.dumps({
        "id": "msg_bench", "type": "message", "role": "assistant", "model": "bench",
        "content": [{"type": "text", "text": REPLY}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 60}}).encode()

    async def messages(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=message, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_post("/v1/messages", messages)  # Anthropic Messages, whole only
    uvloop.install()
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


def serve_bare(port: int, upstream: str) -> None:
    """A bare aiohttp pass-through: bytes in, bytes out, nothing parsed."""
    import aiohttp
    import uvloop
    from aiohttp import web

    async def session_ctx(app: web.Application):  # type: ignore[no-untyped-def]
        app["session"] = aiohttp.ClientSession()
        yield
        await app["session"].close()

    async def forward(request: web.Request) -> web.StreamResponse:
        data = await request.read()
        async with request.app["session"].post(
            upstream + "/chat/completions", data=data,
            headers={"Content-Type": "application/json"}) as up:
            response = web.StreamResponse(status=up.status,
                                          headers={"Content-Type": up.headers["Content-Type"]})
            try:
                await response.prepare(request)
                async for chunk in up.content.iter_any():
                    await response.write(chunk)
                await response.write_eof()
            except ConnectionError:  # the client left (wrk closes its connections at the end)
                pass
            return response

    app = web.Application()
    app.cleanup_ctx.append(session_ctx)
    app.router.add_post("/v1/chat/completions", forward)
    uvloop.install()
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


# ---------------------------------------------------------------- measuring (parent process)

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def sequential(port: int, n: int, body: dict) -> list[float]:
    """Latency (s) of `n` requests one at a time on one keep-alive connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port)
    payload = json.dumps(body).encode()
    out = []
    for _ in range(n):
        started = time.perf_counter()
        conn.request("POST", "/v1/chat/completions", payload,
                     {"Content-Type": "application/json"})
        conn.getresponse().read()
        out.append(time.perf_counter() - started)
    conn.close()
    return out


def streamed(port: int, body: dict) -> tuple[float, float, float | None]:
    """One streamed request: (time to first content byte, total, time the first sentence
    boundary was complete in the received text), seconds."""
    conn = http.client.HTTPConnection("127.0.0.1", port)
    started = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", json.dumps(body).encode(),
                 {"Content-Type": "application/json"})
    response = conn.getresponse()
    first = boundary = None
    text = ""
    buffer = b""
    while True:
        data = response.read1(65536)
        if not data:
            break
        now = time.perf_counter() - started
        buffer += data
        *events, buffer = buffer.split(b"\n\n")
        for event in events:
            if not event.startswith(b"data: {"):
                continue
            delta = json.loads(event[6:])["choices"]
            content = delta[0]["delta"].get("content") if delta else None
            if content:
                first = now if first is None else first
                text += content
                if boundary is None and re.search(r"[.!?] +\S", text):
                    boundary = now
    total = time.perf_counter() - started
    conn.close()
    return first or total, total, boundary


def wrk_rps(port: int, seconds: int) -> float | None:
    """Requests/s at 32 connections with wrk (None when wrk is not installed)."""
    if shutil.which("wrk") is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                     f"wrk.body = [[{json.dumps(BODY)}]]\n")
    out = subprocess.run(["wrk", "-t1", "-c32", f"-d{seconds}s", "-s", script.name,
                          f"http://127.0.0.1:{port}/v1/chat/completions"],
                         capture_output=True, text=True, check=True).stdout
    os.unlink(script.name)
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"wrk saw {errors.group(1)} error responses on port {port}")
    if match is None:
        raise RuntimeError(f"wrk printed no requests/s for port {port}:\n{out}")
    return float(match.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--serve-upstream", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.serve_upstream)
        return 0
    if args.serve_bare:
        serve_bare(int(args.serve_bare[0]), args.serve_bare[1])
        return 0

    up, bare, rg = free_port(), free_port(), free_port()
    upstream_url = f"http://127.0.0.1:{up}/v1"
    env = {**os.environ, "REPLYGUARD_LOG_LEVEL": "warning"}
    procs = [
        subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up)]),
        subprocess.Popen([sys.executable, __file__, "--serve-bare", str(bare), upstream_url]),
        subprocess.Popen([sys.executable, "-m", "replyguard.proxy.cli", "serve",
                          "--upstream", upstream_url,
                          "--rules", str(ROOT / "config" / "reply-rules.example.yaml"),
                          "--port", str(rg)], env=env, cwd=ROOT, stderr=subprocess.DEVNULL),
    ]
    targets = {"direct": up, "bare": bare, "replyguard": rg}
    try:
        for port in targets.values():
            wait_port(port)
        for port in targets.values():  # warm up
            sequential(port, 50, BODY)
        p50: dict[str, list[float]] = {t: [] for t in targets}
        p99: dict[str, list[float]] = {t: [] for t in targets}
        rps: dict[str, list[float]] = {t: [] for t in targets}
        stream_total: dict[str, list[float]] = {t: [] for t in targets}
        ttft: dict[str, list[float]] = {t: [] for t in targets}
        boundary: dict[str, list[float]] = {t: [] for t in targets}
        added_ttft: list[float] = []
        stream_body = {**BODY, "stream": True}
        paced_body = {**BODY, "stream": True, "x_delay_ms": 2}
        for _ in range(args.rounds):
            for name, port in targets.items():
                lat = sorted(sequential(port, args.requests, BODY))
                p50[name].append(statistics.median(lat))
                p99[name].append(lat[int(len(lat) * 0.99) - 1])
                totals = [streamed(port, stream_body)[1] for _ in range(args.requests // 4)]
                stream_total[name].append(statistics.median(totals))
                paced = [streamed(port, paced_body) for _ in range(5)]
                ttft[name].append(statistics.median(p[0] for p in paced))
                boundary[name].append(statistics.median(p[2] or p[1] for p in paced))
                got = wrk_rps(port, args.seconds)
                if got is not None:
                    rps[name].append(got)
            # Paired: a bare pass-through request then a ReplyGuard one, alternately; the
            # difference between ReplyGuard's first token and the moment the first sentence
            # boundary reached the bare pass-through's client.
            for _ in range(10):
                bare_run = streamed(targets["bare"], paced_body)
                rg_run = streamed(targets["replyguard"], paced_body)
                added_ttft.append(rg_run[0] - (bare_run[2] or bare_run[1]))
        med = {k: {t: statistics.median(v) for t, v in d.items() if v}
               for k, d in (("p50", p50), ("p99", p99), ("rps", rps), ("stream", stream_total),
                            ("ttft", ttft))}
        chunks = len(_chunks(0)[0]) - 1
        print(f"rounds: {args.rounds}; {args.requests} sequential requests per target per round;"
              f" reply {len(REPLY)} chars in {chunks} chunks")
        print(f"{'target':<12}{'p50 ms':>10}{'p99 ms':>10}{'req/s@32':>12}{'stream ms':>12}"
              f"{'chunks/s':>12}")
        for t in targets:
            r = med["rps"].get(t)
            print(f"{t:<12}{med['p50'][t] * 1e3:>10.3f}{med['p99'][t] * 1e3:>10.3f}"
                  f"{(f'{r:.0f}' if r else 'n/a'):>12}{med['stream'][t] * 1e3:>12.3f}"
                  f"{chunks / med['stream'][t]:>12.0f}")
        added_p50 = (med["p50"]["replyguard"] - med["p50"]["bare"]) * 1e3
        added_p99 = (med["p99"]["replyguard"] - med["p99"]["bare"]) * 1e3
        per_chunk = (med["stream"]["replyguard"] - med["stream"]["bare"]) / chunks * 1e6
        print(f"\nReplyGuard over bare pass-through: p50 +{added_p50:.3f} ms (target +0.3: "
              f"{_verdict(added_p50 <= 0.3)}), p99 +{added_p99:.3f} ms (target +1: "
              f"{_verdict(added_p99 <= 1.0)}); bare over direct: p50 "
              f"+{(med['p50']['bare'] - med['p50']['direct']) * 1e3:.3f} ms")
        if med["rps"].get("replyguard") and med["rps"].get("bare"):
            share = med["rps"]["replyguard"] / med["rps"]["bare"]
            print(f"requests/s at 32 connections: {share:.0%} of the bare pass-through "
                  f"(target 70%: {_verdict(share >= 0.7)})")
        print(f"per-chunk cost over bare, streaming: {per_chunk:.1f} µs (target < 30: "
              f"{_verdict(per_chunk < 30)})")
        seen = {t: statistics.median(v) for t, v in boundary.items()}
        print("paced stream (2 ms per chunk), time to first token: "
              + ", ".join(f"{t} {med['ttft'][t] * 1e3:.2f} ms" for t in targets))
        # (ReplyGuard releases whole sentences: its first token is the first sentence, sent
        # once the second starts, and text after a boundary reaches its client a sentence
        # later than a pass-through's, so these two lines differ by design.)
        print("time text after the first sentence boundary reached the client: "
              + ", ".join(f"{t} {seen[t] * 1e3:.2f} ms" for t in targets)
              + " (ReplyGuard: a sentence later, by design)")
        added = statistics.median(added_ttft) * 1e3
        print("ReplyGuard's first token after the first boundary reached a bare pass-through's "
              f"client (paired, median): {added:+.2f} ms (target <= 1: {_verdict(added <= 1)})")
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)
    return 0


def _verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


if __name__ == "__main__":
    sys.exit(main())
