"""`proxy.series` exposes exactly what prometheus_client's own Counter and Histogram expose for
the same counts and observations (only the `_created` times differ)."""

from __future__ import annotations

import re

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from proxy.series import LabelledCounter, RouteHistogram

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
           30.0, 60.0)


def exposition(registry: CollectorRegistry) -> str:
    """The text exposition with every `_created` time replaced by T."""
    return re.sub(r"(_created\{[^}]*\}) \S+", r"\1 T", generate_latest(registry).decode())


def test_counter_exposition_is_prometheus_clients() -> None:
    theirs, ours = CollectorRegistry(), CollectorRegistry()
    counter = Counter("x_requests", "requests", ("route", "status"), registry=theirs)
    mine = LabelledCounter("x_requests", "requests", ("route", "status"), ours)
    for route, status in [("/a", 200), ("/b", 404), ("/a", 200), ("/a", 502)]:
        counter.labels(route, str(status)).inc()
        mine.inc(route, status)
    assert exposition(ours) == exposition(theirs)
    assert ours.get_sample_value("x_requests_total", {"route": "/a", "status": "200"}) == 2.0


@pytest.mark.parametrize("amounts", [
    [0.003],
    [0.0, 0.0005, 0.001, 60.0, 60.0001],  # on a bucket's bound, and above the last one
    [1e-9, 0.2, 0.2, 7.5, 1e6, float("inf")],
    [-1.0, 0.01],
])
def test_histogram_exposition_is_prometheus_clients(amounts: list[float]) -> None:
    theirs, ours = CollectorRegistry(), CollectorRegistry()
    histogram = Histogram("x_seconds", "latency", ("route",), buckets=BUCKETS, registry=theirs)
    mine = RouteHistogram("x_seconds", "latency", BUCKETS, ours)
    for i, amount in enumerate(amounts):
        route = ("/a", "/b")[i % 2]
        histogram.labels(route).observe(amount)
        mine.observe(route, amount)
    assert exposition(ours) == exposition(theirs)


def test_a_series_appears_on_first_use_and_a_name_is_registered_once() -> None:
    registry = CollectorRegistry()
    LabelledCounter("x_turns", "turns", ("verdict",), registry)
    assert "x_turns_total{" not in exposition(registry)
    with pytest.raises(ValueError, match="Duplicated timeseries"):
        RouteHistogram("x_turns", "again", BUCKETS, registry)
