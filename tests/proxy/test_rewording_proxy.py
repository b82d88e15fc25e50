"""reply_temperature through the proxy (seed 000's reply_temperature_* counts): product
sentences reworded by the upstream model and read back; a rewording that lost a locked word or
changed the mood is dropped for the template's sentence. Model-written sentences and exact
replies are never reworded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replyguard.engine.rules import ReplyExactly, ReplyRules
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.output import REWORD_PROMPT
from tests.proxy.conftest import StartUpstream, streamed_text
from tests.proxy.test_actions_proxy import DECLINED, TOOLS, count, refund_turn

FAILED = "The refund for order 4412 did not go through."


def model(reply: str, reword: Callable[[str], Reply]) -> ScriptedUpstream:
    """The upstream: rewording requests answered by `reword(sentence)`, others with `reply`."""

    def answer(messages: list[dict[str, Any]]) -> Reply:
        if messages[0].get("content") == REWORD_PROMPT:
            sentence = messages[1]["content"].removeprefix("<sentence>")
            return reword(sentence.removesuffix("</sentence>"))
        return Reply(reply)

    return ScriptedUpstream(answer, created=1)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("reworded", "expected", "counted"), [
    (Reply("Sorry, your refund for order 4412 did not go through."),
     "Sorry, your refund for order 4412 did not go through.", "reply_temperature_varied"),
    (Reply("Your refund for order 4412 went through."), FAILED, "reply_temperature_kept"),
    (Reply("Did the refund for order 4412 not go through?"), FAILED, "reply_temperature_kept"),
    (Reply("The refund for order 4413 did not go through."), FAILED, "reply_temperature_kept"),
    (Reply("", status=500), FAILED, "reply_temperature_kept"),
    # a rewording gets the reply screen's checks: never_say, a new value (an email)
    (Reply("The refund for order 4412 did not go through, but it is a guaranteed refund."),
     FAILED, "reply_temperature_kept"),
    (Reply("The refund for order 4412 did not go through; write to bob@example.com."),
     FAILED, "reply_temperature_kept"),
])
async def test_a_phrasing_is_reworded_and_read_back(
        stack: StartUpstream, stream: bool, reworded: Reply, expected: str,
        counted: str) -> None:
    upstream = model("I've refunded 12.50 pounds for order 4412.", lambda _s: reworded)
    s = await stack(upstream, rules=ReplyRules(never_say=("guaranteed refund",)), tools=TOOLS,
                    reply_temperature=0.7)
    body = {"model": "m", "messages": refund_turn(DECLINED), "stream": stream}
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        got = streamed_text(await resp.read()) if stream else \
            (await resp.json())["choices"][0]["message"]["content"]
    assert got == expected
    metrics = await s.metrics_text()
    for name in ("reply_temperature_kept", "reply_temperature_varied"):
        assert count(metrics, name) == (1.0 if name == counted else 0.0), name
    asked = [m for m in upstream.seen if m["messages"][0]["content"] == REWORD_PROMPT]
    assert [(m["temperature"], m["messages"][1]["content"]) for m in asked] == [
        (0.7, f"<sentence>{FAILED}</sentence>")]


async def test_model_sentences_and_exact_replies_are_never_reworded(
        stack: StartUpstream) -> None:
    upstream = model("Your parcel ships on Monday.", lambda s: Reply("REWORDED " + s))
    rules = ReplyRules(reply_exactly=(ReplyExactly(say="Ask our pharmacist.",
                                                   when_asked="dosage"),))
    s = await stack(upstream, rules=rules, tools=TOOLS, reply_temperature=0.7)
    for text, expected in (("where is it?", "Your parcel ships on Monday."),
                           ("what dosage?", "Ask our pharmacist.")):
        async with s.client.post("/v1/chat/completions", json={
                "model": "m", "messages": [{"role": "user", "content": text}]}) as resp:
            assert (await resp.json())["choices"][0]["message"]["content"] == expected
    assert all(m["messages"][0]["content"] != REWORD_PROMPT for m in upstream.seen)


async def test_a_withheld_turn_reply_is_reworded(stack: StartUpstream) -> None:
    upstream = model("unused", lambda s: Reply("Sorry, " + s[0].lower() + s[1:]))
    s = await stack(upstream, rules=ReplyRules(personal_data={"national_id": "withhold"}),
                    reply_temperature=0.5)
    async with s.client.post("/v1/chat/completions", json={"model": "m", "messages": [
            {"role": "user", "content": "my SSN is 123-45-6789"}]}) as resp:
        got = (await resp.json())["choices"][0]["message"]["content"]
    assert got == ("Sorry, that message held details I can't take here, so I haven't read it "
                   "or done anything. Sorry, please send it again without them.")
    assert all("123-45" not in str(m) for m in upstream.seen)
