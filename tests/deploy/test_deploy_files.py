"""The deploy files parse, and every metric they query is one the proxy exports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from replyguard.proxy.metrics import Metrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _exported() -> set[str]:
    """Series names the registry exports, labelled or not (from each metric's type)."""
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"),
                "gauge": ("",)}
    return {metric.name + suffix for metric in Metrics().registry.collect()
            for suffix in suffixes[metric.type]}


def _queried(text: str) -> set[str]:
    return set(re.findall(r"\b(reply(?:guard)?_[a-z_]+)\b", text))


def test_dashboard_queries_only_exported_metrics() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "replyguard-dashboard.json").read_text())
    exprs = " ".join(t["expr"] for p in dashboard["panels"] for t in p["targets"])
    missing = sorted(_queried(exprs) - _exported())
    assert missing == []


def test_alerts_query_only_exported_metrics() -> None:
    text = (DEPLOY / "prometheus" / "alerts.yaml").read_text()
    rules = yaml.safe_load(text)["groups"][0]["rules"]
    assert [r["alert"] for r in rules] == [
        "ReplyGuardScreeningErrors", "ReplyGuardUpstreamErrors", "ReplyGuardAddedLatencyHigh",
        "ReplyGuardWithheldSpike",
    ]
    missing = sorted(_queried(" ".join(r["expr"] for r in rules)) - _exported())
    assert missing == []
