"""The API adapters' cost beside chat's (run on demand, not collected by pytest).

    python tests/bench/bench_adapters.py [--rounds N]

The same reply (bench_proxy's 315-character one, with a card) screened with the shop's rules
as a chat completion and as a Responses API Response, whole (`screen_completion` against
`screen_response`) and streamed in 4-character deltas (the chat `StreamScreen` against
`ResponsesStream`, each fed its API's events as parsed SSE events). Reports CPU microseconds
per reply, medians of interleaved rounds, and each API's ratio to chat's: the target is within
15% (the screening itself, the same for both, is most of the cost; the adapter's decoding and
encoding the rest).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "proxy"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_proxy import REPLY  # noqa: E402
from fake_responses import Said, response, stream  # noqa: E402

from replyguard.config.rules import load_rules  # noqa: E402
from replyguard.engine import ReplyScreen, compile_rules  # noqa: E402
from replyguard.proxy.api_chat import StreamScreen  # noqa: E402
from replyguard.proxy.api_chat_whole import screen_completion  # noqa: E402
from replyguard.proxy.api_responses import screen_response  # noqa: E402
from replyguard.proxy.permissions import CallFilter  # noqa: E402
from replyguard.proxy.pipeline import Chunk  # noqa: E402
from replyguard.proxy.responses_stream import ResponsesStream  # noqa: E402
from replyguard.proxy.sse import SSEEvent  # noqa: E402
from replyguard.proxy.stream_out import chunk_bytes as _encode  # noqa: E402

RULES = compile_rules(load_rules(ROOT / "config/reply-rules.example.yaml"))
MAKE = partial(ReplyScreen, RULES, None, 2000)
REQUEST = {"model": "m", "input": "hi"}
DELTA = 4


def chat_whole() -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}}


def chat_events() -> list[SSEEvent]:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    bodies = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "finish_reason": None}]}]
    bodies += [{**head, "choices": [{"index": 0, "delta": {"content": REPLY[i:i + DELTA]},
                                     "finish_reason": None}]}
               for i in range(0, len(REPLY), DELTA)]
    bodies.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return [SSEEvent(orjson.dumps(b).decode()) for b in bodies] + [SSEEvent("[DONE]")]


def responses_events() -> list[SSEEvent]:
    return [SSEEvent(orjson.dumps(e).decode(), e["type"])
            for e in stream(REQUEST, Said(REPLY, chunk_chars=DELTA))]


def relayed(adapter: Any, events: list[SSEEvent]) -> int:
    """Feed an adapter its events and encode what it sends, as the relay does."""
    size = 0
    for event in events:
        items, _ = adapter.event(event)
        size += sum(len(_encode(i)) for i in items if isinstance(i, Chunk))
    return size


CHAT_EVENTS, RESPONSES_EVENTS = chat_events(), responses_events()
WORK: dict[str, Callable[[], object]] = {
    # (each with the call filter every reply has, as the routes make them)
    "chat whole": lambda: screen_completion(chat_whole(), MAKE, calls=CallFilter(RULES)),
    "responses whole": lambda: screen_response(response(REQUEST, Said(REPLY)), MAKE, REQUEST,
                                               CallFilter(RULES)),
    "chat stream": lambda: relayed(StreamScreen(MAKE, calls=CallFilter(RULES)), CHAT_EVENTS),
    "responses stream": lambda: relayed(ResponsesStream(MAKE, REQUEST, CallFilter(RULES)),
                                        RESPONSES_EVENTS),
}


def per_reply_us(work: Callable[[], object], replies: int = 50) -> float:
    started = time.process_time()
    for _ in range(replies):
        work()
    return (time.process_time() - started) / replies * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    for work in WORK.values():
        work()  # warm: compiled patterns, caches
    figures: dict[str, list[float]] = {name: [] for name in WORK}
    for _ in range(rounds):
        for name, work in WORK.items():  # interleaved: the machine's drift hits every one
            figures[name].append(per_reply_us(work))
    median = {name: statistics.median(values) for name, values in figures.items()}
    met = True
    for shape in ("whole", "stream"):
        chat, other = median[f"chat {shape}"], median[f"responses {shape}"]
        ratio = other / chat
        ok = ratio <= 1.15
        met = met and ok
        print(f"{shape:6}  chat {chat:8.1f} µs  responses {other:8.1f} µs  ratio {ratio:.2f}  "
              f"(target <= 1.15: {'met' if ok else 'NOT MET'})")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
