"""Prometheus metrics: the `reply_*` counts each reply reports and the proxy's own health
(docs/metrics.md).

Each app owns one `Metrics` with its own CollectorRegistry (no global state). Counts carry no
text and no value: labels are routes, statuses, check names, class names and the API a
request spoke (`api`, one of a fixed set: proxy.record.APIS) only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)

from replyguard.engine.rules import CLASSES

#: Every count a turn or a reply reports, exported under exactly that name (+ `_total`).
REPLY_COUNTS: tuple[str, ...] = (
    "reply_temperature_kept",
    "reply_temperature_varied",
    "reply_exact_reply",
    *(f"reply_pd_detected_{cls}" for cls in CLASSES),
    "reply_pd_masked",
    "reply_pd_withheld",
    "reply_pd_redacted",
    "reply_assertion_refused",
    "reply_outcome_replaced",
    "reply_value_highlighted",
    "reply_value_replaced",
    "reply_outcome_added",
    "reply_wording_removed",
    "reply_offer_removed",
    "reply_wording_added",
    "reply_facts_untraced",
    "reply_facts_traced",
    "reply_facts_conflict",
    "reply_facts_stale",
    "reply_facts_out_of_range",
)

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                    5.0, 10.0, 30.0, 60.0)
_ADDED_BUCKETS = (0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                  0.1, 0.25, 1.0)


class Children:
    """A labelled metric's children, each looked up once: `children(*values)` is
    `metric.labels(*values)` (values are strings, or numbers such as a status, which
    prometheus_client turns into strings), without prometheus_client's validation
    and lock on every request. A child is still created on first use, so a series appears
    in the exposition exactly when it did before."""

    __slots__ = ("_metric", "_children")

    def __init__(self, metric: Any) -> None:
        self._metric = metric
        self._children: dict[tuple[str | int, ...], Any] = {}

    def __call__(self, *values: str | int) -> Any:
        child = self._children.get(values)
        if child is None:
            child = self._children[values] = self._metric.labels(*values)
        return child


class Metrics:
    """The app's metrics, in their own registry.

    `count(counts)` adds the engine's counts (name -> increment; an unknown name is counted in
    `replyguard_unknown_counts`, never created as a series). Latencies are in seconds.
    The `*_by` attributes are the per-request metrics' children, cached (`Children`).
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.seed = {
            name: Counter(name, f"reply count {name}", registry=r) for name in REPLY_COUNTS
        }
        self.requests = Counter("replyguard_requests", "HTTP requests by route, status and API",
                                ("route", "status", "api"), registry=r)
        self.request_latency = Histogram(
            "replyguard_request_seconds", "time from request to the end of the response",
            ("route", "api"), buckets=_LATENCY_BUCKETS, registry=r)
        self.upstream_latency = Histogram(
            "replyguard_upstream_seconds", "time from the upstream call to its response headers",
            ("route", "api"), buckets=_LATENCY_BUCKETS, registry=r)
        self.added_latency = Histogram(
            "replyguard_added_seconds", "time spent in the proxy itself (screening, parsing)",
            ("route", "api"), buckets=_ADDED_BUCKETS, registry=r)
        self.first_token = Histogram(
            "replyguard_first_token_seconds", "time from request to the first released text",
            ("route", "api"), buckets=_LATENCY_BUCKETS, registry=r)
        self.active_streams = Gauge("replyguard_active_streams", "streams being relayed now",
                                    registry=r)
        self.screening_errors = Counter(
            "replyguard_screening_errors", "screening faults (nothing unscreened released)",
            ("stage", "api"), registry=r)
        self.upstream_errors = Counter(
            "replyguard_upstream_errors", "upstream faults by kind", ("kind", "api"), registry=r)
        self.client_disconnects = Counter(
            "replyguard_client_disconnects", "clients gone before the end of a stream",
            registry=r)
        self.overloaded = Counter(
            "replyguard_overloaded", "requests answered 503 overloaded: no upstream "
            "connection came free within upstream.pool_wait_s, or too many long texts were "
            "waiting to be screened", registry=r)
        self.long_screens = Gauge(
            "replyguard_long_screens", "long texts being screened off the event loop: "
            "admitted (running or queued in the worker thread or the screening processes), "
            "waiting_for_room (stream batches waiting for a place among them)", ("state",),
            registry=r)
        self.client_timeouts = Counter(
            "replyguard_client_timeouts", "client connections closed (phase header) or "
            "requests refused 408 (phase body) for sending too slowly", ("phase",), registry=r)
        self.upstream_reachable = Gauge(
            "replyguard_upstream_reachable", "1 when the latest upstream call connected or "
            "was answered, 0 when it could not connect, NaN before the first", registry=r)
        self.rules_reloads = Counter(
            "replyguard_rules_reloads", "reply rules loads by result", ("result",), registry=r)
        self.records_written = Counter(
            "replyguard_records_written", "records written to the store", registry=r)
        self.records_dropped = Counter(
            "replyguard_records_dropped", "records that could not be written (store down, "
            "queue full); each is logged by request id", registry=r)
        self.records_chain_count = Gauge(
            "replyguard_records_chain_count", "records in the hash chain, purged ones "
            "included, as this process last saw its head (the anchor `records verify` "
            "compares with)", registry=r)
        self.rules_version = Gauge(
            "replyguard_rules_version", "the stored rules version in force (0: none)",
            registry=r, multiprocess_mode="max")
        self.guardrail_blocks = Counter(
            "replyguard_guardrail_blocks", "turns blocked by guardrail check", ("check", "api"),
            registry=r)
        self.guardrail_seconds = Histogram(
            "replyguard_guardrail_seconds", "time a guardrail check took (stage input/output; "
            "check prompt_injection_local: the built-in patterns)", ("check", "stage", "api"),
            buckets=_LATENCY_BUCKETS, registry=r)
        self.guardrail_errors = Counter(
            "replyguard_guardrail_errors", "guardrail checks that failed (kind error/timeout)",
            ("check", "stage", "kind", "api"), registry=r)
        self.guardrail_decisions = Counter(
            "replyguard_guardrail_fail_decisions", "failed checks let through (open) or "
            "blocked (closed) by their on_error", ("check", "stage", "decision", "api"),
            registry=r)
        self.guardrail_output_removed = Counter(
            "replyguard_guardrail_output_removed", "reply sentences removed by output "
            "moderation", registry=r)
        self.guardrail_output_flagged = Counter(
            "replyguard_guardrail_output_flagged", "replies with a sentence flagged by output "
            "moderation", registry=r)
        for name, help_text in (
            ("replyguard_internals_redacted", "platform internals masked in replies"),
            ("replyguard_internals_withheld", "reply sentences removed for platform internals"),
            ("replyguard_tool_calls_refused", "tool calls in replies removed: their tool is "
                                              "not allowed (settings tools.<name>.allowed)"),
            ("replyguard_phrasing_fallbacks", "tool phrasings the call could not fill (a "
                                              "missing or misspelt field): built-in sentence"),
            ("replyguard_thinking_unsigned", "Anthropic thinking blocks the screen changed, "
                                             "released without their signature"),
        ):  # engine counts beside the `reply_*` ones (internals, refused calls, fallbacks)
            self.seed[name] = Counter(name, help_text, registry=r)
        self.unknown_counts = Counter(
            "replyguard_unknown_counts", "engine counts with no metric of their own (a bug)",
            registry=r)
        self.turns = Counter("replyguard_turns", "request turns by verdict and API",
                             ("verdict", "api"),
                             registry=r)
        self.screen_cache_hits = Counter(
            "replyguard_screen_cache_hits", "resent texts (history, system prompt) found "
            "screened in the screen cache", registry=r)
        self.screen_cache_misses = Counter(
            "replyguard_screen_cache_misses", "resent texts looked up in the screen cache and "
            "not found (screened again)", registry=r)
        self.screen_cache_entries = Gauge(
            "replyguard_screen_cache_entries", "screened texts the screen cache holds now",
            registry=r)
        # process_* (CPU seconds, resident memory, open files, start time) of this process:
        # with several workers, each worker's, labelled by worker (proxy.peers).
        ProcessCollector(registry=r)
        self.requests_by = Children(self.requests)
        self.request_latency_by = Children(self.request_latency)
        self.upstream_latency_by = Children(self.upstream_latency)
        self.added_latency_by = Children(self.added_latency)
        self.first_token_by = Children(self.first_token)
        self.turns_by = Children(self.turns)
        self.upstream_errors_by = Children(self.upstream_errors)
        self.client_timeouts_by = Children(self.client_timeouts)
        self.screening_errors_by = Children(self.screening_errors)
        self.guardrail_blocks_by = Children(self.guardrail_blocks)

    def count(self, counts: Mapping[str, int]) -> None:
        """Add the engine's counts (name -> increment). A name with no metric of its own is not
        created as a series: it is counted under `replyguard_unknown_counts` instead, so a
        new engine count never breaks a response."""
        for name, value in counts.items():
            if not value:
                continue
            counter = self.seed.get(name)
            if counter is None:
                self.unknown_counts.inc(value)
            else:
                counter.inc(value)

    def cache_lookups(self, hits: int, misses: int) -> None:
        """Add a request's screen cache hits and misses (numbers, usually 0 to a few)."""
        if hits:
            self.screen_cache_hits.inc(hits)
        if misses:
            self.screen_cache_misses.inc(misses)

    def render(self) -> tuple[bytes, str]:
        """The Prometheus text exposition of every metric: (body, content type)."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
