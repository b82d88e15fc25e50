"""Text a request sends the model beside its messages' content: message names, the reasoning
an assistant message carries back, the end-user ids and `prediction` (engine.request_fields).
All masked, withhold acting as redact; a name is counted with its message, the rest never."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from replyguard.engine import ReplyRules, ScreenCache, compile_rules, screen_fields, screen_request

RULES = compile_rules(ReplyRules(personal_data={"national_id": "withhold", "email": "redact"}))
CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"
EMAIL = "jane@example.com"


@pytest.mark.parametrize(
    ("body", "screened"),
    [
        ({"model": "m"}, {}),
        ({"user": "u-42"}, {}),  # only what screening changed is returned
        ({"user": EMAIL}, {"user": "j***@example.com"}),
        ({"safety_identifier": f"{EMAIL} {CARD}"},
         {"safety_identifier": "j***@example.com **** 1111"}),
        ({"user": SSN}, {"user": "***6789"}),  # withhold acts as redact
        ({"prediction": {"type": "content", "content": f"card = '{CARD}'  # {SSN}"}},
         {"prediction": {"type": "content", "content": "card = '**** 1111'  # ***6789"}}),
        ({"prediction": {"type": "content", "content": [
            {"type": "text", "text": f"a {CARD}"}, {"type": "text", "text": "b"}]}},
         {"prediction": {"type": "content", "content": [
             {"type": "text", "text": "a **** 1111"}, {"type": "text", "text": "b"}]}}),
        ({"user": None, "prediction": None}, {}),
        ({"user": 4111111111111111}, {}),  # a shape the caller refuses is not touched
    ],
)
def test_screen_fields(body: dict[str, Any], screened: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    assert screen_fields(body, RULES) == screened
    assert screen_fields(body, RULES, ScreenCache()) == screened
    assert body == before


def names(messages: list[dict[str, Any]]) -> list[Any]:
    verdict = screen_request(messages, RULES)
    assert verdict.kind == "forward"
    return [m.get("name") for m in verdict.messages]


def test_the_turns_name_is_masked_and_counted_with_it() -> None:
    messages = [{"role": "user", "name": EMAIL, "content": f"my card {CARD}"}]
    verdict = screen_request(messages, RULES)
    assert verdict.messages == [{"role": "user", "name": "j***@example.com",
                                 "content": "my card **** 1111"}]
    assert verdict.counts == {"reply_pd_detected_card": 1, "reply_pd_detected_email": 1,
                              "reply_pd_redacted": 2}


def test_a_withheld_class_in_a_name_is_masked_not_withheld() -> None:
    verdict = screen_request([{"role": "user", "name": SSN, "content": "hi"}], RULES)
    assert verdict.kind == "forward"
    assert verdict.messages == [{"role": "user", "name": "***6789", "content": "hi"}]
    assert verdict.counts == {"reply_pd_detected_national_id": 1, "reply_pd_redacted": 1}


def test_names_of_every_role_are_masked_only_new_ones_counted() -> None:
    messages = [
        {"role": "system", "name": EMAIL, "content": "be brief"},
        {"role": "user", "name": EMAIL, "content": "hi"},
        {"role": "assistant", "name": EMAIL, "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "name": SSN, "tool_call_id": "c1", "content": "ok"},
    ]
    verdict = screen_request(messages, RULES)
    assert [m["name"] for m in verdict.messages] == ["j***@example.com"] * 3 + ["***6789"]
    # only the tool result is new in this request: the user turn was counted when it came
    assert verdict.counts == {"reply_pd_detected_national_id": 1, "reply_pd_redacted": 1}


def test_a_withheld_turn_with_a_name_counts_only_the_withheld_content() -> None:
    verdict = screen_request([{"role": "user", "name": EMAIL, "content": f"ssn {SSN}"}], RULES)
    assert verdict.kind == "withhold"
    assert verdict.counts == {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1}


def test_names_without_values_and_absent_names_are_left_alone() -> None:
    assert names([{"role": "user", "name": "jane_doe", "content": "hi"},
                  {"role": "user", "content": "hi"}]) == ["jane_doe", None]


def test_assistant_reasoning_sent_back_is_masked_not_counted() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello.", "reasoning_content": f"card {CARD}",
         "reasoning": f"ssn {SSN}", "reasoning_details": [
             {"type": "reasoning.text", "text": f"card {CARD}", "signature": "sig"},
             {"type": "reasoning.summary", "summary": f"mail {EMAIL}"},
             {"type": "reasoning.encrypted", "data": "opaque"}, "odd"]},
        {"role": "user", "content": "thanks"},
    ]
    before = copy.deepcopy(messages)
    verdict = screen_request(messages, RULES)
    assert verdict.messages[1] == {
        "role": "assistant", "content": "Hello.", "reasoning_content": "card **** 1111",
        "reasoning": "ssn ***6789", "reasoning_details": [
            {"type": "reasoning.text", "text": "card **** 1111", "signature": "sig"},
            {"type": "reasoning.summary", "summary": "mail j***@example.com"},
            {"type": "reasoning.encrypted", "data": "opaque"}, "odd"]}
    assert verdict.counts == {}
    assert messages == before
