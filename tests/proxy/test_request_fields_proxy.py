"""The request's text beside its messages' content, as the upstream receives it: message
names, the end-user ids (`user`, `safety_identifier`), `prediction`, a legacy completion's
`suffix`; image parts forwarded as they are; shapes that cannot be screened refused with a 400;
and the counts /metrics shows (names and suffixes counted with their turn, the rest never)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import events, streamed_text

from replyguard.engine.request import WITHHELD_REPLY
from replyguard.engine.rules import ReplyRules
from replyguard.proxy.fake_script import Reply

RULES = ReplyRules(personal_data={"national_id": "withhold", "email": "redact"})
CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"
EMAIL = "jane@example.com"
IMAGE = {"type": "image_url", "image_url": {"url": "https://img.example/4111111111111111.png"}}


async def reply_counts(s: Any) -> dict[str, float]:
    """The seed counts /metrics shows above zero, without the `_total` suffix."""
    out = {}
    for line in (await s.metrics_text()).splitlines():
        name, _, value = line.rpartition(" ")
        if name.startswith("reply_") and name.endswith("_total") and float(value):
            out[name.removesuffix("_total")] = float(value)
    return out


async def post(s: Any, body: dict[str, Any], path: str = "/v1/chat/completions"
               ) -> tuple[int, Any, dict[str, str]]:
    """(status, the JSON body or the stream's raw bytes, headers)."""
    async with s.client.post(path, json=body) as resp:
        got = await resp.read() if body.get("stream") and resp.status == 200 else \
            await resp.json()
        return resp.status, got, dict(resp.headers)


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_fields_reach_the_model_screened(stack: Any, stream: bool) -> None:
    s = await stack(Reply("Done. Anything else?"), rules=RULES)
    body = {
        "model": "m", "stream": stream, "user": EMAIL, "safety_identifier": f"id {SSN}",
        "prediction": {"type": "content", "content": f"card = '{CARD}'  # ssn {SSN}"},
        "messages": [
            {"role": "system", "name": "ops@example.com", "content": "Be brief."},
            {"role": "user", "name": EMAIL, "content": [
                {"type": "text", "text": f"fix the card {CARD}"}, IMAGE]},
        ],
    }
    status, got, _ = await post(s, body)
    assert status == 200
    assert s.upstream.seen == [{
        "model": "m", "stream": stream, "user": "j***@example.com",
        "safety_identifier": "id ***6789",
        "prediction": {"type": "content", "content": "card = '**** 1111'  # ssn ***6789"},
        "messages": [
            {"role": "system", "name": "o***@example.com", "content": "Be brief."},
            {"role": "user", "name": "j***@example.com", "content": [
                {"type": "text", "text": "fix the card **** 1111"}, IMAGE]},
        ],
    }]  # fmt: skip
    text = streamed_text(got) if stream else got["choices"][0]["message"]["content"]
    assert text == "Done. Anything else?"
    # the turn's card and its name's email; the ids, prediction and system prompt: never
    assert await reply_counts(s) == {"reply_pd_detected_card": 1, "reply_pd_detected_email": 1,
                                     "reply_pd_redacted": 2}


async def test_prediction_as_text_parts(stack: Any) -> None:
    s = await stack(Reply("Ok."), rules=RULES)
    parts = [{"type": "text", "text": f"line one {CARD}"}, {"type": "text", "text": "two"}]
    status, _, _ = await post(s, {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                                  "prediction": {"type": "content", "content": parts}})
    assert status == 200
    assert s.upstream.seen[0]["prediction"] == {"type": "content", "content": [
        {"type": "text", "text": "line one **** 1111"}, {"type": "text", "text": "two"}]}
    assert await reply_counts(s) == {}


async def test_a_request_without_these_fields_is_forwarded_as_it_was(stack: Any) -> None:
    s = await stack(Reply("Ok."), rules=RULES)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}
    assert (await post(s, body))[0] == 200
    assert s.upstream.seen == [body]


