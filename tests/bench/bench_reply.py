"""Benchmark of engine.ReplyScreen (run on demand, not collected by pytest).

    python tests/bench/bench_reply.py [--profile]

With the shop's rules (config/reply-rules.example.yaml) and a refund done this turn, reports:
reply-screen throughput in MB/s on a realistic ~1 MB reply corpus fed in 4-character deltas
(target >= 10 MB/s on one core), and the cost per delta (µs) of the same kilobyte as a 1 KB
reply and as the end of a 100 KB reply, which must be about equal: the cost of a delta does not
grow with how long the reply already is. Also a kilobyte without any sentence end fed after
99 KB of the same (the sentence cap at work), and the floor: the MB/s of a feed that only keeps
each delta and looks for a sentence end in it, the most any Python reply screen can reach.
"""

from __future__ import annotations

import cProfile
import pstats
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from replyguard.config.rules import load_rules  # noqa: E402
from replyguard.engine import ReplyScreen, compile_rules, read_context  # noqa: E402

RULES = compile_rules(load_rules(ROOT / "config/reply-rules.example.yaml"))
CONTEXT = read_context([
    {"role": "user", "content": "the parcel for 4412 vanished"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
     "function": {"name": "refund_card", "arguments": '{"order_id": "4412", "amount": 12.5}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "refunded"}'},
])

PROSE = [
    "Thanks for getting in touch, and sorry for the trouble with your order.",
    "I've had a look at your account and everything seems to be in order now.",
    "Your parcel left our warehouse this morning and should arrive within two working days.",
    "If the item doesn't fit, you can return it free of charge within thirty days.",
    "Mr. Jones at the U.S. office said e.g. the fee is 12.50 pounds, i.e. the usual one.",
    "Please reset your password via the link we sent to your inbox.",
    "Could you send me a photo of the damaged item so I can arrange a replacement?",
    "Order #4412 shipped on 29 November and is with the courier now.",
    "I've refunded 12.50 pounds for order 4412.",
    "It is a guaranteed refund.",
    "Version 2.4.1 of the app fixes the crash; see https://example.com/help/app.html for more.",
    "O Sr. Silva pagou R$ 12,50 à vista e o pedido já foi enviado.",
    "Is there anything else I can help you with today?",
]
VALUES = [
    "Your card 4111 1111 1111 1111 is on file; the card 4111 1111 1111 1112 is not.",
    "You can reach our billing team at billing@example.com or on +44 20 7946 0123.",
    "The refund went to IBAN GB82 WEST 1234 5698 7654 32.",
    "Please don't share numbers like 123-45-6789 in chat.",
]
BLOCKS = [
    "Here is what to do:\n\n1. Open the app.\n2. Tap Orders.\n3. Choose the order.\n\n",
    "- Delivery: two days\n- Returns: thirty days\n- Card: 5555 5555 5555 4444\n\n",
    "```\ncurl https://api.example.com/orders/4412\n```\n\n",
    "## Your order\n\n| item | price |\n|---|---|\n| mug | 12.50 |\n\n",
]


def corpus(size: int, seed: int = 7) -> str:
    """About `size` characters of replies: paragraphs of prose (~8% of sentences holding
    values), with Markdown lists, tables, headings and code fences between them."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        roll = rng.random()
        if roll < 0.06:
            piece = rng.choice(BLOCKS)
            if parts and not parts[-1].endswith("\n"):  # a block starts on its own line
                parts[-1] = parts[-1].rstrip(" ") + "\n\n"
        else:
            piece = rng.choice(VALUES if roll < 0.14 else PROSE)
            piece += "\n\n" if rng.random() < 0.15 else " "
        parts.append(piece)
        total += len(piece)
    return "".join(parts)[:size]


def feed(text: str, size: int = 4) -> tuple[float, int]:
    """Seconds to screen `text` fed in `size`-character deltas (best of 3), and the deltas."""
    deltas = [text[i : i + size] for i in range(0, len(text), size)]
    best = float("inf")
    for _ in range(3):
        screen = ReplyScreen(RULES, CONTEXT)
        start = time.perf_counter()
        for delta in deltas:
            screen.feed(delta)
        screen.finish()
        best = min(best, time.perf_counter() - start)
    return best, len(deltas)


class _Floor:
    """The least a reply screen can do per delta in CPython: keep the delta and look for a
    sentence-end character in it (no segmenting, no screening)."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held: list[str] = []

    def feed(self, delta: str) -> str:
        if _END_CHAR(delta) is not None:
            self.held.clear()
        self.held.append(delta)
        return ""


_END_CHAR = re.compile(r"[.!?…\n]").search


def floor_mbs(text: str, size: int = 4) -> float:
    """MB/s of `_Floor` over `text` in `size`-character deltas (best of 3)."""
    deltas = [text[i : i + size] for i in range(0, len(text), size)]
    best = float("inf")
    for _ in range(3):
        feed = _Floor().feed
        start = time.perf_counter()
        for delta in deltas:
            feed(delta)
        best = min(best, time.perf_counter() - start)
    return len(text) / best / 1e6


def per_delta_us(text: str, before: str = "", runs: int = 20) -> float:
    """Median µs per 4-character delta of `text`, fed after `before` was already fed."""
    deltas = [text[i : i + 4] for i in range(0, len(text), 4)]
    prior = [before[i : i + 4] for i in range(0, len(before), 4)]
    times = []
    for _ in range(runs):
        screen = ReplyScreen(RULES, CONTEXT)
        for delta in prior:
            screen.feed(delta)
        start = time.perf_counter()
        for delta in deltas:
            screen.feed(delta)
        times.append(time.perf_counter() - start)
        screen.finish()
    return sorted(times)[len(times) // 2] / len(deltas) * 1e6


def main() -> None:
    big = corpus(1_000_000)
    if "--profile" in sys.argv:
        profile = cProfile.Profile()
        profile.runcall(feed, big)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        return
    seconds, deltas = feed(big)
    print(f"corpus: {len(big):,} chars, {deltas:,} deltas of 4 characters")
    mbs = len(big) / seconds / 1e6
    print(f"throughput: {mbs:6.2f} MB/s   (target >= 10: {'met' if mbs >= 10 else 'NOT MET'})")
    print(f"floor:      {floor_mbs(big):6.2f} MB/s   (a feed that only keeps each delta and "
          "looks for a sentence end in it)")
    # The same last kilobyte, timed in a 1 KB reply and at the end of a 100 KB reply.
    prefix, last = corpus(99_000, seed=5), corpus(1_000, seed=3)
    last = last[: last.rindex(". ") + 2]  # start the timed part on a sentence start
    prefix = prefix[: prefix.rindex(". ") + 2]
    print(f"per delta, 1 KB reply:   {per_delta_us(last, runs=200):6.2f} µs")
    print(f"per delta, 100 KB reply: {per_delta_us(last, prefix):6.2f} µs   (last 1 KB of it;"
          " about equal)")
    flat = "word " * 200
    print(f"per delta, 1 KB without a sentence end, after 99 KB of them: "
          f"{per_delta_us(flat, 'word ' * 19_800):6.2f} µs")


if __name__ == "__main__":
    main()
