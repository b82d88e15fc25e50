"""The Anthropic Messages event stream, screened (proxy.pipeline.StreamAdapter): events
`message_start`, `content_block_start` / `delta` / `stop`, `message_delta`, `message_stop`,
`ping` and `error`, each block screened as proxy.api_messages says. Content block indexes are
renumbered when a refused call is dropped (clients build the content list by index).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson

from replyguard.proxy import reply_keys
from replyguard.proxy.api_messages import (
    MESSAGE_KEYS,
    TEXT_BLOCKS,
    THINKING_UNSIGNED,
    Block,
    Blocks,
    error_body,
    no_citations,
    unknown,
)
from replyguard.proxy.errors import ProxyError, UpstreamError
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import Chunk, Out, Screen, Text
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.sse import SSEEvent, encode_event
from replyguard.proxy.upstream import json_object

__all__ = ["MessageStream"]


class MessageStream:
    """Screens one streamed Messages reply (proxy.pipeline.StreamAdapter). Text and thinking
    deltas are released sentence by sentence, each block's tail just before its stop; a tool
    call's input is held to its block's stop, then sent screened as one delta."""

    def __init__(self, make_screen: Callable[[], Screen], calls: CallFilter,
                 pieces: bool = False) -> None:
        self._blocks = Blocks(make_screen, calls, pieces)
        self.held = 0  # characters fed to the block screens and not yet released (about)

    @property
    def released_any(self) -> bool:
        """Has any screened text or thinking been released yet?"""
        return any(b.reply is not None and b.reply.released_any
                   for b in self._blocks.blocks.values())

    def counts(self) -> Counter[str]:
        """The counts so far (proxy.api_messages.Blocks.all_counts)."""
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
        data = json_object(event.data)
        kind = data.get("type") if isinstance(data, dict) else None
        if event.event == "error" or kind == "error":
            raise UpstreamError("the upstream reported an error mid-stream",
                                code="upstream_stream_error")
        if not isinstance(data, dict) or not isinstance(kind, str):
            raise UpstreamError("the upstream sent an event that is not a JSON object with "
                                "a `type`", code="upstream_protocol")
        handler = self._HANDLERS.get(kind)
        if handler is None:
            unknown(data, "stream event")
            return [], False
        out = handler(self, data)
        return out, kind == "message_stop"

    def _send(self, data: dict[str, Any]) -> Chunk:
        return Chunk(data, event=data["type"])

    def _message_start(self, data: dict[str, Any]) -> list[Out]:
        message = data.get("message")
        if not isinstance(message, dict) or message.get("content"):
            raise ChunkShapeError("the upstream's `message_start` must hold an empty message")
        kept = {k: v for k, v in message.items() if k in MESSAGE_KEYS or reply_keys.plain(v)}
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
        if state.kind in TEXT_BLOCKS:
            name = TEXT_BLOCKS[state.kind][0]
            first = head.get(name) or ""
            head[name] = ""
            head.pop("signature", None)
            no_citations(head)
        elif state.kind == "tool_use":
            if head.get("input"):
                state.given.append(orjson.dumps(head["input"]).decode())
            head["input"] = {}
        out: list[Out] = [self._send({"type": "content_block_start", "index": state.index,
                                      "content_block": head})]
        if first:
            out += self._text(state, first)
        return out

    def _text(self, state: Block, value: str) -> list[Out]:
        before = state.reply.held if state.reply is not None else 0
        released = self._blocks.text(state, value)
        self.held += (state.reply.held if state.reply is not None else 0) - before
        return self._released(state.index, state.kind, released, state)

    def _released(self, index: int, kind: str, text: Text,
                  state: Block | None = None) -> list[Out]:
        """A delta carrying released text (none when there is none), the text in
        `Chunk.texts` too (the output stage; records keep a `text` block's); a thinking
        delta noted in its block's `sent` (`_signed`)."""
        if not text.text:
            return []
        delta = {"type": TEXT_BLOCKS[kind][1], TEXT_BLOCKS[kind][0]: text.text}
        chunk = self._send({"type": "content_block_delta", "index": index, "delta": delta})
        chunk.texts, chunk.text_only = [(delta, text)], True
        if state is not None and kind == "thinking" and self._blocks.pieces:
            state.sent.append((delta, text.text))
        return [chunk]

    def _signed(self, state: Block) -> bool:
        """Is a thinking block's signature still sent? Not when the output stage changed a
        delta's text (counted unsigned), asked once its deltas went through the stage."""
        if all(holder.get("thinking") == text for holder, text in state.sent):
            return True
        self._blocks.counts[THINKING_UNSIGNED] += 1
        return False

    def _delta(self, state: Block, delta: dict[str, Any]) -> Chunk:
        return self._send({"type": "content_block_delta", "index": state.index, "delta": delta})

    def _block(self, data: dict[str, Any]) -> Block:
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
        if state.kind in TEXT_BLOCKS and kind == TEXT_BLOCKS[state.kind][1]:
            value = delta.get(TEXT_BLOCKS[state.kind][0])
            if not isinstance(value, str):
                raise ChunkShapeError(f"the upstream sent a `{kind}` that is not text")
            return [] if state.dropped else self._text(state, value)
        if kind == "signature_delta" and state.kind == "thinking":
            state.signature = (state.signature or "") + str(delta.get("signature") or "")
            return []
        if kind == "input_json_delta" and state.kind == "tool_use":
            state.given.append(str(delta.get("partial_json") or ""))
            self.held += len(state.given[-1])
            return []
        unknown(delta, "content block delta")
        return []

    def _block_stop(self, data: dict[str, Any]) -> list[Out]:
        state = self._block(data)
        if state.dropped:
            return []
        out: list[Out] = []
        if state.reply is not None:
            self.held = max(0, self.held - state.reply.held)
            out += self._released(state.index, state.kind, self._blocks.tail(state), state)
            if state.signature is not None:
                signed = self._delta(state, {"type": "signature_delta",
                                             "signature": state.signature})
                if state.sent:
                    signed.keep = lambda: self._signed(state)
                out.append(signed)
        elif state.kind == "tool_use":
            self.held = max(0, self.held - sum(len(p) for p in state.given))
            out.append(self._delta(state, {"type": "input_json_delta",
                                           "partial_json": self._blocks.input_json(state)}))
        out.append(self._send({"type": "content_block_stop", "index": state.index}))
        return out

    def _message_delta(self, data: dict[str, Any]) -> list[Out]:
        out: list[Out] = []
        if (said := self._blocks.said()).text:
            index = self._blocks.sent
            self._blocks.sent += 1
            out += [self._send({"type": "content_block_start", "index": index,
                                "content_block": {"type": "text", "text": ""}}),
                    *self._released(index, "text", said),
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
