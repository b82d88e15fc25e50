"""Fixtures shared by every test folder."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

import pytest

Measure = Callable[..., float]


@pytest.fixture
def cpu_time() -> Measure:
    """`cpu_time(fn, *args, repeat=3) -> seconds`: the best CPU time of `repeat` calls, with
    the garbage collector paused, so other processes' load and collection pauses do not
    count. For linear-time checks (ratios of sizes), never for speed targets."""

    def measure(fn: Callable[..., Any], *args: Any, repeat: int = 3) -> float:
        best = float("inf")
        gc.collect()
        enabled = gc.isenabled()
        gc.disable()
        try:
            for _ in range(repeat):
                start = time.process_time()
                fn(*args)
                best = min(best, time.process_time() - start)
        finally:
            if enabled:
                gc.enable()
        return best

    return measure
