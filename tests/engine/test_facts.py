"""engine.facts through the reply screen: each `reply_facts_*` count (seed 000's counts table,
DESIGN section 5), value comparison, and the staff highlight."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from replyguard.engine import (
    ReplyRules,
    ToolRules,
    ToolSpec,
    compile_rules,
    compile_tools,
    read_context,
)
from replyguard.engine.facts import parse_number, stated_values
from replyguard.engine.reply import screen_reply

NOW = 1_733_000_000.0  # 2024-11-30T20:53:20Z
ORDER = ToolSpec("get_order", fresh_for_s=300, output_schema={
    "type": "object", "properties": {
        "total": {"type": "number", "minimum": 0, "maximum": 1000},
        "lines": {"type": "array", "items": {"type": "object", "properties": {
            "qty": {"type": "integer", "exclusiveMinimum": 0}}}}}})
TOOLS = ToolRules(tools={"get_order": ORDER, "get_invoice": ToolSpec("get_invoice")})
RULES = {lang: compile_rules(ReplyRules(), lang) for lang in ("en", "pt-BR")}


def _screen(reply: str, *results: tuple[str, dict[str, Any], Any], language: str = "en",
            audience: str = "customer") -> tuple[str, dict[str, int]]:
    history: list[dict[str, Any]] = [{"role": "user", "content": "where is my order?"}]
    for i, (name, arguments, result) in enumerate(results):
        history.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        history.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(result)})
    tools = compile_tools(ToolRules(tools=TOOLS.tools, audience=audience), language)  # type: ignore[arg-type]
    return screen_reply(reply, RULES[language], read_context(history), tools=tools, now=NOW)


FRESH = {"order_id": "4412", "total": 30.0, "as_of": "2024-11-30T20:50:00Z"}


def test_traced() -> None:
    assert _screen("Order 4412 came to £30.00.", ("get_order", {}, FRESH)) == (
        "Order 4412 came to £30.00.", {"reply_facts_traced": 2})


def test_untraced() -> None:
    assert _screen("Order 4412 came to £31.00.", ("get_order", {}, FRESH)) == (
        "Order 4412 came to £31.00.", {"reply_facts_traced": 1, "reply_facts_untraced": 1})


def test_conflict() -> None:
    invoice = {"order_id": "4412", "total": 32.5}
    assert _screen("The total is £30.00.", ("get_order", {}, FRESH),
                   ("get_invoice", {}, invoice)) == (
        "The total is £30.00.", {"reply_facts_traced": 1, "reply_facts_conflict": 1})


def test_no_conflict_when_the_sources_agree() -> None:
    invoice = {"order_id": "4412", "total": "30.00"}
    assert _screen("The total is £30.00.", ("get_order", {}, FRESH),
                   ("get_invoice", {}, invoice)) == (
        "The total is £30.00.", {"reply_facts_traced": 1})


@pytest.mark.parametrize("as_of", ["2024-11-30T20:40:00Z", "2024-11-30T20:40:00",
                                   NOW - 301, "2024-11-30T21:40:00+01:00"])
def test_stale(as_of: object) -> None:
    result = {**FRESH, "as_of": as_of}
    assert _screen("It came to £30.00.", ("get_order", {}, result)) == (
        "It came to £30.00.", {"reply_facts_traced": 1, "reply_facts_stale": 1})


def test_stale_read_from_retrieved_at() -> None:
    result = {"total": 30.0, "retrieved_at": NOW - 3600}
    assert _screen("It came to £30.00.", ("get_order", {}, result)) == (
        "It came to £30.00.", {"reply_facts_traced": 1, "reply_facts_stale": 1})


def test_fresh_within_fresh_for_s() -> None:
    result = {**FRESH, "as_of": NOW - 299}
    assert _screen("It came to £30.00.", ("get_order", {}, result)) == (
        "It came to £30.00.", {"reply_facts_traced": 1})


def test_out_of_range() -> None:
    result = {**FRESH, "total": 1250.0}
    assert _screen("It came to £1,250.00.", ("get_order", {}, result)) == (
        "It came to £1,250.00.", {"reply_facts_traced": 1, "reply_facts_out_of_range": 1})


def test_out_of_range_exclusive_minimum_in_items() -> None:
    result = {"lines": [{"sku": "MUG-220", "qty": 0}], "as_of": NOW}
    assert _screen("Item MUG-220 is on it.", ("get_order", {}, result)) == (
        "Item MUG-220 is on it.", {"reply_facts_traced": 1})
    assert _screen("It holds 0.0 mugs.", ("get_order", {}, result)) == (
        "It holds 0.0 mugs.", {"reply_facts_traced": 1, "reply_facts_out_of_range": 1})


@pytest.mark.parametrize(("reply", "language"), [
    ("It came to 12.50 pounds.", "en"), ("It came to 12.5 pounds.", "en"),
    ("Deu R$ 12,50.", "pt-BR"), ("Deu 12.50 reais.", "pt-BR"),
])
def test_numbers_compare_numerically(reply: str, language: str) -> None:
    assert _screen(reply, ("get_order", {}, {"total": "12.50"}), language=language) == (
        reply, {"reply_facts_traced": 1})


@pytest.mark.parametrize("reply", ["Your order is ORD-4412-A.", "Your order is ord4412a.",
                                   "Your order is ORD.4412.A."])
def test_ids_compare_compact(reply: str) -> None:
    assert _screen(reply, ("get_order", {"id": "ORD-4412-A"}, {"ok": True})) == (
        reply, {"reply_facts_traced": 1})


@pytest.mark.parametrize("reply", ["It shipped on 2024-11-29.", "It shipped on 29 November 2024.",
                                   "It shipped on 29/11/2024."])
def test_dates(reply: str) -> None:
    assert _screen(reply, ("get_order", {}, {"shipped": "2024-11-29T08:00:00Z"})) == (
        reply, {"reply_facts_traced": 1})


def test_email_and_personal_data_values() -> None:
    reply = "We wrote to Jane@Example.com and +44 20 7946 0123."
    result = {"email": "jane@example.com", "phone": "+442079460123"}
    assert _screen(reply, ("get_order", {}, result)) == (
        reply, {"reply_facts_traced": 2, "reply_pd_detected_email": 1,
                "reply_pd_detected_phone": 1})


def test_small_numbers_are_not_values() -> None:
    assert _screen("It takes 3 to 5 days, 2nd class, at 10am.") == (
        "It takes 3 to 5 days, 2nd class, at 10am.", {})


def test_staff_highlight() -> None:
    assert _screen("Order 7788 came to £31.00. Thanks.", ("get_order", {}, FRESH),
                   audience="staff") == (
        "[unverified] Order 7788 came to £31.00. Thanks.",
        {"reply_facts_untraced": 2, "reply_value_highlighted": 1})


def test_staff_traced_sentence_is_not_highlighted() -> None:
    assert _screen("Order 4412 came to £30.00.", ("get_order", {}, FRESH), audience="staff") == (
        "Order 4412 came to £30.00.", {"reply_facts_traced": 2})


@pytest.mark.parametrize(("text", "language", "number"), [
    ("12.50", "en", "12.5"), ("12,50", "pt-BR", "12.5"), ("1,234.50", "en", "1234.5"),
    ("1.234,50", "pt-BR", "1234.5"), ("1.234", "pt-BR", "1234"), ("1,234", "en", "1234"),
    ("12.50", "pt-BR", "12.5"), ("2.4.1", "en", None), ("abc", "en", None),
])
def test_parse_number(text: str, language: str, number: str | None) -> None:
    assert parse_number(text, language) == (Decimal(number) if number else None)


def test_stated_values_kinds() -> None:
    text = "Card **** 1111, order #4412, ref AB12CD, on 2024-11-29, £12.50, to a@b.co."
    assert [(v.kind, text[v.start:v.end]) for v in stated_values(text, "en")] == [
        ("id", "**** 1111"), ("number", "#4412"), ("id", "AB12CD"), ("date", "2024-11-29"),
        ("number", "£12.50"), ("personal", "a@b.co")]
