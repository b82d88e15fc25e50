"""A scripted Responses API upstream (`POST /v1/responses`, stream or not) for the proxy's
tests: it answers every request with one `Said` (a message's text, function calls, extra
output items or events), and records the request bodies it was sent (`seen`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from replyguard.proxy.sse import encode_event


@dataclass(frozen=True)
class Said:
    """What the fake model answers: `text` in one message item (none when empty), then
    `calls` as function_call items ({"name", "arguments"}), then `extra` output items.
    Streamed: the text in deltas of `chunk_chars`, each call's arguments in one delta,
    `events` (raw event bodies) sent after the message's text deltas, and with `drop` the
    stream stops before `response.completed`. `output_text`: the whole Response carries the
    `output_text` convenience field (some servers send it)."""

    text: str = ""
    calls: tuple[dict[str, str], ...] = ()
    extra: tuple[dict[str, Any], ...] = ()
    events: tuple[dict[str, Any], ...] = ()
    chunk_chars: int = 5
    drop: bool = False
    output_text: bool = False  # the whole Response carries the `output_text` convenience


def _message(text: str) -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _call(n: int, call: dict[str, str]) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
            "name": call["name"], "arguments": call["arguments"], "status": "completed"}


def response(body: dict[str, Any], said: Said) -> dict[str, Any]:
    """The whole Response the fake answers `body` with."""
    output = ([_message(said.text)] if said.text else []) + \
        [_call(n, c) for n, c in enumerate(said.calls)] + list(said.extra)
    out = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
           "model": body.get("model", "m"), "instructions": body.get("instructions"),
           "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
           "tools": body.get("tools", []), "error": None, "incomplete_details": None,
           "usage": {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8}}
    if said.output_text:
        out["output_text"] = said.text
    return out


def stream(body: dict[str, Any], said: Said) -> list[dict[str, Any]]:
    """The events the fake streams for `body` (numbered from 0)."""
    whole = response(body, said)
    start = {**whole, "status": "in_progress", "output": []}
    out: list[dict[str, Any]] = [{"type": "response.created", "response": start},
                                 {"type": "response.in_progress", "response": start}]
    index = 0
    if said.text:
        item = _message(said.text)
        where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
        out.append({"type": "response.output_item.added", "output_index": 0,
                    "item": {**item, "status": "in_progress", "content": []}})
        out.append({"type": "response.content_part.added", **where,
                    "part": {"type": "output_text", "text": "", "annotations": []}})
        size = said.chunk_chars
        for at in range(0, len(said.text), size):
            out.append({"type": "response.output_text.delta", **where,
                        "delta": said.text[at:at + size], "logprobs": []})
        out.extend(said.events)
        out.append({"type": "response.output_text.done", **where, "text": said.text,
                    "logprobs": []})
        out.append({"type": "response.content_part.done", **where,
                    "part": item["content"][0]})
        out.append({"type": "response.output_item.done", "output_index": 0, "item": item})
        index = 1
    else:
        out.extend(said.events)
    for n, call in enumerate(said.calls):
        item = _call(n, call)
        at = index + n
        out.append({"type": "response.output_item.added", "output_index": at,
                    "item": {**item, "arguments": "", "status": "in_progress"}})
        out.append({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                    "output_index": at, "delta": call["arguments"]})
        out.append({"type": "response.function_call_arguments.done", "item_id": item["id"],
                    "output_index": at, "arguments": call["arguments"]})
        out.append({"type": "response.output_item.done", "output_index": at, "item": item})
    if not said.drop:
        out.append({"type": "response.completed", "response": whole})
    return [{**e, "sequence_number": n} for n, e in enumerate(out)]


@dataclass
class FakeResponses:
    """The upstream: `script(body) -> Said` for each request; `seen`: the bodies sent.
    `GET /v1/responses/{id}` answers the script's Response for an empty body (streamed
    with `?stream=true`); its `/input_items` answers `items` as a list."""

    script: Callable[[dict[str, Any]], Said]
    seen: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/responses", self._handle)
        app.router.add_get("/v1/responses/{id}", self._stored)
        app.router.add_get("/v1/responses/{id}/input_items", self._items)
        return app

    async def _stored(self, request: web.Request) -> web.StreamResponse:
        self.paths.append(request.path_qs)
        body = {"model": "m", "stream": request.query.get("stream") == "true"}
        return await self._answer(request, body)

    async def _items(self, request: web.Request) -> web.StreamResponse:
        self.paths.append(request.path_qs)
        return web.json_response({"object": "list", "data": self.items, "has_more": False})

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = orjson.loads(await request.read())
        self.seen.append(body)
        return await self._answer(request, body)

    async def _answer(self, request: web.Request, body: dict[str, Any]) -> web.StreamResponse:
        said = self.script(body)
        if body.get("stream") is not True:
            return web.json_response(response(body, said), dumps=lambda o: orjson.dumps(o).decode())
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for event in stream(body, said):
            await resp.write(encode_event(orjson.dumps(event), event=event["type"]))
        await resp.write_eof()
        return resp
