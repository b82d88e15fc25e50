"""Every string a request sends upstream is screened (engine.request_fields.screen_value):
a message's keys beside its content and name, at any depth and of any shape, and every
top-level field but `model` and the ones screened as the turn. Masked, withhold acting as
redact, never counted; keys not screened; nothing copied when nothing changes.
Cases from the tester's reproductions (branch break1, 775ca91)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from replyguard.engine import (
    ReplyRules,
    ScreenCache,
    compile_rules,
    find,
    screen_fields,
    screen_request,
)
from replyguard.engine.request_fields import MAX_DEPTH, PLAIN, NestingTooDeep, screen_value

RULES = compile_rules(ReplyRules(personal_data={"national_id": "withhold", "email": "redact"}))
CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"
EMAIL = "jane@example.com"
TURN = {"role": "user", "content": "ok?"}


def forwarded(*messages: dict[str, Any]) -> list[dict[str, Any]]:
    """The screened messages (the turn "ok?" last), checking none was counted or mutated."""
    given = [*messages, TURN]
    before = copy.deepcopy(given)
    for cache in (None, ScreenCache()):
        verdict = screen_request(given, RULES, cache=cache)
        assert (verdict.kind, verdict.counts) == ("forward", {})
        assert given == before
    return verdict.messages[:-1]


MESSAGES = {  # name: (message as sent, message as forwarded)
    "function_call_arguments": (
        {"role": "assistant", "content": None,
         "function_call": {"name": "f", "arguments": f'{{"card": "{CARD}"}}'}},
        {"role": "assistant", "content": None,
         "function_call": {"name": "f", "arguments": '{"card": "**** 1111"}'}}),
    "custom_tool_input": (
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "custom", "custom": {"name": "f", "input": f"card {CARD}"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "custom", "custom": {"name": "f", "input": "card **** 1111"}}]}),
    "arguments_object": (
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "f", "arguments": {"card": CARD, "n": 4111111111111111}}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "f", "arguments": {"card": "**** 1111",
                                                     "n": 4111111111111111}}}]}),
    "refusal_part": (
        {"role": "assistant", "content": [{"type": "refusal", "refusal": f"not {CARD}"}]},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "not **** 1111"}]}),
    "reasoning_list": (
        {"role": "assistant", "content": "ok", "reasoning_content": [f"card {CARD}"]},
        {"role": "assistant", "content": "ok", "reasoning_content": ["card **** 1111"]}),
    "reasoning_details_text_list": (
        {"role": "assistant", "content": "ok", "reasoning_details": [
            {"type": "reasoning.text", "text": [f"card {CARD}"]}]},
        {"role": "assistant", "content": "ok", "reasoning_details": [
            {"type": "reasoning.text", "text": ["card **** 1111"]}]}),
    "user_other_key": (  # an earlier user turn: its content as always, its other keys too
        {"role": "user", "content": "hi", "reasoning_content": f"card {CARD}"},
        {"role": "user", "content": "hi", "reasoning_content": "card **** 1111"}),
    "tool_other_key": (
        {"role": "tool", "tool_call_id": f"id {SSN}", "content": "done", "extra": {"m": EMAIL}},
        {"role": "tool", "tool_call_id": "id ***6789", "content": "done",
         "extra": {"m": "j***@example.com"}}),
    "user_part_other_key": (
        {"role": "user", "content": [{"type": "text", "text": "hi", "note": f"ssn {SSN}"}]},
        {"role": "user", "content": [{"type": "text", "text": "hi", "note": "ssn ***6789"}]}),
}


@pytest.mark.parametrize("case", sorted(MESSAGES))
def test_every_string_of_a_message_is_masked_not_counted(case: str) -> None:
    sent, want = MESSAGES[case]
    assert forwarded(sent) == [want]


def test_the_turns_other_keys_are_masked_not_counted_nor_withheld() -> None:
    verdict = screen_request([{"role": "user", "content": f"card {CARD}",
                               "meta": [{"ssn": SSN}]}], RULES)
    assert verdict.kind == "forward"  # a withheld class beside the content: masked
    assert verdict.messages == [{"role": "user", "content": "card **** 1111",
                                 "meta": [{"ssn": "***6789"}]}]
    assert verdict.counts == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}


def test_media_parts_pass_as_they_are() -> None:
    parts = [{"type": "image_url", "image_url": {"url": f"https://img.example/{CARD}.png"}},
             {"type": "input_audio", "input_audio": {"data": "4111111111111111", "format": "wav"}},
             {"type": "file", "file": {"filename": f"{SSN}.pdf", "file_data": "x"}}]
    assert forwarded({"role": "user", "content": parts}) == [{"role": "user", "content": parts}]


def test_masked_tool_arguments_stay_valid_json() -> None:
    arguments = json.dumps({"card": CARD, "who": {"mail": EMAIL, "ssn": SSN}, "n": [1, 2]})
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]}
    screened = forwarded(message)[0]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(screened) == {"card": "**** 1111",
                                    "who": {"mail": "j***@example.com", "ssn": "***6789"},
                                    "n": [1, 2]}


@pytest.mark.parametrize(
    ("body", "screened"),
    [
        ({"model": "m", "messages": [{"role": "user", "content": CARD}]}, {}),
        ({"metadata": {"ssn": SSN, "card": CARD, "n": "7"}},
         {"metadata": {"ssn": "***6789", "card": "**** 1111", "n": "7"}}),
        ({"tools": [{"type": "function", "function": {
            "name": "f", "description": f"the customer's card is {CARD}",
            "parameters": {"type": "object", "properties": {"x": {"enum": [EMAIL]}}}}}]},
         {"tools": [{"type": "function", "function": {
             "name": "f", "description": "the customer's card is **** 1111",
             "parameters": {"type": "object",
                            "properties": {"x": {"enum": ["j***@example.com"]}}}}}]}),
        ({"stop": [CARD, "\n"]}, {"stop": ["**** 1111", "\n"]}),
        ({"stop": CARD}, {"stop": "**** 1111"}),
        ({"response_format": {"type": "json_schema", "json_schema": {
            "name": "x", "schema": {"type": "object", "description": f"ssn {SSN}"}}}},
         {"response_format": {"type": "json_schema", "json_schema": {
             "name": "x", "schema": {"type": "object", "description": "ssn ***6789"}}}}),
        ({"model": CARD, "temperature": 0.2, "stream": True, "n": 2, "seed": None}, {}),
        ({CARD: "x", "logit_bias": {"4111111111111111": 5}}, {}),  # keys are not screened
    ],
)
def test_top_level_fields(body: dict[str, Any], screened: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    assert screen_fields(body, RULES, skip=("messages",)) == screened
    assert screen_fields(body, RULES, ScreenCache(), ("messages",)) == screened
    assert body == before


def test_a_field_not_skipped_is_screened_whatever_its_name() -> None:
    body = {"prompt": CARD, "messages": [{"role": "user", "content": CARD}]}
    assert screen_fields(body, RULES, skip=("prompt",)) == {
        "messages": [{"role": "user", "content": "**** 1111"}]}


def test_nothing_is_copied_when_nothing_changes() -> None:
    tools = [{"type": "function", "function": {"name": "f", "description": "Look up.",
                                               "parameters": {"type": "object"}}}]
    body = {"tools": tools, "metadata": {"a": "b"}, "stop": ["x"]}
    assert screen_value(body, RULES) is body
    changed = screen_value({**body, "user": EMAIL}, RULES)
    assert changed["tools"] is tools and changed["user"] == "j***@example.com"
    message = {"role": "assistant", "content": "hi", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    assert screen_request([message, TURN], RULES).messages[0]["tool_calls"] \
        is message["tool_calls"]


def test_a_resent_tools_list_is_looked_up_not_screened_again() -> None:
    cache = ScreenCache()
    tools = [{"type": "function", "function": {"name": f"tool_{i}",
                                               "description": f"Tool {i}, card {CARD}."}}
             for i in range(20)]
    first = screen_fields({"tools": tools}, RULES, cache)
    assert (cache.hits, cache.misses) == (0, 40)
    assert screen_fields({"tools": tools}, RULES, cache) == first
    assert (cache.hits, cache.misses) == (40, 40)
    assert first["tools"][3]["function"]["description"] == "Tool 3, card **** 1111."


def test_plain_words_find_nothing() -> None:
    assert [word for word in sorted(PLAIN) if find(word)] == []


def test_a_value_nested_too_deep_is_refused() -> None:
    deep: Any = CARD
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(NestingTooDeep):
        screen_fields({"metadata": deep}, RULES)
    with pytest.raises(NestingTooDeep):
        screen_request([{"role": "user", "content": "hi", "x": deep}], RULES)
    assert screen_fields({"metadata": deep[0][0]}, RULES)  # MAX_DEPTH - 1 levels: screened
