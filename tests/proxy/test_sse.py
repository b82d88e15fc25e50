"""proxy.sse: exact events for a table of streams, split invariance, encoder round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.proxy.sse import DONE, SSEDecodeError, SSEDecoder, SSEEvent, encode_event


def decode_whole(stream: bytes) -> list[SSEEvent]:
    dec = SSEDecoder()
    return dec.feed(stream) + dec.flush()


def decode_cut(stream: bytes, cuts: list[int]) -> list[SSEEvent]:
    dec = SSEDecoder()
    out: list[SSEEvent] = []
    start = 0
    for cut in sorted(cuts) + [len(stream)]:
        out += dec.feed(stream[start:cut])
        start = cut
    return out + dec.flush()


E = SSEEvent

CASES = [
    ("lf", b"data: a\n\n", [E("a")]),
    ("crlf", b"data: a\r\n\r\n", [E("a")]),
    ("cr", b"data: a\r\r", [E("a")]),
    ("mixed endings", b"data: a\r\ndata: b\rdata: c\n\r\n", [E("a\nb\nc")]),
    ("no space after colon", b"data:a\n\n", [E("a")]),
    ("only one space stripped", b"data:  a \n\n", [E(" a ")]),
    ("multiple data lines", b"data: a\ndata: b\n\n", [E("a\nb")]),
    ("empty data line dispatches empty data", b"data:\n\n", [E("")]),
    ("field without colon", b"data\n\n", [E("")]),
    ("two empty data lines", b"data\ndata\n\n", [E("\n")]),
    ("comment ignored", b": keep-alive\n\ndata: x\n\n", [E("x")]),
    ("comment inside event", b"data: a\n: ping\ndata: b\n\n", [E("a\nb")]),
    ("event field", b"event: error\ndata: {}\n\n", [E("{}", event="error")]),
    (
        "event resets after dispatch",
        b"event: e\ndata: 1\n\ndata: 2\n\n",
        [E("1", event="e"), E("2")],
    ),
    ("empty event name is default", b"event:\ndata: 1\n\n", [E("1")]),
    ("id persists", b"id: 7\ndata: 1\n\ndata: 2\n\n", [E("1", id="7"), E("2", id="7")]),
    ("id with NUL ignored", b"id: a\0b\ndata: 1\n\n", [E("1")]),
    ("empty id resets", b"id: 7\ndata: 1\n\nid\ndata: 2\n\n", [E("1", id="7"), E("2", id="")]),
    ("unknown fields and retry ignored", b"retry: 10\nfoo: bar\ndata: x\n\n", [E("x")]),
    ("event without data not dispatched", b"event: x\n\ndata: y\n\n", [E("y")]),
    ("blank lines alone", b"\n\n\r\n\r", []),
    ("id only not dispatched", b"id: 1\n\n", []),
    ("final event without blank line", b"data: a\ndata: b", [E("a\nb")]),
    ("final event line ended", b"data: a\n", [E("a")]),
    ("bom at start dropped", b"\xef\xbb\xbfdata: a\n\n", [E("a")]),
    ("bom later kept", b"data: \xef\xbb\xbfa\n\n", [E("\ufeffa")]),
    ("second bom at start kept as field name", b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\n", []),
    ("utf-8", "data: ação 漢 🙂\n\n".encode(), [E("ação 漢 🙂")]),
    (
        "other unicode breaks are not line ends",
        "data: a\u2028b\x0bc\x1cd\n\n".encode(),
        [E("a\u2028b\x0bc\x1cd")],
    ),
    (
        "openai stream",
        b'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n',
        [E('{"choices":[{"delta":{"content":"Hi"}}]}'), E("[DONE]")],
    ),
    ("empty stream", b"", []),
]


@pytest.mark.parametrize(("stream", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_decode_table(stream: bytes, expected: list[SSEEvent]) -> None:
    assert decode_whole(stream) == expected


@pytest.mark.parametrize(("stream", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_decode_table_byte_by_byte(stream: bytes, expected: list[SSEEvent]) -> None:
    assert decode_cut(stream, list(range(len(stream)))) == expected


def test_cr_at_chunk_end_then_lf() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\r") == []
    assert dec.feed(b"\n") == []  # the "\n" completes "\r\n", it is not a blank line
    assert dec.feed(b"\r") == [E("a")]
    assert dec.feed(b"\ndata: b\n\n") == [E("b")]


def test_events_released_as_soon_as_complete() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: 1\n\ndata: 2") == [E("1")]
    assert dec.feed(b"\n") == []
    assert dec.feed(b"\n") == [E("2")]
    assert dec.flush() == []


def test_multibyte_char_cut_between_feeds() -> None:
    dec = SSEDecoder()
    raw = "data: 🙂\n\n".encode()
    assert dec.feed(raw[:7]) == []
    assert dec.feed(raw[7:9]) == []
    assert dec.feed(raw[9:]) == [E("🙂")]


def test_flush_resets_for_a_new_stream() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"id: 1\ndata: a") == []
    assert dec.flush() == [E("a", id="1")]
    assert dec.feed(b"\xef\xbb\xbfdata: b\n\n") == [E("b")]


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        ([b"data: \xff\n\n"], "event stream is not UTF-8: invalid start byte at byte 6"),
        (
            [b"data: ab", b"\xc3(\n\n"],
            "event stream is not UTF-8: invalid continuation byte at byte 8",
        ),
        (
            [b"data: \xe2\x82", b"x"],
            "event stream is not UTF-8: invalid continuation byte at byte 6",
        ),
        ([b"\xed\xa0\x80"], "event stream is not UTF-8: invalid continuation byte at byte 0"),
    ],
)
def test_invalid_utf8_raises(chunks: list[bytes], message: str) -> None:
    dec = SSEDecoder()
    with pytest.raises(SSEDecodeError) as info:
        for chunk in chunks:
            dec.feed(chunk)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_stream_ending_inside_a_character_raises_on_flush() -> None:
    dec = SSEDecoder()
    assert dec.feed("data: é".encode()[:-1]) == []
    with pytest.raises(SSEDecodeError, match="unexpected end of data at byte 6"):
        dec.flush()


def test_long_line_fed_in_small_pieces_keeps_only_the_line() -> None:
    dec = SSEDecoder()
    for _ in range(10_000):
        assert dec.feed(b"xy") == []
    assert dec.feed(b"\n\ndata: z\n\n") == [E("z")]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("x",), b"data: x\n\n"),
        ((b"x",), b"data: x\n\n"),
        (("",), b"data: \n\n"),
        (("a\nb",), b"data: a\ndata: b\n\n"),
        (("a\r\nb\rc",), b"data: a\ndata: b\ndata: c\n\n"),
        (("{}", "error"), b"event: error\ndata: {}\n\n"),
        (("ação",), "data: ação\n\n".encode()),
    ],
)
def test_encode_event(args: tuple[bytes | str, ...], expected: bytes) -> None:
    assert encode_event(*args) == expected


def test_encode_event_rejects_line_break_in_event_name() -> None:
    with pytest.raises(ValueError, match="holds a line break"):
        encode_event("x", "a\nb")


def test_done() -> None:
    assert DONE == encode_event("[DONE]")
    assert decode_whole(DONE) == [E("[DONE]")]


# --- properties -------------------------------------------------------------------------------

_texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
_eols = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """A stream mixing every feature: any line ending, comments, BOM, ids, events, blank lines."""
    parts = [b"\xef\xbb\xbf"] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["data", "data:", "event", "id", "comment", "blank", "junk"]))
        eol = draw(_eols)
        text = draw(_texts).encode()
        if kind == "data":
            parts.append(b"data: " + text.replace(b"\r", b"").replace(b"\n", b"") + eol)
        elif kind == "data:":
            parts.append(b"data:" + text.replace(b"\r", b"").replace(b"\n", b"") + eol)
        elif kind in ("event", "id"):
            parts.append(kind.encode() + b": " + text.replace(b"\r", b"").replace(b"\n", b"") + eol)
        elif kind == "comment":
            parts.append(b": " + text.replace(b"\r", b"").replace(b"\n", b"") + eol)
        elif kind == "blank":
            parts.append(eol)
        else:
            parts.append(text)
    return b"".join(parts)


@settings(max_examples=500, deadline=None)
@given(data=st.data(), stream=streams())
def test_any_cutting_gives_the_same_events(data: st.DataObject, stream: bytes) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=len(stream) + 1))
    assert decode_cut(stream, cuts) == decode_whole(stream)


@settings(max_examples=500, deadline=None)
@given(stream=streams())
def test_byte_by_byte_gives_the_same_events(stream: bytes) -> None:
    assert decode_cut(stream, list(range(len(stream)))) == decode_whole(stream)


@settings(max_examples=500, deadline=None)
@given(
    events=st.lists(st.tuples(_texts, st.none() | st.text("abc_-", min_size=1)), max_size=5),
    data=st.data(),
)
def test_encode_then_decode_round_trips(
    events: list[tuple[str, str | None]], data: st.DataObject
) -> None:
    stream = b"".join(encode_event(text, name) for text, name in events)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=8))
    expected = [E(text.replace("\r\n", "\n").replace("\r", "\n"), name) for text, name in events]
    assert decode_cut(stream, cuts) == expected
