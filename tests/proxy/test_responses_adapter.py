"""The Responses adapter without a server: any cutting of a streamed Response's text gives the
whole Response's screened output, and the `done` text is the deltas sent, joined."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import orjson
import pytest
from conftest import SHOP_RULES
from fake_responses import Said, response, stream
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine.reply import ReplyScreen
from replyguard.engine.request_fields import screen_value
from replyguard.engine.rules import compile_rules
from replyguard.proxy.api_responses import screen_response
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import Chunk
from replyguard.proxy.records import screened_text
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.responses_stream import ResponsesStream
from replyguard.proxy.sse import SSEEvent

RULES = compile_rules(SHOP_RULES)
MAKE = partial(ReplyScreen, RULES, None, 2000)
REQUEST = {"model": "m", "input": "hi"}
TEXT = ("Sure. Call me on 4111 1111 1111 1111 or at jane.doe@example.com! "
        "Your card 4111 1111 1111 1111 is on file.\nAnything else?")


#: A call's arguments holding a card: sent masked, the JSON kept valid.
ARGUMENTS = '{"order_id": "4412", "card": "4111 1111 1111 1111", "note": "ok"}'
ARGUMENTS_SENT = '{"order_id":"4412","card":"**** 1111","note":"ok"}'
CALL = {"name": "charge", "arguments": ARGUMENTS}


def _cut(text: str, cuts: Sequence[int]) -> list[str]:
    bounds = [0, *sorted(c for c in cuts if c <= len(text)), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def cut_stream(cuts: list[int], said: Said | None = None,
               call_cuts: Sequence[int] = ()) -> list[dict[str, Any]]:
    """The fake's events for `said` (TEXT), its one text delta cut at `cuts`, each call's
    arguments delta at `call_cuts`."""
    said = said or Said(TEXT, chunk_chars=len(TEXT))
    out: list[dict[str, Any]] = []
    for event in stream(REQUEST, said):
        if event["type"] == "response.output_text.delta":
            out.extend({**event, "delta": d} for d in _cut(said.text, cuts))
        elif event["type"] == "response.function_call_arguments.delta":
            out.extend({**event, "delta": d} for d in _cut(event["delta"], call_cuts))
        else:
            out.append(event)
    return out


def screened(events: list[dict[str, Any]],
             calls: CallFilter | None = None) -> list[dict[str, Any]]:
    adapter = ResponsesStream(MAKE, REQUEST, calls or CallFilter(RULES))
    out: list[dict[str, Any]] = []
    for event in events:
        items, ended = adapter.event(SSEEvent(orjson.dumps(event).decode(), event["type"]))
        out.extend(item.body for item in items if isinstance(item, Chunk))
        if ended:
            break
    return out


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(0, len(TEXT)), max_size=12),
       call_cuts=st.lists(st.integers(0, len(ARGUMENTS)), max_size=12))
def test_any_cutting_gives_the_whole_response(cuts: list[int], call_cuts: list[int]) -> None:
    said = Said(TEXT, calls=(CALL,), chunk_chars=len(TEXT))
    whole = response(REQUEST, said)
    whole_calls = CallFilter(RULES)
    screen_response(whole, MAKE, REQUEST, whole_calls)
    calls = CallFilter(RULES)
    sent = screened(cut_stream(cuts, said, call_cuts), calls)
    assert sent[-1]["type"] == "response.completed"
    assert sent[-1]["response"]["output"] == whole["output"]
    deltas = "".join(e["delta"] for e in sent if e["type"] == "response.output_text.delta")
    done = next(e for e in sent if e["type"] == "response.output_text.done")
    assert done["text"] == deltas == whole["output"][0]["content"][0]["text"]
    arguments = [e["delta"] for e in sent
                 if e["type"] == "response.function_call_arguments.delta"]
    assert arguments == [ARGUMENTS_SENT] == [whole["output"][1]["arguments"]]
    assert calls.counts == whole_calls.counts == {"reply_pd_detected_card": 1,
                                                  "reply_pd_redacted": 1}
    assert [e["sequence_number"] for e in sent] == list(range(len(sent)))
    assert "4111 1111 1111 1111" not in orjson.dumps(sent).decode()


def test_a_records_reply_text_of_a_response() -> None:
    whole = response(REQUEST, Said(TEXT))
    screen_response(whole, MAKE, REQUEST)
    assert screened_text(orjson.dumps(whole)) == (
        "Sure. Call me on **** 1111 or at jane.doe@example.com! Your card **** 1111 is on file.\n"
        "Anything else?")


def _where(**extra: Any) -> dict[str, Any]:
    return {"item_id": "x", "output_index": 0, **extra}


def test_refusal_and_reasoning_summary_streams_are_screened() -> None:
    """A reasoning item's summary text and a message's refusal part, each in two deltas
    that cut the card: sent screened, their `done` texts and items as sent."""
    card = "4111 1111 1111 1111"
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [],
                 "encrypted_content": "gAAAA+/opaque=="}
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
               "content": []}
    start = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    summary = _where(summary_index=0)
    refusal = {**_where(content_index=0), "output_index": 1}
    upstream = [
        {"type": "response.created", "response": start},
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.reasoning_summary_part.added", **summary,
         "part": {"type": "summary_text", "text": ""}},
        {"type": "response.reasoning_summary_text.delta", **summary,
         "delta": f"The card {card[:7]}"},
        {"type": "response.reasoning_summary_text.delta", **summary, "delta": f"{card[7:]}."},
        {"type": "response.reasoning_summary_text.done", **summary, "text": f"The card {card}."},
        {"type": "response.reasoning_summary_part.done", **summary,
         "part": {"type": "summary_text", "text": f"The card {card}."}},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {**reasoning, "summary": [{"type": "summary_text", "text": card}]}},
        {"type": "response.output_item.added", "output_index": 1, "item": message},
        {"type": "response.content_part.added", **refusal,
         "part": {"type": "refusal", "refusal": ""}},
        {"type": "response.refusal.delta", **refusal, "delta": f"Not {card[:4]} "},
        {"type": "response.refusal.delta", **refusal, "delta": f"{card[5:]}."},
        {"type": "response.refusal.done", **refusal, "refusal": f"Not {card}."},
        {"type": "response.content_part.done", **refusal,
         "part": {"type": "refusal", "refusal": f"Not {card}."}},
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {"type": "response.completed", "response": {**start, "status": "completed"}},
    ]
    sent = screened(upstream)
    assert card not in orjson.dumps(sent).decode()
    texts = {e["type"]: e for e in sent}
    assert texts["response.reasoning_summary_text.done"]["text"] == "The card **** 1111."
    assert texts["response.refusal.done"]["refusal"] == "Not **** 1111."
    assert [e["delta"] for e in sent if e["type"].endswith(".delta")] == [
        "The card **** 1111.", "Not **** 1111."]
    assert sent[-1]["response"]["output"] == [
        {"type": "reasoning", "id": "rs_1",
         "summary": [{"type": "summary_text", "text": "The card **** 1111."}],
         "encrypted_content": "gAAAA+/opaque=="},
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
         "content": [{"type": "refusal", "refusal": "Not **** 1111."}]}]


def test_a_part_done_without_its_text_done_sends_the_tail_first() -> None:
    events = [e for e in cut_stream([3, 20]) if e["type"] != "response.output_text.done"]
    sent = screened(events)
    types = [e["type"] for e in sent]
    at = types.index("response.content_part.done")
    assert types[at - 1] == "response.output_text.done"
    deltas = "".join(e["delta"] for e in sent if e["type"] == "response.output_text.delta")
    assert sent[at - 1]["text"] == deltas == sent[at]["part"]["text"]
    assert deltas.endswith("Anything else?")


@pytest.mark.parametrize("end", ["response.incomplete", "response.failed"])
def test_an_incomplete_or_failed_response_ends_the_stream(end: str) -> None:
    events = cut_stream([10])
    events[-1] = {"type": end, "response": {
        **events[-1]["response"], "status": end.rsplit(".", 1)[1],
        "incomplete_details": {"reason": "max_output_tokens"},
        "error": {"code": "server_error", "message": "card 4111 1111 1111 1111"}}}
    sent = screened(events)
    assert sent[-1]["type"] == end
    assert sent[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    assert sent[-1]["response"]["error"] == {"code": "server_error",
                                             "message": "the upstream reported an error"}
    assert "4111 1111 1111 1111" not in orjson.dumps(sent).decode()


def test_a_built_in_tools_events_are_masked() -> None:
    """A web search's events pass renumbered and masked; a code interpreter's code deltas are
    dropped (its item's `done` has the code whole, masked); without a mask they fail closed."""
    search = {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}
    code = {"type": "code_interpreter_call", "id": "ci_1", "status": "in_progress",
            "code": ""}
    upstream = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": search},
        {"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.output_item.done", "output_index": 0, "item": {
            **search, "status": "completed",
            "action": {"type": "search", "query": "card 4111 1111 1111 1111"}}},
        {"type": "response.output_item.added", "output_index": 1, "item": code},
        {"type": "response.code_interpreter_call_code.delta", "output_index": 1,
         "item_id": "ci_1", "delta": "print('4111 1111 1111 1111')"},
        {"type": "response.output_item.done", "output_index": 1, "item": {
            **code, "status": "completed", "code": "print('4111 1111 1111 1111')"}},
        {"type": "response.completed", "response": {"id": "resp_1", "output": []}},
    ]
    adapter = ResponsesStream(MAKE, REQUEST, mask=partial(screen_value, rules=RULES))
    sent = []
    for event in upstream:
        items, _ = adapter.event(SSEEvent(orjson.dumps(event).decode(), event["type"]))
        sent.extend(item.body for item in items if isinstance(item, Chunk))
    assert [e["type"] for e in sent] == [
        "response.created", "response.output_item.added", "response.web_search_call.searching",
        "response.output_item.done", "response.output_item.added",
        "response.output_item.done", "response.completed"]
    assert sent[-1]["response"]["output"] == [
        {**search, "status": "completed", "action": {"type": "search",
                                                      "query": "card **** 1111"}},
        {**code, "status": "completed", "code": "print('**** 1111')"}]
    with pytest.raises(ChunkShapeError):
        screened(upstream)


