"""engine.screen_request: forward, withhold and exact verdicts; what is screened and counted."""

from __future__ import annotations

import copy
import json

import pytest

from replyguard.engine import ReplyExactly, ReplyRules, compile_rules, screen_request
from replyguard.engine.request import WITHHELD_REPLY

CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"
RULES = compile_rules(ReplyRules(personal_data={"national_id": "withhold"}))


def user(content: object) -> dict:
    return {"role": "user", "content": content}


def call(call_id: str = "c1") -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "get_order", "arguments": "{}"}}]}


def tool(content: str, call_id: str = "c1") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


@pytest.mark.parametrize(
    ("turn", "kind", "forwarded", "counts"),
    [
        ("hello", "forward", "hello", {}),
        (f"my card is {CARD}", "forward", "my card is **** 1111",
         {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}),
        ("write to jane@example.com", "forward", "write to jane@example.com",
         {"reply_pd_detected_email": 1}),
        (f"my ssn is {SSN}", "withhold", None,
         {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1}),
        (f"ssn {SSN} and card {CARD}", "withhold", None,
         {"reply_pd_detected_national_id": 1, "reply_pd_detected_card": 1,
          "reply_pd_withheld": 1}),
        ("db at postgres://admin:s3cr3tPa55@db.internal:5432/shop", "forward",
         "db at postgres://admin:****@db.internal:5432/shop",
         {"reply_pd_detected_password": 1, "reply_pd_redacted": 1}),
        ("my iban is gb82 west 1234 5698 7654 32", "forward", "my iban is GB** **** 5432",
         {"reply_pd_detected_iban": 1, "reply_pd_redacted": 1}),
        ("card 4111\u200b1111\u200b1111\u200b1111 please", "forward", "card **** 1111 please",
         {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}),
        ("my ni number is ab123456c", "withhold", None,
         {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1}),
    ],
)
def test_verdict_of_the_turn(turn: str, kind: str, forwarded: str | None, counts: dict) -> None:
    verdict = screen_request([{"role": "system", "content": "Be kind."}, user(turn)], RULES)
    assert verdict.kind == kind
    assert dict(verdict.counts) == counts
    if forwarded is None:
        assert verdict.messages == []
        assert verdict.reply == WITHHELD_REPLY["en"]
    else:
        assert verdict.messages == [{"role": "system", "content": "Be kind."},
                                    user(forwarded)]
        assert verdict.reply is None


def test_withheld_reply_in_portuguese() -> None:
    rules = compile_rules(ReplyRules(personal_data={"national_id": "withhold"}), "pt-BR")
    verdict = screen_request([user("meu CPF é 390.533.447-05")], rules)
    assert (verdict.kind, verdict.reply) == ("withhold", WITHHELD_REPLY["pt-BR"])


def test_earlier_user_turns_screened_not_counted() -> None:
    messages = [user(f"card {CARD}"), {"role": "assistant", "content": "Noted."}, user("thanks")]
    verdict = screen_request(messages, RULES)
    assert verdict.kind == "forward"
    assert verdict.messages == [user("card **** 1111"), {"role": "assistant", "content": "Noted."},
                                user("thanks")]
    assert dict(verdict.counts) == {}


def test_earlier_withheld_turn_dropped() -> None:
    messages = [user(f"ssn {SSN}"), {"role": "assistant", "content": "Please resend."},
                user("ok, order 4412")]
    verdict = screen_request(messages, RULES)
    assert verdict.kind == "forward"
    assert verdict.messages == [{"role": "assistant", "content": "Please resend."},
                                user("ok, order 4412")]
    assert dict(verdict.counts) == {}


def test_tool_results_of_this_turn_screened_withhold_as_redact_and_counted() -> None:
    messages = [user("my order?"), call(), tool(f'{{"ssn": "{SSN}", "card": "{CARD}"}}')]
    verdict = screen_request(messages, RULES)
    assert verdict.kind == "forward"
    assert verdict.messages[2] == tool('{"ssn": "***6789", "card": "**** 1111"}')
    assert dict(verdict.counts) == {"reply_pd_detected_national_id": 1,
                                    "reply_pd_detected_card": 1, "reply_pd_redacted": 2}


def test_earlier_tool_results_screened_not_counted() -> None:
    messages = [user("my order?"), call("old"), tool(f"card {CARD}", "old"),
                {"role": "assistant", "content": "Here it is."}, user("thanks")]
    verdict = screen_request(messages, RULES)
    assert verdict.messages[2] == tool("card **** 1111", "old")
    assert dict(verdict.counts) == {}


def test_a_turn_resent_with_its_tool_results_is_not_counted_again() -> None:
    """The second request of a turn (after a tool call) counts only what is new in it."""
    messages = [user(f"refund to {CARD}"), call(), tool('{"ok": true}')]
    verdict = screen_request(messages, RULES)
    assert verdict.messages[0] == user("refund to **** 1111")
    assert dict(verdict.counts) == {}


