"""proxy.api_chat: StreamScreen and screen_completion on hand-built chunks (exact output chunk
lists), and the split-invariance property: however the reply is cut into deltas (or its SSE
bytes into network reads, inside UTF-8 characters too), the streamed text equals the whole
reply screened."""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

import orjson
import pytest
from conftest import SHOP_RULES
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine.context import read_context
from replyguard.engine.reply import ReplyScreen
from replyguard.engine.rules import compile_rules
from replyguard.proxy import api_chat
from replyguard.proxy.api_chat import ChunkShapeError
from replyguard.proxy.api_chat_whole import screen_completion
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.relay import _handle
from replyguard.proxy.sse import SSEDecoder, encode_event
from replyguard.proxy.stream_out import item_bytes as _bytes

RULES = compile_rules(SHOP_RULES)
REFUND_DONE = read_context([
    {"role": "user", "content": "the parcel for 4412 vanished"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
     "function": {"name": "refund_card", "arguments": '{"order_id": "4412"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "refunded"}'},
])  # fmt: skip
DISCLAIMER = "Refunds reach the card in three to five working days."
ENV = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}


class StreamScreen(api_chat.StreamScreen):
    """The chat adapter's stream screen, giving the chunks' bodies (what is sent)."""

    def feed(self, chunk: dict[str, Any]) -> list[dict[str, Any]]:  # type: ignore[override]
        return [sent.body for sent in super().feed(chunk)]

    def end(self) -> list[dict[str, Any]]:  # type: ignore[override]
        return [sent.body for sent in super().end()]


def make(context: Any = None) -> Any:
    return partial(ReplyScreen, RULES, context, 2000)


def c(delta: dict[str, Any], finish: str | None = None, index: int = 0,
      **extra: Any) -> dict[str, Any]:
    """A chat chunk with one choice."""
    return {**ENV, "choices": [{"index": index, "delta": delta, "finish_reason": finish,
                                **extra}]}


def run(chunks: list[dict[str, Any]], context: Any = None) -> list[dict[str, Any]]:
    screen = StreamScreen(make(context))
    out = []
    for chunk in chunks:
        out.extend(screen.feed(copy.deepcopy(chunk)))
    return out + screen.end()


def test_role_chunk_passes() -> None:
    assert run([c({"role": "assistant", "content": ""})]) == [
        c({"role": "assistant", "content": ""})]


def test_text_held_until_the_next_sentence_starts() -> None:
    assert run([c({"content": "Hello th"}), c({"content": "ere. W"}), c({"content": "orld"}),
                c({}, "stop")]) == [
        c({"content": "Hello there. "}),
        {**ENV, "choices": [{"index": 0, "delta": {"content": "World"}, "logprobs": None,
                             "finish_reason": None}]},
        c({}, "stop"),
    ]  # fmt: skip


def test_finish_chunk_carrying_text_is_split_in_two() -> None:
    assert run([c({"content": "One. Two"}, "stop")]) == [
        {**ENV, "choices": [{"index": 0, "delta": {"content": "One. Two"}, "logprobs": None,
                             "finish_reason": None}]},
        c({}, "stop"),
    ]  # fmt: skip


def test_added_sentence_comes_before_the_finish_chunk() -> None:
    got = run([c({"content": "Done. It is a guaranteed refund."}), c({}, "stop")],
              REFUND_DONE)
    assert got == [
        c({"content": "Done. "}),
        {**ENV, "choices": [{"index": 0, "delta": {"content": DISCLAIMER}, "logprobs": None,
                             "finish_reason": None}]},
        c({}, "stop"),
    ]  # fmt: skip


def test_card_masked_whatever_the_cut() -> None:
    got = run([c({"content": "Card 4111 11"}), c({"content": "11 1111 "}),
               c({"content": "1111 ok. Bye"}), c({}, "stop")])
    assert [x["choices"][0]["delta"].get("content") for x in got] == [
        "Card **** 1111 ok. ", "Bye", None]