def test_a_text_sent_only_in_its_done_event_is_screened_and_sent() -> None:
    events = [e for e in cut_stream([]) if e["type"] != "response.output_text.delta"]
    sent = screened(events)
    deltas = [e["delta"] for e in sent if e["type"] == "response.output_text.delta"]
    done = next(e for e in sent if e["type"] == "response.output_text.done")
    assert "".join(deltas) == done["text"] == sent[-1]["response"]["output"][0]["content"][0][
        "text"]
    assert done["text"].startswith("Sure. Call me on **** 1111")


def test_obfuscation_padding_is_not_sent_on() -> None:
    """The upstream's `obfuscation` padding (random text on each delta) is never forwarded:
    text deltas are made anew, a call's argument events keep their own fields."""
    said = Said(TEXT, calls=({"name": "lookup", "arguments": '{"q": 1}'},))
    events = [{**e, "obfuscation": "Zx9q"} if e["type"].endswith(".delta") else e
              for e in stream(REQUEST, said)]
    sent = screened(events)
    assert not any("obfuscation" in e for e in sent)
    assert [e["delta"] for e in sent if e["type"] == "response.function_call_arguments.delta"] \
        == ['{"q": 1}']


def test_a_call_split_over_many_argument_deltas_is_held_and_sent_screened_as_one() -> None:
    events = cut_stream([], Said(calls=(CALL,)), list(range(0, len(ARGUMENTS), 4)))
    assert sum(e["type"] == "response.function_call_arguments.delta" for e in events) == 17
    sent = screened(events)
    item = {"type": "function_call", "id": "fc_0", "status": "completed", "call_id": "call_0",
            "name": "charge", "arguments": ARGUMENTS_SENT}
    assert sent[2:] == [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**item, "status": "in_progress", "arguments": ""}, "sequence_number": 2},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_0",
         "output_index": 0, "delta": ARGUMENTS_SENT, "sequence_number": 3},
        {"type": "response.function_call_arguments.done", "item_id": "fc_0",
         "output_index": 0, "arguments": ARGUMENTS_SENT, "sequence_number": 4},
        {"type": "response.output_item.done", "output_index": 0, "item": item,
         "sequence_number": 5},
        {"type": "response.completed", "response": {**sent[-1]["response"], "output": [item]},
         "sequence_number": 6}]


