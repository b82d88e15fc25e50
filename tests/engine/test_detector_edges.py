"""Values written next to other text the way people and models write them (found by an
adversarial review): a card with its expiry after it, keys in URLs and JSON, passwords in
environment files, numbers right after `no.`; and the long runs that must stay unmatched."""

from __future__ import annotations

import pytest
from released import every_way

from replyguard.config.rules import load_rules
from replyguard.engine import Finding, ReplyRules, compile_rules, find, screen_text

RULES = compile_rules(load_rules("config/reply-rules.example.yaml"), "en")
#: Every class masked (the shop allows email and withholds national_id).
REDACT_ALL = compile_rules(ReplyRules(personal_data={"email": "redact",
                                                     "national_id": "redact"}))


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
     "\uff11\uff11\uff11\uff11", "card **** 1111"),  # (a mask is written in ASCII)
    ("Caf\u00e9 4111 1111 1111 1111 \u2615", "Caf\u00e9 **** 1111 \u2615"),
])
def test_lookalike_spaces_dashes_and_digits(text: str, released: str) -> None:
    assert screen_text(text, RULES, "reply").text == released


def test_ssn_with_non_breaking_hyphens_is_withheld() -> None:
    assert screen_text("ssn 123\u201145\u20116789", RULES, "reply").action == "withhold"



@pytest.mark.parametrize(("text", "released"), [
    ("db at postgres://admin:s3cr3tPa55@db.internal:5432/shop",
     "db at postgres://admin:****@db.internal:5432/shop"),
    ("redis://:pass@cache.internal:6379/0", "redis://:****@cache.internal:6379/0"),
    ("see https://user:pass@host/path", "see https://user:****@host/path"),
    # An unescaped `@` in the password: the userinfo ends at the last `@` (as urllib reads it).
    ("mysql://root:p@ss!@db.example.com/app", "mysql://root:****@db.example.com/app"),
    ("amqp://guest:s3cr%2Ft:x@[2001:db8::1]:5672", "amqp://guest:****@[2001:db8::1]:5672"),
    ("(postgresql+psycopg://app:Xy7-Qa.9~z@db/app)", "(postgresql+psycopg://app:****@db/app)"),
])
def test_password_in_a_url_is_masked(text: str, released: str) -> None:
    assert screen_text(text, RULES, "reply").text == released


def test_password_in_a_url_is_the_password_only() -> None:
    """Not an email (`s3cr3tPa55@db.internal`, which the shop allows): the password class,
    the password's characters only."""
    assert find("db at postgres://admin:s3cr3tPa55@db.internal:5432/shop") == [
        Finding("password", 23, 33, "url_password")]


@pytest.mark.parametrize("text", [
    "https://user@example.com/x",            # a user name, no password
    "http://example.com:8080/",              # a port, no userinfo
    "mailto:jane@example.com",               # no authority
    "ssh://git@github.com:22/x",             # a user and a port
    "postgres://admin:****@db.internal:5432/shop",  # already masked
    "redis://user:@cache:6379",              # an empty password
    "see https://example.com/a:b@c",         # a path, not the userinfo
])
def test_url_without_a_password_has_no_password_finding(text: str) -> None:
    assert [f for f in find(text) if f.cls == "password"] == []


@pytest.mark.parametrize(("text", "found"), [
    # An SSH remote in scp's form: a host and a path, no address.
    ("git@github.com:org/repo.git", []),
    # A URL's user before a host and its port: the address form, masked as one.
    ("postgres://git@db.internal:5432/shop", [Finding("email", 11, 26, "email")]),
])
def test_ssh_remote_is_no_address_but_a_user_before_a_port_is(
    text: str, found: list[Finding]
) -> None:
    assert find(text) == found


@pytest.mark.parametrize(("text", "released"), [
    ("my iban is gb82 west 1234 5698 7654 32", "my iban is GB** **** 5432"),
    ("Gb82West12345698765432", "GB** **** 5432"),
    ("iban de89370400440532013000.", "iban DE** **** 3000."),
    ("IBAN nl91 abna 0417 1643 00 please", "IBAN NL** **** 4300 please"),
])
def test_iban_in_lower_or_mixed_case_is_masked(text: str, released: str) -> None:
    assert screen_text(text, RULES, "reply").text == released


