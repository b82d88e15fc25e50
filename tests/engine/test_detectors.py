"""The detector table (every example found whole, every counterexample not) and exact masks."""

from __future__ import annotations

import pytest

from replyguard.engine import DETECTORS, Detector, ReplyRules, compile_rules, find, screen_text

RULES = compile_rules(ReplyRules())
REDACT_ALL = compile_rules(ReplyRules(personal_data={"email": "redact", "phone": "redact",
                                                     "ip_address": "redact"}))





#: What the detectors whose value is found only after a label are given around an example.
CONTEXTS = {
    "password_assignment": ("password: ", ""),
    "url_password": ("postgres://admin:", "@db.internal:5432/shop"),
    "password_phrase": ("ALTER USER app IDENTIFIED BY '", "';"),
    "secret_assignment": ("api_key=", ""),
    "password_layout": ("### Password\n\n", "\n"),
    "password_column": ("| user | password |\n|---|---|\n| bob | ", " |\n"),
    "password_column_wide": ("| \u30e6\u30fc\u30b6\u30fc | \u30d1\u30b9\u30ef\u30fc\u30c9 |\n"
                             "|---|---|\n| bob | ", " |\n"),
    "password_layout_wide": ("\u30d1\u30b9\u30ef\u30fc\u30c9\n\n", "\n"),
    "password_quoted": ('{"password": "', '"}'),
    "password_argument": ("define('DB_PASSWORD', '", "');"),
    "password_input": ('<input value="', '" type="password">'),
    "password_list": ("passwords: ", ""),
    "password_label": ("\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a", ""),
    "password_confirm": ('{"new_password": "S3cret!x", "confirm": "', '"}'),
    "cli_password": ("mysql -u root -p", " mydb"),
    "uk_nhs": ("NHS number: ", ""),
    "us_ssn_labelled": ("SSN: ", ""),
    "br_cpf_labelled": ("CPF: ", ""),
    "uk_nino_labelled": ("NI number: ", ""),
    "bearer_token": ("Authorization: Bearer ", ""),
    "basic_credentials": ("Authorization: Basic ", ""),
    "cookie_value": ("Set-Cookie: sid=", "; Path=/; HttpOnly"),
    "ipv4_spaced": ("The DNS server is ", ""),
    "password_pairs": ("Passwords:\n- bob: ", "\n"),
}


def _in_context(detector: Detector, example: str) -> tuple[str, int]:
    """The text an example is tested in, and where the example starts in it."""
    before, after = CONTEXTS.get(detector.id, ("", ""))
    return before + example + after, len(before)


@pytest.mark.parametrize("detector", DETECTORS, ids=[d.id for d in DETECTORS])
def test_detector_examples_and_counterexamples(detector: Detector) -> None:
    found = []
    for example in detector.examples:
        text, start = _in_context(detector, example)
        found.append([(f.detector, f.start, f.end) for f in find(text)
                      if f.detector == detector.id])
    expected = []
    for example in detector.examples:
        text, start = _in_context(detector, example)
        expected.append([(detector.id, start, start + len(example))])
    wrong = [c for c in detector.counterexamples
             if any(f.detector == detector.id for f in find(c))]
    assert (found, wrong) == (expected, [])


@pytest.mark.parametrize(
    ("text", "screened"),
    [
        ("4111 1111 1111 1111", "**** 1111"),
        ("my card is 4111-1111-1111-1111.", "my card is **** 1111."),
        ("123-45-6789", "***6789"),
        ("GB82 WEST 1234 5698 7654 32", "GB** **** 5432"),
        ("GB82WEST12345698765432", "GB** **** 5432"),
        ("CPF 529.982.247-25", "CPF ***4725"),
        ("NINO AB 12 34 56 C", "NINO ***456C"),
    ],
)
def test_exact_mask(text: str, screened: str) -> None:
    assert screen_text(text, RULES).text == screened


@pytest.mark.parametrize(
    ("text", "cls"),
    [
        ("123-45-6789", "national_id"),
        ("4111 1111 1111 1111", "card"),
        ("GB82 WEST 1234 5698 7654 32", "iban"),
        ("529.982.247-25", "national_id"),
        ("AB123456C", "national_id"),
    ],
)
def test_class_of_value(text: str, cls: str) -> None:
    assert [(f.cls, f.start, f.end) for f in find(text)] == [(cls, 0, len(text))]


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111 1111 1112",  # fails Luhn
        "1234 5678 9012 3456",  # 16 digits failing Luhn
        "GB82 WEST 1234 5698 7654 33",  # wrong IBAN check digits
        "DE89 3704 0044 0532 0130 01",
        "529.982.247-26",  # wrong CPF check digit
        "111.111.111-11",  # equal digits, never issued
        "000-12-3456",  # SSN area 000
        "666-12-3456",  # SSN area 666
        "912-34-5678",  # SSN area 9xx
        "987-65-4321",
        "QQ 12 34 56 C",  # NINO prefix never allocated
        "GB123456A",
        "BG 12 34 56 A",
        "order #4412",
        "order A-10293",
        "order 112-4111111-1111111",
        "2024-11-29",
        "29/11/2024",
        "on 03.12.2024 at 10:30",
        "10:30:00",
        "12.50",
        "R$ 1.234,56",
        "$1,299.00",
        "1.299,00 EUR",
        "15%",
        "v2.4.1",
        "version 10.2.3",
        "550e8400-e29b-41d4-a716-446655440000",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "tracking 1Z999AA10123456784",
        "tracking 9400 1000 0000 0000 0000 00",
    ],
)
def test_left_unchanged_with_no_finding(text: str) -> None:
    screened = screen_text(text, REDACT_ALL)
    assert (screened.text, find(text)) == (text, [])