def test_a_call_with_no_arguments_done_is_released_at_its_item_done() -> None:
    events = [e for e in cut_stream([], Said(calls=(CALL,)), [9, 30])
              if e["type"] != "response.function_call_arguments.done"]
    sent = screened(events)
    assert [(e["type"], e.get("delta", e.get("arguments"))) for e in sent[3:6]] == [
        ("response.function_call_arguments.delta", ARGUMENTS_SENT),
        ("response.function_call_arguments.done", ARGUMENTS_SENT),
        ("response.output_item.done", None)]
    assert sent[5]["item"]["arguments"] == ARGUMENTS_SENT


def test_arguments_that_are_not_json_are_screened_as_text() -> None:
    broken = '{"card": "4111 1111 1111 1111"'
    sent = screened(cut_stream([], Said(calls=({"name": "charge", "arguments": broken},)),
                               [5, 17]))
    assert [e["delta"] for e in sent
            if e["type"] == "response.function_call_arguments.delta"] == [
        '{"card": "**** 1111"']


def test_held_tells_what_the_screens_hold() -> None:
    adapter = ResponsesStream(MAKE, REQUEST)
    held = []
    for event in cut_stream([30]):
        adapter.event(SSEEvent(orjson.dumps(event).decode(), event["type"]))
        held.append(adapter.held)
    assert max(held) > 0
    assert held[-2] == 0  # after the text's done, before the end