def test_held_chunk_with_tool_calls_keeps_them() -> None:
    call = [{"index": 0, "id": "x", "type": "function",
             "function": {"name": "f", "arguments": ""}}]
    assert run([c({"content": "Let me", "tool_calls": call})]) == [
        c({"content": "", "tool_calls": call}),
        {**ENV, "choices": [{"index": 0, "delta": {"content": "Let me"}, "logprobs": None,
                             "finish_reason": None}]},
    ]  # fmt: skip


def test_usage_chunk_passes_as_it_is() -> None:
    usage = {**ENV, "choices": [], "usage": {"prompt_tokens": 1}}
    assert run([usage]) == [usage]


def test_two_choices_in_one_chunk_go_out_one_each() -> None:
    chunk = {**ENV, "choices": [{"index": 0, "delta": {"content": "One. Two"}},
                                {"index": 1, "delta": {"content": "Three. Four"}}]}
    got = StreamScreen(make()).feed(chunk)
    assert got == [{**ENV, "choices": [{"index": 0, "delta": {"content": "One. "}}]},
                   {**ENV, "choices": [{"index": 1, "delta": {"content": "Three. "}}]}]


def test_text_after_finish_is_dropped() -> None:
    got = run([c({"content": "Ok."}, "stop"), c({"content": "Late 4111 1111 1111 1111."})])
    assert [x["choices"][0]["delta"] for x in got] == [{"content": "Ok."}, {}]


def test_logprobs_dropped() -> None:
    got = run([c({"content": "Hi. The"}, logprobs={"content": [{"token": "Hi"}]}),
               c({}, "stop", logprobs=None)])
    assert got == [c({"content": "Hi. "}, logprobs=None),
                   {**ENV, "choices": [{"index": 0, "delta": {"content": "The"},
                                        "logprobs": None, "finish_reason": None}]},
                   c({}, "stop", logprobs=None)]


def test_end_flushes_choices_never_finished() -> None:
    screen = StreamScreen(make())
    assert screen.feed(c({"content": "Tail 4111 1111 1111 1111"})) == []
    assert not screen.complete()
    assert screen.end() == [{**ENV, "choices": [{"index": 0, "delta": {
        "content": "Tail **** 1111"}, "logprobs": None, "finish_reason": None}]}]
    assert screen.complete()


def test_refusal_screened_on_its_own() -> None:
    got = run([c({"refusal": "No. Card 4111 1111 1111 1111"}), c({}, "stop")])
    assert [x["choices"][0]["delta"] for x in got] == [
        {"refusal": "No. "}, {"refusal": "Card **** 1111"}, {}]


def test_counts() -> None:
    screen = StreamScreen(make())
    screen.feed(c({"content": "Card 4111 1111 1111 1111. Guaranteed refund! Ok"}))
    screen.feed(c({}, "stop"))
    assert dict(screen.counts()) == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1,
                                     "reply_wording_removed": 1}


def test_legacy_text_chunks() -> None:
    head = {"id": "t", "object": "text_completion", "created": 1, "model": "m"}

    def t(text: str, finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"text": text, "index": 0, "logprobs": None,
                                     "finish_reason": finish}]}

    screen = StreamScreen(make(), "text")
    got = [x for chunk in (t("Card 4111 1111 "), t("1111 1111. B"), t("ye", "stop"))
           for x in screen.feed(chunk)]
    assert got == [t("Card **** 1111. "), t("Bye"), t("", "stop")]


def test_screen_completion_chat() -> None:
    body = {"id": "x", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Card 4111 1111 1111 1111. "
                                 "It is a guaranteed refund."}, "logprobs": {"a": 1},
         "finish_reason": "stop"},
        {"index": 1, "message": {"role": "assistant", "content": None, "tool_calls": [1]},
         "finish_reason": "tool_calls"},
        {"index": 2, "message": {"role": "assistant", "content": "", "refusal": "No 4111 "
                                 "1111 1111 1111."}, "finish_reason": "stop"},
    ], "usage": {"total_tokens": 3}}
    counts = screen_completion(body, make())
    assert body == {"id": "x", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Card **** 1111. "},
         "logprobs": None, "finish_reason": "stop"},
        {"index": 1, "message": {"role": "assistant", "content": None, "tool_calls": [1]},
         "finish_reason": "tool_calls"},
        {"index": 2, "message": {"role": "assistant", "content": "", "refusal": "No **** 1111."},
         "finish_reason": "stop"},
    ], "usage": {"total_tokens": 3}}  # fmt: skip
    assert dict(counts) == {"reply_pd_detected_card": 2, "reply_pd_redacted": 2,
                            "reply_wording_removed": 1}


