"""The counts each request reports (name -> increment) as Counters, made and added up cheaply: they
are made and merged on every request."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping


def new_counts() -> Counter[str]:
    """An empty request's counts. `Counter.__new__` alone: an empty Counter is an empty dict
    (Counter keeps no state of its own), without `Counter()`'s two Python-level calls on
    every request."""
    return Counter.__new__(Counter)


def add_counts(total: Counter[str], more: Mapping[str, int]) -> None:
    """`total.update(more)` for a mapping of counts (name -> increment), without
    Counter.update's abstract-class check on every request."""
    for name, value in more.items():
        total[name] = total.get(name, 0) + value