def test_held_counts_a_calls_arguments_until_they_are_sent() -> None:
    adapter = ResponsesStream(MAKE, REQUEST, CallFilter(RULES))
    held = {}
    for event in cut_stream([], Said(calls=(CALL,)), [10, 40]):
        adapter.event(SSEEvent(orjson.dumps(event).decode(), event["type"]))
        held[event["type"]] = adapter.held
    assert held["response.function_call_arguments.delta"] == len(ARGUMENTS)
    assert held["response.function_call_arguments.done"] == 0


def test_reasoning_text_streams_are_screened() -> None:
    """A reasoning item's own text (gpt-oss style `response.reasoning_text.*`), cut inside a
    card: sent screened, and the item's `content` as sent."""
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "content": []}
    where = _where(content_index=0)
    full = "The card 4111 1111 1111 1111 is on file."
    upstream = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.content_part.added", **where,
         "part": {"type": "reasoning_text", "text": ""}},
        {"type": "response.reasoning_text.delta", **where, "delta": full[:14]},
        {"type": "response.reasoning_text.delta", **where, "delta": full[14:]},
        {"type": "response.reasoning_text.done", **where, "text": full},
        {"type": "response.content_part.done", **where,
         "part": {"type": "reasoning_text", "text": full}},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {**reasoning, "content": [{"type": "reasoning_text", "text": full}]}},
        {"type": "response.completed", "response": {"id": "resp_1", "output": []}},
    ]
    sent = screened(upstream)
    assert "4111 1111 1111 1111" not in orjson.dumps(sent).decode()
    assert next(e for e in sent if e["type"] == "response.reasoning_text.done")["text"] == \
        "The card **** 1111 is on file."
    assert sent[-1]["response"]["output"] == [
        {"type": "reasoning", "id": "rs_1", "summary": [],
         "content": [{"type": "reasoning_text", "text": "The card **** 1111 is on file."}]}]
