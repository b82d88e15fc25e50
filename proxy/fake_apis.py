"""The fake upstream's other two APIs: OpenAI's Responses API (`POST /v1/responses`) and
Anthropic's Messages API (`POST /v1/messages`), answered by the same scripted model as chat
(proxy.fake_upstream). A request is read as the chat messages the script takes; the `Reply`
is sent back as a Response (its events: `response.created` ... `response.completed`) or an
Anthropic message (its events: `message_start` ... `message_stop`), whole or streamed in
pieces of `chunk_chars` characters. Pure: the HTTP handlers are proxy.fake_upstream's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson

from replyguard.proxy.sse import encode_event

__all__ = ["ANTHROPIC_ERRORS", "anthropic_error", "message", "message_events",
           "messages_chat", "response", "response_events", "responses_chat"]

#: Anthropic's error `type` for each status (https://docs.anthropic.com/en/api/errors).
ANTHROPIC_ERRORS = {400: "invalid_request_error", 401: "authentication_error",
                    403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                    429: "rate_limit_error", 529: "overloaded_error"}
#: An event to send, and whether it carries reply text (counted by `drop_after`).
Event = tuple[bytes, bool]
Pieces = Callable[[str], list[str]]


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text of its parts or blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


# ---------------------------------------------------------------- the request, as chat

def _responses_item(item: dict[str, Any]) -> dict[str, Any] | None:
    """One Responses input item as a chat message (None: nothing the script reads)."""
    kind = item.get("type", "message")
    if kind == "message":
        return {"role": item.get("role", "user"), "content": _text(item.get("content"))}
    if kind == "function_call":
        call = {"id": item.get("call_id"), "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments")}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    if kind == "function_call_output":
        return {"role": "tool", "tool_call_id": item.get("call_id"),
                "content": _text(item.get("output"))}
    return None


def responses_chat(body: dict[str, Any]) -> list[dict[str, Any]] | str:
    """A Responses request's `instructions` and `input` as chat messages, or what is wrong
    with it."""
    given = body.get("input")
    messages: list[dict[str, Any]] = []
    if isinstance(body.get("instructions"), str):
        messages.append({"role": "system", "content": body["instructions"]})
    if isinstance(given, str):
        return [*messages, {"role": "user", "content": given}]
    if not isinstance(given, list) or not all(isinstance(i, dict) for i in given):
        return "'input' must be a string or a list of input items."
    return messages + [m for item in given if (m := _responses_item(item)) is not None]


def _anthropic_turn(role: str, content: Any) -> list[dict[str, Any]]:
    """One Anthropic message as chat messages: its tool results as tool messages, its
    tool_use blocks as tool calls, its text as the content."""
    if not isinstance(content, list):
        return [{"role": role, "content": _text(content)}]
    blocks = [b for b in content if isinstance(b, dict)]
    results = [{"role": "tool", "tool_call_id": b.get("tool_use_id"),
                "content": _text(b.get("content"))}
               for b in blocks if b.get("type") == "tool_result"]
    text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    calls = [{"id": b.get("id"), "type": "function",
              "function": {"name": b.get("name"),
                           "arguments": orjson.dumps(b.get("input") or {}).decode()}}
             for b in blocks if b.get("type") == "tool_use"]
    out = [*results]
    if text or calls or not results:
        out.append({"role": role, "content": text or None} | (
            {"tool_calls": calls} if calls else {}))
    return out


def messages_chat(body: dict[str, Any]) -> list[dict[str, Any]] | str:
    """An Anthropic request's `system` and `messages` as chat messages, or what is wrong
    with it."""
    given = body.get("messages")
    if not isinstance(given, list) or not all(isinstance(m, dict) for m in given):
        return "messages: Field required"
    out: list[dict[str, Any]] = []
    if body.get("system"):
        out.append({"role": "system", "content": _text(body["system"])})
    for turn in given:
        out += _anthropic_turn(str(turn.get("role", "user")), turn.get("content"))
    return out


# ---------------------------------------------------------------- the Responses API

def _output(reply: Any, ids: Callable[[], int]) -> list[dict[str, Any]]:
    """The Reply as output items: its reasoning, its message, its function calls."""
    out: list[dict[str, Any]] = []
    if reply.reasoning:
        out.append({"type": "reasoning", "id": f"rs_{ids()}",
                    "summary": [{"type": "summary_text", "text": reply.reasoning}]})
    if reply.content or not reply.tool_calls:
        out.append({"type": "message", "id": f"msg_{ids()}", "status": "completed",
                    "role": "assistant", "content": [
                        {"type": "output_text", "text": reply.content, "annotations": []}]})
    for call in reply.tool_calls:
        args = call.get("arguments", {})
        args = args if isinstance(args, str) else orjson.dumps(args).decode()
        n = ids()
        out.append({"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                    "name": call["name"], "arguments": args, "status": "completed"})
    return out


def response(body: dict[str, Any], reply: Any, model: str, ids: Callable[[], int],
             created: int | None, usage: tuple[int, int]) -> dict[str, Any]:
    """The whole Response answering `body` with `reply` (usage: input, output tokens)."""
    status = "incomplete" if reply.finish == "length" else "completed"
    return {
        "id": f"resp_{ids()}", "object": "response",
        "created_at": created if created is not None else int(time.time()), "status": status,
        "model": model, "output": _output(reply, ids), "instructions": body.get("instructions"),
        "parallel_tool_calls": True, "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []), "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete"
        else None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                  "total_tokens": sum(usage), "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }


def _item_events(item: dict[str, Any], index: int, pieces: Pieces) -> list[tuple[dict, bool]]:
    """The events streaming one output item, each text in pieces."""
    kind, where = item["type"], {"item_id": item["id"], "output_index": index}
    if kind == "reasoning":
        head, family, parts = {**item, "summary": []}, "reasoning_summary", item["summary"]
    elif kind == "message":
        head, family, parts = {**item, "content": [], "status": "in_progress"}, "", \
            item["content"]
    else:
        head, family, parts = {**item, "arguments": "", "status": "in_progress"}, "", []
    out: list[tuple[dict, bool]] = [({"type": "response.output_item.added",
                                      "output_index": index, "item": head}, False)]
    for at, part in enumerate(parts):
        spot = {**where, "summary_index": at} if family else {**where, "content_index": at}
        part_event = f"response.{family}_part" if family else "response.content_part"
        text_event = f"response.{family}_text" if family else "response.output_text"
        extra: dict[str, Any] = {} if family else {"logprobs": []}
        out.append(({"type": f"{part_event}.added", **spot, "part": {**part, "text": ""}},
                    False))
        out += [({"type": f"{text_event}.delta", **spot, "delta": p, **extra}, True)
                for p in pieces(part["text"])]
        out.append(({"type": f"{text_event}.done", **spot, "text": part["text"], **extra},
                    False))
        out.append(({"type": f"{part_event}.done", **spot, "part": part}, False))
    if kind == "function_call":
        out += [({"type": "response.function_call_arguments.delta", **where, "delta": p}, True)
                for p in pieces(item["arguments"])]
        out.append(({"type": "response.function_call_arguments.done", **where,
                     "arguments": item["arguments"]}, False))
    out.append(({"type": "response.output_item.done", "output_index": index, "item": item},
                False))
    return out


def response_events(whole: dict[str, Any], pieces: Pieces) -> list[Event]:
    """A whole Response as its event stream, numbered from 0 (`sequence_number`)."""
    start = {**whole, "status": "in_progress", "output": [], "usage": None}
    bodies: list[tuple[dict, bool]] = [({"type": "response.created", "response": start}, False),
                                       ({"type": "response.in_progress", "response": start},
                                        False)]
    for index, item in enumerate(whole["output"]):
        bodies += _item_events(item, index, pieces)
    end = "response.incomplete" if whole["status"] == "incomplete" else "response.completed"
    bodies.append(({"type": end, "response": whole}, False))
    return [(encode_event(orjson.dumps({**b, "sequence_number": n}), event=b["type"]), text)
            for n, (b, text) in enumerate(bodies)]


# ---------------------------------------------------------------- the Anthropic Messages API

def message(body: dict[str, Any], reply: Any, ids: Callable[[], int],
            usage: tuple[int, int]) -> dict[str, Any]:
    """The whole Anthropic message answering `body` with `reply`: its thinking (signed), its
    text, its tool_use blocks."""
    blocks: list[dict[str, Any]] = []
    if reply.reasoning:
        blocks.append({"type": "thinking", "thinking": reply.reasoning,
                       "signature": f"sig_fake_{ids()}"})
    if reply.content or not reply.tool_calls:
        blocks.append({"type": "text", "text": reply.content})
    for call in reply.tool_calls:
        args = call.get("arguments", {})
        blocks.append({"type": "tool_use", "id": f"toolu_{ids()}", "name": call["name"],
                       "input": orjson.loads(args) if isinstance(args, str) else args})
    stop = "tool_use" if reply.tool_calls else \
        "max_tokens" if reply.finish == "length" else "end_turn"
    model = body.get("model") if isinstance(body.get("model"), str) else "claude-fake"
    return {"id": f"msg_{ids()}", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


def _block_deltas(block: dict[str, Any], pieces: Pieces) -> tuple[dict, list[dict]]:
    """A block's `content_block_start` body and its deltas."""
    kind = block["type"]
    if kind in ("text", "thinking"):
        head = {k: v for k, v in block.items() if k != "signature"} | {kind: ""}
        deltas = [{"type": f"{kind}_delta", kind: p} for p in pieces(block[kind])]
        if "signature" in block:
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        return head, deltas
    head = {**block, "input": {}}
    return head, [{"type": "input_json_delta", "partial_json": p}
                  for p in pieces(orjson.dumps(block["input"]).decode())]


