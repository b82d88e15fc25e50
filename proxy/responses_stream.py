"""The Responses API adapter of the reply pipeline, streamed: one `ResponsesStream` per
stream, each `output_text` / `refusal` part (and reasoning text) screened by its own
`ChoiceReply` as its deltas come (proxy.api_responses holds the shared pieces).

Events passed on, renumbered (`sequence_number` counts what the client is sent):
`response.created` / `in_progress` / `queued` (their `response` envelope shaped, `output`
empty), `output_item.added` / `done` (a message's parts rebuilt from what was sent),
`content_part.added` / `done`, `output_text.delta` (screened) / `done` (the concatenation
of the screened deltas sent), `refusal.*`, `reasoning_summary_part.*`,
`reasoning_summary_text.*` and `reasoning_text.*` alike, `function_call_arguments.delta` /
`done` (a call's arguments held to their `done`, screened whole, sent as one delta),
`response.completed` / `incomplete` / `failed` (its `output`: the items as sent, never the
upstream's copy), and the built-in tools' events masked, their text deltas dropped. A call
to a refused tool is dropped from its `output_item.added` on (its name comes there), and a
message item saying it cannot be done is sent before the response ends.
`output_text.annotation.added` is dropped (it points into the raw text). An upstream `error`
event ends the stream with ReplyGuard's own; an event of any other type is dropped when it
holds no string outside its identifier fields, else the stream fails closed with the API's
`error` event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson

from replyguard.proxy.api_responses import (
    TOOL_ITEMS,
    Mask,
    PartScreen,
    check_unknown,
    said_item,
    shaped_envelope,
)
from replyguard.proxy.errors import ProxyError, UpstreamError
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import Chunk, Out, Screen, Text
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.responses_calls import ARGUMENTS, ResponseCalls
from replyguard.proxy.responses_events import item_events
from replyguard.proxy.sse import SSEEvent, encode_event
from replyguard.proxy.upstream import json_object

__all__ = ["ResponsesStream"]

_ENDS = ("response.completed", "response.incomplete", "response.failed")
_STARTS = ("response.created", "response.in_progress", "response.queued")
#: Text events: (the part's field in the delta events' key space, the `done` event's key).
_TEXTS = {"response.output_text": ("text", "text"), "response.refusal": ("refusal", "refusal"),
          "response.reasoning_summary_text": ("summary", "text"),
          "response.reasoning_text": ("reasoning", "text")}


#: The text events' family of each part kind.
_FAMILIES = {"text": "response.output_text", "refusal": "response.refusal",
             "summary": "response.reasoning_summary_text",
             "reasoning": "response.reasoning_text"}
#: The part kinds whose type names the family (`reasoning_text`: a reasoning item's content).
_PART_KINDS = {"refusal": "refusal", "reasoning_text": "reasoning"}


def _tool_family(kind: str) -> str:
    """The item type an event of a built-in tool is about: `response.mcp_call_arguments.done`
    -> `mcp_call`."""
    parts = kind.split(".")
    name = parts[1] if len(parts) > 2 else ""
    for suffix in ("_code", "_arguments"):
        name = name.removesuffix(suffix)
    return name


def _key(data: dict[str, Any], family: str) -> tuple[Any, ...]:
    index = data.get("summary_index") if family == "summary" else data.get("content_index")
    return (data.get("output_index"), family, index)


class ResponsesStream:
    """Screens one streamed Response (module docstring); a `StreamAdapter` (proxy.pipeline).
    `request`: the client's body (the fields a Response echoes). Raises ChunkShapeError,
    UpstreamError, engine ScreeningError."""

    def __init__(self, make_screen: Callable[[], Screen], request: dict[str, Any],
                 calls: CallFilter | None = None, pieces: bool = False,
                 mask: Mask | None = None) -> None:
        self._screen = PartScreen(make_screen, pieces, mask)
        self._request = request
        self._calls = calls
        self._seq = 0
        self._index: dict[Any, int | None] = {}  # upstream output_index -> ours (None: dropped)
        self._sent: dict[tuple[Any, ...], list[str]] = {}  # a part's screened text sent
        self._items: dict[int, dict[str, Any]] = {}  # our output_index -> the item sent
        self._function_calls = ResponseCalls(calls)
        self.held = 0
        self.ended = False

    @property
    def released_any(self) -> bool:
        return any(reply.released_any for reply in self._screen.parts.values())

    def counts(self) -> Counter[str]:
        total = self._screen.counts()
        if self._calls is not None:
            total.update(self._calls.counts)
        return total

    def _chunk(self, data: dict[str, Any], texts: list[Any] | None = None) -> Chunk:
        data["sequence_number"] = self._seq
        self._seq += 1
        return Chunk(data, texts or [], bool(texts), event=data["type"])

    def event(self, event: SSEEvent) -> tuple[list[Out], bool]:
        """Screen one upstream event: the events to send, and whether the response ended."""
        data = json_object(event.data)
        if event.event == "error" or isinstance(data, dict) and data.get("type") == "error":
            raise UpstreamError("the upstream reported an error mid-stream",
                                code="upstream_stream_error")
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise UpstreamError("the upstream sent an event that is not a Responses event",
                                code="upstream_protocol")
        kind: str = data["type"]
        if kind in _ENDS:
            self.ended = True
            return self._end(data), True
        out = self._event(kind, data)
        # What a part's or a call's `done` may screen at once (relay).
        self.held = self._screen.held() + self._function_calls.held
        return out, False

    def _event(self, kind: str, data: dict[str, Any]) -> list[Out]:
        family, _, step = kind.rpartition(".")
        if kind in _STARTS:
            return [self._chunk(self._envelope(data, []))]
        if family in _TEXTS:
            return self._text(family, step, data)
        if kind.startswith("response.output_item."):
            return self._item(step, data)
        if family in ("response.content_part", "response.reasoning_summary_part"):
            return self._part(family, step, data)
        if family == ARGUMENTS:
            return self._arguments(step, data)
        if kind == "response.output_text.annotation.added":
            return []
        if _tool_family(kind) in TOOL_ITEMS:
            return self._tool(kind, data)
        check_unknown(data, "an event")
        return []

    def _tool(self, kind: str, data: dict[str, Any]) -> list[Out]:
        """A built-in tool's event, masked; its text deltas dropped (the item's `done`
        carries the text whole, masked)."""
        index = self._index.get(data.get("output_index"))
        if index is None or kind.endswith(".delta"):
            return []
        return [self._chunk({**self._screen.masked(data, "an event"), "output_index": index})]

    def _envelope(self, data: dict[str, Any], output: list[Any]) -> dict[str, Any]:
        response = data.get("response")
        if not isinstance(response, dict):
            raise ChunkShapeError(f"a `{data['type']}` event must carry a `response` object")
        return {"type": data["type"],
                "response": {**shaped_envelope(response, self._request), "output": output}}

    def _arguments(self, step: str, data: dict[str, Any]) -> list[Out]:
        """A call's arguments event: held, or released screened (proxy.responses_calls);
        none for a dropped call."""
        index = self._index.get(data.get("output_index"))
        if index is None:
            return []
        if step not in ("delta", "done"):
            check_unknown(data, "an event")
            return []
        return [self._chunk(body) for body in self._function_calls.event(step, data, index)]

    def _item(self, step: str, data: dict[str, Any]) -> list[Out]:
        item = data.get("item")
        if not isinstance(item, dict):
            raise ChunkShapeError("an output item event must carry an `item` object")
        upstream = data.get("output_index")
        if step == "added" and not self._added(upstream, item):
            return []
        index = self._index.get(upstream)
        if index is None:
            return []
        out: list[Out] = []
        if step == "done":  # a call's arguments, when no arguments `done` came
            out = [self._chunk(body) for body in self._function_calls.done(upstream, index)]
        shaped = self._shaped(item, upstream, step == "done")
        if step == "done":
            self._items[index] = shaped
        return [*out, self._chunk({"type": data["type"], "output_index": index,
                                   "item": shaped})]

    def _added(self, upstream: Any, item: dict[str, Any]) -> bool:
        """An item begins: numbered, or dropped (False) when it is a refused call."""
        if item.get("type") == "function_call" and \
                not self._function_calls.added(upstream, item):
            self._index[upstream] = None
            return False
        self._index[upstream] = len(self._index) - sum(
            1 for v in self._index.values() if v is None)
        return True

    def _shaped(self, item: dict[str, Any], upstream: Any, done: bool) -> dict[str, Any]:
        """An item as sent: its texts the screened ones sent (none yet when added)."""
        head: dict[str, Any] = {k: item[k] for k in ("type", "id", "status", "role")
                                if k in item}
        kind = item.get("type")
        if kind == "message":
            return {**head, "content": self._parts(upstream, ("text", "refusal"), done)}
        if kind == "reasoning":
            out = {**head, "summary": self._parts(upstream, ("summary",), done)}
            if "content" in item:
                out["content"] = self._parts(upstream, ("reasoning",), done)
            if isinstance(item.get("encrypted_content"), str):
                out["encrypted_content"] = item["encrypted_content"]
            return out
        if kind == "function_call":
            return {**head, **{k: item[k] for k in ("call_id", "name") if k in item},
                    "arguments": self._function_calls.arguments(upstream) if done else ""}
        if kind in TOOL_ITEMS:
            return self._screen.masked(item, "an output item")
        return check_unknown(item, "an output item")

    def _parts(self, upstream: Any, families: tuple[str, ...], done: bool) -> list[Any]:
        if not done:
            return []
        keys = sorted((k for k in self._sent if k[0] == upstream and k[1] in families),
                      key=lambda k: k[2] if isinstance(k[2], int) else 0)
        return [self._part_body(k) for k in keys]

    def _part_body(self, key: tuple[Any, ...]) -> dict[str, Any]:
        text = "".join(self._sent[key])
        if key[1] == "refusal":
            return {"type": "refusal", "refusal": text}
        if key[1] == "summary":
            return {"type": "summary_text", "text": text}
        if key[1] == "reasoning":
            return {"type": "reasoning_text", "text": text}
        return {"type": "output_text", "text": text, "annotations": []}

    def _part(self, family: str, step: str, data: dict[str, Any]) -> list[Out]:
        index = self._index.get(data.get("output_index"))
        if index is None:
            return []
        part = data.get("part")
        summary = family.endswith("summary_part")
        kind = part.get("type") if isinstance(part, dict) else None
        name = "summary" if summary else _PART_KINDS.get(kind, "text") \
            if isinstance(kind, str) else "text"
        key = _key(data, name)
        out: list[Out] = []
        if step == "added":
            self._sent.setdefault(key, [])
        elif (reply := self._screen.parts.get(key)) is not None and not reply.finished:
            out = self._text(_FAMILIES[name], "done", data)  # no text `done` came: the tail
        body = self._part_body(key) if key in self._sent else {"type": kind}
        head = {k: v for k, v in data.items() if k in ("type", "item_id", "content_index",
                                                       "summary_index")}
        return [*out, self._chunk({**head, "output_index": index, "part": body})]

    def _text(self, family: str, step: str, data: dict[str, Any]) -> list[Out]:
        index = self._index.get(data.get("output_index"))
        if index is None:
            return []
        field, done_key = _TEXTS[family]
        key = _key(data, field)
        sent = self._sent.setdefault(key, [])
        head = {k: v for k, v in data.items() if k in ("type", "item_id", "content_index",
                                                       "summary_index")}
        head["output_index"] = index
        if step == "delta":
            value = data.get("delta")
            if not isinstance(value, str):
                raise ChunkShapeError(f"a `{data['type']}` event's `delta` must be a string")
            return self._delta(head, key, self._screen.feed(key, field, value))
        if step != "done":
            check_unknown(data, "an event")
            return []
        delta = {**head, "type": f"{family}.delta"}
        out: list[Out] = []
        whole = data.get(done_key)
        if key not in self._screen.parts and isinstance(whole, str) and step == "done" \
                and data["type"] == f"{family}.done":  # no delta came: the text is in `done`
            out = self._delta(delta, key, self._screen.feed(key, field, whole))
        out += self._delta(delta, key, self._screen.finish(key, field))
        done = {**head, "type": f"{family}.done", done_key: "".join(sent)}
        if family == "response.output_text":
            done["logprobs"] = []
        return [*out, self._chunk(done)]

    def _delta(self, head: dict[str, Any], key: tuple[Any, ...], text: Text) -> list[Out]:
        if not text.text:
            return []
        self._sent[key].append(text.text)
        body = {**head, "delta": text.text}
        if head["type"] == "response.output_text.delta":
            body["logprobs"] = []
        return [self._chunk(body, [(body, Text("delta", text.text, text.pieces))])]

    def _end(self, data: dict[str, Any]) -> list[Out]:
        """The response's end: the refused calls' message item, then the end event with the
        items as sent."""
        out: list[Out] = []
        refused = self._function_calls.refused
        if refused and self._calls is not None:
            out.extend(self.said(said_item(self._calls, refused, len(self._items))))
        output = [self._items[i] for i in sorted(self._items)]
        out.append(self._chunk(self._envelope(data, output)))
        return out

    def said(self, item: dict[str, Any]) -> list[Out]:
        """The events streaming a whole message `item` as the next output item."""
        index = len(self._items)
        self._items[index] = item
        return [self._chunk(body) for body in item_events(item, index)]

    def close(self) -> list[Out] | None:
        """The upstream closed the stream without its end event: it dropped."""
        return None

    def error_event(self, error: ProxyError) -> bytes:
        """The Responses `error` event for `error` (the stream ends after it)."""
        body = {"type": "error", "code": error.code, "message": error.message,
                "param": error.param, "sequence_number": self._seq}
        self._seq += 1
        return encode_event(orjson.dumps(body), event="error")
