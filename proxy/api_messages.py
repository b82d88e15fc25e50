"""The Anthropic Messages adapter of the reply pipeline (proxy.pipeline): a whole `message`
or its event stream screened block by block, and the Anthropic error shape.

Each `text` and `thinking` block goes through a `ChoiceReply` of its own (released sentence
by sentence, its tail at the block's stop). A `thinking` block the screen leaves unchanged
keeps its `signature`; one it changes is released without it (counted as
`replyguard_thinking_unsigned`). A `tool_use` block's `input` is held whole (streamed
`input_json_delta`s joined), every string value in it screened (masked, withhold acting as
redact, the JSON kept valid) and sent as one delta; a call of a tool the settings refuse is
dropped and the reply says it cannot do it. `redacted_thinking` (encrypted) passes as it is.
A block, delta or event of any other type passes only when it holds no text outside its
identifier fields; one that does ends the reply with an error (fail closed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from replyguard.proxy import reply_keys
from replyguard.proxy.counts import add_counts, new_counts
from replyguard.proxy.errors import ProxyError, UpstreamError
from replyguard.proxy.permissions import TOOL_CALLS_REFUSED, CallFilter
from replyguard.proxy.pipeline import ChoiceReply, Chunk, Finish, Out, Screen, Text, TextDelta
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.sse import SSEEvent, encode_event

__all__ = ["THINKING_UNSIGNED", "MessageStream", "error_body", "message_events",
           "screen_message"]

#: The count of thinking blocks the screen changed, released without their signature.
THINKING_UNSIGNED = "replyguard_thinking_unsigned"
#: The text field of each screened block type, and its delta's type.
_TEXT_BLOCKS = {"text": ("text", "text_delta"), "thinking": ("thinking", "thinking_delta")}
#: Keys that identify rather than say something: a block or event of an unknown type holding
#: strings only in these passes (its strings are not the model's text).
_ID_KEYS = frozenset({"type", "id", "tool_use_id", "name", "role", "model", "status",
                      "stop_reason", "stop_sequence", "index"})
#: Keys of a message kept as they come (identifiers and counts); `content` is screened.
_MESSAGE_KEYS = frozenset({"id", "type", "role", "model", "stop_reason", "stop_sequence",
                           "usage", "container"})
#: Anthropic's error `type` for each status (https://docs.anthropic.com/en/api/errors).
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                429: "rate_limit_error", 503: "overloaded_error", 529: "overloaded_error"}
InputScreen = Callable[[Any], Any]


def error_body(error: ProxyError) -> dict[str, Any]:
    """`error` in Anthropic's shape: `{"type": "error", "error": {"type", "message"}}`, the
    type by status (`api_error` for any other)."""
    kind = _ERROR_TYPES.get(error.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": error.message}}


def _holds_text(value: dict[str, Any]) -> bool:
    """Does an object of an unknown type hold a string outside its identifier keys?"""
    return not reply_keys.plain({k: v for k, v in value.items() if k not in _ID_KEYS}) \
        or any(not isinstance(v, str) and v is not None
               for k, v in value.items() if k in _ID_KEYS and k != "index")


def _unknown(value: dict[str, Any], what: str) -> None:
    """Fail closed on a `what` of an unknown type that holds text."""
    if _holds_text(value):
        raise ChunkShapeError(f"the upstream sent a {what} of a type ReplyGuard does not "
                              "know, holding text")


def _no_citations(block: dict[str, Any]) -> None:
    """Citations quote the sources (text no screen read): fail closed on any."""
    if block.get("citations"):
        raise ChunkShapeError("the upstream sent citations (quoted text ReplyGuard cannot "
                              "screen in place)")


def _call(block: dict[str, Any]) -> dict[str, Any]:
    return {"name": block.get("name")}


@dataclass(slots=True)
class _Block:
    """One content block being screened: its type, its index as sent, its text screen (text
    and thinking), the input JSON held (tool_use), the signature held (thinking)."""

    kind: str
    index: int
    reply: ChoiceReply | None = None
    given: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    signature: str | None = None
    dropped: bool = False


class _Blocks:
    """What the whole and streamed paths share: blocks judged and screened, counts."""

    def __init__(self, make_screen: Callable[[], Screen], screen_input: InputScreen,
                 calls: CallFilter | None) -> None:
        self._make = make_screen
        self._screen_input = screen_input
        self._calls = calls
        self.blocks: dict[int, _Block] = {}
        self.refused: list[str] = []  # refused calls not yet said
        self.refused_any = False
        self.kept_call = False
        self.sent = 0  # blocks sent so far (a dropped call shifts the next ones' index)
        self.counts: Counter[str] = new_counts()

    def start(self, given: int, block: dict[str, Any]) -> _Block:
        kind = block.get("type")
        if not isinstance(kind, str):
            raise ChunkShapeError("the upstream sent a content block without a `type`")
        state = _Block(kind, self.sent)
        if kind in _TEXT_BLOCKS:
            state.reply = ChoiceReply(self._make)
        elif kind == "tool_use":
            if self._calls is not None and self._calls.message([_call(block)])[1]:
                self.refused.append(str(block.get("name")))
                self.refused_any = state.dropped = True
            self.kept_call = self.kept_call or not state.dropped
        elif kind != "redacted_thinking":
            _unknown(block, "content block")
        if not state.dropped:
            self.sent += 1
        self.blocks[given] = state
        return state

    def text(self, state: _Block, value: str) -> str:
        assert state.reply is not None
        state.given.append(value)
        out = state.reply.feed(TextDelta(_TEXT_BLOCKS[state.kind][0], value))[0]
        assert isinstance(out, Text)
        state.released.append(out.text)
        return out.text

    def tail(self, state: _Block) -> str:
        """A text block's tail; for thinking, its signature dropped if the text changed."""
        if state.reply is None or state.reply.finished:
            return ""
        tail = "".join(i.text for i in state.reply.feed(Finish(None)) if isinstance(i, Text))
        state.released.append(tail)
        state.reply.add_counts_to(self.counts)
        if state.kind == "thinking" and "".join(state.given) != "".join(state.released):
            state.signature = None
            self.counts[THINKING_UNSIGNED] += 1
        return tail

    def input(self, raw: str | dict[str, Any]) -> Any:
        """A tool call's input, its strings screened."""
        if isinstance(raw, str):
            try:
                raw = orjson.loads(raw) if raw.strip() else {}
            except orjson.JSONDecodeError:
                raise ChunkShapeError("the upstream sent a tool input that is not JSON") from None
        return self._screen_input(raw)

    def said(self) -> str:
        """The sentence saying the refused calls not yet said cannot be done ("" when
        none)."""
        if self._calls is None or not self.refused:
            return ""
        said, self.refused = self._calls.sentences(self.refused, ""), []
        return said

    def stop_reason(self, reason: Any) -> Any:
        """`tool_use` becomes `end_turn` when every call was refused."""
        return "end_turn" if reason == "tool_use" and self.refused_any and not self.kept_call \
            else reason

    def all_counts(self) -> Counter[str]:
        total = new_counts()
        add_counts(total, self.counts)
        for state in self.blocks.values():
            if state.reply is not None and not state.reply.finished:
                state.reply.add_counts_to(total)
        if self._calls is not None:
            total[TOOL_CALLS_REFUSED] += self._calls.counts[TOOL_CALLS_REFUSED]
        return total


