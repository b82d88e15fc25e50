"""engine.check_reply: the exact findings (rule, text) for staff drafts, in order."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from replyguard.engine.check_reply import (
    ACCOUNT_ENUMERATION,
    DETECTOR_REASONS,
    MAX_FINDINGS,
    ReplyFinding,
    check_reply,
    rule_name,
)
from replyguard.engine.detectors import DETECTORS
from replyguard.engine.internals import REPLY_RULES, ReplyRule

REQUESTER = "Jane.Doe@example.com"

CLEAN = [
    "Hi Jane, thanks for reaching out. Your order #48213 shipped on 2024-05-01 and should "
    "arrive by Friday.",
    "The total was $1,299.00, including $49.99 for shipping.",
    "Our support line is open from 09:00 to 17:30, Monday to Friday.",
    "You mentioned you are on version 3.2.1 of the app; please update to the latest version "
    "from the App Store.",
    "I can see that iOS 17.4.1 is installed on your phone.",
    "Your refund of R$ 250,00 was issued on 01/05/2024 and takes 5 to 7 business days.",
    "Thanks for the screenshot: the error message you saw means the session expired. Please "
    "log in again.",
    "If an account exists for that address, you'll receive an email with a reset link.",
    "Se existir uma conta com esse e-mail, você receberá uma mensagem com o link.",
    "Your ticket number is 20240501-0042; keep it for your records.",
    "The meeting is at 10:30 (UTC) on May 3rd.",
    "We are sorry for the delay. The local store on Main Street has the item in stock.",
    "Your plan renews on 2024-06-01 at 12:00 for 19.90 EUR per month.",
    "Please clear your browser cache and try again; Chrome and Firefox both work.",
    "Olá! Seu pedido nº 55231 foi enviado hoje às 14h e chega em até 3 dias úteis.",
    "Our password rules ask for at least 12 characters; you can reset it from the link we sent.",
    "Error messages are shown in red at the top of the page.",
    "We couldn't find your order in the first search, but it turned up under your other name.",
    "Version 2.0 of the dashboard added dark mode.",
    "You wrote to us from Jane.Doe@example.com, which is the address we will use.",
]

DRAFTS = [
    pytest.param(text, [], id=f"clean_{i}") for i, text in enumerate(CLEAN)
] + [
    pytest.param("Write to jane.doe@EXAMPLE.com or to bob@example.com.",
                 [("email", "bob@example.com")], id="own_email_allowed_other_reported"),
    pytest.param("Your card 4111 1111 1111 1111 was charged.",
                 [("credit_card", "4111 1111 1111 1111")], id="card"),
    pytest.param("Send it to GB82 WEST 1234 5698 7654 32 please.",
                 [("iban", "GB82 WEST 1234 5698 7654 32")], id="iban"),
    pytest.param("The SSN on file is 078-05-1121.", [("us_ssn", "078-05-1121")], id="ssn"),
    pytest.param("O CPF cadastrado é 529.982.247-25.", [("br_cpf", "529.982.247-25")],
                 id="cpf"),
    pytest.param("His NINO is AB123456C.", [("uk_nino", "AB123456C")], id="nino"),
    pytest.param("Call him on +44 20 7946 0123.", [("phone_number", "+44 20 7946 0123")],
                 id="phone"),
    pytest.param("Use the key sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD for now.",
                 [("api_key", "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD")], id="api_key"),
    pytest.param("The access key is AKIAIOSFODNN7EXAMPLE.",
                 [("aws_access_key", "AKIAIOSFODNN7EXAMPLE")], id="aws_key"),
    pytest.param("Log in with password: hunter2Secret! and change it.",
                 [("password_assignment", "hunter2Secret!")], id="password"),
    pytest.param("Your request came from 203.0.113.42.", [("ip_address", "203.0.113.42")],
                 id="ip"),
    pytest.param("The pod api-7d9f8b6c5-x2x7k restarted twice.",
                 [("pod_name", "api-7d9f8b6c5-x2x7k")], id="pod"),
    pytest.param("It ran on node ip-10-0-1-23.ec2.internal until the drain.",
                 [("node_name", "ip-10-0-1-23.ec2.internal")], id="node_aws"),
    pytest.param("Node gke-prod-pool-1-abcd1234-xyz1 was replaced.",
                 [("node_name", "gke-prod-pool-1-abcd1234-xyz1")], id="node_gke"),
    pytest.param("aks-nodepool1-12345678-vmss000000 is healthy again.",
                 [("node_name", "aks-nodepool1-12345678-vmss000000")], id="node_aks"),
    pytest.param("The database db-primary.internal was slow.",
                 [("internal_host", "db-primary.internal")], id="host_internal"),
    pytest.param("It calls payments.default.svc.cluster.local and billing.corp.",
                 [("internal_host", "payments.default.svc.cluster.local"),
                  ("internal_host", "billing.corp")], id="host_two"),
    pytest.param("See http://localhost:8080/admin for details.",
                 [("internal_url", "http://localhost:8080/admin")], id="url_localhost"),
    pytest.param("Grafana is at https://grafana.monitoring.svc.cluster.local/d/x.",
                 [("internal_url", "https://grafana.monitoring.svc.cluster.local/d/x")],
                 id="url_internal_host_not_reported_twice"),
    pytest.param("The admin page http://10.0.3.7:9090/metrics timed out.",
                 [("ip_address", "10.0.3.7")], id="url_private_ip_is_the_ip_finding"),
    pytest.param("Open http://payments-api:8080/v1/health, then retry.",
                 [("internal_url", "http://payments-api:8080/v1/health")], id="url_single_label"),
    pytest.param("Our logs show 2024-05-01T12:00:00Z ERROR payment declined.",
                 [("log_line", "2024-05-01T12:00:00Z ERROR")], id="log_iso"),
    pytest.param("[2024-05-01 12:00:00,123] WARN retrying", [
        ("log_line", "[2024-05-01 12:00:00,123] WARN")], id="log_bracketed"),
    pytest.param("E0501 12:00:00.123456       1 controller.go:114] sync failed",
                 [("log_line", "E0501 12:00:00.123456       1 controller.go:114]")], id="log_klog"),
    pytest.param(
        'Traceback (most recent call last):\n  File "/app/main.py", line 10, in <module>\n'
        "    main()\nValueError: bad input",
        [("stack_trace", 'Traceback (most recent call last):\n  File "/app/main.py", line 10, '
                         "in <module>\n    main()"),
         ("exception_name", "ValueError")], id="python_trace"),
    pytest.param("Failed at com.x.Y.method(Y.java:42) with NullPointerException.",
                 [("stack_trace", "at com.x.Y.method(Y.java:42)"),
                  ("exception_name", "NullPointerException")], id="java_frame"),
    pytest.param("It broke at fn (file.js:10:5) on load.",
                 [("stack_trace", "at fn (file.js:10:5)")], id="js_frame"),
    pytest.param("The server raised a KeyError, then an error page.",
                 [("exception_name", "KeyError")], id="exception"),
    pytest.param("java.lang.IllegalStateException was thrown.",
                 [("exception_name", "java.lang.IllegalStateException")], id="exception_dotted"),
    pytest.param("The field shows [REDACTED] and <redacted> and ***REDACTED***.",
                 [("redaction_placeholder", "[REDACTED]"), ("redaction_placeholder", "<redacted>"),
                  ("redaction_placeholder", "***REDACTED***")], id="placeholders"),
    pytest.param("Your note came through as [FILTERED].",
                 [("redaction_placeholder", "[FILTERED]")], id="filtered"),
    pytest.param("This is fixed in v2.14.3, out next week.", [("version_number", "v2.14.3")],
                 id="version_v"),
    pytest.param("We're running 2.14.3 right now.", [("version_number", "We're running 2.14.3")],
                 id="version_running"),
    pytest.param("The fix is in 1.2.3-rc1.", [("version_number", "1.2.3-rc1")], id="version_rc"),
    pytest.param("The image payments-api:2.14.3 is rolling out.",
                 [("version_number", "payments-api:2.14.3")], id="version_image"),
    pytest.param("The role is arn:aws:iam::123456789012:role/support.",
                 [("cloud_account_id", "arn:aws:iam::123456789012:role/support")], id="arn"),
    pytest.param("AWS account id 123456789012 hit its limit.",
                 [("cloud_account_id", "AWS account id 123456789012")], id="aws_account"),
    pytest.param("It lives in project: my-proj-123456 on GCP.",
                 [("cloud_account_id", "project: my-proj-123456")], id="gcp_project"),
    pytest.param("Azure subscription 0b1f6471-1bf0-4dda-aec3-cb9272f09590 is billed.",
                 [("cloud_account_id", "subscription 0b1f6471-1bf0-4dda-aec3-cb9272f09590")],
                 id="azure_subscription"),
    pytest.param("Sorry, there is no account with that address.",
                 [("account_enumeration", "there is no account with that address")],
                 id="enum_no_account"),
    pytest.param("We couldn't find a user with that email.",
                 [("account_enumeration", "We couldn't find a user with that email")],
                 id="enum_couldnt_find"),
    pytest.param("That email is already registered, so please log in.",
                 [("account_enumeration", "That email is already registered")],
                 id="enum_already_registered"),
    pytest.param("No user exists with this email address.",
                 [("account_enumeration", "No user exists with this email address")],
                 id="enum_no_user_exists"),
    pytest.param("This email is not associated with any account.",
                 [("account_enumeration", "This email is not associated with any account")],
                 id="enum_not_associated"),
    pytest.param("Olá! Não existe conta com esse e-mail.",
                 [("account_enumeration", "Não existe conta com esse e-mail")], id="enum_pt_1"),
    pytest.param("Não encontramos nenhum usuário com esse e-mail.",
                 [("account_enumeration", "Não encontramos nenhum usuário com esse e-mail")],
                 id="enum_pt_2"),
    pytest.param("Esse e-mail já está cadastrado.",
                 [("account_enumeration", "Esse e-mail já está cadastrado")], id="enum_pt_3"),
    pytest.param("NAO EXISTE CONTA COM ESSE EMAIL.",
                 [("account_enumeration", "NAO EXISTE CONTA COM ESSE EMAIL")],
                 id="enum_pt_no_accents_upper"),
    pytest.param("There is no account for bob@example.com.",
                 [("email", "bob@example.com"), ("account_enumeration", "There is no account for")],
                 id="enum_with_an_address"),
    pytest.param("There is no account for jane.doe@example.com.",
                 [("account_enumeration", "There is no account for")],
                 id="enum_whatever_the_address"),
    pytest.param(
        "Hi Jane, pod api-7d9f8b6c5-x2x7k on ip-10-0-1-23 logged "
        "2024-05-01T12:00:00Z ERROR KeyError for bob@example.com; we couldn't find a user "
        "with that email.",
        [("email", "bob@example.com"), ("pod_name", "api-7d9f8b6c5-x2x7k"),
         ("node_name", "ip-10-0-1-23"), ("log_line", "2024-05-01T12:00:00Z ERROR"),
         ("exception_name", "KeyError"),
         ("account_enumeration", "we couldn't find a user with that email")],
        id="detectors_first_then_rules_in_table_order"),
    pytest.param("Reach vault.prod.internal via https://vault.prod.internal/ui.",
                 [("internal_url", "https://vault.prod.internal/ui"),
                  ("internal_host", "vault.prod.internal")],
                 id="url_then_host_separately"),
    pytest.param("Mail admin@build01.corp for access.", [("email", "admin@build01.corp")],
                 id="email_claims_its_internal_domain"),
    pytest.param("Write to jane.doe@example.local.", [], id="own_internal_email_claimed"),
]


def _pairs(findings: list[ReplyFinding]) -> list[tuple[str, str]]:
    return [(f.rule, f.text) for f in findings]


@pytest.mark.parametrize(("draft", "expected"), DRAFTS)
def test_draft_findings(draft: str, expected: list[tuple[str, str]]) -> None:
    requester = "jane.doe@example.local" if "example.local" in draft else REQUESTER
    assert _pairs(check_reply(draft, requester)) == expected


def test_table_is_big_enough() -> None:
    assert len(DRAFTS) >= 60
    assert len(CLEAN) >= 15


def test_without_a_requester_every_email_is_reported() -> None:
    draft = "Write to jane.doe@example.com or to bob@example.com."
    assert _pairs(check_reply(draft)) == [("email", "jane.doe@example.com"),
                                          ("email", "bob@example.com")]


def test_findings_carry_the_reason() -> None:
    found = check_reply("Card 4111 1111 1111 1111, pod api-7d9f8b6c5-x2x7k, there is no "
                        "account with that address.")
    assert found == [
        ReplyFinding("credit_card", "4111 1111 1111 1111", "Card numbers are payment data."),
        ReplyFinding("pod_name", "api-7d9f8b6c5-x2x7k", REPLY_RULES[0].why),
        ReplyFinding("account_enumeration", "there is no account with that address",
                     ACCOUNT_ENUMERATION.why),
    ]


#: The staff help desk's detector names and reasons, word for word.
DOCUMENTED_REASONS = {
    "api_key": "Keys are secrets.",
    "aws_access_key": "Keys are secrets.",
    "credit_card": "Card numbers are payment data.",
    "email": "Email addresses other than the requester's are another person's data.",
    "iban": "Bank account numbers are payment data.",
    "ip_address": "IP addresses are personal data, or describe the platform's network.",
    "jwt": "Tokens are secrets.",
    "password_assignment": "Passwords are secrets.",
    "phone_number": "Phone numbers are personal data.",
    "private_key": "Keys are secrets.",
    "us_ssn": "Social security numbers are personal data.",
}


def test_detector_reasons_are_the_documented_ones_and_seven_more() -> None:
    assert dict(DETECTOR_REASONS) == {
        **DOCUMENTED_REASONS,
        "uk_nino": "National Insurance numbers are personal data.",
        "uk_nhs": "NHS numbers are personal data.",
        "br_cpf": "CPF numbers are personal data.",
        "url_password": "Passwords are secrets.",
        "password_phrase": "Passwords are secrets.",
        "password_confirm": "Passwords are secrets.",
        "cli_password": "Passwords are secrets.",
    }


def test_every_detector_has_a_named_reason() -> None:
    names = {rule_name(d.id) for d in DETECTORS}
    assert (names, {rule_name("ipv4_address"), rule_name("ipv6_address")}) == (
        set(DETECTOR_REASONS), {"ip_address"})


@pytest.mark.parametrize(("draft", "rule"), [
    ("Card 4111 1111 1111 1111.", "credit_card"),
    ("SSN 078-05-1121.", "us_ssn"),
    ("NINO AB123456C.", "uk_nino"),
    ("CPF 529.982.247-25.", "br_cpf"),
    ("Call +44 20 7946 0123.", "phone_number"),
    ("password: hunter2Secret!", "password_assignment"),
    ("ALTER USER app IDENTIFIED BY 'hunter2Secret!';", "password_phrase"),
    ("postgres://admin:s3cr3tPa55@db/shop", "url_password"),
    ("From 203.0.113.42.", "ip_address"),
    ("From 2001:db8::8a2e:370:7334.", "ip_address"),
    ("Key sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD.", "api_key"),
    ("Key AKIAIOSFODNN7EXAMPLE.", "aws_access_key"),
    ("IBAN GB82 WEST 1234 5698 7654 32.", "iban"),
    ("Mail bob@example.com.", "email"),
    ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "private_key"),
])
def test_finding_names_and_reasons(draft: str, rule: str) -> None:
    assert [(f.rule, f.why) for f in check_reply(draft)] == [(rule, DETECTOR_REASONS[rule])]


def test_a_reply_rule_of_three_arguments() -> None:
    rule = ReplyRule("ticket_id", re.compile(r"TCK-\d+"), "Ticket ids are internal.")
    assert (list(rule.spans("see TCK-42 and TCK-7")), rule.examples, rule.counterexamples,
            rule.folded) == ([(4, 10), (15, 20)], (), (), False)


MANY = " ".join(f"user{i}@example.com" for i in range(30)) + " there is no account with that email"


@pytest.mark.parametrize("limit", [0, 1, 5, MAX_FINDINGS])
def test_max_findings_is_honoured(limit: int) -> None:
    found = check_reply(MANY, max_findings=limit)
    assert _pairs(found) == [("email", f"user{i}@example.com") for i in range(limit)]


def test_max_findings_defaults_to_max_findings() -> None:
    assert len(check_reply(MANY)) == MAX_FINDINGS


def test_negative_max_findings_raises() -> None:
    with pytest.raises(ValueError, match=r"^max_findings: -1 is below 0$"):
        check_reply("x", max_findings=-1)


def test_empty_draft_gives_nothing() -> None:
    assert check_reply("") == []


def test_result_is_deterministic() -> None:
    draft = DRAFTS[-5].values[0]
    assert isinstance(draft, str)
    assert check_reply(draft, REQUESTER) == check_reply(draft, REQUESTER)


def test_findings_are_frozen() -> None:
    finding = ReplyFinding("email", "a@b.co", "why")
    with pytest.raises(AttributeError):
        finding.rule = "x"  # type: ignore[misc]


def test_check_reply_is_linear_on_a_large_draft(cpu_time) -> None:
    """A small guard: four times the draft (64 KB -> 256 KB) takes about four times as long
    (quadratic time would take 16); tests/bench/bench_cuts.py measures each rule's doubling
    ratios up to 1 MB."""
    unit = ("Hi, pod api-7d9f8b6c5-x2x7k logged 2024-05-01T12:00:00Z ERROR at fn (a.js:1:2) "
            "for bob@example.com; v1.2.3 on db.internal. ")
    one = unit * ((1 << 16) // len(unit))

    small = cpu_time(check_reply, one, None, 1 << 30)
    large = cpu_time(check_reply, one * 4, None, 1 << 30)
    assert large < 8 * small + 0.01, (small, large)


def test_check_reply_imports_only_the_standard_library_and_engine() -> None:
    for path in ("engine/check_reply.py", "engine/internals.py"):
        tree = ast.parse((Path(__file__).parents[2] / path).read_text(encoding="utf-8"))
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
        names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        roots = {name.split(".")[0] for name in names if not name.startswith("replyguard.engine")}
        assert roots <= set(sys.stdlib_module_names) | {"__future__"}, path