@pytest.mark.parametrize("stream", [False, True])
async def test_legacy_suffix_screened_and_counted_with_the_prompt(stack: Any,
                                                                   stream: bool) -> None:
    s = await stack(Reply("return 1"), rules=RULES)
    body = {"model": "m", "prompt": "def pay(", "suffix": f"# card {CARD}\n", "user": EMAIL,
            "stream": stream}
    status, got, _ = await post(s, body, "/v1/completions")
    assert status == 200
    assert s.upstream.seen == [{"model": "m", "prompt": "def pay(", "suffix": "# card **** 1111\n",
                                "user": "j***@example.com", "stream": stream}]
    text = "".join(e["choices"][0]["text"] for e in events(got) if isinstance(e, dict)) \
        if stream else got["choices"][0]["text"]
    assert text == "return 1"
    assert await reply_counts(s) == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}


@pytest.mark.parametrize(("prompt", "counts"), [
    ("def pay(", {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1}),
    # a prompt already held the request back: the suffix's value is counted, not a 2nd hold
    (f"ssn {SSN}", {"reply_pd_detected_national_id": 2, "reply_pd_withheld": 1}),
])
@pytest.mark.parametrize("stream", [False, True])
async def test_a_withheld_value_in_the_suffix_holds_the_request_back(
        stack: Any, stream: bool, prompt: str, counts: dict[str, float]) -> None:
    s = await stack(Reply("return 1"), rules=RULES)
    body = {"model": "m", "prompt": prompt, "suffix": f"# ssn {SSN}\n", "stream": stream}
    status, got, headers = await post(s, body, "/v1/completions")
    assert status == 200
    assert headers["X-ReplyGuard-Verdict"] == "withhold"
    assert s.upstream.seen == []
    text = "".join(e["choices"][0]["text"] for e in events(got) if isinstance(e, dict)) \
        if stream else got["choices"][0]["text"]
    assert text == WITHHELD_REPLY["en"]
    assert await reply_counts(s) == counts


async def test_embeddings_user_masked(stack: Any) -> None:
    s = await stack(Reply(), rules=RULES)
    status, _, _ = await post(s, {"model": "e", "input": "hello", "user": EMAIL},
                              "/v1/embeddings")
    assert status == 200
    assert s.upstream.seen == [{"model": "e", "input": "hello", "user": "j***@example.com"}]


def _bad(message: str, param: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param,
                      "code": code}}


PREDICTION_SHAPE = ("'prediction' must be an object whose 'content' is a string or a list of "
                    "text parts (other content cannot be screened)")


@pytest.mark.parametrize(("path", "extra", "error"), [
    ("/v1/chat/completions", {"user": 4111111111111111},
     _bad("'user' must be a string", "user", "invalid_request")),
    ("/v1/chat/completions", {"safety_identifier": ["x"]},
     _bad("'safety_identifier' must be a string", "safety_identifier", "invalid_request")),
    ("/v1/chat/completions", {"prediction": {"type": "content", "content": 4111111111111111}},
     _bad(PREDICTION_SHAPE, "prediction", "invalid_prediction")),
    ("/v1/chat/completions", {"prediction": {"type": "content", "content": [
        {"type": "text", "text": "a"}, {"type": "text", "text": {"v": CARD}}]}},
     _bad(PREDICTION_SHAPE, "prediction", "invalid_prediction")),
    ("/v1/chat/completions", {"prediction": "text"},
     _bad(PREDICTION_SHAPE, "prediction", "invalid_prediction")),
    ("/v1/chat/completions", {"messages": [{"role": "user", "name": 4111111111111111,
                                            "content": "hi"}]},
     _bad("a message's 'name' must be a string", "messages", "invalid_messages")),
    ("/v1/completions", {"suffix": ["x"]},
     _bad("'suffix' must be a string", "suffix", "invalid_request")),
    ("/v1/embeddings", {"user": {"id": EMAIL}},
     _bad("'user' must be a string", "user", "invalid_request")),
])
async def test_shapes_that_cannot_be_screened_are_refused(stack: Any, path: str,
                                                          extra: dict[str, Any],
                                                          error: dict[str, Any]) -> None:
    s = await stack(Reply("Ok."), rules=RULES)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "prompt": "hi",
            "input": "hi", **extra}
    status, got, _ = await post(s, body, path)
    assert (status, got) == (400, error)
    assert s.upstream.seen == []
