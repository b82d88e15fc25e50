"""The request side of the Anthropic Messages route: `system` and `messages` checked and
screened as a chat request is (engine.screen_request on the request as chat messages, media
blocks' `source` passed as it is), and the turn context read with `tool_use` /
`tool_result` blocks as chat's tool calls and results. A shape that cannot be screened is a
400.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from replyguard.engine.context import read_context
from replyguard.engine.request import RequestVerdict, screen_request
from replyguard.engine.request_fields import NestingTooDeep
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen_cache import ScreenCache
from replyguard.engine.tools import CompiledTools
from replyguard.proxy.errors import BadRequest
from replyguard.proxy.request_side import other_fields

__all__ = ["verdict_messages"]

#: Blocks whose `source` is media (an image, a PDF): forwarded as they are.
_MEDIA_BLOCKS = frozenset({"image", "document"})


def _chat_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request as chat messages for the request screen: `system` first (as a system
    message), then each message with its blocks as content parts (media blocks' `source`
    under `file`, which the screen passes as it is)."""
    system = body.get("system")
    given = body.get("messages")
    if not isinstance(given, list) or not given or not all(
            isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in given):
        raise BadRequest("'messages' must be a non-empty list of user and assistant messages",
                         param="messages", code="invalid_messages")
    out = [] if system is None else [{"role": "system", "content": _content(system, "system")}]
    for message in given:
        out.append({**message, "content": _content(message.get("content"), "messages")})
    return out


def _content(content: Any, param: str) -> Any:
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not all(
            isinstance(b, dict) and isinstance(b.get("text", ""), str) for b in content):
        raise BadRequest(f"'{param}' content must be a string or a list of content blocks "
                         "(objects whose 'text', if any, is a string)", param=param,
                         code="invalid_messages")
    return [_media_in(b) if b.get("type") in _MEDIA_BLOCKS else b for b in content]


def _media_in(block: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in block.items() if k != "source"}
    if "source" in block:
        out["file"] = block["source"]
    return out


def _media_out(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    return [{**{k: v for k, v in b.items() if k != "file"}, "source": b["file"]}
            if isinstance(b, dict) and b.get("type") in _MEDIA_BLOCKS and "file" in b else b
            for b in content]


def _as_chat(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as chat messages for the turn context (engine.context): an assistant's
    `tool_use` blocks as `tool_calls`, a user message's `tool_result` blocks as `tool`
    messages before what else it says (the person's turn stays the last user message)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        kinds = [b.get("type") for b in content]
        if message.get("role") == "assistant" and "tool_use" in kinds:
            calls = [{"id": b.get("id"), "type": "function",
                      "function": {"name": b.get("name"), "arguments": b.get("input")}}
                     for b in content if b.get("type") == "tool_use"]
            out.append({"role": "assistant", "tool_calls": calls,
                        "content": [b for b in content if b.get("type") != "tool_use"]})
        elif message.get("role") == "user" and "tool_result" in kinds:
            out += [{"role": "tool", "tool_call_id": b.get("tool_use_id"),
                     "content": b.get("content")}
                    for b in content if b.get("type") == "tool_result"]
            rest = [b for b in content if b.get("type") != "tool_result"]
            if rest:
                out.append({**message, "content": rest})
        else:
            out.append(message)
    return out


def verdict_messages(body: dict[str, Any], rules: CompiledRules,
                     tools: CompiledTools | None = None, cache: ScreenCache | None = None
                     ) -> tuple[RequestVerdict, dict[str, Any]]:
    """Screen a Messages request: the verdict (engine.screen_request on the request as chat
    messages, its turn context read with the tool calls and results as chat has them) and
    the fields to forward in place of the client's (`system`, `messages` and every other
    field, screened). Raises BadRequest for a shape that cannot be screened."""
    chat = _chat_messages(body)
    try:
        fields = other_fields(body, rules, cache, ("messages", "system"))
        verdict = screen_request(chat, rules, tools.writes if tools is not None else None,
                                 cache)
    except NestingTooDeep:
        raise BadRequest("the request is nested too deep to be screened",
                         code="invalid_request") from None
    writes = tools.writes if tools is not None else None
    verdict = replace(verdict, context=read_context(_as_chat(chat), writes))
    if verdict.kind != "forward":
        return verdict, fields
    screened = [{**m, "content": _media_out(m.get("content"))} for m in verdict.messages]
    if "system" in body:
        fields["system"] = screened.pop(0)["content"]
    fields["messages"] = screened
    return verdict, fields


