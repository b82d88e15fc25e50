"""Reply text outside `content`: reasoning text is screened like content; every other key of a
delta or message (`audio`, `reasoning_details`, `thinking_blocks`, `annotations`, vendors'
fields) is dropped, streamed or not; spoken output is refused before any upstream call; and
the `openai` SDK sends and reads all of it."""

from __future__ import annotations

from typing import Any

import openai
import orjson
import pytest
from conftest import RawUpstream, events, sse, user

from replyguard.engine.rules import ReplyRules
from replyguard.proxy.fake_script import Reply

CARD = "4111 1111 1111 1111"
HEAD = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
#: Keys an upstream may put beside the text, each holding the card, none screened.
UNSCREENED = {
    "audio": {"id": "a", "transcript": f"card {CARD}", "data": "AAAA", "expires_at": 1},
    "reasoning_details": [{"type": "reasoning.text", "text": f"The card is {CARD}."}],
    "thinking_blocks": [{"type": "thinking", "thinking": f"card {CARD}", "signature": "s"}],
    "annotations": [{"type": "url_citation", "url_citation": {
        "title": f"card {CARD}", "url": "https://example.com", "start_index": 0,
        "end_index": 9}}],
    "thinking": f"card {CARD}",
}


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return sse({**HEAD, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def out(delta: dict[str, Any], finish: str | None = None, logprobs: bool = False
        ) -> dict[str, Any]:
    """A chunk as the client gets it (the proxy writes `logprobs` on the chunks it makes)."""
    choice = {"index": 0, "delta": delta, **({"logprobs": None} if logprobs else {}),
              "finish_reason": finish}
    return {**HEAD, "choices": [choice]}


async def test_streamed_reasoning_screened_other_keys_dropped(stack: Any) -> None:
    parts = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning_content": f"The card is {CARD}. "}),
        chunk({"reasoning_details": UNSCREENED["reasoning_details"]}),  # nothing else: not sent
        chunk({"content": "Your card ", "thinking_blocks": UNSCREENED["thinking_blocks"]}),
        chunk({"content": f"{CARD} is on file.", "annotations": UNSCREENED["annotations"]}),
        chunk({"audio": UNSCREENED["audio"], "thinking": UNSCREENED["thinking"]}),
        chunk({"reasoning": f"Also {CARD}."}),
        chunk({}, "stop"),
        b"data: [DONE]\n\n",
    ]
    s = await stack(RawUpstream(parts))
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert events(raw) == [
        out({"role": "assistant", "content": ""}),
        out({"reasoning_content": "The card is **** 1111. ", "content":
             "Your card **** 1111 is on file.", "reasoning": "Also **** 1111."}, logprobs=True),
        out({}, "stop"),
        "[DONE]",
    ]


async def test_whole_reasoning_screened_other_keys_dropped(stack: Any) -> None:
    message = {"role": "assistant", "content": f"Your card {CARD} is on file.",
               "reasoning_content": f"The card is {CARD}.", "reasoning": f"Also {CARD}.",
               "refusal": None, **UNSCREENED}
    whole = {**HEAD, "object": "chat.completion",
             "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    s = await stack(RawUpstream([orjson.dumps(whole)], content_type="application/json"))
    for stream in (False, True):  # True: the upstream answered whole, the client streams
        async with s.client.post("/v1/chat/completions",
                                 json=user("hi", stream=stream)) as resp:
            raw = await resp.read()
        assert resp.status == 200
        assert b"4111" not in raw
        if stream:
            deltas = [e["choices"][0]["delta"] for e in events(raw) if isinstance(e, dict)]
            assert deltas == [{"role": "assistant", "content": ""}, {
                "content": "Your card **** 1111 is on file.",
                "reasoning_content": "The card is **** 1111.", "reasoning": "Also **** 1111."},
                {}]
        else:
            assert orjson.loads(raw)["choices"] == [{"index": 0, "finish_reason": "stop",
                                                    "message": {
                "role": "assistant", "content": "Your card **** 1111 is on file.",
                "reasoning_content": "The card is **** 1111.", "reasoning": "Also **** 1111.",
                "refusal": None}}]


AUDIO_MESSAGE = ("audio output cannot be screened by ReplyGuard: the spoken words would reach "
                 "the listener unscreened; ask for text only (modalities: [\"text\"], no "
                 "'audio')")


@pytest.mark.parametrize(("extra", "param"), [
    ({"modalities": ["text", "audio"], "audio": {"voice": "alloy", "format": "wav"}},
     "modalities"),
    ({"modalities": ["text", "audio"]}, "modalities"),
    ({"audio": {"voice": "alloy", "format": "wav"}}, "audio"),
    ({"modalities": ["text", "audio"], "stream": True}, "modalities"),
])
async def test_spoken_output_is_refused_before_any_upstream_call(
        stack: Any, extra: dict[str, Any], param: str) -> None:
    s = await stack(Reply("Hello there."))
    async with s.client.post("/v1/chat/completions", json=user("hi", **extra)) as resp:
        status, body = resp.status, await resp.json()
    assert (status, body) == (400, {"error": {
        "message": AUDIO_MESSAGE, "type": "invalid_request_error", "param": param,
        "code": "unscreenable_output"}})
    assert s.upstream.seen == []


async def test_text_modalities_pass(stack: Any) -> None:
    s = await stack(Reply("Hello there."))
    async with s.client.post("/v1/chat/completions",
                             json=user("hi", modalities=["text"], audio=None)) as resp:
        assert resp.status == 200
    assert s.upstream.seen[0]["modalities"] == ["text"]


@pytest.mark.parametrize("stream", [False, True])
async def test_sdk_sends_the_fields_screened(stack: Any, stream: bool) -> None:
    rules = ReplyRules(personal_data={"email": "redact"})
    s = await stack(Reply("Done."), rules=rules)
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        got = await client.chat.completions.create(
            model="m", stream=stream, user="jane@example.com",
            safety_identifier="jane@example.com",
            prediction={"type": "content", "content": f"card {CARD}"},
            messages=[{"role": "user", "name": "jane@example.com", "content": "fix it"}])
        if stream:
            async with got:
                text = "".join([c.choices[0].delta.content or "" async for c in got
                                if c.choices])
        else:
            text = got.choices[0].message.content
    assert text == "Done."
    seen = s.upstream.seen[0]
    assert (seen["user"], seen["safety_identifier"], seen["prediction"], seen["messages"]) == (
        "j***@example.com", "j***@example.com", {"type": "content", "content": "card **** 1111"},
        [{"role": "user", "name": "j***@example.com", "content": "fix it"}])


async def test_sdk_sees_audio_refused(stack: Any) -> None:
    s = await stack(Reply("Hello there."))
    async with openai.AsyncOpenAI(base_url=s.base_url, api_key="k", max_retries=0) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(
                model="m", modalities=["text", "audio"], audio={"voice": "alloy",
                                                                 "format": "wav"},
                messages=[{"role": "user", "content": "hi"}])
    assert (caught.value.status_code, caught.value.code, caught.value.param) == (
        400, "unscreenable_output", "modalities")
    assert s.upstream.seen == []
