"""engine.internals: every REPLY_RULES entry (and the account-enumeration rule) finds its
examples whole and nothing in its counterexamples; every pattern runs in linear time."""

from __future__ import annotations

import pytest

from replyguard.engine.check_reply import ACCOUNT_ENUMERATION
from replyguard.engine.internals import REPLY_RULES, ReplyRule

ALL_RULES = (*REPLY_RULES, ACCOUNT_ENUMERATION)


def _found(rule: ReplyRule, text: str) -> list[str]:
    return [text[start:end] for start, end in rule.spans(text)]


EXAMPLES = [
    pytest.param(rule, example, id=f"{rule.name}-{i}")
    for rule in ALL_RULES
    for i, example in enumerate(rule.examples)
]
COUNTEREXAMPLES = [
    pytest.param(rule, text, id=f"{rule.name}-{i}")
    for rule in ALL_RULES
    for i, text in enumerate(rule.counterexamples)
]


@pytest.mark.parametrize(("rule", "example"), EXAMPLES)
def test_rule_finds_its_example_whole(rule: ReplyRule, example: str) -> None:
    assert _found(rule, example) == [example]
    assert example in _found(rule, f"See:\n{example}\n(from the logs).")


@pytest.mark.parametrize(("rule", "text"), COUNTEREXAMPLES)
def test_rule_finds_nothing_in_its_counterexample(rule: ReplyRule, text: str) -> None:
    assert _found(rule, text) == []


def test_rules_are_declared_with_examples_and_counterexamples() -> None:
    names = [rule.name for rule in ALL_RULES]
    assert names == [
        "pod_name", "node_name", "internal_url", "internal_host", "log_line", "stack_trace",
        "exception_name", "redaction_placeholder", "version_number", "cloud_account_id",
        "account_enumeration",
    ]
    for rule in ALL_RULES:
        assert rule.examples and rule.counterexamples, rule.name
        assert rule.why.endswith("."), rule.name


#: Per rule, units that repeated to 1 MB make a careless pattern backtrack: a near miss of an
#: example (all of it but its end) and a flood of the characters a match may start with.
ADVERSARIAL = {
    "pod_name": ("api-7d9f8b6c5-x2x7", "a-"),
    "node_name": ("ip-10-0-1-", "gke-a-"),
    "internal_host": ("db-primary.interna", "a."),
    "internal_url": ("http://localhost:8080/.", "http://[:"),
    "log_line": ("2024-05-01T12:00:00Z ERRO", "[ERROR] 2024-05-01T12:00:0"),
    "stack_trace": ("at com.x.Y.method(Y.java:4", 'File "a", line 1\n  x\n'),
    "exception_name": ("ValueErro", "a."),
    "redaction_placeholder": ("[REDACTED", "***"),
    "version_number": ("v2.14.3-", "we are running "),
    "cloud_account_id": ("arn:aws:iam::123456789012", "GCP project "),
    "account_enumeration": ("there is no account with ", "não existe conta com esse e-ma"),
}


def _scan(rule: ReplyRule, text: str) -> None:
    for _ in rule.spans(text):
        pass


@pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.name for rule in ALL_RULES])
def test_rule_runs_in_linear_time(rule: ReplyRule, cpu_time) -> None:
    """A small guard: four times the text (32 KB -> 128 KB) takes about four times as long
    (quadratic time would take 16); tests/bench/bench_cuts.py measures the doubling ratios
    up to 1 MB."""
    size = 1 << 15
    for unit in ADVERSARIAL[rule.name]:
        one = (unit * (size // len(unit) + 1))[:size]
        small = cpu_time(_scan, rule, one)
        large = cpu_time(_scan, rule, one * 4)
        assert large < 8 * small + 0.01, (unit, small, large)
        assert small < 0.1, (unit, small)


def test_every_rule_has_adversarial_input() -> None:
    assert set(ADVERSARIAL) == {rule.name for rule in ALL_RULES}
