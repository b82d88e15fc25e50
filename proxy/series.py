"""The per-request metrics (requests, turns, latencies by route) kept as plain numbers and
exposed through prometheus_client's custom-collector API (`Collector`, `*MetricFamily`).

A request records five or six of them. prometheus_client's own `Counter.inc` and
`Histogram.observe` cost about 4,000 and 8,000 CPU instructions a call (label checks, a lock
and four or five Python calls each); here a count is a dict look-up and an increment, an
observation a `bisect` into a list. The exposition is the same as theirs: names, help,
labels, buckets, values and `_created` series. Only the event loop's thread records; a scrape
reads a copy of the series.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from prometheus_client import metrics as _metrics
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry
from prometheus_client.samples import Sample
from prometheus_client.utils import INF, floatToGoString


def _use_created() -> bool:
    """Whether `_created` series are exposed: prometheus_client's own switch
    (`PROMETHEUS_DISABLE_CREATED_SERIES`, `disable_created_metrics()`)."""
    return bool(getattr(_metrics, "_use_created", True))


class LabelledCounter(Collector):
    """A counter with labels, as prometheus_client's `Counter(name, documentation,
    labelnames)` exposes it. `inc(*values)` adds one to the series of those label values
    (strings, or numbers such as a status, exposed as `str(value)`); a series appears on its
    first count, with its `_created` time."""

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str],
                 registry: CollectorRegistry) -> None:
        self._name, self._documentation = name, documentation
        self._labelnames = tuple(labelnames)
        #: label values as given -> [count, created, label values as strings]
        self._series: dict[tuple[str | int, ...], list] = {}
        registry.register(self)

    def inc(self, *values: str | int) -> None:
        """Count one for the series of `values` (one per label name)."""
        series = self._series.get(values)
        if series is None:
            series = self._series[values] = [0.0, time.time(), [str(v) for v in values]]
        series[0] += 1.0

    def describe(self) -> list[CounterMetricFamily]:
        """The family's name and type, for the registry's duplicate check."""
        return [CounterMetricFamily(self._name, self._documentation, labels=self._labelnames)]

    def collect(self) -> Iterator[CounterMetricFamily]:
        """Every series so far, in the order they appeared."""
        family = CounterMetricFamily(self._name, self._documentation, labels=self._labelnames)
        created = _use_created()
        for value, at, labels in list(self._series.values()):
            family.add_metric(labels, value, created=at if created else None)
        yield family


class RouteHistogram(Collector):
    """A histogram by route, as prometheus_client's `Histogram(name, documentation,
    ("route",), buckets=...)` exposes it. `observe(route, amount)` counts `amount` in the
    first bucket whose upper bound is at least `amount` (and `+Inf`)."""

    def __init__(self, name: str, documentation: str, buckets: Sequence[float],
                 registry: CollectorRegistry) -> None:
        self._name, self._documentation = name, documentation
        bounds = [float(b) for b in buckets]
        if bounds[-1] != INF:
            bounds.append(INF)
        self._bounds = tuple(bounds)
        self._les = tuple(floatToGoString(b) for b in bounds)
        #: route -> [per-bucket counts (not cumulative), sum, created]
        self._series: dict[str, list] = {}
        registry.register(self)

    def observe(self, route: str, amount: float) -> None:
        """Count `amount` (seconds) for `route`."""
        series = self._series.get(route)
        if series is None:
            series = self._series[route] = [[0] * len(self._bounds), 0.0, time.time()]
        series[0][bisect_left(self._bounds, amount)] += 1
        series[1] += amount

    def describe(self) -> list[HistogramMetricFamily]:
        """The family's name and type, for the registry's duplicate check."""
        return [HistogramMetricFamily(self._name, self._documentation, labels=("route",))]

    def collect(self) -> Iterator[HistogramMetricFamily]:
        """Every route's buckets (cumulative), count, sum and `_created`."""
        family = HistogramMetricFamily(self._name, self._documentation, labels=("route",))
        created = _use_created()
        for route, (counts, total, at) in list(self._series.items()):
            buckets, seen = [], 0.0
            for le, count in zip(self._les, list(counts), strict=True):
                seen += count
                buckets.append((le, seen))
            family.add_metric([route], buckets, total)
            if created:
                family.samples.append(Sample(self._name + "_created", {"route": route}, at,
                                             None))
        yield family