def test_email_redacted_keeps_first_character_and_domain() -> None:
    assert screen_text("write to jane.doe@example.com", REDACT_ALL).text == (
        "write to j***@example.com")


def test_email_allowed_by_default() -> None:
    assert screen_text("write to jane.doe@example.com", RULES).text == (
        "write to jane.doe@example.com")


@pytest.mark.parametrize("phone", ["+44 20 7946 0123", "(202) 555-0123", "020 7946 0123"])
def test_phone_redacted_keeps_last_four(phone: str) -> None:
    assert screen_text(f"call {phone} today", REDACT_ALL).text == "call ***0123 today"


# Each secret example, the public prefix its mask may show, and the body that must stay hidden.
PUBLIC_PREFIXES = ("sk-proj-", "sk-ant-", "sk_live_", "sk_test_", "rk_live_", "pk_live_",
                   "github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "xoxb-",
                   "xoxa-", "xoxp-", "AIza", "hf_", "npm_", "SG.", "sk-", "AKIA", "ASIA", "eyJ",
                   "whsec_", "hooks.slack.com/services/", "GOCSPX-", "ya29.", "glptt-", "pypi-",
                   "dop_v1_", "shpat_", "shpss_")


def _hidden(detector: Detector, text: str) -> str:
    """Text compared for shown characters: an IP address's separators are not its own."""
    if detector.category == "ip_address":
        return text.replace(":", "").replace(".", "")
    return text


def _body(detector: Detector, value: str) -> str:
    if detector.id == "private_key":
        return "".join(line for line in value.splitlines() if "-----" not in line)
    for prefix in PUBLIC_PREFIXES:
        if value.startswith(prefix):
            return value[len(prefix):]
    return value


SECRETS = [(d, example) for d in DETECTORS
           if d.category in ("api_key", "aws_access_key", "private_key", "jwt", "password",
                             "ip_address")
           for example in d.examples]


@pytest.mark.parametrize(("detector", "secret"), SECRETS,
                         ids=[f"{d.id}-{i}" for i, (d, _) in enumerate(SECRETS)])
def test_secret_mask_shows_at_most_four_characters(detector: Detector, secret: str) -> None:
    text, _ = _in_context(detector, secret)
    masked = _hidden(detector, screen_text(text, REDACT_ALL).text)
    body = _hidden(detector, _body(detector, secret))
    shown = sorted({body[i:i + 5] for i in range(len(body) - 4)} & {
        masked[i:i + 5] for i in range(len(masked) - 4)})
    assert (masked != _hidden(detector, text), shown) == (True, [])


CLASSES_SCORED = ("card", "iban", "national_id", "email", "phone", "api_key",
                  "aws_access_key", "private_key", "jwt", "password", "ip_address")


def _mismatches(corpus: list[tuple[str, list[tuple[str, int, int]]]], cls: str) -> list[str]:
    """Lines where `cls` is missed or found wrongly, each as line number and shapes only."""
    wrong = []
    for number, (text, expected) in enumerate(corpus):
        want = {(c, s, e) for c, s, e in expected if c == cls}
        got = {(f.cls, f.start, f.end) for f in find(text) if f.cls == cls}
        if want != got:
            wrong.append(f"line {number}: missed {sorted(want - got)} "
                         f"wrongly found {sorted(got - want)} in {text!r}")
    return wrong


def test_corpus_has_300_lines_and_150_hard_negatives(
        labelled_corpus: list[tuple[str, list[tuple[str, int, int]]]]) -> None:
    negatives = sum(1 for _, expected in labelled_corpus if not expected)
    assert (len(labelled_corpus) >= 300, negatives >= 150) == (True, True)


@pytest.mark.parametrize("cls", CLASSES_SCORED)
def test_corpus_precision_and_recall_are_one(
        labelled_corpus: list[tuple[str, list[tuple[str, int, int]]]], cls: str) -> None:
    wrong = _mismatches(labelled_corpus, cls)
    assert wrong == [], f"{cls}: {len(wrong)} mismatched line(s)\n" + "\n".join(wrong)
