"""`POST /v1/responses` through ReplyGuard, in front of a scripted Responses upstream
(fake_responses): the real `openai` SDK (`responses.create`, stream and not, and the
`responses.stream` helper), the exact events a client is sent, and failing closed."""

from __future__ import annotations

from typing import Any

import openai
import orjson
import pytest
from aiohttp.test_utils import TestClient
from conftest import RawUpstream, events
from fake_responses import FakeResponses, Said, response

from replyguard.engine.request import WITHHELD_REPLY
from replyguard.engine.rules import ReplyRules
from replyguard.proxy.sse import encode_event

CARD_TURN = "my card is 4111 1111 1111 1111, is it on file?"
CARD_REPLY = "Your card 4111 1111 1111 1111 is on file. Thanks!"
MASKED_REPLY = "Your card **** 1111 is on file. Thanks!"
TOOLS = {"delete_account": {"writes": True, "allowed": False}}
CANNOT = "I can't do that here: the delete account action is not available."


def answering(said: Said) -> FakeResponses:
    return FakeResponses(lambda _body: said)


def sdk(stack_: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=stack_.base_url, api_key="k", max_retries=0)


async def ask(client: openai.AsyncOpenAI, stream: bool, **request: Any) -> Any:
    """The final Response the SDK gives: whole, or assembled by its `responses.stream`."""
    if not stream:
        return await client.responses.create(model="m", **request)
    async with client.responses.stream(model="m", **request) as events_:
        return await events_.get_final_response()


async def post(client: TestClient, body: dict[str, Any]) -> tuple[int, bytes]:
    async with client.post("/v1/responses", json=body) as resp:
        return resp.status, await resp.read()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_card_is_masked_both_ways(stack, stream: bool) -> None:
    upstream = answering(Said(CARD_REPLY))
    s = await stack(upstream)
    async with sdk(s) as client:
        response = await ask(client, stream, input=CARD_TURN)
    assert response.output_text == MASKED_REPLY
    assert [item.type for item in response.output] == ["message"]
    assert upstream.seen[0]["input"] == "my card is **** 1111, is it on file?"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_withheld_turn_is_answered_without_the_upstream(stack, stream: bool) -> None:
    upstream = answering(Said("never sent"))
    s = await stack(upstream)
    async with sdk(s) as client:
        response = await ask(client, stream, input="my social security number is 123-45-6789")
    assert response.output_text == WITHHELD_REPLY["en"]
    assert response.status == "completed"
    assert upstream.seen == []


async def test_the_raw_events_of_a_stream(stack) -> None:
    """The exact bytes: the card masked in the delta that holds its sentence, `done` texts
    the concatenation of the deltas sent, `response.completed` rebuilt, numbered from 0."""
    s = await stack(answering(Said(CARD_REPLY, chunk_chars=4)))
    status, raw = await post(s.client, {"model": "m", "input": "hi", "stream": True})
    assert status == 200

    def envelope(status: str, output: list[Any]) -> dict[str, Any]:
        """The upstream's Response, in its order: `tool_choice` ("auto", text the client
        never sent) left out."""
        return {"id": "resp_1", "object": "response", "created_at": 1, "status": status,
                "model": "m", "instructions": None, "parallel_tool_calls": True,
                "tools": [], "error": None, "incomplete_details": None,
                "usage": {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8},
                "output": output}

    where = {"item_id": "msg_1", "content_index": 0, "output_index": 0}
    part = {"type": "output_text", "text": MASKED_REPLY, "annotations": []}
    item = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [part]}
    expected = [
        {"type": "response.created", "response": envelope("in_progress", [])},
        {"type": "response.in_progress", "response": envelope("in_progress", [])},
        {"type": "response.output_item.added", "output_index": 0, "item": {
            "type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant",
            "content": []}},
        {"type": "response.content_part.added", **where,
         "part": {"type": "output_text", "text": "", "annotations": []}},
        {"type": "response.output_text.delta", **where,
         "delta": "Your card **** 1111 is on file. ", "logprobs": []},
        {"type": "response.output_text.delta", **where, "delta": "Thanks!", "logprobs": []},
        {"type": "response.output_text.done", **where, "text": MASKED_REPLY, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": envelope("completed", [item])},
    ]
    assert raw == b"".join(encode_event(orjson.dumps({**e, "sequence_number": n}),
                                        event=e["type"]) for n, e in enumerate(expected))


def _items(response: Any) -> list[Any]:
    """A Response's output as JSON (the stream helper's `parsed` fields left out)."""
    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if k != "parsed"}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value
    return [plain(item.model_dump()) for item in response.output]


