"""Every message a request carries is screened before the model reads it: system and
developer prompts, earlier assistant replies and the tool-call arguments clients send back,
parts of any text type. They are masked (never dropped) and not counted."""

from __future__ import annotations

import pytest

from replyguard.config.rules import load_rules
from replyguard.engine import compile_rules, screen_request

RULES = compile_rules(load_rules("config/reply-rules.example.yaml"), "en")
CARD = "4111 1111 1111 1111"


@pytest.mark.parametrize("role", ["system", "developer", "assistant"])
def test_other_roles_are_masked_not_counted(role: str) -> None:
    messages = [{"role": role, "content": f"card on file {CARD}; ssn 123-45-6789"},
                {"role": "user", "content": "hi"}]
    verdict = screen_request(messages, RULES)
    assert verdict.kind == "forward"
    assert verdict.messages[0] == {"role": role,
                                   "content": "card on file **** 1111; ssn ***6789"}
    assert verdict.counts == {}


def test_assistant_refusal_and_tool_call_arguments_are_masked() -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "refund_card", "arguments": f'{{"card": "{CARD}"}}'}}
    messages = [{"role": "user", "content": "refund it"},
                {"role": "assistant", "content": None, "refusal": f"not {CARD}",
                 "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": '{"status": "refunded"}'}]
    forwarded = screen_request(messages, RULES).messages
    assert forwarded[1] == {"role": "assistant", "content": None, "refusal": "not **** 1111",
                            "tool_calls": [{**call, "function": {
                                "name": "refund_card", "arguments": '{"card": "**** 1111"}'}}]}
    assert messages[1]["refusal"] == f"not {CARD}"  # the input is not mutated


def test_parts_of_any_text_type_are_screened() -> None:
    messages = [{"role": "user", "content": [{"type": "input_text", "text": f"my card {CARD}"},
                                             {"type": "image_url", "image_url": {"url": "x"}}]}]
    verdict = screen_request(messages, RULES)
    assert verdict.messages[0]["content"] == [
        {"type": "input_text", "text": "my card **** 1111"},
        {"type": "image_url", "image_url": {"url": "x"}}]
    assert verdict.counts == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}


def test_function_role_is_screened_like_a_tool_result() -> None:
    messages = [{"role": "user", "content": "hi"},
                {"role": "function", "name": "lookup", "content": "ssn 123-45-6789"}]
    verdict = screen_request(messages, RULES)
    assert verdict.kind == "forward"
    assert verdict.messages[1]["content"] == "ssn ***6789"
    # counted as a tool result of this turn is (the legacy role for the same thing)
    assert verdict.counts == {"reply_pd_detected_national_id": 1, "reply_pd_redacted": 1}
