"""Ids that are no phone numbers (a name read past a verb, in a link's path, in a table
column's header, on the line above), SSN and NINO shapes under a product's or an id's name,
an SSN after its name even where the SSA published it, IPv6 addresses starting with `::` at a
line's start, other vendors' key kinds and Basic credentials: exact screened text on the
request side, in a whole reply and in a reply streamed cut at every position."""

from __future__ import annotations

import pytest
from released import every_way

from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules

RULES = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")
RULES_PT = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "pt-BR")


@pytest.mark.parametrize("text", [
    "Your order number is 2025550143.",
    "Your order is 2025550143.",
    "The tracking number is 2025550143.",
    "Your invoice number is 2025550143.",
    "Your ticket number is 2025550143.",
    "Order ID is 2025550143",
    "your order, 2025550143, has shipped",
    "| Order | 2025550143 |",
    "| Order | Status |\n|---|---|\n| 2025550143 | shipped |",
    "| Order ID | Tracking |\n|---|---|\n| 12345 | 2025550143 |",
    "Tracking number:\n\n2025550143",
    "Hello.\n\nYour order:\n\n2025550143",
    "See https://example.com/orders/2025550143 for details.",
    "https://github.com/org/repo/pull/2025550143",
    "PR #2025550143",
    "Issue 2025550143",
    "Confirmation code 2025550143",
    "Customer number 2025550143",
    "Reservation 2025550143",
    "Transaction 2025550143",
    "Process 2025550143 exited",
    "Population: 8 045 311 447",
    "\u8ba2\u5355\u53f7\uff1a2025550143\uff0c\u8c22\u8c22\u3002",
    "Call ID 2025550143",
    "Part number 123-45-6789",
    "Order 123-45-6789",
    "Part no. 536-22-8841",
    "The ID is AB123456C-XL.",
    "The Woolworth card showed 078-05-1120.",
    ":: a comment",
    "::echo done",
    "see ya29.html and the pypi-packaging docs",
    "Authorization: Basic realm",
    "Use Basic auth for the test server.",
])
def test_ids_and_codes_come_back_unchanged(text: str) -> None:
    assert every_way(text, RULES) == {text}


@pytest.mark.parametrize("text", [
    "O n\u00famero do seu pedido \u00e9 11987654321.",
    "O c\u00f3digo de rastreio \u00e9 11987654321.",
    "Boleto 11987654321",
    "Chamado 11987654321 aberto",
    "Seu n\u00famero de cliente \u00e9 11987654321.",
    "Matr\u00edcula 11987654321",
])
def test_ids_come_back_unchanged_in_portuguese(text: str) -> None:
    assert every_way(text, RULES_PT) == {text}


@pytest.mark.parametrize(("text", "released"), [
    ("Call 202 555 0143", "Call ***0143"),
    ("My number is (202) 555-0143", "My number is ***0143"),
    ("Your phone number is 2025550143.", "Your phone number is ***0143."),
    ("Order 12345: phone 2025550143", "Order 12345: phone ***0143"),
    ("The number to call about your order is 2025550143.",
     "The number to call about your order is ***0143."),
    ("Your order number is 2025550143, call 202 555 0143.",
     "Your order number is 2025550143, call ***0143."),
    ("| Phone | Status |\n|---|---|\n| 2025550143 | ok |",
     "| Phone | Status |\n|---|---|\n| ***0143 | ok |"),
    ("| Order | Phone |\n|---|---|\n| 12345 | 2025550143 |",
     "| Order | Phone |\n|---|---|\n| 12345 | ***0143 |"),
    ("Tracking number:\n\nCall 2025550143", "Tracking number:\n\nCall ***0143"),
    ("https://wa.me/12025550143", "https://wa.me/***0143"),
    ("Customer: 2025550143", "Customer: ***0143"),
    ("SSN for order 123-45-6789", "SSN for order ***6789"),
    ("Order ID 123-45-6789", "Order ID ***6789"),
    ("My SSN is 078-05-1120.", "My SSN is ***1120."),
    ("SSN 219-09-9999", "SSN ***9999"),
    ("Social security number 457-55-5462", "Social security number ***5462"),
    ("The ID is AB123456C.", "The ID is ***456C."),
    ("IP:\n::ffff:c000:201", "IP:\n****::201"),
    ("Address:\n::ffff:c000:201 ok", "Address:\n****::201 ok"),
    ("Address:\n\n::abcd:1234\n\nok", "Address:\n\n****::1234\n\nok"),
    ("Value:\n\n::ffff:192.0.2.1\n\nThanks.", "Value:\n\n****::***.***.***.1\n\nThanks."),
])
def test_phones_ssns_and_addresses_are_masked(text: str, released: str) -> None:
    assert every_way(text, RULES) == {released}


@pytest.mark.parametrize(("text", "released"), [
    ("ligue para 11 98765-4321", "ligue para ***4321"),
    ("Telefone do cliente: 11987654321", "Telefone do cliente: ***4321"),
    ("Meu celular \u00e9 11987654321", "Meu celular \u00e9 ***4321"),
])
def test_phones_are_masked_in_portuguese(text: str, released: str) -> None:
    assert every_way(text, RULES_PT) == {released}


@pytest.mark.parametrize(("text", "released"), [
    ("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", "GOCSPX-****M3n4"),
    ("Your token is ya29.A0ARrdaM-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0. ok",
     "Your token is ya29.****S9t0. ok"),
    ("Authorization: Bearer ya29.a0AfH6SMBx-Kq3_Lz9P~7w+Tq/Rv==",
     "Authorization: Bearer ya29.****Rv=="),
    ("glptt-A1b2C3d4E5f6G7h8I9j0", "glptt-****I9j0"),
    ("pypi-AgEIcHlwaS5vcmcCJDEyMzQ1Njc4LTEyMzQtMTIzNC0xMjM0LTEyMzQ1Njc4OTAxMg",
     "pypi-****AxMg"),
    ("dop_v1_" + "a1b2c3d4e5f6a7b8" * 4, "dop_v1_****a7b8"),
    ("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", "shpat_****c5d6"),
    ("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", "shpss_****C5D6"),
    ("Authorization: Basic Ym9iOnNlY3JldA==", "Authorization: Basic ****"),
    ('curl -H "Authorization: Basic Ym9iOnNlY3JldA==" https://api.example.com',
     'curl -H "Authorization: Basic ****" https://api.example.com'),
    ('{"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"}', '{"Authorization": "Basic ****"}'),
])
def test_keys_and_basic_credentials_are_masked(text: str, released: str) -> None:
    assert every_way(text, RULES) == {released}
