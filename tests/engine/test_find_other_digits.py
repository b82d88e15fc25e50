"""Decimal digits of any script read as their ASCII digits (engine.canon): Thai, Bengali,
Tibetan ... digits as much as full-width or Arabic-Indic ones."""

from __future__ import annotations

import pytest

from replyguard.engine import ReplyRules, compile_rules, find, screen_text

RULES = compile_rules(ReplyRules())
THAI = str.maketrans("0123456789", "\u0e50\u0e51\u0e52\u0e53\u0e54\u0e55\u0e56\u0e57\u0e58\u0e59")
BENGALI = str.maketrans("0123456789", "".join(chr(0x09E6 + d) for d in range(10)))


@pytest.mark.parametrize("text", [
    "call +44 20 7946 0123 today",
    "card 4111 1111 1111 1111 on file",
    "Caf\u00e9: SSN 123-45-6789, card 4111-1111-1111-1111 \u2615",
])
@pytest.mark.parametrize("script", [THAI, BENGALI], ids=["thai", "bengali"])
def test_other_scripts_digits_are_found_as_ascii_ones(text: str, script: dict[int, str]) -> None:
    assert find(text.translate(script)) == find(text) != []


def test_thai_card_is_masked_in_ascii() -> None:
    """The text around the mask comes back as typed; a mask is written from the value as the
    detectors read it (ASCII digits), as every mask is."""
    text = "card 4111 1111 1111 1111 ok".translate(THAI)
    assert screen_text(text, RULES, "reply").text == "card **** 1111 ok".translate(THAI).replace(
        "1111".translate(THAI), "1111")


def test_digits_after_many_accents_are_found() -> None:
    prose = "\u00e9t\u00e9 \u00e0 S\u00e3o Jo\u00e3o, " * 40
    text = prose + "card 4111 1111 1111 1111".translate(THAI)
    assert find(text) == find(prose + "card 4111 1111 1111 1111")
