"""Values in the shapes the recognizer and plugin test suites of other screening tools use:
IPv6 holding an IPv4 address, lists of cards, cards and IBANs grouped other ways, password
assignments in the syntax of many languages, international email addresses, glued secrets.
Exact findings and exact masked output; every class redacted."""

from __future__ import annotations

import pytest

from replyguard.engine import Finding, ReplyRules, compile_rules, find, screen_text

REDACT_ALL = compile_rules(ReplyRules(personal_data={"email": "redact", "phone": "redact",
                                                     "ip_address": "redact"}))
#: A made-up key of GitHub's token shape (36 letters and digits after `ghp_`).
GHP = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"
SK = "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD"


def _masked(text: str) -> str:
    return screen_text(text, REDACT_ALL, "reply").text


@pytest.mark.parametrize(("text", "found", "released"), [
    ("from ::ffff:192.0.2.1 today", [Finding("ip_address", 5, 21, "ipv6_address")],
     "from ****::***.***.***.1 today"),
    ("NAT64 64:ff9b::192.0.2.33.", [Finding("ip_address", 6, 25, "ipv6_address")],
     "NAT64 ****::***.***.***.33."),
    ("0:0:0:0:0:ffff:192.0.2.1", [Finding("ip_address", 0, 24, "ipv6_address")],
     "****::***.***.***.1"),
    ("::FFFF:203.0.113.42,", [Finding("ip_address", 0, 19, "ipv6_address")],
     "****::***.***.***.42,"),
    # Not an address (a fifth dotted part, an octet past 255): nothing of it is found.
    ("::ffff:192.0.2.1.5", [], "::ffff:192.0.2.1.5"),
    ("::ffff:192.0.2.256", [], "::ffff:192.0.2.256"),
])
def test_ipv6_holding_an_ipv4_address_is_one_address(
        text: str, found: list[Finding], released: str) -> None:
    assert (find(text), _masked(text)) == (found, released)


@pytest.mark.parametrize(("text", "released"), [
    ("4111111111111111 5500005555555559", "**** 1111 **** 5559"),
    ("cards 4111111111111111 5500005555555559 340000000000009 6011000000000004.",
     "cards **** 1111 **** 5559 **** 0009 **** 0004."),
    ("4111 1111 1111 1111, 5500 0055 5555 5559, 3400 000000 00009",
     "**** 1111, **** 5559, **** 0009"),
    ("4111-1111-1111-1111, 5500-0055-5555-5559", "**** 1111, **** 5559"),
    ("4111 1111-1111 1111", "**** 1111"),
    ("card 4111 - 1111 - 1111 - 1111 ok", "card **** 1111 ok"),
    ("4111- 1111 -1111 1111", "**** 1111"),
    ("4111 1111 1111-1111 12/26", "**** 1111 12/26"),
    # A valid card among invalid numbers of a list: only it is masked.
    ("4111111111111112 5500005555555559 1234567890123456", "4111111111111112 **** 5559 "
                                                            "1234567890123456"),
])
def test_cards_listed_and_grouped_other_ways(text: str, released: str) -> None:
    assert _masked(text) == released


@pytest.mark.parametrize("text", [
    "4111 - 1111 - 1111 - 1111 - 1111",   # the grouping goes on: one longer number
    "1234 - 4111 1111 1111 1111",         # a group before it, spaced hyphen
    "12345678901234567890",               # 20 digits
])
def test_longer_numbers_hold_no_card(text: str) -> None:
    assert [f for f in find(text) if f.cls == "card"] == []


@pytest.mark.parametrize(("text", "released"), [
    ("IBAN GB82-WEST-1234-5698-7654-32.", "IBAN GB** **** 5432."),
    ("iban gb82-west-1234-5698-7654-32", "iban GB** **** 5432"),
    ("IBAN DE89 370400440532013000 please", "IBAN DE** **** 3000 please"),
    ("IBAN GB 82 WEST 1234 5698 7654 32", "IBAN GB** **** 5432"),
    ("IBAN de 89 3704 0044 0532 0130 00", "IBAN DE** **** 3000"),
    ("NL91-ABNA-0417-1643-00 Thanks", "NL** **** 4300 Thanks"),
])
def test_ibans_grouped_other_ways(text: str, released: str) -> None:
    assert _masked(text) == released


@pytest.mark.parametrize("text", [
    "GB82-WEST-1234-5698-7654-33",        # mod-97 fails
    "GB 82 WEST 1234 5698 7654 33",
    "GB82 WEST-1234-5698-7654-32",        # separators of two kinds
    "in 29 2024 1234 5678 9012",          # prose and numbers
])
def test_iban_look_alikes_grouped_other_ways(text: str) -> None:
    assert [f for f in find(text) if f.cls == "iban"] == []


