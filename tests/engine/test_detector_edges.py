"""Values written next to other text the way people and models write them (found by an
adversarial review): a card with its expiry after it, keys in URLs and JSON, passwords in
environment files, numbers right after `no.`; and the long runs that must stay unmatched."""

from __future__ import annotations

import pytest

from config.rules import load_rules
from engine import compile_rules, screen_text

RULES = compile_rules(load_rules("config/reply-rules.example.yaml"), "en")


@pytest.mark.parametrize(("text", "released"), [
    ("Card 4111 1111 1111 1111 12/26 CVV 123", "Card **** 1111 12/26 CVV 123"),
    ("Card: 4111111111111111 12/26 123", "Card: **** 1111 12/26 123"),
    ("4111 1111 1111 1111 2 times", "**** 1111 2 times"),
    ("card no.4111 1111 1111 1111", "card no.**** 1111"),
    ("Done.4111 1111 1111 1111 is yours.", "Done.**** 1111 is yours."),
    ("DB_PASSWORD=hunter2Secret", "DB_PASSWORD=****"),
    ('"password": "hunter2Secret"', '"password": "****"'),
    ("db_password: S3cret!", "db_password: ****"),
    ("login?password=hunter2S&user=a", "login?password=****&user=a"),
    ("git clone https://ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5abcdef@github.com/o/r.git",
     "git clone https://ghp_****cdef@github.com/o/r.git"),
    ("see /keys/sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD now", "see /keys/sk-proj-****Q1cD now"),
    ('k: "-----BEGIN PRIVATE KEY-----\\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4\\n'
     '-----END PRIVATE KEY-----\\n"', 'k: "[PRIVATE KEY ****]\\n"'),
])
def test_value_next_to_other_text_is_masked(text: str, released: str) -> None:
    assert screen_text(text, RULES, "reply").text == released


@pytest.mark.parametrize("text", ["SSN 123-45-6789 1990", "SSN no.123-45-6789"])
def test_ssn_next_to_other_text_is_withheld(text: str) -> None:
    assert screen_text(text, RULES, "reply").action == "withhold"


@pytest.mark.parametrize("text", [
    "1234 5678 9012 3456 7890",          # one longer grouped run, not a card
    "4111 1111 1111 1111 1111",          # the same grouping goes on
    "/sk-learn-basics-for-beginners-2024",  # a URL slug, not a key
    "version 0.4111111111111111",        # a decimal part
])
def test_longer_runs_and_slugs_stay_unmatched(text: str) -> None:
    assert screen_text(text, RULES, "reply").text == text


@pytest.mark.parametrize(("text", "released"), [
    ("card 4111\u00a01111\u00a01111\u00a01111 ok", "card **** 1111 ok"),
    ("card 4111\u202f1111\u202f1111\u202f1111.", "card **** 1111."),
    ("card 4111\u20131111\u20131111\u20131111", "card **** 1111"),
    ("card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 "
     "\uff11\uff11\uff11\uff11", "card **** \uff11\uff11\uff11\uff11"),
    ("Caf\u00e9 4111 1111 1111 1111 \u2615", "Caf\u00e9 **** 1111 \u2615"),
])
def test_lookalike_spaces_dashes_and_digits(text: str, released: str) -> None:
    assert screen_text(text, RULES, "reply").text == released


def test_ssn_with_non_breaking_hyphens_is_withheld() -> None:
    assert screen_text("ssn 123\u201145\u20116789", RULES, "reply").action == "withhold"