@pytest.mark.parametrize("chunk_chars", [1, 2, 3, 7, 64])
async def test_streamed_equals_whole(stack, chunk_chars: int) -> None:
    said = Said("Sure. Call me on 4111 1111 1111 1111 or at jane.doe@example.com! "
                "Your card 4111 1111 1111 1111 is on file.", chunk_chars=chunk_chars)
    s = await stack(answering(said))
    async with sdk(s) as client:
        whole = await ask(client, False, input="hi")
        streamed = await ask(client, True, input="hi")
    assert _items(streamed) == _items(whole)
    assert streamed.output_text == whole.output_text
    assert "4111 1111 1111 1111" not in whole.output_text


async def test_input_items_and_instructions_are_screened(stack) -> None:
    upstream = answering(Said("Done."))
    s = await stack(upstream)
    card = "4111 1111 1111 1111"
    body = {"model": "m", "instructions": f"The customer's card is {card}.", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": f"charge {card}"}]},
        {"type": "function_call", "call_id": "call_1", "name": "charge",
         "arguments": f'{{"card": "{card}"}}'},
        {"type": "function_call_output", "call_id": "call_1", "output": f"charged {card}"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": f"I charged {card}."}]},
        {"role": "user", "content": "thanks"},
    ]}
    status, _ = await post(s.client, body)
    assert status == 200
    assert upstream.seen[0] == {"model": "m", "instructions": "The customer's card is **** 1111.",
                                "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "charge **** 1111"}]},
        {"type": "function_call", "call_id": "call_1", "name": "charge",
         "arguments": '{"card": "**** 1111"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "charged **** 1111"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "I charged **** 1111."}]},
        {"role": "user", "content": "thanks"},
    ]}


@pytest.mark.parametrize("body", [
    {"model": "m"},
    {"model": "m", "input": 7},
    {"model": "m", "input": ["hi"]},
    {"model": "m", "input": [{"role": "user", "content": 3}]},
], ids=["missing", "number", "bare-string-item", "number-content"])
async def test_input_that_cannot_be_screened_is_refused(stack, body: dict[str, Any]) -> None:
    upstream = answering(Said("never sent"))
    s = await stack(upstream)
    status, raw = await post(s.client, body)
    assert status == 400
    assert orjson.loads(raw)["error"]["code"] == "invalid_input"
    assert upstream.seen == []


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_refused_call_is_removed_and_said(stack, stream: bool) -> None:
    upstream = answering(Said("Let me do that.", calls=(
        {"name": "delete_account", "arguments": '{"user": "all"}'},
        {"name": "lookup", "arguments": "{}"})))
    s = await stack(upstream, rules=ReplyRules(), tools=TOOLS)
    offered = [{"type": "function", "name": "delete_account", "parameters": {}},
               {"type": "function", "name": "lookup", "parameters": {}}]
    async with sdk(s) as client:
        response = await ask(client, stream, input="delete everything", tools=offered)
    assert [(i.type, getattr(i, "name", None)) for i in response.output] == [
        ("message", None), ("function_call", "lookup"), ("message", None)]
    assert response.output_text == "Let me do that." + CANNOT
    assert [t["name"] for t in upstream.seen[0]["tools"]] == ["lookup"]


