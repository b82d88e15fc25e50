"""A scripted fake Anthropic Messages upstream for the tests: `POST /v1/messages` answered
with the content blocks `reply(body)` gives, as a whole message or (the request's `stream`)
as Anthropic's event stream, text and tool input cut every `chunk_chars` characters. It
records what it was sent (`seen`: bodies, `headers`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

Blocks = list[dict[str, Any]]


def event(name: str, data: dict[str, Any]) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def _pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def stream_events(message: dict[str, Any], chunk_chars: int) -> list[bytes]:
    """`message` as Anthropic streams it, each text cut every `chunk_chars` characters."""
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    out = [event("message_start", {"type": "message_start", "message": start}),
           event("ping", {"type": "ping"})]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        head = dict(block)
        deltas: list[dict[str, Any]] = []
        if kind in ("text", "thinking"):
            head[kind] = ""
            head.pop("signature", None)
            deltas = [{"type": f"{kind}_delta", kind: p}
                      for p in _pieces(block[kind], chunk_chars)]
            if "signature" in block:
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            head["input"] = {}
            deltas = [{"type": "input_json_delta", "partial_json": p}
                      for p in _pieces(orjson.dumps(block["input"]).decode(), chunk_chars)]
        out.append(event("content_block_start", {"type": "content_block_start",
                                                 "index": index, "content_block": head}))
        out += [event("content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": d}) for d in deltas]
        out.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(event("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": 7}}))
    out.append(event("message_stop", {"type": "message_stop"}))
    return out


@dataclass
class FakeAnthropic:
    """Answers `POST /v1/messages` with `reply(body)`'s blocks (stop reason `tool_use` when
    one is a tool call, else `end_turn`)."""

    reply: Callable[[dict[str, Any]], Blocks]
    chunk_chars: int = 4
    seen: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/messages", self._handle)
        return app

    def message(self, body: dict[str, Any]) -> dict[str, Any]:
        blocks = self.reply(body)
        calls = any(b["type"] == "tool_use" for b in blocks)
        return {"id": "msg_fake", "type": "message", "role": "assistant",
                "model": body.get("model", "claude-fake"), "content": blocks,
                "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 11, "output_tokens": 7}}

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json(loads=orjson.loads)
        self.seen.append(body)
        self.headers.append(dict(request.headers))
        message = self.message(body)
        if not body.get("stream"):
            return web.Response(body=orjson.dumps(message), content_type="application/json")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for part in stream_events(message, self.chunk_chars):
            await response.write(part)
        await response.write_eof()
        return response


def says(*blocks: dict[str, Any]) -> Callable[[dict[str, Any]], Blocks]:
    """A script answering every request with `blocks`."""
    return lambda _body: [dict(b) for b in blocks]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}
