"""Answering a request directly, with no upstream call, in the client's own format.

Used for a withheld turn, a `reply_exactly` answer and (later) a guardrail block: a proper
`chat.completion` (or `text_completion`, or a Responses API `response`), or, when the client
asked for `stream: true`, SSE chunks ending in `[DONE]` (with the usage chunk when
`stream_options.include_usage` is set) or the Responses API's events.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import orjson
from aiohttp import web

from replyguard.proxy.responses_events import response_events, response_object
from replyguard.proxy.sse import DONE, encode_event
from replyguard.proxy.state import prepare

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no",
               "Content-Type": "text/event-stream; charset=utf-8"}


def _choices(body: dict[str, Any]) -> int:
    n = body.get("n", 1)
    return n if isinstance(n, int) and 1 <= n <= 128 else 1


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def completion(body: dict[str, Any], text: str, kind: str = "chat") -> dict[str, Any]:
    """A whole completion object whose every choice is `text`."""
    model = body.get("model") if isinstance(body.get("model"), str) else "replyguard"
    if kind == "text":
        choices: list[dict[str, Any]] = [
            {"text": text, "index": i, "logprobs": None, "finish_reason": "stop"}
            for i in range(_choices(body))
        ]
        return {"id": f"cmpl-rg{secrets.token_hex(12)}", "object": "text_completion",
                "created": int(time.time()), "model": model, "choices": choices,
                "usage": _usage()}
    choices = [
        {"index": i, "message": {"role": "assistant", "content": text, "refusal": None},
         "logprobs": None, "finish_reason": "stop"}
        for i in range(_choices(body))
    ]
    return {"id": f"chatcmpl-rg{secrets.token_hex(12)}", "object": "chat.completion",
            "created": int(time.time()), "model": model, "system_fingerprint": None,
            "choices": choices, "usage": _usage()}


def stream_chunks(body: dict[str, Any], text: str, kind: str = "chat") -> list[dict[str, Any]]:
    """The chunks that stream `text` as every choice: role, content, finish (and usage)."""
    whole = completion(body, text, kind)
    envelope = {k: whole[k] for k in ("id", "created", "model")}
    obj = "text_completion" if kind == "text" else "chat.completion.chunk"
    envelope["object"] = obj
    if kind == "chat":
        envelope["system_fingerprint"] = None
    chunks: list[dict[str, Any]] = []
    for i in range(_choices(body)):
        if kind == "text":
            steps = [{"text": text, "index": i, "logprobs": None, "finish_reason": None},
                     {"text": "", "index": i, "logprobs": None, "finish_reason": "stop"}]
        else:
            steps = [
                {"index": i, "delta": {"role": "assistant", "content": ""}, "logprobs": None,
                 "finish_reason": None},
                {"index": i, "delta": {"content": text}, "logprobs": None, "finish_reason": None},
                {"index": i, "delta": {}, "logprobs": None, "finish_reason": "stop"},
            ]
        chunks.extend({**envelope, "choices": [step]} for step in steps)
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        chunks.append({**envelope, "choices": [], "usage": _usage()})
    return chunks


def completion_chunks(whole: dict[str, Any], kind: str = "chat") -> list[dict[str, Any]]:
    """A whole (already screened) completion as the chunks that stream it, choice by choice:
    for chat a role chunk, a chunk with its text fields and tool calls, and a finish chunk;
    for legacy completions a text chunk and a finish chunk; then the usage chunk if any."""
    envelope = {k: v for k, v in whole.items() if k not in ("choices", "usage", "object")}
    envelope["object"] = "text_completion" if kind == "text" else "chat.completion.chunk"
    chunks: list[dict[str, Any]] = []
    for choice in whole.get("choices") or ():
        index, finish = choice.get("index", 0), choice.get("finish_reason") or "stop"
        if kind == "text":
            steps = [{"text": choice.get("text") or "", "index": index, "logprobs": None,
                      "finish_reason": None},
                     {"text": "", "index": index, "logprobs": None, "finish_reason": finish}]
        else:
            message = dict(choice.get("message") or {})
            message.pop("role", None)
            calls = message.pop("tool_calls", None)
            delta = {k: v for k, v in message.items() if v is not None}
            if calls:
                delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(calls)]
            steps = [
                {"index": index, "delta": {"role": "assistant", "content": ""},
                 "logprobs": None, "finish_reason": None},
                {"index": index, "delta": delta, "logprobs": None, "finish_reason": None},
                {"index": index, "delta": {}, "logprobs": None, "finish_reason": finish},
            ]
        chunks.extend({**envelope, "choices": [step]} for step in steps)
    if whole.get("usage") is not None:
        chunks.append({**envelope, "choices": [], "usage": whole["usage"]})
    return chunks


async def stream_completion(request: web.Request, body: dict[str, Any], whole: dict[str, Any],
                            kind: str = "chat", headers: dict[str, str] | None = None
                            ) -> web.StreamResponse:
    """Send a whole, screened completion as an SSE stream (for a client that asked to stream
    when the upstream answered whole). The usage chunk only if the client asked for it."""
    chunks = completion_chunks(whole, kind)
    options = body.get("stream_options")
    if not (isinstance(options, dict) and options.get("include_usage")):
        chunks = [c for c in chunks if c["choices"]]
    response = web.StreamResponse(status=200, headers={**SSE_HEADERS, **(headers or {})})
    await prepare(request, response)
    await response.write(b"".join(encode_event(orjson.dumps(c)) for c in chunks) + DONE)
    await response.write_eof()
    return response


async def stream_events(request: web.Request, events: list[bytes],
                        headers: dict[str, str] | None = None) -> web.StreamResponse:
    """Send encoded SSE `events` as a whole stream (the Responses API's: no `[DONE]`)."""
    response = web.StreamResponse(status=200, headers={**SSE_HEADERS, **(headers or {})})
    await prepare(request, response)
    await response.write(b"".join(events))
    await response.write_eof()
    return response


async def answer(request: web.Request, body: dict[str, Any], text: str, kind: str = "chat",
                 headers: dict[str, str] | None = None) -> web.StreamResponse:
    """Answer `request` with `text` as the whole reply, streamed if the client asked."""
    if kind == "responses":
        whole = response_object(body, text)
        if body.get("stream") is True:
            return await stream_events(request, response_events(whole), headers)
        return web.Response(body=orjson.dumps(whole), content_type="application/json",
                            headers=headers)
    if body.get("stream") is True:
        response = web.StreamResponse(status=200, headers={**SSE_HEADERS, **(headers or {})})
        await prepare(request, response)
        payload = b"".join(encode_event(orjson.dumps(c)) for c in stream_chunks(body, text, kind))
        await response.write(payload + DONE)
        await response.write_eof()
        return response
    return web.Response(body=orjson.dumps(completion(body, text, kind)),
                        content_type="application/json", headers=headers)