async def test_the_output_text_field_is_rebuilt(stack) -> None:
    s = await stack(answering(Said(CARD_REPLY, output_text=True)))
    status, raw = await post(s.client, {"model": "m", "input": "hi"})
    assert status == 200
    assert orjson.loads(raw)["output_text"] == MASKED_REPLY


async def test_reasoning_summaries_are_screened_and_ciphertext_kept(stack) -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAA+/opaque==",
                 "summary": [{"type": "summary_text", "text": "The card 4111 1111 1111 1111."}]}
    s = await stack(answering(Said("Ok.", extra=(reasoning,))))
    status, raw = await post(s.client, {"model": "m", "input": "hi"})
    assert status == 200
    assert orjson.loads(raw)["output"][1] == {
        "type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAA+/opaque==",
        "summary": [{"type": "summary_text", "text": "The card **** 1111."}]}


async def test_an_unknown_item_without_text_is_kept(stack) -> None:
    item = {"type": "vendor_call", "id": "vc_1", "status": "completed", "took_ms": 12}
    s = await stack(answering(Said("Ok.", extra=(item,))))
    status, raw = await post(s.client, {"model": "m", "input": "hi"})
    assert status == 200
    assert orjson.loads(raw)["output"][1] == item


async def test_a_built_in_tool_item_is_masked(stack) -> None:
    item = {"type": "web_search_call", "id": "ws_1", "status": "completed",
            "action": {"type": "search", "query": "card 4111 1111 1111 1111",
                       "sources": [{"type": "url", "url": "https://example.com/cards"}]}}
    s = await stack(answering(Said("Ok.", extra=(item,))))
    status, raw = await post(s.client, {"model": "m", "input": "hi"})
    assert status == 200
    assert orjson.loads(raw)["output"][1] == {
        "type": "web_search_call", "id": "ws_1", "status": "completed",
        "action": {"type": "search", "query": "card **** 1111",
                   "sources": [{"type": "url", "url": "https://example.com/cards"}]}}


async def test_an_unknown_item_holding_text_fails_closed(stack) -> None:
    item = {"type": "vendor_call", "id": "vc_1", "status": "completed",
            "action": {"type": "search", "query": "card 4111 1111 1111 1111"}}
    s = await stack(answering(Said("Ok.", extra=(item,))))
    status, raw = await post(s.client, {"model": "m", "input": "hi"})
    assert status == 502
    assert orjson.loads(raw) == {"error": {
        "message": "the upstream sent an output item of type vendor_call holding text "
                   "ReplyGuard does not screen; nothing of the reply was sent",
        "type": "upstream_error", "param": None, "code": "upstream_protocol"}}


def _tail(raw: bytes) -> list[Any]:
    return events(raw)[-2:]


async def test_an_unknown_event_without_text_is_dropped(stack) -> None:
    odd = {"type": "response.vendor.progress", "output_index": 0, "percent": 50}
    s = await stack(answering(Said("Ok.", events=(odd,))))
    status, raw = await post(s.client, {"model": "m", "input": "hi", "stream": True})
    assert status == 200
    assert b"vendor" not in raw
    assert events(raw)[-1]["type"] == "response.completed"


@pytest.mark.parametrize(("said", "code"), [
    (Said("Ok. Then more.", events=({"type": "response.vendor.note", "note": "4111 1111"},)),
     "upstream_protocol"),
    (Said("Ok. Then more.", events=({"type": "error", "code": "server_error",
                                     "message": "card 4111 1111 1111 1111"},)),
     "upstream_stream_error"),
    (Said("Ok. Then more.", drop=True), "upstream_dropped"),
], ids=["unknown-event-with-text", "error-event", "dropped"])
async def test_a_stream_that_fails_ends_with_the_error_event(stack, said: Said,
                                                             code: str) -> None:
    s = await stack(answering(said))
    status, raw = await post(s.client, {"model": "m", "input": "hi", "stream": True})
    assert status == 200
    assert b"4111" not in raw
    parsed = events(raw)
    assert parsed[-1][0] == "error"
    error = parsed[-1][1]
    assert (error["type"], error["code"], error["sequence_number"]) == (
        "error", code, len(parsed) - 1)
    assert [e["sequence_number"] for e in parsed[:-1]] == list(range(len(parsed) - 1))