def test_screen_completion_legacy() -> None:
    body = {"choices": [{"text": "Card 4111 1111 1111 1111.", "index": 0}]}
    screen_completion(body, make(), "text")
    assert body == {"choices": [{"text": "Card **** 1111.", "index": 0}]}
    assert screen_completion({"choices": None}, make()) == {}


@pytest.mark.parametrize("body", [
    {"choices": [{"text": "ok", "index": 0}, "junk"]},
    {"choices": {"0": {"text": "Card 4111 1111 1111 1111."}}},
    {"choices": [{"message": "Card 4111 1111 1111 1111."}]},
    {"choices": [{"message": {"content": 4111111111111111}}]},
])
def test_screen_completion_refuses_shapes_it_cannot_screen(body: dict) -> None:
    kind = "text" if isinstance(body["choices"], list) and "text" in body["choices"][0] else "chat"
    with pytest.raises(ChunkShapeError):
        screen_completion(body, make(), kind)


def test_screen_completion_joins_and_screens_content_parts_and_reasoning() -> None:
    body = {"choices": [{"index": 0, "message": {
        "content": [{"type": "text", "text": "Card 4111 1111 1111 1111."}],
        "reasoning_content": "The user's card is 4111 1111 1111 1111.",
        "logprobs": {"content": [{"token": "4111"}]}}}]}
    screen_completion(body, make())
    assert body == {"choices": [{"index": 0, "message": {
        "content": "Card **** 1111.", "reasoning_content": "The user's card is **** 1111."}}]}


# -- split invariance ------------------------------------------------------------------------

PIECES = (
    "Your card 4111 1111 1111 1111 is on file.", " The card 4111 1111 1111 1112 is not.",
    " It is a guaranteed refund.", " Dr. Smith paid 12.50 pounds!", " SSN 123-45-6789 here.",
    " Café \U0001f600 ok?", "\n\n- item one\n- item two", " Mail j.doe@example.com now.",
    " ", "e.g. this", " 4111-1111-1111-1111", " Refunds reach the card in three to five "
    "working days.",
)  # fmt: skip
replies = st.lists(st.sampled_from(PIECES), max_size=8).map("".join) | st.text(max_size=80)


def whole(text: str, context: Any) -> str:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    screen_completion(body, make(context))
    return body["choices"][0]["message"]["content"]


def cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({p % (len(text) + 1) for p in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def stream_chunks(deltas: list[str]) -> list[dict[str, Any]]:
    return [c({"role": "assistant", "content": ""})] + [
        c({"content": d}) for d in deltas] + [c({}, "stop")]


def content_of(chunks: list[dict[str, Any]]) -> str:
    return "".join(x["choices"][0]["delta"].get("content") or "" for x in chunks)


@settings(max_examples=500, deadline=None)
@given(text=replies, cuts=st.lists(st.integers(0, 200), max_size=12), done=st.booleans())
def test_any_split_of_the_deltas_gives_the_whole_reply(text: str, cuts: list[int],
                                                       done: bool) -> None:
    context = REFUND_DONE if done else None
    got = run(stream_chunks(cut(text, cuts)), context)
    assert content_of(got) == whole(text, context)


@settings(max_examples=500, deadline=None)
@given(text=replies, deltas=st.lists(st.integers(0, 200), max_size=6),
       reads=st.lists(st.integers(0, 4000), max_size=12))
def test_any_split_of_the_sse_bytes_gives_the_whole_reply(text: str, deltas: list[int],
                                                          reads: list[int]) -> None:
    raw = b"".join(encode_event(orjson.dumps(x)) for x in stream_chunks(cut(text, deltas)))
    raw += b"data: [DONE]\n\n"
    points = sorted({p % (len(raw) + 1) for p in reads})
    decoder, screen, out = SSEDecoder(), api_chat.StreamScreen(make()), []
    done = False
    for a, b in zip([0, *points], [*points, len(raw)], strict=True):
        done = _handle(decoder.feed(raw[a:b]), screen, out) or done
    assert done
    sent = SSEDecoder().feed(b"".join(_bytes(i) for i in out))
    chunks = [orjson.loads(e.data) for e in sent if e.data != "[DONE]"]
    assert content_of(chunks) == whole(text, None)


LONG = st.lists(st.sampled_from((*PIECES, " word" * 40, " 4111 1111 1111 1111", "wordy" * 30)),
                min_size=10, max_size=40).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(text=LONG, cuts=st.lists(st.integers(0, 4000), max_size=16))
def test_forced_splits_of_long_sentences_stay_split_invariant(text: str, cuts: list[int]
                                                              ) -> None:
    make_short = partial(ReplyScreen, RULES, None, 512)
    screen = StreamScreen(make_short)
    got = [x for chunk in stream_chunks(cut(text, cuts)) for x in screen.feed(chunk)]
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    screen_completion(body, make_short)
    assert content_of(got) == body["choices"][0]["message"]["content"]
    assert "4111 1111 1111 1111" not in content_of(got)


def test_stream_refuses_a_choice_index_that_is_not_a_number() -> None:
    screen = StreamScreen(make())
    with pytest.raises(ChunkShapeError):
        screen.feed({"id": "x", "choices": [{"index": "0", "delta": {"content": "4111"}}]})


def test_stream_screens_reasoning_and_drops_delta_logprobs() -> None:
    screen = StreamScreen(make())
    sent = screen.feed({"id": "x", "choices": [{"index": 0, "delta": {
        "reasoning_content": "Card 4111 1111 1111 1111. Next", "logprobs": {"t": "4111"}}}]})
    sent += screen.feed({"id": "x", "choices": [{"index": 0, "delta": {},
                                                  "finish_reason": "stop"}]})
    assert sent == [
        {"id": "x", "choices": [{"index": 0, "delta": {"reasoning_content": "Card **** 1111. "}}]},
        {"id": "x", "choices": [{"index": 0, "delta": {"reasoning_content": "Next"},
                                 "logprobs": None, "finish_reason": None}]},
        {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]


@settings(max_examples=300, deadline=None)
@given(value=replies, cuts=st.lists(st.integers(0, 400), max_size=12), one_index=st.booleans())
def test_any_split_of_the_calls_arguments_gives_the_whole_calls(value: str, cuts: list[int],
                                                                one_index: bool) -> None:
    """A call's arguments (any reply text and a card, as JSON) cut anywhere, the calls on
    their own indexes or all on index 0 with their own ids: the client gets what the whole
    reply gives it, and so do the counts."""
    given = [{"id": "a", "type": "function", "function": {
                 "name": "refund", "arguments": orjson.dumps({"note": value, "n": 1}).decode()}},
             {"id": "b", "type": "function", "function": {
                 "name": "lookup", "arguments": '{"card": "4111 1111 1111 1111"}'}}]
    body = {**ENV, "object": "chat.completion", "choices": [{
        "index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": copy.deepcopy(given)}}]}
    whole_counts = screen_completion(body, make(), calls=CallFilter(RULES))
    chunks = [c({"role": "assistant", "content": None})]
    for n, call in enumerate(given):
        index = 0 if one_index else n
        function = call["function"]
        chunks.append(c({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                         "function": {"name": function["name"],
                                                      "arguments": ""}}]}))
        chunks += [c({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in cut(function["arguments"], cuts) if piece]
    chunks.append(c({}, "tool_calls"))
    screen = StreamScreen(make(), calls=CallFilter(RULES))
    sent = [x for chunk in chunks for x in screen.feed(copy.deepcopy(chunk))] + screen.end()
    streamed = [{k: v for k, v in d.items() if k != "index"} for x in sent
                for d in x["choices"][0]["delta"].get("tool_calls") or ()]
    assert streamed == body["choices"][0]["message"]["tool_calls"]
    assert "4111 1111 1111 1111" not in orjson.dumps(sent).decode()
    assert screen.counts() == whole_counts
