"""The OpenAI Agents SDK (`openai-agents`, the Responses API by default) through ReplyGuard, in
front of the scripted Responses upstream: an Agent with one function tool run to completion,
offline (tracing off), streamed and not."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_responses import FakeResponses, Said

agents = pytest.importorskip("agents")

from openai import AsyncOpenAI  # noqa: E402

CALL = {"name": "refund_card", "arguments": '{"order_id":"4412","amount":12.5}'}
PROMISE = "I've refunded 12.50 pounds for order 4412. It is a guaranteed refund."
SCREENED = ("I've refunded 12.50 pounds for order 4412. Refunds reach the card in three to "
            "five working days.")


def shop(body: dict[str, Any]) -> Said:
    """The model: a refund call first, then the reply once the call's output is in `input`."""
    items = body["input"] if isinstance(body["input"], list) else []
    if any(i.get("type") == "function_call_output" for i in items):
        return Said(PROMISE)
    return Said(calls=(CALL,))


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_an_agent_with_a_tool_runs_to_completion(stack, stream: bool) -> None:
    upstream = FakeResponses(shop)
    s = await stack(upstream)
    ran: list[dict[str, Any]] = []

    @agents.function_tool
    def refund_card(order_id: str, amount: float) -> str:
        """Refund an order to the card it was paid with."""
        ran.append({"order_id": order_id, "amount": amount})
        return json.dumps({"status": "refunded", "order_id": order_id, "amount": amount})

    client = AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0)
    model = agents.OpenAIResponsesModel(model="shop-model", openai_client=client)
    agent = agents.Agent(name="shop", instructions="You help the shop's customers.",
                         tools=[refund_card], model=model)
    config = agents.RunConfig(tracing_disabled=True)
    turn = "my card is 4111 1111 1111 1111 and the parcel for 4412 vanished"
    try:
        if stream:
            result = agents.Runner.run_streamed(agent, turn, run_config=config)
            async for _ in result.stream_events():
                pass
        else:
            result = await agents.Runner.run(agent, turn, run_config=config)
    finally:
        await client.close()
    assert result.final_output == SCREENED
    assert ran == [{"order_id": "4412", "amount": 12.5}]
    assert [b["input"][0]["content"] for b in upstream.seen] == [
        "my card is **** 1111 and the parcel for 4412 vanished"] * 2
