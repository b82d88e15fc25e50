"""How a chat or legacy completion choice is read, streamed or whole: its text fields (all
screened), the keys of a delta or message passed on, and a streamed choice decoded into a
`Frame` (proxy.api_chat, proxy.api_chat_whole).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from replyguard.proxy import reply_keys
from replyguard.proxy.reply_keys import ChunkShapeError

__all__ = ["CHAT_FIELDS", "LEGACY_FIELDS", "ODD_CHUNK_KEYS", "ODD_WHOLE_KEYS", "PASSED",
           "TEXT_FIELDS", "Frame", "Kind", "chat_frame", "field_text", "text_frame"]

Kind = Literal["chat", "text"]
#: Text fields of a chat delta or message that a person may read, all screened.
CHAT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")
LEGACY_FIELDS = ("text",)
#: Every field of a screened chunk's choice (or its delta) that carries released text.
TEXT_FIELDS = (*CHAT_FIELDS, "text")
#: The keys of a chat delta or message passed on as such: the role (shape-checked), the text
#: fields (screened) and the tool calls (for the client's code). Every other key holding
#: text is dropped (fail closed): `audio` (its `transcript`, and the spoken words in `data`)
#: cannot be screened; `reasoning_details`, `thinking_blocks` and other vendors' fields carry
#: text no screen read; `annotations` point by offset into the text as the model wrote it;
#: token logprobs carry the raw text. One holding no text (`annotations: []`) is kept.
PASSED = frozenset({"role", *CHAT_FIELDS, "tool_calls", "function_call"})
#: A completion-style `text`, a `message` inside a stream or a `delta` in a whole reply is
#: not a chat shape: dropped from a chat choice whatever it holds.
ODD_CHUNK_KEYS = ("text", "message")
ODD_WHOLE_KEYS = ("text", "delta")



def _text_value(value: object) -> str | None:
    """A text field as a string: a string as it is, a list of text parts joined (some
    servers send content parts); None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p["text"] for p in value
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
    return None


def field_text(holder: dict[str, Any], name: str, given: Any) -> str:
    """The text of field `name` (`given`, present): "" for parts holding no text (then never
    passed on as sent). Raises ChunkShapeError for a value that is not text."""
    if type(given) is str:
        return given
    value = _text_value(given)
    if value is None:
        raise ChunkShapeError(f"the upstream sent a `{name}` that is not text")
    if not value and isinstance(given, list):
        holder[name] = ""
    return value


@dataclass(slots=True)
class Frame:
    """One streamed choice as decoded: the choice to send (`new`), the object its text fields
    come from (`source`) and go into (`target`), and whether it is held back if it ends up
    carrying nothing (`held`)."""

    new: dict[str, Any]
    source: dict[str, Any]
    target: dict[str, Any]
    held: bool = False


def chat_frame(choice: dict[str, Any]) -> Frame:
    """A streamed chat choice: the delta's keys outside `PASSED` holding text dropped, the
    role and tool calls shape-checked."""
    if choice.keys() <= reply_keys.STREAM_CHOICE_KEYS:
        new = dict(choice)
    else:
        new = {k: v for k, v in choice.items() if k not in ODD_CHUNK_KEYS}
        reply_keys.others(new, reply_keys.STREAM_CHOICE_KEYS)
    delta = choice.get("delta")
    if delta is not None and not isinstance(delta, dict):
        raise ChunkShapeError("a choice's `delta` must be an object")
    source = delta or {}
    held = False
    if source.keys() <= PASSED:
        target = dict(source)
    else:  # a chunk left with nothing once they are dropped is not sent
        target = reply_keys.kept_others(source, PASSED)
        held = True
    if "role" in target:
        reply_keys.role(target["role"])
    if "tool_calls" in target or "function_call" in target:
        reply_keys.calls(target)
    new["delta"] = target
    return Frame(new, source, target, held)


def text_frame(choice: dict[str, Any]) -> Frame:
    """A streamed legacy choice: its own `text`, other keys holding text dropped."""
    new = dict(choice)
    if not choice.keys() <= reply_keys.TEXT_CHOICE_KEYS:
        reply_keys.others(new, reply_keys.TEXT_CHOICE_KEYS)
    return Frame(new, choice, new)
