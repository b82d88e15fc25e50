"""The request side of `POST /v1/responses`: `input` (a string, or a list of items) read as a
chat conversation, screened as chat messages are (proxy.request_side), and put back as items.

A string `input` is the user's turn. Items: a message (`role`, `content` a string or parts:
`input_text`, `output_text`, ... each `text` screened) is a chat message of its role; a
`function_call` is an assistant message with one tool call (its `arguments` screened, and
read as the turn's call by the reply screen); a `function_call_output` is a tool result. Any
other item (`reasoning`, `item_reference`, ...) has every string screened as the
application's text, but `encrypted_content`, which is opaque (the model's own ciphertext),
passed as it is. `instructions`, `tools` and every other field: as chat's other fields.
"""

from __future__ import annotations

from typing import Any

from replyguard.engine.request import RequestVerdict, screen_request
from replyguard.engine.request_fields import NestingTooDeep
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen_cache import ScreenCache
from replyguard.engine.tools import CompiledTools
from replyguard.proxy.errors import BadRequest
from replyguard.proxy.request_side import other_fields

__all__ = ["verdict_responses"]

#: The key each chat message made from an item carries: the item's position in `input`.
_AT = "replyguard_item"
#: Item fields passed as they are: opaque to the proxy and to a person.
_OPAQUE = ("encrypted_content",)
_INPUT_SHAPE = ("'input' must be a string or a list of items (objects); other input cannot "
                "be screened")
_CONTENT_SHAPE = ("an input message's 'content' must be a string or a list of content parts "
                  "(objects whose 'text', if any, is a string)")


def _message(item: dict[str, Any]) -> dict[str, Any]:
    """A chat message for one input item (its shape checked)."""
    kind = item.get("type")
    if kind == "function_call":
        call = {"id": item.get("call_id"), "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments")}}
        rest = {k: v for k, v in item.items() if k not in ("call_id", "name", "arguments")}
        return {"role": "assistant", "content": None, "tool_calls": [call], "item": rest}
    if kind == "function_call_output":
        rest = {k: v for k, v in item.items() if k not in ("call_id", "output")}
        return {"role": "tool", "tool_call_id": item.get("call_id"),
                "content": item.get("output"), "item": rest}
    if kind in (None, "message"):
        content = item.get("content")
        if not isinstance(content, str) and not (isinstance(content, list) and all(
                isinstance(p, dict) and isinstance(p.get("text", ""), str) for p in content)):
            raise BadRequest(_CONTENT_SHAPE, param="input", code="invalid_input")
        if not isinstance(item.get("role"), str):
            raise BadRequest("an input message's 'role' must be a string", param="input",
                             code="invalid_input")
        return dict(item)
    # Any other item: no role (never read as the turn), every string but the opaque ones.
    return {k: v for k, v in item.items() if k not in _OPAQUE and k != "role"}


def _item(original: dict[str, Any], screened: dict[str, Any]) -> dict[str, Any]:
    """The input item to forward, from its screened chat message."""
    kind = original.get("type")
    if kind == "function_call":
        function = screened["tool_calls"][0]["function"]
        return {**screened["item"], "call_id": screened["tool_calls"][0]["id"],
                "name": function["name"], "arguments": function["arguments"]}
    if kind == "function_call_output":
        return {**screened["item"], "call_id": screened["tool_call_id"],
                "output": screened["content"]}
    out = {k: v for k, v in screened.items() if k != _AT}
    if kind not in (None, "message"):
        out.update({k: original[k] for k in (*_OPAQUE, "role") if k in original})
    return out


def verdict_responses(body: dict[str, Any], rules: CompiledRules,
                      tools: CompiledTools | None = None, cache: ScreenCache | None = None
                      ) -> tuple[RequestVerdict, dict[str, Any]]:
    """Screen a Responses request: its other fields (`instructions`, `tools`, `metadata`,
    ...), then `input` as a chat conversation (engine.screen_request). Returns the verdict
    (its `messages`: the chat messages screened, for the guardrails) and the fields to
    forward in place of the client's, `input` among them. Raises BadRequest for input that
    cannot be screened."""
    given = body.get("input")
    if isinstance(given, str):
        items: list[Any] = [{"role": "user", "content": given}]
    elif isinstance(given, list) and given and all(isinstance(i, dict) for i in given):
        items = given
    else:
        raise BadRequest(_INPUT_SHAPE, param="input", code="invalid_input")
    messages = [{**_message(item), _AT: i} for i, item in enumerate(items)]
    fields = other_fields(body, rules, cache, ("input",))
    try:
        verdict = screen_request(messages, rules, tools.writes if tools is not None else None,
                                 cache)
    except NestingTooDeep:
        raise BadRequest("the request is nested too deep to be screened",
                         code="invalid_request") from None
    if verdict.kind != "forward":
        return verdict, fields
    kept = [_item(items[m[_AT]], m) for m in verdict.messages]
    fields["input"] = kept[0]["content"] if isinstance(given, str) else kept
    return verdict, fields
