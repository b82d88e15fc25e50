"""The Anthropic Messages adapter of the reply pipeline (proxy.pipeline): a whole `message`
screened block by block (its event stream: proxy.api_messages_stream), and the Anthropic
error shape.

Each `text` and `thinking` block goes through a `ChoiceReply` of its own (released sentence
by sentence, its tail at the block's stop). A `thinking` block the screen leaves unchanged
keeps its `signature`; one it changes is released without it (counted as
`replyguard_thinking_unsigned`). A `tool_use` block's `input` is held whole (streamed
`input_json_delta`s joined), every string value in it screened and counted as a reply's
(masked, withhold acting as redact, the JSON kept valid; input that is not JSON screened as
text; proxy.permissions.CallFilter) and sent as one delta; a call of a tool the settings
refuse is dropped and the reply says it cannot do it. `redacted_thinking` (encrypted)
passes as it is. A block, delta or event of any other type passes only when it holds no
text outside its identifier fields; one that does ends the reply with an error (fail
closed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from replyguard.engine.reply import Piece
from replyguard.proxy import reply_keys
from replyguard.proxy.choice_reply import ChoiceReply
from replyguard.proxy.errors import ProxyError
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import Finish, Screen, Slot, Text, TextDelta, joined, joined_texts
from replyguard.proxy.reply_keys import ChunkShapeError

__all__ = ["MESSAGE_KEYS", "TEXT_BLOCKS", "THINKING_UNSIGNED", "Block", "Blocks", "error_body",
           "message_events", "no_citations", "screen_message", "unknown"]

#: The count of thinking blocks the screen changed, released without their signature.
THINKING_UNSIGNED = "replyguard_thinking_unsigned"
#: The text field of each screened block type, and its delta's type.
TEXT_BLOCKS = {"text": ("text", "text_delta"), "thinking": ("thinking", "thinking_delta")}
#: Keys that identify rather than say something: a block or event of an unknown type holding
#: strings only in these passes (its strings are not the model's text).
_ID_KEYS = frozenset({"type", "id", "tool_use_id", "name", "role", "model", "status",
                      "stop_reason", "stop_sequence", "index"})
#: Keys of a message kept as they come (identifiers and counts); `content` is screened.
MESSAGE_KEYS = frozenset({"id", "type", "role", "model", "stop_reason", "stop_sequence",
                           "usage", "container"})
#: Anthropic's error `type` for each status (https://docs.anthropic.com/en/api/errors).
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error", 405: "invalid_request_error",
                413: "request_too_large",
                429: "rate_limit_error", 503: "overloaded_error", 529: "overloaded_error"}


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


def unknown(value: dict[str, Any], what: str) -> None:
    """Fail closed on a `what` of an unknown type that holds text."""
    if _holds_text(value):
        raise ChunkShapeError(f"the upstream sent a {what} of a type ReplyGuard does not "
                              "know, holding text")


def no_citations(block: dict[str, Any]) -> None:
    """Citations quote the sources (text no screen read): fail closed on any."""
    if block.get("citations"):
        raise ChunkShapeError("the upstream sent citations (quoted text ReplyGuard cannot "
                              "screen in place)")


@dataclass(slots=True)
class Block:
    """One content block being screened: its type, its index as sent, its text screen (text
    and thinking), the tool's name and the input JSON held (tool_use), the signature held
    (thinking)."""

    kind: str
    index: int
    name: str = ""
    reply: ChoiceReply | None = None
    given: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    signature: str | None = None
    dropped: bool = False
    #: The thinking deltas sent with the text the screen released in each (the output
    #: stage may change the delta's text in place before it is written).
    sent: list[tuple[dict[str, Any], str]] = field(default_factory=list)


class Blocks:
    """What the whole and streamed paths share: blocks judged and screened, counts."""

    def __init__(self, make_screen: Callable[[], Screen], calls: CallFilter,
                 pieces: bool = False) -> None:
        self._make = make_screen
        self.pieces = pieces  # keep each release's sentences (for the output stage)
        self._calls = calls
        self.blocks: dict[int, Block] = {}
        self.refused: list[str] = []  # refused calls not yet said
        self.refused_any = False
        self.kept_call = False
        self.sent = 0  # blocks sent so far (a dropped call shifts the next ones' index)
        self.counts: Counter[str] = Counter()

    def start(self, given: int, block: dict[str, Any]) -> Block:
        """A block begins (`given`: its upstream index): its state, a refused call marked
        dropped. Raises ChunkShapeError for a block without a type, or of an unknown type
        holding text."""
        kind = block.get("type")
        if not isinstance(kind, str):
            raise ChunkShapeError("the upstream sent a content block without a `type`")
        state = Block(kind, self.sent)
        if kind in TEXT_BLOCKS:
            state.reply = ChoiceReply(self._make, None, self.pieces)
        elif kind == "tool_use":
            name = block.get("name")
            state.name = name if isinstance(name, str) else ""
            if self._calls.refuses({"name": state.name}):
                self.refused.append(state.name)
                self.refused_any = state.dropped = True
            self.kept_call = self.kept_call or not state.dropped
        elif kind != "redacted_thinking":
            unknown(block, "content block")
        if not state.dropped:
            self.sent += 1
        self.blocks[given] = state
        return state

    def text(self, state: Block, value: str) -> Text:
        """Feed the next piece of a text or thinking block; the text now released."""
        assert state.reply is not None
        state.given.append(value)
        out = state.reply.feed(TextDelta(TEXT_BLOCKS[state.kind][0], value))[0]
        assert isinstance(out, Text)
        state.released.append(out.text)
        return out

    def tail(self, state: Block) -> Text:
        """A text block's tail; for thinking, its signature dropped if the text changed."""
        name = TEXT_BLOCKS[state.kind][0] if state.kind in TEXT_BLOCKS else "text"
        if state.reply is None or state.reply.finished:
            return Text(name, "")
        tail = joined_texts(name, [i for i in state.reply.feed(Finish(None))
                                   if isinstance(i, Text)] or [Text(name, "")])
        state.released.append(tail.text)
        state.reply.add_counts_to(self.counts)
        if state.kind == "thinking" and "".join(state.given) != "".join(state.released):
            state.signature = None
            self.counts[THINKING_UNSIGNED] += 1
        return tail

    def input(self, state: Block, given: Any) -> Any:
        """A whole `tool_use` block's input (an object), its strings screened."""
        return self._calls.value(state.name, given)

    def input_json(self, state: Block) -> str:
        """A streamed `tool_use` block's input, its `partial_json` pieces joined, screened:
        the JSON text to send as one delta (`{}` for none; input that is not JSON screened
        as text)."""
        given = "".join(state.given)
        if not given.strip():
            return "{}"
        return self._calls.arguments(state.name, given)

    def said(self) -> Text:
        """The sentence saying the refused calls not yet said cannot be done (a product
        sentence; "" when none)."""
        if not self.refused:
            return Text("text", "")
        said, self.refused = self._calls.sentences(self.refused, ""), []
        return Text("text", said, (Piece(said, True),) if self.pieces else None)

    def stop_reason(self, reason: Any) -> Any:
        """`tool_use` becomes `end_turn` when every call was refused."""
        return "end_turn" if reason == "tool_use" and self.refused_any and not self.kept_call \
            else reason

    def all_counts(self) -> Counter[str]:
        """The counts so far: every block's screens, unsigned thinking, the calls' (refused,
        and their arguments' values)."""
        total: Counter[str] = Counter()
        total.update(self.counts)
        for state in self.blocks.values():
            if state.reply is not None and not state.reply.finished:
                state.reply.add_counts_to(total)
        total.update(self._calls.counts)
        return total