# ---------------------------------------------------------------- a whole message

def screen_message(message: dict[str, Any], make_screen: Callable[[], Screen],
                   screen_input: InputScreen, calls: CallFilter | None = None
                   ) -> tuple[dict[str, Any], Counter[str]]:
    """A whole Anthropic `message`, screened: the message to send and the counts. Raises
    ChunkShapeError (a shape that cannot be screened, or an unknown block holding text),
    engine ScreeningError."""
    content = message.get("content")
    if not isinstance(content, list):
        raise ChunkShapeError("the upstream sent a message whose `content` is not a list")
    blocks = _Blocks(make_screen, screen_input, calls)
    out_content = []
    for given, block in enumerate(content):
        if not isinstance(block, dict):
            raise ChunkShapeError("the upstream sent a content block that is not an object")
        state = blocks.start(given, block)
        if not state.dropped:
            out_content.append(_whole_block(blocks, state, block))
    if said := blocks.said():
        out_content.append({"type": "text", "text": said})
    out = {k: v for k, v in message.items() if k in _MESSAGE_KEYS or
           (k != "content" and reply_keys.plain(v))}
    out["content"] = out_content
    if "stop_reason" in out:
        out["stop_reason"] = blocks.stop_reason(out["stop_reason"])
    return out, blocks.all_counts()


def _whole_block(blocks: _Blocks, state: _Block, block: dict[str, Any]) -> dict[str, Any]:
    if state.kind in _TEXT_BLOCKS:
        _no_citations(block)
        name = _TEXT_BLOCKS[state.kind][0]
        value = block.get(name)
        if not isinstance(value, str):
            raise ChunkShapeError(f"the upstream sent a `{name}` that is not text")
        state.signature = block.get("signature") if state.kind == "thinking" else None
        text = blocks.text(state, value) + blocks.tail(state)
        out = {"type": state.kind, name: text}
        if state.kind == "thinking" and state.signature is not None:
            out["signature"] = state.signature
        elif "citations" in block:
            out["citations"] = block["citations"]
        return out
    if state.kind == "tool_use":
        return {**block, "input": blocks.input(block.get("input") or {})}
    return block