def test_list_of_parts_text_screened_images_untouched() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,4111111111111111"}}
    content = [{"type": "text", "text": f"card {CARD}"}, image,
               {"type": "text", "text": "is it on file?"}]
    verdict = screen_request([user(content)], RULES)
    assert verdict.messages == [user([{"type": "text", "text": "card **** 1111"}, image,
                                      {"type": "text", "text": "is it on file?"}])]
    assert dict(verdict.counts) == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}


def test_list_of_parts_withheld_counts_one_withhold() -> None:
    content = [{"type": "text", "text": f"ssn {SSN}"}, {"type": "text", "text": "ssn 234-56-7891"}]
    verdict = screen_request([user(content)], RULES)
    assert verdict.kind == "withhold"
    assert dict(verdict.counts) == {"reply_pd_detected_national_id": 2, "reply_pd_withheld": 1}


EXACT = compile_rules(ReplyRules(
    personal_data={"national_id": "withhold"},
    reply_exactly=(
        ReplyExactly(say="Please check the label.", when_asked="allergy_advice"),
        ReplyExactly(say="Ask our staff.", when_asked="diet", words=("vegan", "gluten free")),
        ReplyExactly(say="Fale com um farmacêutico.", when_asked="remédio",
                     words=("não posso tomar",)),
    )))
EXACT_PT = compile_rules(EXACT.rules, "pt-BR")


@pytest.mark.parametrize(
    ("turn", "say"),
    [
        ("I need Allergy   Advice please", "Please check the label."),
        ("ALLERGY ADVICE?", "Please check the label."),
        ("allergy-advice", "Please check the label."),  # markup reads as spaces
        ("allergy_advice", "Please check the label."),
        ("allergy advices", None),
        ("no allergy here", None),
        ("Is it VEGAN?", "Ask our staff."),
        ("is it gluten free", "Ask our staff."),
        ("diet", None),  # words given: the topic name is not read
        ("veganism", None),
        ("nao posso tomar isso?", None),  # en: accents are not ignored
    ],
)
def test_reply_exactly_when_asked(turn: str, say: str | None) -> None:
    verdict = screen_request([user(turn)], EXACT)
    if say is None:
        assert verdict.kind == "forward"
        assert dict(verdict.counts) == {}
    else:
        assert (verdict.kind, verdict.reply, verdict.messages) == ("exact", say, [])
        assert dict(verdict.counts) == {"reply_exact_reply": 1}


@pytest.mark.parametrize("turn", ["nao posso tomar isso?", "NÃO POSSO TOMAR", "não pósso tomar"])
def test_reply_exactly_when_asked_ignores_accents_in_portuguese(turn: str) -> None:
    verdict = screen_request([user(turn)], EXACT_PT)
    assert (verdict.kind, verdict.reply) == ("exact", "Fale com um farmacêutico.")


def test_withhold_wins_over_exact() -> None:
    verdict = screen_request([user(f"allergy advice for {SSN}")], EXACT)
    assert verdict.kind == "withhold"


def test_exact_only_reads_the_last_user_turn() -> None:
    verdict = screen_request([user("allergy advice"), user("thanks")], EXACT)
    assert verdict.kind == "forward"


def test_input_never_mutated() -> None:
    messages = [user(f"card {CARD}"),
                user([{"type": "text", "text": f"ssn {SSN}"}]),
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "refund_card", "arguments": json.dumps({"c": CARD})}}]},
                tool(f"card {CARD}"),
                user([{"type": "text", "text": f"card {CARD}"}])]
    before = copy.deepcopy(messages)
    screen_request(messages, RULES)
    assert messages == before


@pytest.mark.parametrize(
    "messages",
    [
        [None, 5, "hi", user("hello")],
        [user(None)],
        [user(42)],
        [user([None, 3, {"type": "text"}, {"type": "text", "text": 5}])],
        [{"role": "tool", "content": {"a": 1}}, user("hi")],
        [{"content": "no role"}, user("hi")],
        [user("hi"), {"role": "assistant", "tool_calls": 7}],
        [],
    ],
)
def test_garbage_does_not_raise(messages: list) -> None:
    verdict = screen_request(messages, RULES)
    assert verdict.kind == "forward"


def test_non_dict_entries_passed_through() -> None:
    verdict = screen_request([None, user("hi")], RULES)
    assert verdict.messages == [None, user("hi")]


def test_verdict_carries_the_turn_context() -> None:
    messages = [user("refund it"), call(), tool('{"ok": true}')]
    verdict = screen_request(messages, RULES)
    assert verdict.context.turn == "refund it"
    assert verdict.context.done("get_order")


def test_only_tool_results_after_the_last_assistant_message_are_counted() -> None:
    messages = [user("my orders?"), call("a"), tool(f"card {CARD}", "a"), call("b"),
                tool("card 5555 5555 5555 4444", "b")]
    verdict = screen_request(messages, RULES)
    assert [m["content"] for m in verdict.messages[2::2]] == ["card **** 1111", "card **** 4444"]
    assert dict(verdict.counts) == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}
