"""Benchmark of engine.injection.detect_injection (run on demand, not collected by pytest).

    python tests/bench/bench_injection.py

Reports the median CPU time to check a 300-character benign customer message (whole check, and
the normaliser alone), MB/s on ~1 MB of benign customer messages (whole check and normaliser
alone) and on ~1 MB of the case table's benign near misses (text thick with the patterns' own
words, so the alternation is tried far more often), the doubling ratio (CPU time for 2 MB of
benign text / for 1 MB; a quadratic search gives 4), and the time to import the engine
(`replyguard`, which compiles the injection table with every other pattern) in a fresh
interpreter.
Targets: <= 40 µs for 300 characters, >= 10 MB/s on benign text, doubling ratio < 2.5. All
times are CPU time of this process (the machine is shared); run it three times and take the
median.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from replyguard.engine.injection import detect_injection, normalize_injection_text  # noqa: E402
from tests.bench.bench_detectors import _time as _best  # noqa: E402  (best CPU seconds)
from tests.data.injection_cases import BENIGN  # noqa: E402

MESSAGES = [
    "Hi, my order 4412 arrived yesterday but the lid of the blender was cracked.",
    "Could you send me a replacement, or should I return the whole thing?",
    "I tried to change my delivery address in the app but it keeps saying error 503.",
    "What are your opening hours on Saturday? I'd like to pick it up in person.",
    "Thanks for the quick answer! Can you also tell me when the refund will arrive?",
    "My card was charged twice for the same order, please have a look.",
    "Olá, meu pedido ainda não chegou e o rastreio não atualiza desde segunda.",
    "Posso trocar o tamanho da camiseta? Comprei M mas preciso de G.",
    "Is it possible to ship to Portugal, and how long does it usually take?",
    "The instructions on the box say to charge it for 8 hours before first use, is that right?",
    "I forgot my password and the reset email never comes, I checked spam too.",
    "Do you have the navy one in stock again? The site says sold out.",
]
#: The benign look-alikes of the case table: near misses, thick with the patterns' words.
NEAR_MISSES = [text for text, _ in BENIGN]


def benign(size: int, seed: int = 11, messages: list[str] = MESSAGES) -> str:
    """About `size` characters of benign customer messages, in random order."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        message = rng.choice(messages)
        parts.append(message)
        total += len(message) + 1
    return " ".join(parts)[:size]


def message_us(work: Callable[[str], object], length: int = 300, batches: int = 60,
               batch: int = 200) -> float:
    """Median CPU µs of `work` on `length`-character benign messages (timed in batches, as
    one call is near the clock's resolution; each batch goes through 20 different texts)."""
    texts = [benign(length, seed=seed) for seed in range(20)]
    times = []
    for _ in range(batches):
        start = time.process_time()
        for i in range(batch):
            work(texts[i % 20])
        times.append((time.process_time() - start) / batch)
    return statistics.median(times) * 1e6


def import_ms(repeat: int = 5) -> float:
    """Best CPU ms to import the engine in a fresh interpreter (`replyguard.engine.injection`
    loads the package, so the figure holds every module's compiling, the injection table's
    included; the standard library's modules it needs are imported first)."""
    code = ("import time, unicodedata, re, dataclasses; t = time.process_time(); "
            "import replyguard.engine.injection; print(time.process_time() - t)")
    runs = [float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout) for _ in range(repeat)]
    return min(runs) * 1000


def _verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


def main() -> None:
    text = benign(1_000_000)
    assert detect_injection(text) is None, "the benign corpus must give no match"
    whole_us = message_us(detect_injection)
    norm_us = message_us(normalize_injection_text)
    print(f"300-character message: {whole_us:6.1f} µs median   "
          f"(target <= 40: {_verdict(whole_us <= 40)})")
    print(f"  normaliser alone:    {norm_us:6.1f} µs median")
    whole_mbs = len(text) / _best(lambda: detect_injection(text)) / 1e6
    norm_mbs = len(text) / _best(lambda: normalize_injection_text(text)) / 1e6
    print(f"benign text:           {whole_mbs:6.1f} MB/s     (target >= 10: "
          f"{_verdict(whole_mbs >= 10)})")
    print(f"  normaliser alone:    {norm_mbs:6.1f} MB/s")
    near = benign(1_000_000, messages=NEAR_MISSES)
    assert detect_injection(near) is None, "the near misses must give no match"
    near_mbs = len(near) / _best(lambda: detect_injection(near)) / 1e6
    print(f"near misses:           {near_mbs:6.1f} MB/s")
    double = text + text
    ratio = _best(lambda: detect_injection(double)) / _best(lambda: detect_injection(text))
    print(f"doubling ratio:        {ratio:6.2f}          (target < 2.5: {_verdict(ratio < 2.5)})")
    print(f"import the engine:     {import_ms():5.1f} ms (best of 5)")


if __name__ == "__main__":
    main()