# ---------------------------------------------------------------- a whole message

def screen_message(message: dict[str, Any], make_screen: Callable[[], Screen],
                   calls: CallFilter, texts: list[Slot] | None = None
                   ) -> tuple[dict[str, Any], Counter[str]]:
    """A whole Anthropic `message`, screened: the message to send and the counts. `texts`
    (when given) gets each released `text` block's text and the block (for the output
    stage). Raises ChunkShapeError (a shape that cannot be screened, or an unknown block
    holding text), engine ScreeningError."""
    content = message.get("content")
    if not isinstance(content, list):
        raise ChunkShapeError("the upstream sent a message whose `content` is not a list")
    blocks = Blocks(make_screen, calls, pieces=texts is not None)
    slots: list[Slot] = [] if texts is None else texts
    out_content = []
    for given, block in enumerate(content):
        if not isinstance(block, dict):
            raise ChunkShapeError("the upstream sent a content block that is not an object")
        state = blocks.start(given, block)
        if not state.dropped:
            out_content.append(_whole_block(blocks, state, block, slots))
    if (said := blocks.said()).text:
        out_content.append({"type": "text", "text": said.text})
        slots.append((out_content[-1], said))
    out = {k: v for k, v in message.items() if k in MESSAGE_KEYS or
           (k != "content" and reply_keys.plain(v))}
    out["content"] = out_content
    if "stop_reason" in out:
        out["stop_reason"] = blocks.stop_reason(out["stop_reason"])
    return out, blocks.all_counts()


def _whole_block(blocks: Blocks, state: Block, block: dict[str, Any],
                 slots: list[Slot]) -> dict[str, Any]:
    """One kept block of a whole message, screened (a text block's text put in `slots`)."""
    if state.kind in TEXT_BLOCKS:
        no_citations(block)
        name = TEXT_BLOCKS[state.kind][0]
        value = block.get(name)
        if not isinstance(value, str):
            raise ChunkShapeError(f"the upstream sent a `{name}` that is not text")
        state.signature = block.get("signature") if state.kind == "thinking" else None
        text = joined(blocks.text(state, value), blocks.tail(state))
        out = {"type": state.kind, name: text.text}
        if text.text:
            slots.append((out, text))
        if state.kind == "thinking" and state.signature is not None:
            out["signature"] = state.signature
        elif "citations" in block:
            out["citations"] = block["citations"]
        return out
    if state.kind == "tool_use":
        return {**block, "input": blocks.input(state, block.get("input") or {})}
    return block


def unsigned_changed(slots: list[Slot]) -> int:
    """After the output stage: each whole `thinking` block in `slots` whose text the stage
    changed loses its `signature`; how many lost one (`replyguard_thinking_unsigned`)."""
    dropped = 0
    for holder, text in slots:
        if holder.get("type") == "thinking" and holder.get("thinking") != text.text \
                and holder.pop("signature", None) is not None:
            dropped += 1
    return dropped


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
        if kind in TEXT_BLOCKS:
            name, delta_type = TEXT_BLOCKS[kind]
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