@pytest.mark.parametrize(("text", "released"), [
    ("password := S3cret!x", "password := ****"),
    ("pwd:=S3cret!x", "pwd:=****"),
    ("'password' => 'S3cret!x',", "'password' => '****',"),
    ('var password = @"S3cret!x";', 'var password = @"****";'),
    ("$config['password'] = 'S3cret!x';", "$config['password'] = '****';"),
    ('$cfg["db_password"] = "S3cret!x";', '$cfg["db_password"] = "****";'),
    ("password_hash=S3cret!x", "password_hash=****"),
    ("password_db: S3cret!x", "password_db: ****"),
    ("PASSWORD_PROD_DB=S3cret!x", "PASSWORD_PROD_DB=****"),
    ("export DB_PASSWORD_1=S3cret!x", "export DB_PASSWORD_1=****"),
    ('password: "S3cret!x"', 'password: "****"'),
    ('  password: "S3cret!x"\n', '  password: "****"\n'),
    ('{"user": "a", "password": "S3cret!x"}', '{"user": "a", "password": "****"}'),
    ('dbPassword = "S3cret!x"', 'dbPassword = "****"'),
    ('if (password == "S3cret!x")', 'if (password == "****")'),
    ("senha_banco=S3cret!x", "senha_banco=****"),
])
def test_password_assignments_in_many_syntaxes(text: str, released: str) -> None:
    assert _masked(text) == released


@pytest.mark.parametrize("text", [
    "passport: see the counter",
    "compass: north is up",
    "pass-through: enabled",
    "password_policy: strict",
    "password == null",
    "dbpassword=S3cret!x",                # inside a lower-case word
])
def test_password_look_alikes_in_many_syntaxes(text: str) -> None:
    assert [f for f in find(text) if f.cls == "password"] == []


@pytest.mark.parametrize(("text", "found", "released"), [
    ("Escreva para joão.silva@exemplo.com.br hoje.",
     [Finding("email", 13, 38, "email")], "Escreva para j***@exemplo.com.br hoje."),
    ("Écrivez à andré@exemple.fr.", [Finding("email", 10, 26, "email")],
     "Écrivez à a***@exemple.fr."),
    ("Schreiben Sie müller@beispiel.de", [Finding("email", 14, 32, "email")],
     "Schreiben Sie m***@beispiel.de"),
    ("邮箱：用户@例子.广告", [Finding("email", 3, 11, "email")], "邮箱：用***@例子.广告"),
    ("я иван@пример.рф", [Finding("email", 2, 16, "email")], "я и***@пример.рф"),
    ("mail user@xn--bcher-kva.example", [Finding("email", 5, 31, "email")],
     "mail u***@xn--bcher-kva.example"),
    ("mail user@example.xn--p1ai now", [Finding("email", 5, 26, "email")],
     "mail u***@example.xn--p1ai now"),
    ("mail ÉLODIE@Exemple.FR", [Finding("email", 5, 22, "email")], "mail É***@Exemple.FR"),
    # An ASCII address written right after CJK text starts where the script changes.
    ("我的邮箱是jane.doe@example.com，谢谢。", [Finding("email", 5, 25, "email")],
     "我的邮箱是j***@example.com，谢谢。"),
])
def test_international_email_addresses(
        text: str, found: list[Finding], released: str) -> None:
    assert (find(text), _masked(text)) == (found, released)


@pytest.mark.parametrize("text", [
    "été@ici",                            # no top-level domain
    "joão@exemplo",
    "user@xn--",
    "ação@ 2x.png",
])
def test_international_email_look_alikes(text: str) -> None:
    assert [f for f in find(text) if f.cls == "email"] == []


@pytest.mark.parametrize(("text", "released"), [
    (f"password=S3cretPa55!={GHP}", "password=****=ghp_****g7H8"),
    (f"pass: S3cretPa55!;{SK}", "pass: ****;sk-proj-****Q1cD"),
    (f"{GHP},{SK}", "ghp_****g7H8,sk-proj-****Q1cD"),
    (f"{GHP};{GHP}", "ghp_****g7H8;ghp_****g7H8"),
    (f"{GHP}-{SK}", "ghp_****g7H8-sk-proj-****Q1cD"),
    (f"{GHP}_{GHP}", "ghp_****g7H8_ghp_****g7H8"),
    (f"{GHP}_AKIAIOSFODNN7EXAMPLE", "ghp_****g7H8_AKIA****MPLE"),
    (f"AKIAIOSFODNN7EXAMPLE:{GHP}", "AKIA****MPLE:ghp_****g7H8"),
    (f"{SK}|AKIAIOSFODNN7EXAMPLE", "sk-proj-****Q1cD|AKIA****MPLE"),
    (f"token {GHP}-backup", "token ghp_****g7H8-backup"),
])
def test_glued_secrets_are_each_masked(text: str, released: str) -> None:
    assert _masked(text) == released