def message_events(whole: dict[str, Any], pieces: Pieces) -> list[Event]:
    """A whole Anthropic message as its event stream (`message_start`, a `ping`, each
    block's start, deltas and stop, `message_delta`, `message_stop`)."""
    start = {**whole, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**whole["usage"], "output_tokens": 1}}
    out: list[tuple[dict, bool]] = [({"type": "message_start", "message": start}, False),
                                    ({"type": "ping"}, False)]
    for index, block in enumerate(whole["content"]):
        head, deltas = _block_deltas(block, pieces)
        out.append(({"type": "content_block_start", "index": index, "content_block": head},
                    False))
        out += [({"type": "content_block_delta", "index": index, "delta": d},
                 d["type"] != "signature_delta") for d in deltas]
        out.append(({"type": "content_block_stop", "index": index}, False))
    out.append(({"type": "message_delta",
                 "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
                 "usage": {"output_tokens": whole["usage"]["output_tokens"]}}, False))
    out.append(({"type": "message_stop"}, False))
    return [(encode_event(orjson.dumps(b), event=b["type"]), text) for b, text in out]


def anthropic_error(status: int, message_text: str) -> dict[str, Any]:
    """Anthropic's error body for `status`."""
    kind = ANTHROPIC_ERRORS.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message_text}}
