"""Which keys of an upstream completion (whole or streamed, chat or legacy) reach the client.

Fail closed: the envelope fields that carry no model text (`ENVELOPE`, each of its expected
type), the shape-checked choice fields (`index`, `finish_reason`, `role`, `logprobs` as null),
the screened text fields and the tool calls. Any other key is kept only if its value holds
no text (`plain`: numbers, booleans, null, and lists or objects of them whose keys are plain
names); one holding text anywhere is dropped whole, never passed on unscreened. Shape errors
name the field and the type, never the upstream's value.
"""

from __future__ import annotations

import re
from typing import Any

#: Top-level fields of a completion or chunk kept (of these types): identifiers and counts,
#: not model text. `choices` is screened; `usage` keeps its entries that hold no text.
ENVELOPE: dict[str, frozenset[type]] = {
    "id": frozenset({str}),
    "object": frozenset({str}),
    "created": frozenset({int, float}),
    "model": frozenset({str}),
    "system_fingerprint": frozenset({str, type(None)}),
    "service_tier": frozenset({str, type(None)}),
    "usage": frozenset({dict, type(None)}),
}
TOP_KEYS = frozenset({*ENVELOPE, "choices"})
#: Keys of a streamed chat choice, of a whole chat choice, of a legacy choice (either).
STREAM_CHOICE_KEYS = frozenset({"index", "delta", "finish_reason", "logprobs"})
WHOLE_CHOICE_KEYS = frozenset({"index", "message", "finish_reason", "logprobs"})
TEXT_CHOICE_KEYS = frozenset({"index", "text", "finish_reason", "logprobs"})
#: A chat message's or delta's role: one of the chat roles (a reply's is `assistant`).
ROLES = frozenset({"assistant", "user", "system", "developer", "tool", "function"})
#: A finish reason is a word (letters and `_`: `stop`, `length`, `tool_calls`, vLLM's
#: `abort`, TGI's `eos_token`); a value with digits, spaces or other signs is not one.
_WORD = re.compile(r"[A-Za-z_]{1,40}")
#: An object key inside a kept vendor value: a plain name, digits allowed in runs of at most
#: 3 (`ephemeral_5m_input_tokens`), so it cannot spell a number, an address or a sentence.
_NAME = re.compile(r"(?![0-9A-Za-z_]*[0-9]{4})[A-Za-z_][0-9A-Za-z_]{0,63}")


class ChunkShapeError(ValueError):
    """An upstream field of a shape that cannot be screened (fail closed)."""


def plain(value: Any) -> bool:
    """Does `value` hold no text: numbers, booleans, null, and lists or objects of them whose
    keys are plain names? Iterative (no recursion limit on deep JSON)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                if not _NAME.fullmatch(key):
                    return False
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            return False
    return True


def envelope(chunk: dict[str, Any]) -> dict[str, Any]:
    """The top-level fields of `chunk` that may be sent on, `choices` left out: `ENVELOPE`
    fields of their type (others dropped), `usage` with its text-free entries, any other key
    only if `plain`. A dict comprehension when every key is known (the usual chunk)."""
    if chunk.keys() <= TOP_KEYS:
        kept = {k: v for k, v in chunk.items()
                if k != "choices" and type(v) in ENVELOPE[k]}
    else:
        kept = {k: v for k, v in chunk.items() if k != "choices" and (
            type(v) in ENVELOPE[k] if k in ENVELOPE else plain(v))}
    usage = kept.get("usage")
    if usage and not plain(usage):
        kept["usage"] = {k: v for k, v in usage.items() if _NAME.fullmatch(k) and plain(v)}
    return kept


def others(holder: dict[str, Any], known: frozenset[str]) -> None:
    """Drop, in place, every key of `holder` outside `known` whose value holds text."""
    for key in [k for k, v in holder.items() if k not in known and not plain(v)]:
        del holder[key]


def kept_others(source: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """`source` without the keys outside `known` whose value holds text (a new dict)."""
    return {k: v for k, v in source.items() if k in known or plain(v)}


def index(choice: dict[str, Any]) -> int:
    """A choice's `index` (0 when absent): a whole number under 65,536. Raises
    ChunkShapeError."""
    value = choice.get("index", 0)
    if type(value) is not int or not 0 <= value < 1 << 16:
        what = "a whole number out of that range" if type(value) is int else _kind(value)
        raise ChunkShapeError(f"a choice index must be a whole number from 0 to 65535, not "
                              f"{what}")
    return value


def finish_reason(value: Any) -> None:
    """A `finish_reason` is null or a word. Raises ChunkShapeError."""
    if value is not None and not (isinstance(value, str) and _WORD.fullmatch(value)):
        raise ChunkShapeError(f"a choice's `finish_reason` must be a word (letters and _), "
                              f"not {_kind(value)}")


def role(value: Any) -> None:
    """A message's or delta's `role` is null or a chat role. Raises ChunkShapeError."""
    if value is not None and value not in ROLES:
        raise ChunkShapeError(f"a `role` must be one of {', '.join(sorted(ROLES))}, not "
                              f"{_kind(value)}")


def calls(holder: dict[str, Any]) -> None:
    """`tool_calls` is null or a list of objects (each call judged and its arguments
    screened by proxy.permissions.CallFilter; any other item must hold no text);
    `function_call` null or an object.
    Raises ChunkShapeError."""
    tool_calls = holder.get("tool_calls")
    if tool_calls is not None and not (isinstance(tool_calls, list) and all(
            isinstance(c, dict) or plain(c) for c in tool_calls)):
        what = "a list holding text" if isinstance(tool_calls, list) else _kind(tool_calls)
        raise ChunkShapeError(f"`tool_calls` must be a list of objects, not {what}")
    function_call = holder.get("function_call")
    if function_call is not None and not isinstance(function_call, dict):
        raise ChunkShapeError(f"`function_call` must be an object, not {_kind(function_call)}")


def _kind(value: Any) -> str:
    """What a wrong value is, by its JSON type only, never its text."""
    if isinstance(value, str):
        return "another string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null"