@pytest.mark.parametrize("text", [
    "gb82 west 1234 5698 7654 33",           # mod-97 fails
    "ab12 with some more text here",         # a word and digits, then words: no IBAN
    "the mp3 and sha256 files, 1234 5678 9012 3456 and ab12cd34ef56gh78ij90",
    "ref de89 3704",                         # too short for its country
])
def test_lower_case_look_alikes_of_an_iban_are_left_as_they_are(text: str) -> None:
    assert (screen_text(text, REDACT_ALL, "reply").text, find(text)) == (text, [])


@pytest.mark.parametrize(("text", "released"), [
    ("my ni number is ab123456c", "my ni number is ***456c"),
    ("NI: ab 12 34 56 c", "NI: ***456c"),
    ("nino Ab 123456 C.", "nino ***456C."),
])
def test_uk_nino_in_lower_or_mixed_case_is_found(text: str, released: str) -> None:
    assert screen_text(text, REDACT_ALL, "reply").text == released
    assert screen_text(text, RULES, "reply").action == "withhold"


@pytest.mark.parametrize("text", [
    "gb123456a",                             # prefix never allocated
    "ab123456e",                             # suffix not A-D
    "tab123456c",                            # inside a longer word
    "paid in 2024 and on 12 may 2025 at 10 30",
])
def test_lower_case_look_alikes_of_a_nino_are_left_as_they_are(text: str) -> None:
    assert find(text) == []


@pytest.mark.parametrize(("text", "released"), [
    ("card 4111\u200b1111\u200b1111\u200b1111", "card **** 1111"),
    ("card 4111\u00ad1111 1111 1111 ok", "card **** 1111 ok"),
    ("card 41\u200c11 1111 1111 1111.", "card **** 1111."),
    ("card 4111111111111111\ufeff, thanks", "card **** 1111\ufeff, thanks"),
    ("IBAN GB82 WEST 1234\u2060 5698 7654 32", "IBAN GB** **** 5432"),
    ("iban gb82\u200bwest\u200b1234\u200b5698\u200b7654\u200b32", "iban GB** **** 5432"),
    ("write to jane\u200d.doe@example.com", "write to j***@example.com"),
    ("db postgres://admin:s3cr\u200b3tPa55@db.internal/shop", "db postgres://admin:****@db.internal/shop"),
    ("key sk-proj-4fJk29sLqPz8\u200bXvTn7mWbQ1cD", "key sk-proj-****Q1cD"),
    # An invisible character read as a space still parts a label from its value.
    ("card\u200b4111 1111 1111 1111", "card\u200b**** 1111"),
])
def test_invisible_characters_inside_a_value(text: str, released: str) -> None:
    assert screen_text(text, REDACT_ALL, "reply").text == released


@pytest.mark.parametrize(("text", "found"), [
    ("card 4111\u200b1111\u200b1111\u200b1111", [Finding("card", 5, 24, "credit_card")]),
    ("\u200bcard 4111\u00ad1111 1111 1111\u200b", [Finding("card", 6, 25, "credit_card")]),
    ("jane\u200d.doe@example.com x", [Finding("email", 0, 21, "email")]),
    ("GB82 WEST 1234\u2060 5698 7654 32", [Finding("iban", 0, 28, "iban")]),
    ("SSN 123\u200b-45-6789", [Finding("national_id", 4, 16, "us_ssn")]),
    ("\u200b\u00ad\ufeff", []),
])
def test_invisible_characters_inside_a_value_are_inside_its_span(
    text: str, found: list[Finding]
) -> None:
    assert find(text) == found


def test_ssn_with_an_invisible_character_is_withheld() -> None:
    assert screen_text("ssn 123-45\u200b-6789", RULES, "reply").action == "withhold"


_LONG_BODY = ("A1b2C3d4E5f6G7h8I9j0" * 16)[:300]


@pytest.mark.parametrize(("text", "expected"), [
    # (a body over 256 characters shows none of them: a reply's piece may cut it)
    ("key sk-proj-" + _LONG_BODY, "key sk-proj-****"),
    ("key ghp_" + _LONG_BODY, "key ghp_****"),
    ("key github_pat_" + _LONG_BODY, "key github_pat_****"),
    ("key sk-proj-" + _LONG_BODY[:256], "key sk-proj-****I9j0"[:-4] + _LONG_BODY[252:256]),
])
def test_a_key_of_hundreds_of_characters_is_masked_whole(text: str, expected: str) -> None:
    assert every_way(text) == {expected}
