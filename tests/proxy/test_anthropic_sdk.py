"""The real `anthropic` SDK (`messages.create`, `messages.stream`) pointed at ReplyGuard's
root, in front of a scripted fake Anthropic upstream (tests/proxy/fake_anthropic.py): cards
masked both ways, a withheld turn answered without an upstream call, tool input screened,
streamed equal to whole."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from fake_anthropic import FakeAnthropic, says, text

from replyguard.engine.request import WITHHELD_REPLY
from replyguard.engine.rules import ReplyRules

CARD = "4111 1111 1111 1111"
CARD_TURN = f"my card is {CARD}, is it on file?"
ASK = {"model": "claude-fake", "max_tokens": 100}


async def ask(s: Any, stream: bool, **kwargs: Any) -> anthropic.types.Message:
    """One request through the SDK; the message as the client assembles it."""
    async with anthropic.AsyncAnthropic(base_url=str(s.client.make_url("")), api_key="sk-ant",
                                        max_retries=0) as client:
        if not stream:
            return await client.messages.create(**{**ASK, **kwargs})
        async with client.messages.stream(**{**ASK, **kwargs}) as events:
            return await events.get_final_message()


def user_says(value: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": value}]}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_card_masked_both_ways(stack, stream: bool) -> None:
    fake = FakeAnthropic(says(text(f"Your card {CARD} is on file. Anything else?")))
    s = await stack(fake)
    message = await ask(s, stream, system=f"The customer's card: {CARD}.",
                        **user_says(CARD_TURN))
    assert [b.model_dump(exclude_none=True) for b in message.content] == [
        {"type": "text", "text": "Your card **** 1111 is on file. Anything else?"}]
    assert message.stop_reason == "end_turn"
    sent = fake.seen[0]
    assert sent["messages"] == [{"role": "user", "content": "my card is **** 1111, is it on file?"}]
    assert sent["system"] == "The customer's card: **** 1111."
    assert sent.get("stream", False) is stream


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_withheld_turn_never_reaches_upstream(stack, stream: bool) -> None:
    fake = FakeAnthropic(says(text("never sent")))
    s = await stack(fake)
    message = await ask(s, stream, **user_says("my social security number is 123-45-6789"))
    assert [b.text for b in message.content] == [WITHHELD_REPLY["en"]]
    assert message.stop_reason == "end_turn"
    assert fake.seen == []


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_tool_input_screened(stack, stream: bool) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "charge",
            "input": {"card": CARD, "order_id": "4412", "amount": 12.5}}
    fake = FakeAnthropic(says(text("Charging the card now."), call))
    s = await stack(fake)
    tools = [{"name": "charge", "description": "Charge a card",
              "input_schema": {"type": "object", "properties": {"card": {"type": "string"}}}}]
    message = await ask(s, stream, tools=tools, **user_says("charge order 4412"))
    assert [b.model_dump(exclude_none=True) for b in message.content] == [
        {"type": "text", "text": "Charging the card now."},
        {"type": "tool_use", "id": "toolu_1", "name": "charge",
         "input": {"card": "**** 1111", "order_id": "4412", "amount": 12.5}}]
    assert message.stop_reason == "tool_use"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_tool_result_masked_on_the_way_up(stack, stream: bool) -> None:
    fake = FakeAnthropic(says(text("Done.")))
    s = await stack(fake)
    history = [
        {"role": "user", "content": "charge order 4412"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "charge", "input": {"order": "4412"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": f"charged {CARD}"}]},
    ]
    message = await ask(s, stream, messages=history)
    assert message.content[0].type == "text"
    assert fake.seen[0]["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "charged **** 1111"}]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_thinking_signature_kept_only_when_unchanged(stack, stream: bool) -> None:
    fake = FakeAnthropic(says(
        {"type": "thinking", "thinking": "The user wants the order. ", "signature": "sig-a"},
        {"type": "thinking", "thinking": f"Their card is {CARD}. ", "signature": "sig-b"},
        text("Here it is.")))
    s = await stack(fake)
    message = await ask(s, stream, **user_says("where is order 4412?"))
    assert [b.model_dump(exclude_none=True) for b in message.content] == [
        {"type": "thinking", "thinking": "The user wants the order. ", "signature": "sig-a"},
        {"type": "thinking", "thinking": "Their card is **** 1111. "},
        {"type": "text", "text": "Here it is."}]
    assert "replyguard_thinking_unsigned_total 1.0" in await s.metrics_text()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_unknown_block_with_text_fails_closed(stack, stream: bool) -> None:
    fake = FakeAnthropic(says(text("Fine."), {"type": "mystery", "words": f"card {CARD}"}))
    s = await stack(fake)
    with pytest.raises(anthropic.APIStatusError) as caught:
        await ask(s, stream, **user_says("hello"))
    assert CARD not in str(caught.value.body)
    assert caught.value.body["type"] == "error"  # type: ignore[index]
    assert caught.value.body["error"]["type"] == "api_error"  # type: ignore[index]


async def test_streamed_equals_whole(stack) -> None:
    reply = (f"Your card {CARD} is on file. The refund of 12.50 pounds for order 4412 is "
             "on its way. Call 020 7946 0958 if it is late.")
    fake = FakeAnthropic(says(text(reply)), chunk_chars=3)
    s = await stack(fake)
    whole = await ask(s, False, **user_says("status?"))
    streamed = await ask(s, True, **user_says("status?"))
    assert [b.model_dump(exclude_none=True) for b in streamed.content] == [
        b.model_dump(exclude_none=True) for b in whole.content]
    assert "4111" not in whole.content[0].text  # type: ignore[union-attr]


async def test_sdk_credentials_forwarded(stack) -> None:
    fake = FakeAnthropic(says(text("Hi.")))
    s = await stack(fake)
    await ask(s, False, **user_says("hello"))
    headers = {k.lower(): v for k, v in fake.headers[0].items()}
    assert headers["authorization"] == "Bearer sk-ant"  # this SDK sends its key as a bearer
    assert headers["anthropic-version"] == anthropic.AsyncAnthropic(
        api_key="k").default_headers["anthropic-version"]


@pytest.mark.parametrize(("given", "key", "expected"), [
    ({"x-api-key": "sk-client", "anthropic-version": "2023-06-01",
      "anthropic-beta": "tools-1"},
     None, {"x-api-key": "sk-client", "anthropic-version": "2023-06-01",
            "anthropic-beta": "tools-1"}),
    ({"x-api-key": "sk-client", "Authorization": "Bearer sk-openai",
      "anthropic-version": "2023-06-01"},
     "sk-operator", {"x-api-key": "sk-operator", "anthropic-version": "2023-06-01"}),
], ids=["client-key", "anthropic-key"])
async def test_anthropic_headers_forwarded(stack, given: dict[str, str], key: str | None,
                                           expected: dict[str, str]) -> None:
    fake = FakeAnthropic(says(text("Hi.")))
    s = await stack(fake, upstream__anthropic_api_key=key, upstream__api_key="sk-openai")
    async with s.client.post("/v1/messages", json={**ASK, **user_says("hello")},
                             headers=given) as resp:
        assert resp.status == 200
    sent = {k.lower(): v for k, v in fake.headers[0].items()
            if k.lower() in ("x-api-key", "authorization", "anthropic-version",
                             "anthropic-beta")}
    assert sent == expected


async def test_bad_request_in_anthropic_shape(stack) -> None:
    s = await stack(FakeAnthropic(says(text("never"))))
    with pytest.raises(anthropic.BadRequestError) as caught:
        await ask(s, False, messages=[{"role": "user", "content": 7}])
    assert caught.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]


REFUND_TOOLS = {"refund_card": {
    "writes": True,
    "claims": {"en": ["refunded"]},
    "phrasing": {"en": {"done": "I've refunded {amount} for order {order_id}.",
                        "failed": "The refund for order {order_id} did not go through.",
                        "not_done": "I haven't refunded anything for this order."}},
}}
SAID = "I've refunded 12.50 pounds for order 4412."


def refund_history(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The conversation after the model called refund_card (and the client ran it, unless
    `result` is None), in Anthropic's blocks."""
    out: list[dict[str, Any]] = [
        {"role": "user", "content": "the parcel for 4412 vanished"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "refund_card",
             "input": {"order_id": "4412", "amount": "12.50"}}]}]
    if result is not None:
        out.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1",
             "content": [{"type": "text", "text": json.dumps(result)}]}]})
    return out


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("history", "expected"), [
    (refund_history({"status": "refunded", "order_id": "4412", "amount": "12.50"}), SAID),
    (refund_history({"status": "declined", "order_id": "4412"}),
     "The refund for order 4412 did not go through."),
    (refund_history(None)[:1], "I haven't refunded anything for this order."),
], ids=["refunded", "declined", "never-called"])
async def test_claims_checked_against_tool_use_and_results(
        stack, stream: bool, history: list[dict[str, Any]], expected: str) -> None:
    s = await stack(FakeAnthropic(says(text(SAID))), rules=ReplyRules(), tools=REFUND_TOOLS)
    message = await ask(s, stream, messages=history)
    assert [b.text for b in message.content] == [expected]  # type: ignore[union-attr]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_shop_wording_rules_hold(stack, stream: bool) -> None:
    """The shop's rules: `never_say` removes the guarantee, and the refund done through
    `tool_use` / `tool_result` brings the `must_accompany` sentence."""
    fake = FakeAnthropic(says(text(
        "I've refunded 12.50 pounds for order 4412. It is a guaranteed refund.")))
    s = await stack(fake)
    done = {"status": "refunded", "order_id": "4412", "amount": 12.5}
    message = await ask(s, stream, messages=refund_history(done))
    assert [b.text for b in message.content] == [  # type: ignore[union-attr]
        "I've refunded 12.50 pounds for order 4412. Refunds reach the card in three to five "
        "working days."]


async def test_count_tokens_is_not_served_and_the_sdk_raises_its_own_not_found(stack) -> None:
    fake = FakeAnthropic(says(text("never sent")))
    s = await stack(fake)
    async with anthropic.AsyncAnthropic(base_url=str(s.client.make_url("")), api_key="sk-ant",
                                        max_retries=0) as client:
        with pytest.raises(anthropic.NotFoundError) as raised:
            await client.messages.count_tokens(model="claude-fake",
                                               **user_says(CARD_TURN))
    assert raised.value.body == {
        "type": "error", "error": {
            "type": "not_found_error",
            "message": "this route is not served by ReplyGuard: of the Anthropic API only POST "
                       "/v1/messages is (a `passthrough` route goes to `upstream.base_url` "
                       "unscreened, not to the Anthropic upstream)"}}
    assert fake.seen == []
