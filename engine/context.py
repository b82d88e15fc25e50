"""The turn context read from an OpenAI `messages` list: this turn's tool calls and passages,
and the calls of the earlier turns (for the assertion check: docs/actions.md).

"This turn" is everything after the last user message. A call's outcome is read from its tool
result: failed when the result is JSON with a non-null `error`, `ok: false` or `success: false`, or
a failed `status` (declined, rejected, ...); done otherwise; pending when no result has come back
yet. Passages are declared in tool results as
`{"passages": [{"id": "p1", "tags": ["medical"], "text": "..."}]}` (docs/rules.md).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from replyguard.engine.find import find
from replyguard.engine.text import INVISIBLE

Outcome = Literal["done", "failed", "pending"]
FAILED_STATUSES = frozenset({"failed", "error", "declined", "rejected", "cancelled", "canceled",
                             "denied", "refused", "aborted", "expired", "reversed", "voided"})
#: A `status` saying the write has not happened yet: the call is pending, not done.
PENDING_STATUSES = frozenset({"pending", "processing", "queued", "in_progress", "scheduled",
                              "submitted", "awaiting_approval"})
_COMPACT = re.compile(r"[\s.\-()/" + INVISIBLE + "]")
_CITATION = re.compile(r"\[([A-Za-z0-9_.:-]{1,64})\]")


def content_text(content: object) -> str:
    """The text of a message `content`: a string, or the `text` of each part of a list that
    has one (joined with newlines); anything else gives ""."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _parse_json(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def outcome_of(result: object) -> Outcome:
    """The outcome a tool result says (widened to the ways writes report it):
    "failed" for JSON with a non-null `error`, `ok: false` or `success: false`, or a
    `status` in FAILED_STATUSES; "pending" for a `status` in PENDING_STATUSES (the write has
    not happened yet); "done" otherwise. Statuses compare in any case, `-`/space as `_`.
    A result that is not a JSON object (plain text) is done: its words are not read."""
    if isinstance(result, dict):
        if result.get("error") is not None or result.get("ok") is False or (
                result.get("success") is False):
            return "failed"
        status = result.get("status")
        if isinstance(status, str):
            word = status.strip().lower().replace("-", "_").replace(" ", "_")
            if word in FAILED_STATUSES:
                return "failed"
            if word in PENDING_STATUSES:
                return "pending"
    return "done"


def compact(value: str) -> str:
    """A value as compared across records: separators and invisible characters dropped, lower
    case."""
    return _COMPACT.sub("", value).lower()


def _leaves(value: object) -> Iterable[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, bool) or value is None:
        return
    else:
        yield str(value)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of this turn: `arguments` and `result` parsed from JSON where they are
    JSON (else the raw string; `result` None while pending)."""

    id: str
    name: str
    arguments: Any
    result: Any
    outcome: Outcome
    write: bool = True

    def values(self) -> frozenset[str]:
        """Compact forms of every value the call was sent or returned, and of every value a
        detector finds inside them (so `"card": "4111 1111 1111 1111"` holds the card)."""
        out: set[str] = set()
        for leaf in (*_leaves(self.arguments), *_leaves(self.result)):
            out.add(compact(leaf))
            for f in find(leaf):
                out.add(compact(leaf[f.start : f.end]))
        out.discard("")
        return frozenset(out)


@dataclass(frozen=True, slots=True)
class Passage:
    """A passage a tool result declared: its `id` and `tags`."""

    id: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What a reply is screened against: the last user turn's text, this turn's tool calls
    (in order), the passages declared this turn by id, the compact values every write of
    this turn was sent or returned (for the outcome exception: such a value in a reply is
    masked, not withheld), and
    `earlier`: the calls of the turns before this one, in order (a claim of a write is checked
    against every call of the conversation)."""

    turn: str = ""
    calls: tuple[ToolCall, ...] = ()
    passages: Mapping[str, Passage] = field(default_factory=dict)
    write_values: frozenset[str] = frozenset()
    earlier: tuple[ToolCall, ...] = ()

    def conversation_calls(self) -> tuple[ToolCall, ...]:
        """Every call of the conversation, oldest first: `earlier`, then this turn's."""
        return self.earlier + self.calls if self.earlier else self.calls

    def done(self, tool: str) -> bool:
        """True when a call of `tool` ran to a done outcome in this turn."""
        return any(c.name == tool and c.outcome == "done" for c in self.calls)

    def tags(self) -> frozenset[str]:
        """Every tag of every passage declared this turn."""
        return frozenset(t for p in self.passages.values() for t in p.tags)

    def cited_tags(self, text: str) -> frozenset[str]:
        """The tags of the passages `text` cites as `[id]`."""
        out: set[str] = set()
        for match in _CITATION.finditer(text):
            passage = self.passages.get(match.group(1))
            if passage is not None:
                out.update(passage.tags)
        return frozenset(out)


def _passages(result: object) -> Iterable[Passage]:
    if not isinstance(result, dict) or not isinstance(result.get("passages"), list):
        return
    for item in result["passages"]:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            tags = item.get("tags")
            tags = tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else ()
            yield Passage(item["id"], tags)


def read_context(
    messages: Sequence[Mapping[str, Any]], writes: Collection[str] | None = None
) -> TurnContext:
    """Read the context of the last user turn from an OpenAI `messages` list.

    `writes` names the tools that write (settings `tools:`); None treats every tool as a
    write. Malformed entries (non-dict messages, missing ids) are skipped, never raised.
    """
    last_user = -1
    for i, message in enumerate(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            last_user = i
    turn = content_text(messages[last_user].get("content")) if last_user >= 0 else ""
    requested: list[tuple[bool, str, str, Any]] = []  # (this turn, id, name, arguments)
    results: dict[str, Any] = {}
    passages: dict[str, Passage] = {}
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            continue
        now = i > last_user
        if message.get("role") == "assistant":
            tool_calls = message.get("tool_calls")
            for call in tool_calls if isinstance(tool_calls, list) else ():
                function = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(function, Mapping):
                    continue
                raw = function.get("arguments")
                arguments = _parse_json(raw) if isinstance(raw, str) else raw
                arguments = raw if arguments is None else arguments
                requested.append((now, str(call.get("id", "")), str(function.get("name", "")),
                                  arguments))
        elif message.get("role") == "tool":
            text = content_text(message.get("content"))
            parsed = _parse_json(text)
            results[str(message.get("tool_call_id", ""))] = text if parsed is None else parsed
            if now:
                for passage in _passages(parsed):
                    passages[passage.id] = passage
    calls: list[ToolCall] = []
    earlier: list[ToolCall] = []
    for now, call_id, name, arguments in requested:
        result = results.get(call_id)
        outcome: Outcome = "pending" if call_id not in results else outcome_of(result)
        write = writes is None or name in writes
        (calls if now else earlier).append(
            ToolCall(call_id, name, arguments, result, outcome, write))
    values = frozenset().union(*(c.values() for c in calls if c.write)) if calls else frozenset()
    return TurnContext(turn, tuple(calls), passages, values, tuple(earlier))
