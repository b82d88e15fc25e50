"""`langchain-openai`'s ChatOpenAI with `use_responses_api=True` through ReplyGuard, in front
of the scripted Responses upstream: invoke and stream, the card masked both ways."""

from __future__ import annotations

import pytest
from fake_responses import FakeResponses, Said

langchain_openai = pytest.importorskip("langchain_openai")


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
async def test_chat_openai_on_the_responses_api(stack, stream: bool) -> None:
    upstream = FakeResponses(lambda _body: Said(
        "Your card 4111 1111 1111 1111 is on file. Thanks!"))
    s = await stack(upstream)
    llm = langchain_openai.ChatOpenAI(model="m", base_url=s.base_url, api_key="k",
                                      use_responses_api=True, max_retries=0)
    turn = "my card is 4111 1111 1111 1111, is it on file?"
    if stream:
        text = "".join([chunk.text async for chunk in llm.astream(turn)])
    else:
        text = (await llm.ainvoke(turn)).text
    assert text == "Your card **** 1111 is on file. Thanks!"
    assert upstream.seen[0]["input"] == [
        {"content": "my card is **** 1111, is it on file?", "role": "user", "type": "message"}]
