"""Real clients pointed at ReplyGuard, in front of a scripted upstream whose model puts a card
in a tool call's arguments: LangChain's structured output by function calling, the `openai`
SDK's chat `tools` (whole, streamed, and its stream helper), and the OpenAI Agents SDK (the
Responses API's `function_call`). The application gets the card masked, the arguments still
valid JSON its parser reads."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
from fake_responses import FakeResponses, Said
from pydantic import BaseModel

from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream

CARD = "4111 1111 1111 1111"
ARGUMENTS = {"name": "Jane Doe", "card": CARD, "order_id": "4412"}
SCREENED = {"name": "Jane Doe", "card": "**** 1111", "order_id": "4412"}


class Customer(BaseModel):
    """A customer's details, as the application's code reads them."""

    name: str
    card: str
    order_id: str


def calling(name: str) -> ScriptedUpstream:
    """An upstream whose model calls tool `name` with the card in its arguments."""
    return ScriptedUpstream(lambda _m: Reply(tool_calls=({"name": name,
                                                          "arguments": ARGUMENTS},)),
                            created=1, chunk_chars=3)


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
async def test_langchain_structured_output_gets_the_card_masked(stack, stream: bool) -> None:
    langchain_openai = pytest.importorskip("langchain_openai")
    s = await stack(calling("Customer"))
    async with httpx.AsyncClient() as http:  # (closed here: no socket left to the GC)
        llm = langchain_openai.ChatOpenAI(model="m", base_url=s.base_url, api_key="k",
                                          max_retries=0, streaming=stream,
                                          http_async_client=http)
        structured = llm.with_structured_output(Customer, method="function_calling")
        turn = "file the parcel claim for order 4412"
        if stream:
            got = [chunk async for chunk in structured.astream(turn)][-1]
        else:
            got = await structured.ainvoke(turn)
    assert got == Customer(**SCREENED)


TOOL = {"type": "function", "function": {
    "name": "file_claim", "parameters": {"type": "object", "properties": {
        "name": {"type": "string"}, "card": {"type": "string"},
        "order_id": {"type": "string"}}}}}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_openai_sdk_chat_tools_get_the_card_masked(stack, stream: bool) -> None:
    s = await stack(calling("file_claim"))
    messages: Any = [{"role": "user", "content": "file the claim"}]
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        if stream:
            arguments: dict[int, str] = {}
            async with await client.chat.completions.create(
                    model="m", messages=messages, tools=[TOOL], stream=True) as chunks:
                async for chunk in chunks:
                    for delta in chunk.choices[0].delta.tool_calls or ():
                        arguments[delta.index] = arguments.get(delta.index, "") + (
                            delta.function.arguments or "" if delta.function else "")
            got = [json.loads(arguments[i]) for i in sorted(arguments)]
        else:
            done = await client.chat.completions.create(model="m", messages=messages,
                                                        tools=[TOOL])
            got = [json.loads(c.function.arguments)
                   for c in done.choices[0].message.tool_calls or ()]
    assert got == [SCREENED]


async def test_openai_sdk_stream_helper_parses_the_masked_arguments(stack) -> None:
    s = await stack(calling("file_claim"))
    tool = openai.pydantic_function_tool(Customer, name="file_claim")
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        async with client.chat.completions.stream(
                model="m", messages=[{"role": "user", "content": "file the claim"}],
                tools=[tool]) as stream:
            async for _ in stream:
                pass
            done = await stream.get_final_completion()
    call = (done.choices[0].message.tool_calls or [])[0]
    assert call.function.parsed_arguments == Customer(**SCREENED)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_an_agents_tool_gets_the_card_masked(stack, stream: bool) -> None:
    agents = pytest.importorskip("agents")

    def model(body: dict[str, Any]) -> Said:
        items = body["input"] if isinstance(body["input"], list) else []
        if any(i.get("type") == "function_call_output" for i in items):
            return Said("The claim is filed.")
        return Said(calls=({"name": "file_claim", "arguments": json.dumps(ARGUMENTS)},))

    upstream = FakeResponses(model)
    s = await stack(upstream)
    ran: list[dict[str, str]] = []

    @agents.function_tool
    def file_claim(name: str, card: str, order_id: str) -> str:
        """File a parcel claim for an order."""
        ran.append({"name": name, "card": card, "order_id": order_id})
        return "filed"

    client = openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0)
    agent = agents.Agent(name="shop", instructions="You file claims.", tools=[file_claim],
                         model=agents.OpenAIResponsesModel(model="m", openai_client=client))
    config = agents.RunConfig(tracing_disabled=True)
    try:
        if stream:
            result = agents.Runner.run_streamed(agent, "file it", run_config=config)
            async for _ in result.stream_events():
                pass
        else:
            result = await agents.Runner.run(agent, "file it", run_config=config)
    finally:
        await client.close()
    assert ran == [SCREENED]
    assert result.final_output == "The claim is filed."
    # The call the client sends back (in the next turn's input) is the masked one.
    sent = [i for i in upstream.seen[1]["input"] if i.get("type") == "function_call"]
    assert [json.loads(i["arguments"]) for i in sent] == [SCREENED]
