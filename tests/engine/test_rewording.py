"""engine.rewording: the words a reworded product sentence must keep, and when the template's
own sentence is sent instead (seed 000: reply_temperature_kept / _varied)."""

from __future__ import annotations

import pytest

from replyguard.engine import TEMPERATURE_KEPT, TEMPERATURE_VARIED, locked_words, rewording_kept

TEMPLATE = "I've refunded 12.50 for order 4412."
LOCKED = locked_words(TEMPLATE, ["12.50", "4412"], "en")


def test_count_names() -> None:
    assert (TEMPERATURE_KEPT, TEMPERATURE_VARIED) == (
        "reply_temperature_kept", "reply_temperature_varied")


def test_locked_words() -> None:
    assert LOCKED == frozenset({"12.50", "4412", "refunded"})
    assert locked_words("I haven't refunded anything for this order.", [], "en") == frozenset(
        {"not", "refunded", "anything"})
    assert locked_words("Não reembolsei nada deste pedido.", [], "pt-BR") == frozenset(
        {"nao", "nada"})
    assert locked_words("Order ORD-7 of jane@example.com.", ["jane@example.com"], "en") == (
        frozenset({"jane@example.com", "ord", "7"}))  # a code; hyphens read as spaces


@pytest.mark.parametrize(("reworded", "kept"), [
    ("Your refund of 12.50 for order 4412 has been refunded.", False),
    ("Good news: I've refunded 12.50 on order 4412!", False),
    ("I've refunded 12.5 for order 4412.", True),  # a value changed
    ("I've refunded the money for order 4412.", True),  # a value lost
    ("I haven't refunded 12.50 for order 4412.", True),  # a negation added
    ("I've refunded 12.50 for order 4412 and 15.00 more.", True),  # a value added
    ("Have I refunded 12.50 for order 4412?", True),  # statement -> question
    ("Please note I've refunded 12.50 for order 4412.", True),  # statement -> request
    ("I've sent back 12.50 for order 4412.", True),  # a key term lost
    ("", True),
])
def test_rewording_kept(reworded: str, kept: bool) -> None:
    assert rewording_kept(TEMPLATE, reworded, LOCKED, "en") is kept


def test_portuguese_accents_do_not_matter() -> None:
    template = "O reembolso do pedido 4412 não foi concluído."
    locked = locked_words(template, ["4412"], "pt-BR")
    assert rewording_kept(template, "O reembolso do pedido 4412 nao foi concluido.", locked,
                          "pt-BR") is False
    assert rewording_kept(template, "O reembolso do pedido 4412 foi concluído.", locked,
                          "pt-BR") is True



@pytest.mark.parametrize(("template", "reworded"), [
    ("The refund for order 4412 did not go through.",
     "The refund for order 4412 did not fail; it went through."),
    ("I've refunded 12.50 for order 4412.", "I've refunded 4412 for order 12.50."),
    ("I haven't refunded anything for this order.",
     "It is not true that I have not refunded anything for this order."),
    ("I've refunded 12.50 for order 4412.", "I've refunded 12.50 dollars for order 4412."),
    ("I've refunded 12.50 for order 4412.", "I've refunded $12.50 for order 4412."),
    ("Your order ABC-XYZ is on its way.", "Your order DEF-QRS is on its way."),
    ("The refund for order 4412 did not go through.",
     "Not to worry, the refund for order 4412 did go through."),
    ("I haven't refunded anything for this order.",
     "I have refunded this order, not anything else."),
])
def test_a_rewording_that_changes_the_meaning_is_not_used(template: str, reworded: str) -> None:
    assert rewording_kept(template, reworded, locked_words(template, [], "en"), "en")
