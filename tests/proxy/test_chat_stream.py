"""Streamed chat completions through ReplyGuard: the exact SSE bytes the client receives.

Scripted upstream (4-character chunks) for the shapes OpenAI sends; a raw upstream writing
chosen bytes in separate network writes for the framing cases (CRLF, keep-alives, `data:`
without a space, a UTF-8 character cut between writes, a missing `[DONE]`)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from conftest import DONE, HEAD, RawUpstream, user

from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream

ROLE = {"role": "assistant", "content": ""}
STREAM_HEADERS = {"Content-Type": "text/event-stream; charset=utf-8",
                  "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0,
          id: str = "chatcmpl-1", extra: str = "") -> bytes:
    """One chunk as ReplyGuard writes it, in the scripted upstream's envelope."""
    choice = orjson.dumps({"index": index, "delta": delta, "logprobs": None,
                           "finish_reason": finish}).decode()
    return f'data: {{"id":"{id}",{HEAD}{extra},"choices":[{choice}]}}\n\n'.encode()


async def post_stream(stack: Any, body: dict[str, Any]) -> bytes:
    async with stack.client.post("/v1/chat/completions", json=body) as resp:
        assert resp.status == 200
        for name, value in STREAM_HEADERS.items():
            assert resp.headers[name] == value
        return await resp.read()


async def test_plain_reply_released_in_whole_sentences(stack) -> None:
    s = await stack(Reply(content="Hi there. The card is fine. Bye now"))
    body = await post_stream(s, user("hi", stream=True))
    # Upstream chunks: "Hi t" "here" ". Th" "e ca" "rd i" "s fi" "ne. " "Bye " "now".
    assert body == b"".join([
        chunk(ROLE),
        chunk({"content": "Hi there. "}),
        chunk({"content": "The card is fine. "}),
        chunk({"content": "Bye now"}),
        chunk({}, "stop"),
        DONE,
    ])  # fmt: skip


@pytest.mark.parametrize(("arguments", "sent"), [
    pytest.param({"order_id": "4412", "amount": 12.5}, '{"order_id":"4412","amount":12.5}',
                 id="nothing-to-mask"),
    pytest.param({"order_id": "4412", "card": "4111 1111 1111 1111"},
                 '{"order_id":"4412","card":"**** 1111"}', id="a-card"),
])
async def test_tool_call_deltas_are_held_and_sent_screened_as_one(
        stack, arguments: dict[str, Any], sent: str) -> None:
    s = await stack(Reply(tool_calls=({"name": "refund_card", "arguments": arguments},)))
    body = await post_stream(s, user("refund it", stream=True))
    # Upstream: the call's id and name, then its arguments in 4-character deltas.
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "refund_card", "arguments": sent}}
    assert body == b"".join([
        chunk(ROLE),
        chunk({"tool_calls": [call]}),
        chunk({}, "tool_calls"),
        DONE,
    ])  # fmt: skip


async def test_n2_each_choice_screened_and_finished_on_its_own(stack) -> None:
    s = await stack(Reply(content="Card 4111 1111 1111 1111 ok. Bye"))
    body = await post_stream(s, user("hi", stream=True, n=2))
    assert body == b"".join([
        chunk(ROLE, index=0), chunk(ROLE, index=1),
        chunk({"content": "Card **** 1111 ok. "}, index=0),
        chunk({"content": "Card **** 1111 ok. "}, index=1),
        chunk({"content": "Bye"}, index=0), chunk({}, "stop", index=0),
        chunk({"content": "Bye"}, index=1), chunk({}, "stop", index=1),
        DONE,
    ])  # fmt: skip


async def test_usage_chunk_with_empty_choices_passes(stack) -> None:
    s = await stack(Reply(content="One two. Three"))
    body = await post_stream(s, user("four words right here", stream=True,
                                     stream_options={"include_usage": True}))
    usage = b'{"prompt_tokens":4,"completion_tokens":3,"total_tokens":7}'
    nul = ',"usage":null'
    assert body == b"".join([
        chunk(ROLE, extra=nul),
        chunk({"content": "One two. "}, extra=nul),
        chunk({"content": "Three"}, extra=nul),
        chunk({}, "stop", extra=nul),
        b'data: {"id":"chatcmpl-1",' + HEAD.encode() + b',"choices":[],"usage":' + usage
        + b"}\n\n",
        DONE,
    ])  # fmt: skip


async def test_card_number_split_over_three_chunks_is_masked_never_partial(stack) -> None:
    # 8-character chunks cut the card number "4111 1111 1111 1111" three ways.
    s = await stack(Reply(content="Card: 4111 1111 1111 1111 is yours. Done", chunk_chars=8))
    body = await post_stream(s, user("hi", stream=True))
    assert b"4111" not in body
    assert body == b"".join([
        chunk(ROLE),
        chunk({"content": "Card: **** 1111 is yours. "}),
        chunk({"content": "Done"}),
        chunk({}, "stop"),
        DONE,
    ])  # fmt: skip


# -- framing, with a raw upstream --------------------------------------------------------

RAW_HEAD = b'"object":"chat.completion.chunk","created":7,"model":"m"'


