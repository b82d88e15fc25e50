"""The Responses API adapter (`POST /v1/responses`) of the reply pipeline, whole replies: a
Response object's `output` items screened and rebuilt (the stream: proxy.responses_stream).

Each `output_text` (and `refusal`) part of a `message` item, and each text of a `reasoning`
item's `summary` and `content`, goes through its own `ChoiceReply` as one delta and a finish,
as a streamed part does. A `function_call` to a refused tool (`allowed: false`) is removed and
a message item saying it cannot be done is added at the end of the output; every other
call's `arguments` are screened (proxy.permissions.CallFilter). A `reasoning`
item's `encrypted_content` is opaque and passes. A built-in tool's item (`web_search_call`,
...) has every string but its identifiers masked. Any other item type is kept only when it
holds no string outside its identifier fields, else the reply fails closed (502). Top-level
fields that echo the request (`instructions`, `tools`, `text`, ...) are the client's own
values; other ones are kept only if they hold no text; `output_text` is rebuilt.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from replyguard.proxy import reply_keys
from replyguard.proxy.choice_reply import ChoiceReply
from replyguard.proxy.permissions import CallFilter, call_name
from replyguard.proxy.pipeline import Screen, Slot, Text, joined_texts
from replyguard.proxy.reply_keys import ChunkShapeError, plain

__all__ = ["IDENTIFIERS", "TOOL_ITEMS", "Mask", "PartScreen", "check_unknown", "rebuilt_text",
           "said_item", "screen_response", "shaped_envelope"]

#: Fields of an item or event that identify it (never model text): strings allowed there.
IDENTIFIERS = frozenset({"type", "id", "status", "role", "object", "model", "item_id",
                         "call_id", "created_at", "name"})
#: Top-level string fields of a Response kept as they are (identifiers, of these types).
_ENVELOPE: dict[str, frozenset[type]] = {
    "id": frozenset({str}), "object": frozenset({str}), "created_at": frozenset({int, float}),
    "status": frozenset({str}), "model": frozenset({str}),
    "previous_response_id": frozenset({str, type(None)}),
    "service_tier": frozenset({str, type(None)}),
}
_WORD = re.compile(r"[A-Za-z_.]{1,64}")


def _word(value: Any) -> str:
    """An upstream type name as said in an error: the word, else `unknown`."""
    return value if isinstance(value, str) and _WORD.fullmatch(value) else "unknown"


def shaped_envelope(response: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """A Response's fields but `output` and `output_text` that may be sent on: identifiers of
    their type, the request's own value for a field it echoes (`instructions`, `tools`,
    ...), any other only if it holds no text (`usage`, `incomplete_details` reasons as words
    kept)."""
    out: dict[str, Any] = {}
    for key, value in response.items():
        if key in ("output", "output_text"):
            continue
        if key in _ENVELOPE:
            if type(value) in _ENVELOPE[key]:
                out[key] = value
        elif key in request and key not in ("input", "stream"):
            out[key] = request[key]
        elif plain(value):
            out[key] = value
        elif key == "incomplete_details" and isinstance(value, dict):
            out[key] = {"reason": _word(value.get("reason"))}
        elif key == "error" and isinstance(value, dict):
            out[key] = {"code": _word(value.get("code")),
                        "message": "the upstream reported an error"}
    return out


def check_unknown(item: dict[str, Any], what: str) -> dict[str, Any]:
    """An item or event of a type ReplyGuard does not screen: kept when every string in it is
    in an identifier field; raises ChunkShapeError when it holds any other (fail closed)."""
    if plain({k: v for k, v in item.items() if k not in IDENTIFIERS}) and all(
            isinstance(item[k], str | None) for k in IDENTIFIERS if k in item):
        return item
    raise ChunkShapeError(f"the upstream sent {what} of type {_word(item.get('type'))} holding "
                          "text ReplyGuard does not screen")


#: Output item types of the API's built-in tools: every string in them but their identifiers
#: and `_OPAQUE` fields masked (`PartScreen.masked`).
TOOL_ITEMS = frozenset({"web_search_call", "file_search_call", "code_interpreter_call",
                        "mcp_call", "mcp_list_tools", "mcp_approval_request",
                        "image_generation_call", "computer_call", "local_shell_call"})
#: Fields of those items passed as they are: media (a generated image, in base64).
_OPAQUE = frozenset({"result", "partial_image_b64"})
Mask = Callable[[Any], Any]


class PartScreen:
    """The screens of one reply's text parts: one `ChoiceReply` per part (`key`), made by
    `make_screen`; `pieces` keeps each release's sentences for the output stage. `mask`
    (engine.request_fields.screen_value with the rules: every string of a JSON value
    masked) screens built-in tool items; without it they fail closed."""

    def __init__(self, make_screen: Callable[[], Screen], pieces: bool = False,
                 mask: Mask | None = None) -> None:
        self._make, self._pieces, self._mask = make_screen, pieces, mask
        self.parts: dict[Any, ChoiceReply] = {}

    def masked(self, item: dict[str, Any], what: str) -> dict[str, Any]:
        """A built-in tool's item or event with every string but its identifiers (and
        media) masked; without a mask, kept only if it holds no other string."""
        if self._mask is None:
            return check_unknown(item, what)
        return {k: v if k in IDENTIFIERS or k in _OPAQUE else self._mask(v)
                for k, v in item.items()}

    def feed(self, key: Any, field: str, value: str) -> Text:
        """The screened text of part `key` now releasable, `value` fed."""
        reply = self.parts.get(key)
        if reply is None:
            reply = self.parts[key] = ChoiceReply(self._make, None, self._pieces)
        return reply.text(field, value)

    def finish(self, key: Any, field: str) -> Text:
        """The part's tail (and added sentences) at its end."""
        reply = self.parts.get(key)
        if reply is None:
            return Text(field, "")
        texts = [i for i in reply.finish(None) if isinstance(i, Text) and i.field == field]
        return joined_texts(field, texts) if texts else Text(field, "")

    def whole(self, key: Any, field: str, value: str) -> Text:
        """A whole part screened: one delta and its finish."""
        return joined_texts(field, [self.feed(key, field, value), self.finish(key, field)])

    def held(self) -> int:
        """About how many characters the part screens hold, fed and not yet released."""
        return sum(reply.held for reply in self.parts.values())

    def counts(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for reply in self.parts.values():
            reply.add_counts_to(total)
        return total


def said_item(calls: CallFilter, refused: list[str], index: int) -> dict[str, Any]:
    """The message item saying the refused calls cannot be done (added after the output)."""
    text = calls.sentences(refused, "")
    return {"type": "message", "id": f"msg_rg{index}", "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def rebuilt_text(output: list[dict[str, Any]]) -> str:
    """The `output_text` convenience: every `output_text` part of the message items, joined."""
    return "".join(part["text"] for item in output
                   if isinstance(item, dict) and item.get("type") == "message"
                   for part in item.get("content") or ()
                   if isinstance(part, dict) and part.get("type") == "output_text"
                   and isinstance(part.get("text"), str))


def _part(screen: PartScreen, key: Any, part: Any, slots: list[Slot] | None) -> dict[str, Any]:
    """A whole text part screened: its `text` (or `refusal`), annotations and logprobs
    dropped (they point into, or carry, the raw text)."""
    if not isinstance(part, dict):
        raise ChunkShapeError("the upstream sent a content part that is not an object")
    field = "refusal" if part.get("type") == "refusal" else "text"
    value = part.get(field)
    if not isinstance(value, str):
        check_unknown(part, "a content part")
        return part
    text = screen.whole(key, field, value)
    out: dict[str, Any] = {"type": part.get("type"), field: text.text}
    if part.get("type") == "output_text":
        out["annotations"] = []
    if slots is not None and text.text:
        slots.append((out, text))
    return out


def _texts(screen: PartScreen, key: Any, parts: Any, slots: list[Slot] | None) -> list[Any]:
    if parts is None:
        return []
    if not isinstance(parts, list):
        raise ChunkShapeError("the upstream sent item parts that are not a list")
    return [_part(screen, (key, i), p, slots) for i, p in enumerate(parts)]


def _item(item: Any, at: int, screen: PartScreen, slots: list[Slot] | None) -> dict[str, Any]:
    """One whole output item screened (a refused call is taken out before)."""
    if not isinstance(item, dict):
        raise ChunkShapeError("the upstream sent an output item that is not an object")
    kind = item.get("type")
    head = {k: item[k] for k in ("type", "id", "status", "role") if k in item}
    if kind == "message":
        reply_keys.role(item.get("role"))
        return {**head, "content": _texts(screen, at, item.get("content"), slots)}
    if kind == "function_call":
        return {**head, **{k: item[k] for k in ("call_id", "name", "arguments") if k in item}}
    if kind == "reasoning":
        out = {**head, "summary": _texts(screen, (at, "summary"), item.get("summary"), slots)}
        if "content" in item:
            out["content"] = _texts(screen, (at, "content"), item.get("content"), slots)
        if isinstance(item.get("encrypted_content"), str):
            out["encrypted_content"] = item["encrypted_content"]
        return out
    if kind in TOOL_ITEMS:
        return screen.masked(item, "an output item")
    return check_unknown(item, "an output item")


def screen_response(body: dict[str, Any], make_screen: Callable[[], Screen],
                    request: dict[str, Any], calls: CallFilter | None = None,
                    pieces: bool = False, texts: list[Slot] | None = None,
                    mask: Mask | None = None) -> Counter[str]:
    """Screen a whole Response object in place (module docstring); returns the counts.
    `request`: the client's body (the fields a Response echoes). `texts` (when given) gets
    each released text and where it was put (for the output stage); `mask`: see
    PartScreen. Raises ChunkShapeError, engine ScreeningError."""
    output = body.get("output")
    if not isinstance(output, list):
        raise ChunkShapeError("the upstream's Response has no `output` list")
    had_text = "output_text" in body
    envelope = shaped_envelope(body, request)
    screen = PartScreen(make_screen, pieces, mask)
    kept: list[dict[str, Any]] = []
    refused: list[str] = []
    for item in output:
        if calls is not None and isinstance(item, dict) and item.get("type") == "function_call":
            if calls.refuses(item):
                refused.append(call_name(item))
                continue
            item = calls.call(item)
        kept.append(_item(item, len(kept), screen, texts))
    if refused and calls is not None:
        kept.append(said_item(calls, refused, len(kept)))
    body.clear()
    body.update(envelope)
    body["output"] = kept
    if had_text:
        body["output_text"] = rebuilt_text(kept)
    total = screen.counts()
    if calls is not None:
        total.update(calls.counts)
    return total
