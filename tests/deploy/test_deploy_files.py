"""The deploy files parse, every metric they query is one the proxy exports, the dashboard
has an instance variable every query uses, the alert rules pass `promtool test rules`, and
the compose file is valid against the Compose Specification's schema."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import tool

from replyguard.proxy.metrics import Metrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _exported() -> set[str]:
    """Series names the registry exports, labelled or not (from each metric's type)."""
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"),
                "gauge": ("",)}
    return {metric.name + suffix for metric in Metrics().registry.collect()
            for suffix in suffixes[metric.type]}


def _queried(text: str) -> set[str]:
    return set(re.findall(r"\b((?:reply(?:guard)?|process)_[a-z_]+)\b", text))


def test_dashboard_queries_only_exported_metrics() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "replyguard-dashboard.json").read_text())
    exprs = " ".join(t["expr"] for p in dashboard["panels"] for t in p["targets"])
    missing = sorted(_queried(exprs) - _exported())
    assert missing == []


def test_alerts_query_only_exported_metrics() -> None:
    text = (DEPLOY / "prometheus" / "alerts.yaml").read_text()
    rules = yaml.safe_load(text)["groups"][0]["rules"]
    assert [r["alert"] for r in rules] == [
        "ReplyGuardTargetDown", "ReplyGuardScreeningErrors", "ReplyGuardOverloaded",
        "ReplyGuardUpstreamErrors", "ReplyGuardUpstreamUnreachable",
        "ReplyGuardAddedLatencyHigh", "ReplyGuardWithheldSpike",
    ]
    assert "offset" not in text  # every rule can fire in a deployment's first day
    missing = sorted(_queried(" ".join(r["expr"] for r in rules)) - _exported())
    assert missing == []


def _labels() -> dict[str, set[str]]:
    """Each exported series name -> the label names the proxy gives it (read from each
    metric's declaration: a labelled metric has no sample before its first use)."""
    registry = Metrics().registry
    return {name: set(getattr(metric, "_labelnames", ()))
            for metric, names in registry._collector_to_names.items() for name in names}


#: Labels Prometheus or the scrape adds (target labels, the histogram's bucket bound).
_SCRAPED = {"instance", "job", "le", "worker"}


def _grouped_labels(expr: str) -> list[tuple[str, set[str]]]:
    """Each `by (...)` clause of `expr` with the metrics it reads (their names)."""
    return [(clause, _queried(expr)) for clause in re.findall(r"\bby \(([^)]*)\)", expr)]


@pytest.mark.parametrize("where", ["dashboard", "alerts"])
def test_every_grouping_label_is_one_the_metrics_carry(where: str) -> None:
    if where == "dashboard":
        dashboard = json.loads((DEPLOY / "grafana" / "replyguard-dashboard.json").read_text())
        exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    else:
        rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yaml").read_text())
        exprs = [r["expr"] for r in rules["groups"][0]["rules"]]
    labels = _labels()
    for expr in exprs:
        for clause, names in _grouped_labels(expr):
            wanted = {label.strip() for label in clause.split(",")} - _SCRAPED
            carried = set().union(*(labels.get(n, set()) for n in names))
            assert wanted <= carried, (expr, wanted - carried)


def test_per_request_metrics_carry_the_api_label() -> None:
    labels = _labels()
    exported = _exported()
    assert {name for name, names in labels.items() if "api" in names and name in exported} == {
        "replyguard_requests_total", "replyguard_request_seconds_bucket",
        "replyguard_request_seconds_count", "replyguard_request_seconds_sum",
        "replyguard_upstream_seconds_bucket", "replyguard_upstream_seconds_count",
        "replyguard_upstream_seconds_sum", "replyguard_added_seconds_bucket",
        "replyguard_added_seconds_count", "replyguard_added_seconds_sum",
        "replyguard_first_token_seconds_bucket", "replyguard_first_token_seconds_count",
        "replyguard_first_token_seconds_sum", "replyguard_turns_total",
        "replyguard_screening_errors_total", "replyguard_upstream_errors_total",
        "replyguard_guardrail_blocks_total", "replyguard_guardrail_seconds_bucket",
        "replyguard_guardrail_seconds_count", "replyguard_guardrail_seconds_sum",
        "replyguard_guardrail_errors_total", "replyguard_guardrail_fail_decisions_total",
    }


def test_dashboard_has_an_instance_variable_every_query_uses() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "replyguard-dashboard.json").read_text())
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["instance"]["query"]["query"] == \
        "label_values(replyguard_requests_total, instance)"
    assert variables["instance"]["includeAll"] is True
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            for selector in re.findall(r"\b(?:reply|replyguard|process)_[a-z_]+(\{[^}]*\})?",
                                       target["expr"]):
                assert 'instance=~"$instance"' in selector, (panel["title"], target["expr"])
    titles = {p["title"] for p in dashboard["panels"]}
    assert {"Guardrail blocks and check failures", "Screen cache: hit ratio and entries",
            "Refused tool calls and phrasing fallbacks",
            "Overload, slow clients and upstream reachability",
            "Memory and CPU per worker"} <= titles
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])


def test_alert_rules_pass_promtool() -> None:
    promtool = tool("promtool", "Debian's prometheus package: `promtool test rules`")
    for args in (["check", "rules", "alerts.yaml"], ["test", "rules", "alerts_test.yaml"]):
        done = subprocess.run([promtool, *args], cwd=DEPLOY / "prometheus", capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    tested = yaml.safe_load((DEPLOY / "prometheus" / "alerts_test.yaml").read_text())
    fired = {t["alertname"] for test in tested["tests"] for t in test["alert_rule_test"]
             if t["exp_alerts"]}
    rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yaml").read_text())
    assert fired == {r["alert"] for r in rules["groups"][0]["rules"]}  # each shown firing


def test_compose_file_is_valid_and_wires_the_stack() -> None:
    schema = json.loads((Path(__file__).parent / "schemas" / "compose-spec.json").read_text())
    compose = yaml.safe_load((DEPLOY / "compose" / "compose.yaml").read_text())
    jsonschema.Draft7Validator(schema).validate(compose)
    assert set(compose["services"]) == {"replyguard", "postgres", "prometheus", "grafana"}
    scrape = yaml.safe_load((DEPLOY / "compose" / "prometheus.yml").read_text())
    (job,) = scrape["scrape_configs"]
    settings = yaml.safe_load((DEPLOY / "compose" / "replyguard.yaml").read_text())
    assert job["static_configs"][0]["targets"] == [
        f"replyguard:{settings['listen']['admin_port']}"]
    compose_dir = DEPLOY / "compose"
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (compose_dir / source).exists(), source


def test_compose_file_schema_refuses_an_unknown_key() -> None:
    schema = json.loads((Path(__file__).parent / "schemas" / "compose-spec.json").read_text())
    compose = yaml.safe_load((DEPLOY / "compose" / "compose.yaml").read_text())
    compose["services"]["replyguard"]["enviroment"] = {}
    try:
        jsonschema.Draft7Validator(schema).validate(compose)
    except jsonschema.ValidationError:
        return
    raise AssertionError("a misspelt key passed the Compose schema")


def test_image_sets_no_setting_that_would_override_the_settings_file() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "REPLYGUARD_" not in dockerfile.replace("# No REPLYGUARD_LISTEN_* here", "")
