"""engine.context.read_context: outcomes, arguments, passages, citations and write values."""

from __future__ import annotations

import json

import pytest

from replyguard.engine.context import compact, content_text, outcome_of, read_context


def _call(name: str, arguments: object, call_id: str = "c1") -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]}


def _result(content: object, call_id: str = "c1") -> dict:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"role": "tool", "tool_call_id": call_id, "content": text}


USER = {"role": "user", "content": "refund order 4412 please"}


@pytest.mark.parametrize(
    ("result", "outcome"),
    [
        ({"status": "refunded"}, "done"),
        ({"ok": True}, "done"),
        ({"error": None, "amount": 12.5}, "done"),
        ({"error": "card declined"}, "failed"),
        ({"error": ""}, "failed"),
        ({"ok": False}, "failed"),
        ({"status": "failed"}, "failed"),
        ({"status": "ERROR"}, "failed"),
        ({"status": "declined"}, "failed"),
        ({"status": "Rejected"}, "failed"),
        ({"status": "pending_review"}, "done"),
        ("refund sent", "done"),
        ([1, 2], "done"),
    ],
)
def test_outcome_read_from_the_tool_result(result: object, outcome: str) -> None:
    context = read_context([USER, _call("refund_card", "{}"), _result(result)])
    assert [c.outcome for c in context.calls] == [outcome]


def test_a_call_without_result_is_pending() -> None:
    context = read_context([USER, _call("refund_card", "{}")])
    assert [(c.name, c.outcome, c.result) for c in context.calls] == [
        ("refund_card", "pending", None)]


@pytest.mark.parametrize(
    "arguments", ['{"order_id": "4412", "amount": 12.5}', {"order_id": "4412", "amount": 12.5}])
def test_arguments_as_json_string_or_dict(arguments: object) -> None:
    context = read_context([USER, _call("refund_card", arguments), _result({"ok": True})])
    assert context.calls[0].arguments == {"order_id": "4412", "amount": 12.5}


def test_arguments_that_are_not_json_kept_raw() -> None:
    context = read_context([USER, _call("refund_card", "order 4412"), _result({"ok": True})])
    assert context.calls[0].arguments == "order 4412"


def test_only_calls_after_the_last_user_turn_are_this_turns() -> None:
    messages = [USER, _call("get_order", "{}", "old"), _result({"ok": True}, "old"),
                {"role": "assistant", "content": "Done."},
                {"role": "user", "content": "and refund it"},
                _call("refund_card", "{}", "new"), _result({"ok": True}, "new")]
    context = read_context(messages)
    assert context.turn == "and refund it"
    assert [(c.id, c.name) for c in context.calls] == [("new", "refund_card")]
    assert context.done("refund_card") and not context.done("get_order")


@pytest.mark.parametrize(("result", "done"), [({"ok": True}, True), ({"ok": False}, False),
                                              (None, False)])
def test_done_only_for_a_done_outcome(result: object, done: bool) -> None:
    messages = [USER, _call("refund_card", "{}")]
    if result is not None:
        messages.append(_result(result))
    assert read_context(messages).done("refund_card") is done


PASSAGES = {"passages": [{"id": "p1", "tags": ["medical", "dosage"], "text": "Take two."},
                         {"id": "p2", "tags": [], "text": "Shop hours."},
                         {"id": 3, "tags": ["ignored"]}, "junk"]}


def test_passages_declared_in_a_tool_result() -> None:
    context = read_context([USER, _call("search", "{}"), _result(PASSAGES)])
    assert {k: p.tags for k, p in context.passages.items()} == {
        "p1": ("medical", "dosage"), "p2": ()}
    assert context.tags() == frozenset({"medical", "dosage"})


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("Take two a day [p1].", {"medical", "dosage"}),
        ("Open at nine [p2].", set()),
        ("See [p9].", set()),
        ("No citation p1.", set()),
        ("Both [p2][p1].", {"medical", "dosage"}),
    ],
)
def test_cited_tags(text: str, tags: set[str]) -> None:
    context = read_context([USER, _call("search", "{}"), _result(PASSAGES)])
    assert context.cited_tags(text) == tags


def test_write_values_hold_the_card_given_in_arguments() -> None:
    arguments = {"order_id": "4412", "note": "card 4111 1111 1111 1111 please"}
    context = read_context([USER, _call("refund_card", arguments), _result({"ok": True})])
    assert "4111111111111111" in context.write_values
    assert "4412" in context.write_values


def test_write_values_hold_returned_values() -> None:
    context = read_context([USER, _call("refund_card", "{}"),
                            _result({"card": "5555-5555-5555-4444"})])
    assert "5555555555554444" in context.write_values


def test_write_values_skip_tools_that_do_not_write() -> None:
    messages = [USER, _call("get_order", {"card": "4111 1111 1111 1111"}), _result({"ok": True})]
    assert read_context(messages, writes={"refund_card"}).write_values == frozenset()
    assert "4111111111111111" in read_context(messages).write_values


@pytest.mark.parametrize(
    "messages",
    [
        [None, 3, "text", USER],
        [USER, {"role": "assistant", "tool_calls": 5}],
        [USER, {"role": "assistant", "tool_calls": "abc"}],
        [USER, {"role": "assistant", "tool_calls": [None, {"function": "x"}, {"id": 1}]}],
        [USER, {"role": "assistant", "tool_calls": {"id": "c1"}}],
        [USER, {"role": "tool", "content": None}],
        [USER, {"role": "tool", "content": [{"type": "text", "text": "{\"ok\": false}"}]}],
        [{"role": "user", "content": None}],
        [],
    ],
)
def test_garbage_does_not_raise(messages: list) -> None:
    read_context(messages)


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("plain", "plain"),
        ([{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}},
          {"type": "text", "text": "b"}], "a\nb"),
        (None, ""),
        (42, ""),
    ],
)
def test_content_text(content: object, text: str) -> None:
    assert content_text(content) == text


@pytest.mark.parametrize(("value", "compacted"), [("4111 1111-1111.1111", "4111111111111111"),
                                                  ("Jane@Example.COM", "jane@examplecom")])
def test_compact(value: str, compacted: str) -> None:
    assert compact(value) == compacted


def test_outcome_of_a_non_dict_is_done() -> None:
    assert outcome_of("oops") == "done"


@pytest.mark.parametrize(("result", "outcome"), [
    ({"status": "refunded"}, "done"),
    ({"status": "Declined"}, "failed"),
    ({"status": "cancelled"}, "failed"),
    ({"status": "voided"}, "failed"),
    ({"success": False}, "failed"),
    ({"success": True}, "done"),
    ({"ok": False}, "failed"),
    ({"error": None, "status": "ok"}, "done"),
    ({"error": {"code": "card_declined"}}, "failed"),
    ({"status": "pending"}, "pending"),
    ({"status": "In Progress"}, "pending"),
    ({"status": "in-progress"}, "pending"),
    ({"ok": "false"}, "done"),  # a string is not the JSON false the rule reads
    (None, "done"),
])
def test_outcome_of(result: object, outcome: str) -> None:
    assert outcome_of(result) == outcome
