"""Fixtures shared by every test folder."""

from __future__ import annotations

import gc
import importlib.abc
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

#: The folders ReplyGuard installs under `replyguard.` (`replyguard.engine`, ...). The
#: repository root is on `sys.path` while the tests run (they import `tests.*`), which would
#: make each importable under its bare folder name too: refused here, so a test can only
#: import what a user can (one import name).
_FOLDERS = frozenset({"engine", "proxy", "config"})


class _OneImportName(importlib.abc.MetaPathFinder):
    """Refuses `engine`, `proxy` and `config` as top-level module names."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname.split(".")[0] in _FOLDERS:
            raise ModuleNotFoundError(f"No module named {fullname!r} (import it as "
                                      f"'replyguard.{fullname}')", name=fullname)
        return None


sys.meta_path.insert(0, _OneImportName())

Measure = Callable[..., float]


@pytest.fixture
def cpu_time() -> Measure:
    """`cpu_time(fn, *args, repeat=3) -> seconds`: the best CPU time of `repeat` calls, with
    the garbage collector paused, so other processes' load and collection pauses do not
    count (no collection is forced first: a full one costs more than a small guard's
    calls). For linear-time checks (ratios of sizes), never for speed targets."""

    def measure(fn: Callable[..., Any], *args: Any, repeat: int = 3) -> float:
        best = float("inf")
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
