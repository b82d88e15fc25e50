"""engine.actions: the action check per sentence and at the end (DESIGN section 5, seed 000's
counts), driven by the table in tests/data/action_cases.py, plus the API around it."""

from __future__ import annotations

import pytest

from replyguard.engine import (
    ActionCheck,
    MustAccompany,
    Phrasing,
    Piece,
    ReplyRules,
    ReplyScreen,
    ToolRules,
    ToolSpec,
    cannot_do_sentence,
    compile_rules,
    compile_tools,
    forbidden_calls,
    read_context,
    screen_reply,
)
from tests.data.action_cases import (
    CASES,
    DONE,
    EN_DONE,
    RULES,
    SHOP_TOOLS,
    STAFF_TOOLS,
    Call,
    Case,
    messages,
)

WRITES = set(SHOP_TOOLS.tools)
TOOLS = {(lang, staff): compile_tools(STAFF_TOOLS if staff else SHOP_TOOLS, lang)
         for lang in ("en", "pt-BR") for staff in (False, True)}


def test_the_table_has_at_least_sixty_cases_in_both_languages() -> None:
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.language for c in CASES} == {"en", "pt-BR"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_action_case(case: Case) -> None:
    context = read_context(messages(case.calls), WRITES)
    released = screen_reply(case.reply, RULES[case.language], context,
                            tools=TOOLS[(case.language, case.staff)])
    assert released == (case.released, case.counts)


def test_outcome_added_before_must_accompany() -> None:
    rules = compile_rules(ReplyRules(must_accompany=(MustAccompany(
        add="Refunds reach the card in three to five working days.", when_done="refund_card"),)))
    context = read_context(messages(DONE), WRITES)
    assert screen_reply("Thanks for waiting.", rules, context, tools=TOOLS[("en", False)]) == (
        "Thanks for waiting. " + EN_DONE + " Refunds reach the card in three to five working days.",
        {"reply_outcome_added": 1, "reply_wording_added": 1})


def test_pieces_are_one_sentence_each_and_say_who_wrote_them() -> None:
    screen = ReplyScreen(RULES["en"], read_context(messages(()), WRITES),
                         tools=TOOLS[("en", False)])
    pieces = screen.feed_pieces("Hello there. I've refunded it. Bye")
    pieces += screen.finish_pieces()
    assert pieces == [Piece("Hello there. ", False),
                      Piece("I haven't refunded anything for this order. ", True),
                      Piece("Bye", False)]


def test_added_pieces_are_product_pieces() -> None:
    rules = compile_rules(ReplyRules(must_accompany=(MustAccompany(
        add="Refunds take five days.", when_done="refund_card"),)))
    screen = ReplyScreen(rules, read_context(messages(DONE), WRITES), tools=TOOLS[("en", False)])
    assert screen.feed_pieces("Thanks.") == []
    assert screen.finish_pieces() == [Piece("Thanks.", False), Piece(" " + EN_DONE, True),
                                      Piece(" Refunds take five days.", True)]


def test_feed_and_finish_equal_the_joined_pieces() -> None:
    context = read_context(messages(DONE), WRITES)
    reply = "I've refunded 15.00 pounds. Thanks! Bye."
    whole = ReplyScreen(RULES["en"], context, tools=TOOLS[("en", False)])
    split = ReplyScreen(RULES["en"], context, tools=TOOLS[("en", False)])
    text = whole.feed(reply) + whole.finish()
    pieces = split.feed_pieces(reply) + split.finish_pieces()
    assert "".join(p.text for p in pieces) == text
    assert whole.counts == split.counts


def test_tools_for_another_language_are_refused() -> None:
    with pytest.raises(ValueError, match="tools: compiled for 'pt-BR', the rules for 'en'"):
        ReplyScreen(RULES["en"], tools=TOOLS[("pt-BR", False)])


def test_action_check_alone() -> None:
    check = ActionCheck(TOOLS[("en", False)], read_context(messages(()), WRITES))
    assert check.sentence("  I've refunded it. ") == (
        "  I haven't refunded anything for this order. ", True)
    assert check.sentence("Thanks. ") == ("Thanks. ", False)
    assert check.finish() == []
    assert dict(check.counts) == {"reply_assertion_refused": 1}


def test_earlier_turn_calls_are_read_into_the_context() -> None:
    context = read_context(messages(
        (Call("refund_card", {"order_id": "1"}, {"ok": True}, earlier=True),)), WRITES)
    assert (context.calls, [c.name for c in context.earlier]) == ((), ["refund_card"])
    assert [c.name for c in context.conversation_calls()] == ["refund_card"]


TOOL_CALLS = [
    {"id": "a", "type": "function", "function": {"name": "refund_card", "arguments": "{}"}},
    {"id": "b", "type": "function", "function": {"name": "delete_account", "arguments": "{}"}},
    {"name": "delete_account"},
    "junk",
    {"id": "c", "type": "function", "function": {"name": "unknown", "arguments": "{}"}},
]
LOCKED = compile_tools(ToolRules(tools={
    "refund_card": ToolSpec("refund_card", writes=True),
    "delete_account": ToolSpec("delete_account", writes=True, allowed=False)}), "en")


def test_forbidden_calls() -> None:
    assert forbidden_calls(LOCKED, TOOL_CALLS) == [1, 2]  # type: ignore[arg-type]


@pytest.mark.parametrize(("language", "sentence"), [
    ("en", "I can't do that here: the delete account action is not available."),
    ("pt-BR", "Não posso fazer isso aqui: a ação delete account não está disponível."),
])
def test_cannot_do_sentence(language: str, sentence: str) -> None:
    assert cannot_do_sentence(LOCKED, "delete_account", language) == sentence


CARD_TOOLS = compile_tools(ToolRules(tools={"refund_card": ToolSpec(
    "refund_card", writes=True, claims={"en": ("refunded",)},
    phrasing={"en": Phrasing(
        done="I've refunded {amount} to card {card}.",
        not_done="I haven't refunded card {card}.")})}), "en")


def test_added_outcome_sentence_masks_the_card_it_was_sent() -> None:
    context = read_context(messages(DONE), WRITES)
    assert screen_reply("Thanks.", RULES["en"], context, tools=CARD_TOOLS) == (
        "Thanks. I've refunded 12.50 to card **** 1111.",
        {"reply_outcome_added": 1, "reply_pd_detected_card": 1, "reply_pd_masked": 1})


def test_replacing_outcome_sentence_masks_the_card_it_was_sent() -> None:
    context = read_context(messages(DONE), WRITES)
    assert screen_reply("I've refunded 99.00 pounds.", RULES["en"], context,
                        tools=CARD_TOOLS) == (
        "I've refunded 12.50 to card **** 1111.",
        {"reply_value_replaced": 1, "reply_pd_detected_card": 1, "reply_pd_masked": 1})
