"""config.tools: the `tools:` settings read into engine ToolSpecs, every wrong key named."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from replyguard.config.errors import ConfigError
from replyguard.config.settings import load_settings
from replyguard.engine.tools import Phrasing, ToolRules, ToolSpec

SHOP = """\
tools:
  refund_card:
    writes: true
    claims: {en: [refunded, refund has been issued], pt-BR: [reembolsei]}
    phrasing:
      done: "I've refunded {amount} for order {order_id}."
      failed: "The refund for order {order_id} did not go through."
      not_done: "I haven't refunded anything for this order."
    fresh_for_s: 300
    output_schema:
      type: object
      properties: {amount: {type: number, minimum: 0, maximum: 500}}
  lookup_order:
    claims: [looked up]
    phrasing: {pt-BR: {done: "Consultei o pedido {order_id}."}}
  delete_account: {allowed: false}
  charge_card: {screen_arguments: false}
audience: staff
highlight: ">> {sentence}"
reply_temperature: 0.7
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "replyguard.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shop_tools(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, SHOP), env={})
    assert settings.tools["refund_card"] == ToolSpec(
        "refund_card", True,
        MappingProxyType({"en": ("refunded", "refund has been issued"),
                          "pt-BR": ("reembolsei",)}),
        MappingProxyType({"*": Phrasing("I've refunded {amount} for order {order_id}.",
                                        "The refund for order {order_id} did not go through.",
                                        "I haven't refunded anything for this order.")}),
        300.0,
        MappingProxyType({"type": "object", "properties": {
            "amount": {"type": "number", "minimum": 0, "maximum": 500}}}),
        True)
    assert settings.tools["lookup_order"].claims == {"*": ("looked up",)}
    assert settings.tools["lookup_order"].phrasing == {
        "pt-BR": Phrasing("Consultei o pedido {order_id}.")}
    assert settings.tools["delete_account"].allowed is False
    assert settings.tools["charge_card"].screen_arguments is False
    assert settings.tools["refund_card"].screen_arguments is True  # screened by default
    rules = settings.tool_rules()
    assert isinstance(rules, ToolRules)
    assert (rules.audience, rules.highlight, rules.temperature) == ("staff", ">> {sentence}", 0.7)
    assert settings.tool_rules("customer").audience == "customer"


def test_no_tools_by_default() -> None:
    settings = load_settings(None, env={})
    assert settings.tool_rules() == ToolRules({}, "customer", "[unverified] {sentence}", 0.0)


@pytest.mark.parametrize(("text", "errors"), [
    ("tools: [refund_card]\n", ["tools: ['refund_card'] is not a mapping of tool names"]),
    ("tools: {'refund card': {}}\n",
     ["tools.refund card: a tool name is 1 to 64 letters, digits, '_' or '-'"]),
    ("tools: {refund_card: {writes: yes please}}\n",
     ["tools.refund_card.writes: 'yes please' is not a boolean"]),
    ("tools: {refund_card: {claim: [refunded]}}\n",
     ["tools.refund_card.claim: unknown key (known: allowed, claims, fresh_for_s, "
      "output_schema, phrasing, screen_arguments, writes)"]),
    ("tools: {refund_card: {screen_arguments: nope}}\n",
     ["tools.refund_card.screen_arguments: 'nope' is not a boolean"]),
    ("tools: {refund_card: {claims: refunded}}\n",
     ["tools.refund_card.claims: 'refunded' is neither a list nor a mapping of languages"]),
    ("tools: {refund_card: {claims: {fr: [rembourse]}}}\n",
     ["tools.refund_card.claims.fr: unknown language (known: *, en, pt-BR)"]),
    ("tools: {refund_card: {claims: [refunded, '']}}\n",
     ["tools.refund_card.claims[1]: must not be empty"]),
    ("tools: {refund_card: {phrasing: {done: 'Refunded {0}.'}}}\n",
     ["tools.refund_card.phrasing.done: {0} is not a field name"]),
    ("tools: {refund_card: {phrasing: {sucess: 'Done.'}}}\n",
     ["tools.refund_card.phrasing.sucess: unknown key (known: done, failed, not_done)"]),
    ("tools: {refund_card: {fresh_for_s: -1}}\n",
     ["tools.refund_card.fresh_for_s: -1 is out of range (> 0)"]),
    ("tools: {refund_card: {output_schema: {type: numbr}}}\n",
     ["tools.refund_card.output_schema.type: not a valid JSON Schema: 'numbr' is not valid "
      "under any of the given schemas"]),
    ("audience: boss\n", ["audience: unknown audience 'boss' (known: customer, staff)"]),
    ("highlight: 'no marker'\n", ["highlight: must hold {sentence}"]),
    ("highlight: '{sentence} {x}'\n", ["highlight: {sentence} is its only placeholder"]),
    ("reply_temperature: 3\n", ["reply_temperature: 3 is out of range (0..2)"]),
])
def test_wrong_tools_settings_name_the_key(tmp_path: Path, text: str, errors: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, text), env={})
    assert caught.value.errors == errors
