"""JSON replies (`response_format`): string values screened, the document kept valid."""

from __future__ import annotations

import json

import pytest

from replyguard.config.rules import load_rules
from replyguard.engine import JsonReplyScreen, ScreeningError, compile_rules

RULES = compile_rules(load_rules("config/reply-rules.example.yaml"))
DOC = ('{"status": "on file", "card": "4111 1111 1111 1111", '
       '"note": "It is a guaranteed refund. Thanks.", "ssn": "123-45-6789", "n": [1, "Dr. Who"]}')


def _screen(text: str, cuts: int = 1) -> tuple[str, dict[str, int]]:
    screen = JsonReplyScreen(RULES)
    size = max(1, len(text) // cuts)
    held = "".join(screen.feed(text[i:i + size]) for i in range(0, len(text), size))
    assert held == ""
    return screen.finish(), dict(screen.counts)


@pytest.mark.parametrize("cuts", [1, 7, 200])
def test_string_values_screened_document_valid(cuts: int) -> None:
    out, counts = _screen(DOC, cuts)
    assert json.loads(out) == {"status": "on file", "card": "**** 1111", "note": "Thanks.",
                               "ssn": "", "n": [1, "Dr. Who"]}
    assert counts == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1,
                      "reply_wording_removed": 1, "reply_pd_detected_national_id": 1,
                      "reply_pd_withheld": 1}


def test_not_json_is_screened_as_text() -> None:
    assert _screen("Your card 4111 1111 1111 1111 is on file.")[0] == (
        "Your card **** 1111 is on file.")


def test_closed_after_finish() -> None:
    screen = JsonReplyScreen(RULES)
    screen.finish()
    with pytest.raises(ScreeningError):
        screen.feed("x")


def test_keys_holding_personal_data_are_masked() -> None:
    from replyguard.engine.json_reply import JsonReplyScreen
    from replyguard.engine.rules import ReplyRules, compile_rules
    screen = JsonReplyScreen(compile_rules(ReplyRules(personal_data={"card": "withhold"}), "en"))
    screen.feed('{"4111 1111 1111 1111": "on file", "5555 5555 5555 4444": "x", "ok": 1}')
    assert screen.finish() == '{"**** 1111":"on file","**** 4444":"x","ok":1}'
    assert screen.counts["reply_pd_detected_card"] == 2


def test_json_string_values_get_the_action_checks() -> None:
    from replyguard.engine.context import read_context
    from replyguard.engine.json_reply import JsonReplyScreen
    from replyguard.engine.rules import ReplyRules, compile_rules
    from replyguard.engine.tools import Phrasing, ToolRules, ToolSpec, compile_tools
    spec = ToolSpec("refund_card", True, {"*": ("refunded",)},
                    {"*": Phrasing(not_done="I haven't refunded anything.")})
    screen = JsonReplyScreen(compile_rules(ReplyRules(), "en"),
                             read_context([{"role": "user", "content": "hi"}]),
                             tools=compile_tools(ToolRules({"refund_card": spec}), "en"))
    screen.feed('{"answer": "I\'ve refunded 12.50 pounds for order 4412."}')
    assert screen.finish() == '{"answer":"I haven\'t refunded anything."}'
    assert screen.counts["reply_assertion_refused"] == 1


def test_card_numbers_written_as_floats_are_screened() -> None:
    from replyguard.engine.json_reply import JsonReplyScreen
    from replyguard.engine.rules import ReplyRules, compile_rules
    rules = compile_rules(ReplyRules(), "en")
    for document in ('{"card": 4111111111111111.0}', '{"card": 4.111111111111111e15}'):
        screen = JsonReplyScreen(rules)
        screen.feed(document)
        assert screen.finish() == '{"card":"**** 1111"}'
    screen = JsonReplyScreen(rules)
    screen.feed('{"total": 1234567890123.0, "ratio": 0.5}')
    assert screen.finish() == '{"total":1234567890123.0,"ratio":0.5}'


@pytest.mark.parametrize(("document", "screened"), [
    ({"password": "sunshine"}, {"password": "****"}),
    ({"password": "correct horse battery staple"}, {"password": "****"}),
    ({"passwords": ["Qz7xK2mP9w", "sunshine"]}, {"passwords": ["****", "****"]}),
    ({"db": {"DB_PASSWORD": 'x"y1234'}}, {"db": {"DB_PASSWORD": "****"}}),
    ({"password": "", "label": "Password"}, {"password": "", "label": "Password"}),
    ({"password": "Password", "hint": "at least 12 characters"},
     {"password": "Password", "hint": "at least 12 characters"}),
    ({"password_policy": "at least 12 characters"}, {"password_policy": "at least 12 characters"}),
])
def test_a_string_under_a_password_name_is_masked_whatever_it_looks_like(
        document: dict[str, object], screened: dict[str, object]) -> None:
    for cuts in (1, 5):
        assert json.loads(_screen(json.dumps(document), cuts)[0]) == screened