async def test_a_whole_answer_to_a_stream_is_streamed(stack) -> None:
    """An upstream that ignores `stream`: its whole Response screened, then sent as the
    events that stream it."""
    whole = response({"model": "m"}, Said(CARD_REPLY))
    s = await stack(RawUpstream([orjson.dumps(whole)], content_type="application/json"))
    async with sdk(s) as client:
        streamed = await ask(client, True, input="hi")
    assert streamed.output_text == MASKED_REPLY
    status, raw = await post(s.client, {"model": "m", "input": "hi", "stream": True})
    assert [e["type"] for e in events(raw)] == [
        "response.created", "response.in_progress", "response.output_item.added",
        "response.content_part.added", "response.output_text.delta",
        "response.output_text.done", "response.content_part.done",
        "response.output_item.done", "response.completed"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_stored_response_is_screened(stack, stream: bool) -> None:
    upstream = answering(Said(CARD_REPLY))
    s = await stack(upstream)
    async with sdk(s) as client:
        if stream:
            events_ = await client.responses.retrieve("resp_1", stream=True)
            final = [e async for e in events_][-1].response
        else:
            final = await client.responses.retrieve("resp_1")
    assert final.output_text == MASKED_REPLY
    assert upstream.paths == ["/v1/responses/resp_1" + ("?stream=true" if stream else "")]


async def test_stored_input_items_are_masked(stack) -> None:
    upstream = answering(Said("unused"))
    upstream.items = [{"type": "message", "id": "msg_0", "role": "user", "content": [
        {"type": "input_text", "text": "my card is 4111 1111 1111 1111"}]}]
    s = await stack(upstream)
    async with sdk(s) as client:
        items = await client.responses.input_items.list("resp_1")
    assert [part.text for item in items.data for part in item.content] == [
        "my card is **** 1111"]


async def test_a_stored_response_id_is_one_segment(stack) -> None:
    s = await stack(answering(Said("unused")))
    async with s.client.get("/v1/responses/..%2Fmodels") as resp:
        assert resp.status == 404


async def test_parse_gets_a_valid_document_with_the_card_masked(stack) -> None:
    """`responses.parse` (`text.format` a JSON schema): the reply is screened as a JSON
    document, its string values masked and the document kept valid."""
    from pydantic import BaseModel

    class Card(BaseModel):
        holder: str
        card: str

    upstream = answering(Said('{"holder": "Jane", "card": "4111 1111 1111 1111"}'))
    s = await stack(upstream)
    async with sdk(s) as client:
        parsed = await client.responses.parse(model="m", input="my card?", text_format=Card)
    assert parsed.output_parsed == Card(holder="Jane", card="**** 1111")
    assert upstream.seen[0]["text"]["format"]["type"] == "json_schema"


async def test_output_moderation_checks_a_streamed_response_whole(stack) -> None:
    """With the output stage on, a streamed Response is asked for whole, checked, then sent
    as events: the flagged sentence is in no delta, no `done` text and no final output."""
    from aiohttp.test_utils import TestServer
    from test_guardrails import BAD_WORD, KEPT, REPLY, Checks

    server = TestServer(Checks().app(), host="127.0.0.1")
    await server.start_server()
    try:
        upstream = answering(Said(REPLY))
        s = await stack(upstream, guardrails__moderation__enabled=True,
                        guardrails__moderation__base_url=str(server.make_url("/v1")),
                        guardrails__moderation__input=False)
        status, raw = await post(s.client, {"model": "m", "input": "Where?", "stream": True})
        async with sdk(s) as client:
            final = await ask(client, True, input="Where?")
    finally:
        await server.close()
    assert status == 200
    assert BAD_WORD.encode() not in raw
    assert final.output_text == KEPT
    assert upstream.seen[0]["stream"] is False


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_the_shop_wording_rules_hold_after_a_tool_call(stack, stream: bool) -> None:
    """The shop's rules, a refund done in this turn (a `function_call` and its output in
    `input`): the promise is removed and the required sentence added, as in chat."""
    upstream = answering(Said("I've refunded 12.50 pounds for order 4412. It is a guaranteed "
                              "refund."))
    s = await stack(upstream)
    turn = [{"role": "user", "content": "the parcel for 4412 vanished"},
            {"type": "function_call", "call_id": "call_1", "name": "refund_card",
             "arguments": '{"order_id":"4412","amount":12.5}'},
            {"type": "function_call_output", "call_id": "call_1",
             "output": '{"status": "refunded", "order_id": "4412", "amount": 12.5}'}]
    async with sdk(s) as client:
        response = await ask(client, stream, input=turn)
    assert response.output_text == ("I've refunded 12.50 pounds for order 4412. Refunds reach "
                                    "the card in three to five working days.")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_turn_the_input_guardrails_block_is_answered_directly(stack,
                                                                     stream: bool) -> None:
    from aiohttp.test_utils import TestServer
    from test_guardrails import BAD_WORD, Checks

    from replyguard.proxy.guardrails import GENERAL_BLOCK

    server = TestServer(Checks().app(), host="127.0.0.1")
    await server.start_server()
    try:
        upstream = answering(Said("never sent"))
        s = await stack(upstream, guardrails__moderation__enabled=True,
                        guardrails__moderation__base_url=str(server.make_url("/v1")),
                        guardrails__moderation__output=False)
        async with sdk(s) as client:
            response = await ask(client, stream, input=f"Is it {BAD_WORD} to ask?")
    finally:
        await server.close()
    assert response.output_text == GENERAL_BLOCK["en"]
    assert upstream.seen == []


async def test_media_parts_of_input_pass_as_they_are(stack) -> None:
    upstream = answering(Said("Ok."))
    s = await stack(upstream)
    parts = [{"type": "input_text", "text": "card 4111 1111 1111 1111 in this file"},
             {"type": "input_file", "filename": "card.txt",
              "file_data": "data:text/plain,4111 1111 1111 1111"},
             {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}]
    status, _ = await post(s.client, {"model": "m", "input": [{"role": "user",
                                                               "content": parts}]})
    assert status == 200
    assert upstream.seen[0]["input"][0]["content"] == [
        {"type": "input_text", "text": "card **** 1111 in this file"}, *parts[1:]]


async def test_a_reasoning_input_item_keeps_its_ciphertext(stack) -> None:
    """A reasoning item sent back (`include: ["reasoning.encrypted_content"]`): its summary
    masked, its `encrypted_content` (the model's own, opaque) passed as it is."""
    upstream = answering(Said("Ok."))
    s = await stack(upstream)
    reasoning = {"type": "reasoning", "id": "rs_1",
                 "summary": [{"type": "summary_text", "text": "card 4111 1111 1111 1111"}],
                 "encrypted_content": "gAAAA4111 1111 1111 1111=="}
    status, _ = await post(s.client, {"model": "m", "input": [
        {"role": "user", "content": "hi"}, reasoning, {"role": "user", "content": "and?"}]})
    assert status == 200
    assert upstream.seen[0]["input"][1] == {
        **reasoning, "summary": [{"type": "summary_text", "text": "card **** 1111"}]}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_counts_and_route_metrics_are_those_of_chat(stack, stream: bool) -> None:
    """The card in the turn and the one in the reply are counted as in chat, under the
    route's own request metrics."""
    s = await stack(answering(Said(CARD_REPLY)))
    status, _ = await post(s.client, {"model": "m", "input": CARD_TURN, "stream": stream})
    assert status == 200
    got = {}
    for line in (await s.metrics_text()).splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            got[name] = float(value)
    assert got["reply_pd_detected_card_total"] == 2.0
    assert got["reply_pd_redacted_total"] == 2.0
    assert got['replyguard_requests_total{api="responses",route="/v1/responses",'
               'status="200"}'] == 1.0
