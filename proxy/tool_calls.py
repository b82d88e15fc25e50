"""A streamed chat choice's tool calls (`tool_calls` deltas, or a legacy `function_call`):
held until the choice ends, then each call judged by its whole name and its arguments
screened whole (proxy.permissions.CallFilter), and sent as one delta per call.

Every delta of a call is held until the choice finishes: only then is a name surely whole
(servers may split a name over deltas, send it after the arguments, or continue it after
they start; parallel calls interleave), and only whole arguments can be read as JSON. Calls
are told apart by `index`, and on one index by `id`: some servers (Ollama, some vLLM builds)
send parallel calls all on index 0, each with its own `id`; a new `id` on an index starts a
new call. The calls kept are numbered 0, 1, ... in the order they started, as clients index
them.
"""

from __future__ import annotations

from typing import Any

from replyguard.proxy.permissions import CallFilter, call_name

__all__ = ["StreamCalls"]


class StreamCalls:
    """One streamed choice's calls. `delta(deltas)` holds a chunk's `tool_calls` deltas,
    `function_call(delta)` a legacy one; `flush()` gives the delta fields to send at the
    choice's end. A delta without an `index` belongs to the call its `id` names, else (no
    `id` either) to the last call. `refused`: names refused; `kept`: whether any call went
    through. Raises engine ScreeningError (arguments too deep to screen)."""

    __slots__ = ("filter", "held", "_at", "_ids", "_last", "function", "refused", "kept")

    def __init__(self, calls: CallFilter) -> None:
        self.filter = calls
        self.held: list[dict[str, Any]] = []  # each call's deltas joined, in start order
        self._at: dict[Any, int] = {}  # an index -> the call it now continues
        self._ids: dict[str, int] = {}  # a call's id -> the call
        self._last: int | None = None
        self.function: dict[str, Any] | None = None  # a legacy function_call, joined
        self.refused: list[str] = []
        self.kept = False

    def _new(self) -> int:
        self.held.append({})
        return len(self.held) - 1

    def _call(self, delta: dict[str, Any]) -> int:
        """Which held call `delta` continues, or a new one it starts."""
        given = delta.get("id")
        call_id = given if isinstance(given, str) and given else None
        if call_id is not None and call_id in self._ids:
            at = self._ids[call_id]
        elif (index := delta.get("index")) is not None:
            at = self._at.get(index)  # type: ignore[assignment]
            if at is None or call_id is not None and self.held[at].get("id") not in (
                    None, "", call_id):
                at = self._new()  # a new id on this index: another call
            self._at[index] = at
        elif call_id is not None or self._last is None:
            at = self._new()
        else:
            at = self._last
        if call_id is not None:
            self._ids.setdefault(call_id, at)
        self._last = at
        return at

    def delta(self, deltas: list[Any]) -> int:
        """Hold this chunk's `tool_calls` deltas (nothing is sent before `flush`); the
        characters of arguments they add."""
        added = 0
        for delta in deltas:
            if isinstance(delta, dict):
                at = self._call(delta)
                self.held[at] = _joined(self.held[at], delta)
                added += _size(delta.get("function")) + _size(delta.get("custom"))
        return added

    def function_call(self, delta: dict[str, Any]) -> int:
        """Hold a legacy `function_call` delta (sent, joined, by `flush`); the characters of
        arguments it adds."""
        self.function = _joined(self.function or {}, delta)
        return _size(delta)

    def flush(self) -> dict[str, Any]:
        """At the choice's end: the delta fields to send (`tool_calls`, `function_call`), the
        refused calls left out and the others' arguments screened; {} when there is nothing
        to send."""
        out: dict[str, Any] = {}
        calls: list[dict[str, Any]] = []
        for joined in self.held:
            if self._refused(joined):
                continue
            joined = self.filter.call(joined)
            if "index" in joined:
                joined = {**joined, "index": len(calls)}
            calls.append(joined)
        self.held = []
        self._at.clear()
        self._ids.clear()
        self._last = None
        if calls:
            out["tool_calls"] = calls
        if self.function is not None:
            if not self._refused(self.function):
                out["function_call"] = self.filter.call(self.function)
            self.function = None
        return out

    def _refused(self, call: dict[str, Any]) -> bool:
        """Judge one call by its whole name (a call never named is dropped: nothing to judge
        it by). Notes the refused ones."""
        name = call_name(call)
        if not name:
            return True
        if self.filter.refuses({"name": name}):
            self.refused.append(name)
            return True
        self.kept = True
        return False


def _size(inner: Any) -> int:
    """The characters of arguments (or a custom tool's input) a call delta's object holds."""
    if not isinstance(inner, dict):
        return 0
    return sum(len(v) for k in ("arguments", "input") if isinstance(v := inner.get(k), str))


def _joined(into: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """A call's deltas joined: text pieces (`name`, `arguments`, `input`) concatenated,
    nested objects joined the same way, other fields kept from their first delta."""
    out = dict(into)
    for key, value in delta.items():
        if key in ("name", "arguments", "input") and isinstance(value, str):
            out[key] = (out.get(key) or "") + value
        elif isinstance(value, dict):
            out[key] = _joined(out.get(key) or {}, value)
        elif out.get(key) is None:
            out[key] = value
    return out