def message_events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A whole (screened) message as the events that stream it: `message_start`, each
    block's start, one delta and stop, `message_delta`, `message_stop`."""
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message.get("content") or ()):
        kind = block.get("type")
        head: dict[str, Any] = dict(block)
        delta: dict[str, Any] | None = None
        if kind in _TEXT_BLOCKS:
            name, delta_type = _TEXT_BLOCKS[kind]
            head[name] = ""
            delta = {"type": delta_type, name: block.get(name, "")}
        elif kind == "tool_use":
            head["input"] = {}
            delta = {"type": "input_json_delta",
                     "partial_json": orjson.dumps(block.get("input", {})).decode()}
        head.pop("signature", None)
        events.append(("content_block_start", {"type": "content_block_start",
                                               "index": index, "content_block": head}))
        if delta is not None:
            events.append(("content_block_delta",
                           {"type": "content_block_delta", "index": index, "delta": delta}))
        if kind == "thinking" and "signature" in block:
            events.append(("content_block_delta", {
                "type": "content_block_delta", "index": index,
                "delta": {"type": "signature_delta", "signature": block["signature"]}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    usage = message.get("usage")
    events.append(("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message.get("stop_reason") or "end_turn",
                  "stop_sequence": message.get("stop_sequence")},
        "usage": {"output_tokens": usage.get("output_tokens", 0)
                  if isinstance(usage, dict) else 0}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# ---------------------------------------------------------------- a stream

class MessageStream:
    """Screens one streamed Messages reply (proxy.pipeline.StreamAdapter). Text and thinking
    deltas are released sentence by sentence, each block's tail just before its stop; a tool
    call's input is held to its block's stop, then sent screened as one delta."""

    def __init__(self, make_screen: Callable[[], Screen], screen_input: InputScreen,
                 calls: CallFilter | None = None) -> None:
        self._blocks = _Blocks(make_screen, screen_input, calls)
        self._started = False
        self._stopped = False
        self.held = 0

    @property
    def released_any(self) -> bool:
        return any(b.reply is not None and b.reply.released_any
                   for b in self._blocks.blocks.values())

    def counts(self) -> Counter[str]:
        return self._blocks.all_counts()

    def error_event(self, error: ProxyError) -> bytes:
        """`error` as Anthropic's `error` event (the SDK raises APIStatusError on it)."""
        return encode_event(orjson.dumps(error_body(error)), event="error")

    def close(self) -> list[Out] | None:
        """The upstream closed without `message_stop`: the stream dropped."""
        return None

    def event(self, event: SSEEvent) -> tuple[list[Out], bool]:
        """Screen one upstream event: the events to send, and whether it was `message_stop`.
        Raises UpstreamError for an `error` event or one that is not a JSON object;
        ChunkShapeError, engine ScreeningError."""
        try:
            data = orjson.loads(event.data)
        except orjson.JSONDecodeError:
            data = None
        kind = data.get("type") if isinstance(data, dict) else None
        if event.event == "error" or kind == "error":
            raise UpstreamError("the upstream reported an error mid-stream",
                                code="upstream_stream_error")
        if not isinstance(data, dict) or not isinstance(kind, str):
            raise UpstreamError("the upstream sent an event that is not a JSON object with "
                                "a `type`", code="upstream_protocol")
        handler = self._HANDLERS.get(kind)
        if handler is None:
            _unknown(data, "stream event")
            return [], False
        out = handler(self, data)
        return out, kind == "message_stop"

    def _send(self, data: dict[str, Any]) -> Chunk:
        return Chunk(data, event=data["type"])

    def _message_start(self, data: dict[str, Any]) -> list[Out]:
        message = data.get("message")
        if not isinstance(message, dict) or message.get("content"):
            raise ChunkShapeError("the upstream's `message_start` must hold an empty message")
        self._started = True
        kept = {k: v for k, v in message.items() if k in _MESSAGE_KEYS or reply_keys.plain(v)}
        return [self._send({"type": "message_start", "message": {**kept, "content": []}})]

    def _block_start(self, data: dict[str, Any]) -> list[Out]:
        index, block = data.get("index"), data.get("content_block")
        if not isinstance(index, int) or not isinstance(block, dict):
            raise ChunkShapeError("the upstream sent a `content_block_start` without an "
                                  "index and a block")
        state = self._blocks.start(index, block)
        if state.dropped:
            return []
        head = dict(block)
        first = ""
        if state.kind in _TEXT_BLOCKS:
            name = _TEXT_BLOCKS[state.kind][0]
            first = head.get(name) or ""
            head[name] = ""
            head.pop("signature", None)
            _no_citations(head)
        elif state.kind == "tool_use":
            if head.get("input"):
                state.given.append(orjson.dumps(head["input"]).decode())
            head["input"] = {}
        out: list[Out] = [self._send({"type": "content_block_start", "index": state.index,
                                      "content_block": head})]
        if first:
            out += self._text(state, first)
        return out

    def _text(self, state: _Block, value: str) -> list[Out]:
        before = state.reply.held if state.reply is not None else 0
        released = self._blocks.text(state, value)
        self.held += (state.reply.held if state.reply is not None else 0) - before
        if not released:
            return []
        return [self._delta(state, {"type": _TEXT_BLOCKS[state.kind][1],
                                    _TEXT_BLOCKS[state.kind][0]: released})]

    def _delta(self, state: _Block, delta: dict[str, Any]) -> Chunk:
        return self._send({"type": "content_block_delta", "index": state.index, "delta": delta})

    def _block(self, data: dict[str, Any]) -> _Block:
        state = self._blocks.blocks.get(data.get("index"))  # type: ignore[arg-type]
        if state is None:
            raise ChunkShapeError("the upstream sent a delta or stop for a block it never "
                                  "started")
        return state

    def _block_delta(self, data: dict[str, Any]) -> list[Out]:
        state = self._block(data)
        delta = data.get("delta")
        if not isinstance(delta, dict):
            raise ChunkShapeError("the upstream sent a `content_block_delta` without a delta")
        kind = delta.get("type")
        if state.kind in _TEXT_BLOCKS and kind == _TEXT_BLOCKS[state.kind][1]:
            value = delta.get(_TEXT_BLOCKS[state.kind][0])
            if not isinstance(value, str):
                raise ChunkShapeError(f"the upstream sent a `{kind}` that is not text")
            return [] if state.dropped else self._text(state, value)
        if kind == "signature_delta" and state.kind == "thinking":
            state.signature = (state.signature or "") + str(delta.get("signature") or "")
            return []
        if kind == "input_json_delta" and state.kind == "tool_use":
            state.given.append(str(delta.get("partial_json") or ""))
            return []
        _unknown(delta, "content block delta")
        return []

    def _block_stop(self, data: dict[str, Any]) -> list[Out]:
        state = self._block(data)
        if state.dropped:
            return []
        out: list[Out] = []
        if state.reply is not None:
            self.held = max(0, self.held - state.reply.held)
            tail = self._blocks.tail(state)
            if tail:
                out.append(self._delta(state, {"type": _TEXT_BLOCKS[state.kind][1],
                                               _TEXT_BLOCKS[state.kind][0]: tail}))
            if state.signature is not None:
                out.append(self._delta(state, {"type": "signature_delta",
                                               "signature": state.signature}))
        elif state.kind == "tool_use":
            screened = self._blocks.input("".join(state.given))
            out.append(self._delta(state, {"type": "input_json_delta",
                                           "partial_json": orjson.dumps(screened).decode()}))
        out.append(self._send({"type": "content_block_stop", "index": state.index}))
        return out

    def _message_delta(self, data: dict[str, Any]) -> list[Out]:
        out: list[Out] = []
        if said := self._blocks.said():
            index = self._blocks.sent
            self._blocks.sent += 1
            out += [self._send({"type": "content_block_start", "index": index,
                                "content_block": {"type": "text", "text": ""}}),
                    self._send({"type": "content_block_delta", "index": index,
                                "delta": {"type": "text_delta", "text": said}}),
                    self._send({"type": "content_block_stop", "index": index})]
        delta = data.get("delta")
        if isinstance(delta, dict) and "stop_reason" in delta:
            reason = self._blocks.stop_reason(delta["stop_reason"])
            data = {**data, "delta": {**delta, "stop_reason": reason}}
        out.append(self._send({k: v for k, v in data.items()
                               if k in ("type", "delta", "usage") or reply_keys.plain(v)}))
        return out

    def _pass(self, data: dict[str, Any]) -> list[Out]:
        return [self._send({"type": data["type"]})]

    _HANDLERS: dict[str, Callable[[MessageStream, dict[str, Any]], list[Out]]] = {
        "message_start": _message_start,
        "content_block_start": _block_start,
        "content_block_delta": _block_delta,
        "content_block_stop": _block_stop,
        "message_delta": _message_delta,
        "message_stop": _pass,
        "ping": _pass,
    }