def raw_chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0,
              logprobs: Any = None) -> bytes:
    choice = {"index": index, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
    return b'{"id":"c1",' + RAW_HEAD + b',"choices":[' + orjson.dumps(choice) + b"]}"


def out(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> bytes:
    return b"data: " + raw_chunk(delta, finish, index) + b"\n\n"


async def raw_stream(stack: Any, parts: list[bytes]) -> tuple[bytes, RawUpstream]:
    up = RawUpstream(parts)
    s = await stack(up)
    return await post_stream(s, user("hi", stream=True)), up


EXPECTED_HELLO = b"".join([
    out(ROLE), out({"content": "Hello there. "}), out({"content": "Bye."}), out({}, "stop"), DONE,
])  # fmt: skip


def hello_events(sep: bytes = b"\n", space: bytes = b" ") -> list[bytes]:
    lines = [raw_chunk(ROLE), raw_chunk({"content": "Hello th"}),
             raw_chunk({"content": "ere. By"}), raw_chunk({"content": "e."}),
             raw_chunk({}, "stop")]
    return [b"data:" + space + line + sep + sep for line in lines] + [
        b"data:" + space + b"[DONE]" + sep + sep]


async def test_crlf_framing(stack) -> None:
    body, _ = await raw_stream(stack, hello_events(b"\r\n"))
    assert body == EXPECTED_HELLO


async def test_crlf_pair_cut_between_writes(stack) -> None:
    parts = b"".join(hello_events(b"\r\n"))
    cuts = [parts[i:i + 7] for i in range(0, len(parts), 7)]
    body, _ = await raw_stream(stack, cuts)
    assert body == EXPECTED_HELLO


async def test_keep_alive_comments_are_skipped(stack) -> None:
    events = hello_events()
    parts = [b": ping\n\n", events[0], b": ping\n\n", *events[1:3], b":\n\n", *events[3:]]
    body, _ = await raw_stream(stack, parts)
    assert body == EXPECTED_HELLO


async def test_data_without_space(stack) -> None:
    body, _ = await raw_stream(stack, hello_events(space=b""))
    assert body == EXPECTED_HELLO


async def test_event_lines_and_ids_are_read(stack) -> None:
    events = [b"event: message\nid: 1\n" + e for e in hello_events()]
    body, _ = await raw_stream(stack, events)
    assert body == EXPECTED_HELLO


@pytest.mark.parametrize("cut", [1, 2, 3])
async def test_utf8_character_split_across_network_writes(stack, cut: int) -> None:
    event = b"data: " + raw_chunk({"content": "Caf\u00e9 \U0001f600 ok. Bye"}) + b"\n\n"
    at = event.index("\U0001f600".encode()) + cut  # inside the 4-byte emoji
    parts = [b"data: " + raw_chunk(ROLE) + b"\n\n", event[:at], event[at:],
             b"data: " + raw_chunk({}, "stop") + b"\n\n", b"data: [DONE]\n\n"]
    body, _ = await raw_stream(stack, parts)
    assert body == b"".join([
        out(ROLE), out({"content": "Caf\u00e9 \U0001f600 ok. "}), out({"content": "Bye"}),
        out({}, "stop"), DONE,
    ])  # fmt: skip


async def test_missing_done_after_every_choice_finished(stack) -> None:
    body, _ = await raw_stream(stack, hello_events()[:-1])
    assert body == EXPECTED_HELLO


async def test_logprobs_are_dropped(stack) -> None:
    logprobs = {"content": [{"token": "Hi", "logprob": -0.1, "bytes": [72, 105],
                             "top_logprobs": []}]}
    parts = [b"data: " + raw_chunk({"content": "Hi. Th"}, logprobs=logprobs) + b"\n\n",
             b"data: " + raw_chunk({"content": "ere."}, logprobs=logprobs) + b"\n\n",
             b"data: " + raw_chunk({}, "stop") + b"\n\n", b"data: [DONE]\n\n"]
    body, _ = await raw_stream(stack, parts)
    assert b"top_logprobs" not in body
    assert body == b"".join([
        out({"content": "Hi. "}), out({"content": "There."}), out({}, "stop"), DONE,
    ])  # fmt: skip


async def test_refusal_is_screened_like_content(stack) -> None:
    parts = [b"data: " + raw_chunk({"refusal": "No. Card 4111 1111 "}) + b"\n\n",
             b"data: " + raw_chunk({"refusal": "1111 1111 here."}) + b"\n\n",
             b"data: " + raw_chunk({}, "stop") + b"\n\n", b"data: [DONE]\n\n"]
    body, _ = await raw_stream(stack, parts)
    assert body == b"".join([
        out({"refusal": "No. "}), out({"refusal": "Card **** 1111 here."}), out({}, "stop"),
        DONE,
    ])  # fmt: skip


async def test_scripted_upstream_request_is_forwarded_as_sent(stack) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="Ok."), created=1)
    s = await stack(up)
    body = user("plain words", stream=True, temperature=0.2, n=1)
    await post_stream(s, body)
    assert up.seen == [body]
