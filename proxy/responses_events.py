"""Responses made or streamed by ReplyGuard itself: a Response answering a turn directly (a
withheld turn, an exact reply, a guardrail block), and the events that stream a whole
(screened) Response, for a client that asked for a stream when the answer is whole."""

from __future__ import annotations

import secrets
import time
from typing import Any

import orjson

from replyguard.proxy.sse import encode_event

__all__ = ["item_events", "response_events", "response_object"]

#: The request fields a Response made here echoes.
_ECHOED = ("instructions", "metadata", "tools", "tool_choice", "temperature", "top_p", "text",
           "reasoning")


def response_object(request: dict[str, Any], text: str) -> dict[str, Any]:
    """A whole, completed Response whose output is one message saying `text` (a withheld
    turn, an exact reply, a guardrail block: no upstream call)."""
    model = request.get("model") if isinstance(request.get("model"), str) else "replyguard"
    echo: dict[str, Any] = {k: request[k] for k in _ECHOED if k in request}
    return {"id": f"resp_rg{secrets.token_hex(12)}", "object": "response",
            "created_at": int(time.time()), "status": "completed", "model": model,
            "output": [{"type": "message", "id": f"msg_rg{secrets.token_hex(12)}",
                        "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": text,
                                     "annotations": []}]}],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], **echo,
            "error": None, "incomplete_details": None,
            "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}


def item_events(item: dict[str, Any], index: int) -> list[dict[str, Any]]:
    """The events (without sequence numbers) that stream a whole output `item` at `index`:
    added, each text part's added, delta, done (a message's content parts, a reasoning
    item's summary parts); then the item's done."""
    kind = item.get("type")
    key = "content" if kind == "message" else "summary" if kind == "reasoning" else None
    empty = {**item, key: []} if key is not None else item
    out: list[dict[str, Any]] = [{"type": "response.output_item.added", "output_index": index,
                                  "item": empty}]
    for at, part in enumerate((item.get(key) if key is not None else None) or ()):
        out += _part_events(part, {"item_id": item.get("id"), "output_index": index}, at,
                            summary=kind == "reasoning")
    out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return out


def _part_events(part: dict[str, Any], where: dict[str, Any], at: int, *,
                 summary: bool) -> list[dict[str, Any]]:
    """A whole text part's events: its added, one delta, its text's done, its done."""
    if summary:
        where = {**where, "summary_index": at}
        field, family, events = "text", "response.reasoning_summary_text", \
            "response.reasoning_summary_part"
    else:
        where = {**where, "content_index": at}
        field = "refusal" if part.get("type") == "refusal" else "text"
        family = "response.refusal" if field == "refusal" else "response.output_text"
        events = "response.content_part"
    extra: dict[str, Any] = {"logprobs": []} if family == "response.output_text" else {}
    out: list[dict[str, Any]] = [{"type": f"{events}.added", **where,
                                  "part": {**part, field: ""}}]
    if part.get(field):
        out.append({"type": f"{family}.delta", **where, "delta": part[field], **extra})
    out.append({"type": f"{family}.done", **where, field: part.get(field, ""), **extra})
    out.append({"type": f"{events}.done", **where, "part": part})
    return out


def response_events(response: dict[str, Any]) -> list[bytes]:
    """A whole (screened) Response as the events that stream it, numbered from 0."""
    start = {**response, "status": "in_progress", "output": []}
    bodies: list[dict[str, Any]] = [{"type": "response.created", "response": start},
                                    {"type": "response.in_progress", "response": start}]
    for index, item in enumerate(response.get("output") or ()):
        bodies.extend(item_events(item, index))
    end = "response.incomplete" if response.get("status") == "incomplete" else \
        "response.failed" if response.get("status") == "failed" else "response.completed"
    bodies.append({"type": end, "response": response})
    return [encode_event(orjson.dumps({**b, "sequence_number": n}), event=b["type"])
            for n, b in enumerate(bodies)]
