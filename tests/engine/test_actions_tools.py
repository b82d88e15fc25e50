"""engine.tools: compiling the tool declarations once, and filling phrasings."""

from __future__ import annotations

import pytest

from replyguard.engine import BUILT_IN, Phrasing, ToolRules, ToolSpec, compile_tools
from replyguard.engine.tools import fill


def _tools(**phrasing: str) -> ToolRules:
    return ToolRules(tools={"refund_card": ToolSpec(
        "refund_card", writes=True, phrasing={"en": Phrasing(**phrasing)})})


@pytest.mark.parametrize(("phrasing", "error"), [
    ({"done": "Refunded {0}."}, "tools.refund_card.phrasing.en.done: {0} is not a field name"),
    ({"failed": "No {a.b}."}, "tools.refund_card.phrasing.en.failed: {a.b} is not a field name"),
    ({"done": "Refunded {amount:q}."},
     "tools.refund_card.phrasing.en.done: {amount:q} is not a valid format"),
    ({"not_done": "Not {amount!r}."},
     "tools.refund_card.phrasing.en.not_done: {amount!r} takes no conversion"),
    ({"done": "Refunded {amount."},
     "tools.refund_card.phrasing.en.done: expected '}' before end of string"),
    ({"done": "Refunded {}."}, "tools.refund_card.phrasing.en.done: {} is not a field name"),
])
def test_bad_template(phrasing: dict[str, str], error: str) -> None:
    with pytest.raises(ValueError) as raised:
        compile_tools(_tools(**phrasing), "en")
    assert str(raised.value) == error


def test_every_error_is_named_at_once() -> None:
    with pytest.raises(ValueError) as raised:
        compile_tools(ToolRules(tools=_tools(done="{0}", failed="{1}").tools,
                                highlight="[check]"), "en")
    assert str(raised.value) == (
        "tools.highlight: must hold {sentence}; "
        "tools.refund_card.phrasing.en.done: {0} is not a field name; "
        "tools.refund_card.phrasing.en.failed: {1} is not a field name")


def test_highlight_with_another_placeholder() -> None:
    with pytest.raises(ValueError, match=r"tools.highlight: \{sentence\} is its only"):
        compile_tools(ToolRules(highlight="{who}: {sentence}"), "en")


def test_unknown_language() -> None:
    with pytest.raises(ValueError, match="language: 'fr' is not one of en, pt-BR"):
        compile_tools(ToolRules(), "fr")


def test_literal_braces_are_allowed() -> None:
    compiled = compile_tools(_tools(done="Done {{ok}} for {order_id}."), "en")
    assert compiled.phrase("refund_card", "done", {"order_id": "4412"}) == "Done {ok} for 4412."


@pytest.mark.parametrize(("fields", "filled"), [
    ({"amount": "12.50", "order_id": "4412"}, "I've refunded 12.50 for order 4412."),
    ({"amount": 12.5, "order_id": 4412}, "I've refunded 12.5 for order 4412."),
    ({"amount": "12.50"}, None),
    ({"amount": None, "order_id": "4412"}, None),
    ({"amount": {"value": 1}, "order_id": "4412"}, None),
    ({"amount": True, "order_id": "4412"}, None),
    ({"amount": "x\ny", "order_id": "4412"}, None),
    ({"amount": "9" * 201, "order_id": "4412"}, None),
])
def test_fill(fields: dict[str, object], filled: str | None) -> None:
    assert fill("I've refunded {amount} for order {order_id}.", fields) == filled


def test_language_then_any() -> None:
    tools = ToolRules(tools={"t": ToolSpec("t", writes=True, phrasing={
        "*": Phrasing(done="Any."), "pt-BR": Phrasing(done="Feito.")})})
    assert compile_tools(tools, "en").phrase("t", "done", {}) == "Any."
    assert compile_tools(tools, "pt-BR").phrase("t", "done", {}) == "Feito."
    assert compile_tools(tools, "pt-BR").phrase("t", "failed", {}) == "A ação t não foi concluída."


@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_built_in_sentences_have_only_the_tool_placeholder(language: str) -> None:
    for outcome in ("done", "failed", "not_done"):
        sentence = getattr(BUILT_IN[language], outcome)
        assert fill(sentence, {"tool": "x"}) is not None and "{tool}" in sentence


def test_claims_are_one_pattern_matched_case_and_accent_insensitive() -> None:
    tools = ToolRules(tools={
        "refund_card": ToolSpec("refund_card", writes=True,
                                claims={"pt-BR": ("reembolso foi feito",), "*": ("estornado",)}),
        "cancel_order": ToolSpec("cancel_order", writes=True, claims={"pt-BR": ("cancelei",)})})
    compiled = compile_tools(tools, "pt-BR")
    assert compiled.claim_tools == ("refund_card", "cancel_order")
    assert compiled.claims is not None
    found = [(m.lastgroup, m.group()) for m in compiled.claims.finditer(
        "o reembolso ja foi feito e cancelei; foi estornado")]
    assert found == [("t0", "reembolso ja foi feito"), ("t1", "cancelei"), ("t0", "estornado")]


def test_no_claims_no_pattern() -> None:
    assert compile_tools(ToolRules(), "en").claims is None


def test_schema_ranges_read_by_property_name() -> None:
    tools = ToolRules(tools={"get_order": ToolSpec("get_order", output_schema={
        "properties": {"total": {"minimum": 0, "maximum": 1000},
                       "lines": {"items": {"properties": {"qty": {"exclusiveMinimum": 0}}}},
                       "note": {"type": "string"}}})})
    assert dict(compile_tools(tools, "en").ranges["get_order"]) == {
        "total": (0, 1000, None, None), "qty": (None, None, 0, None)}


@pytest.mark.parametrize(("template", "language", "fields", "expected"), [
    ("I've refunded {amount:.2f}.", "en", {"amount": 12.5}, "I've refunded 12.50."),
    ("I've refunded {amount:.2f}.", "en", {"amount": "12.5"}, "I've refunded 12.50."),
    ("Reembolsei {amount:,.2f}.", "pt-BR", {"amount": 1234.5}, "Reembolsei 1.234,50."),
    ("Order {order_id:>6}.", "en", {"order_id": "4412"}, "Order   4412."),
    ("I've refunded {amount:.2f}.", "en", {"amount": "twelve"}, None),
    ("I've refunded {amount}.", "en", {}, None),
])
def test_fill_with_formats(template: str, language: str, fields: dict[str, object],
                           expected: str | None) -> None:
    from replyguard.engine.tools import fill
    assert fill(template, fields, language) == expected
