"""Fixtures shared by every test folder."""

from __future__ import annotations

import gc
import importlib.util
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
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


def _load_corpus() -> ModuleType:
    """tests/data/corpus.py, loaded by path (tests/ is no package)."""
    path = Path(__file__).parent / "data" / "corpus.py"
    spec = importlib.util.spec_from_file_location("replyguard_test_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def labelled_corpus() -> list[tuple[str, list[tuple[str, int, int]]]]:
    """`(text, [(class, start, end), ...])`: generated values (fixed seed), hard negatives."""
    return _load_corpus().labelled()
