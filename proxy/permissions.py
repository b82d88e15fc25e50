"""Tool calls the settings refuse (`tools.<name>.allowed: false`, docs/actions.md): removed
from the model's reply before the client sees it, streamed or not, and the reply says plainly
that it cannot do that. Also removed from the `tools` a request offers the model.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from replyguard.engine.actions import cannot_do_sentence, forbidden_calls
from replyguard.engine.tools import CompiledTools

#: The count of refused tool calls (not one of the `reply_*` counts; exported by
#: proxy.metrics).
TOOL_CALLS_REFUSED = "replyguard_tool_calls_refused"


class CallFilter:
    """Refuses tool calls for one response. `counts` gains TOOL_CALLS_REFUSED per call."""

    def __init__(self, tools: CompiledTools) -> None:
        self.tools = tools
        self.counts: Counter[str] = Counter()

    def message(self, calls: list[Any]) -> tuple[list[Any], list[str]]:
        """A whole message's `tool_calls`: (the calls kept, names of the refused)."""
        refused = set(forbidden_calls(self.tools, calls))
        self.counts[TOOL_CALLS_REFUSED] += len(refused)
        return ([c for i, c in enumerate(calls) if i not in refused],
                [_name(calls[i]) for i in sorted(refused)])

    def sentences(self, refused: list[str], text: str) -> str:
        """`text` (the released reply) followed by one plain sentence per refused tool."""
        said = [cannot_do_sentence(self.tools, name, self.tools.language)
                for name in dict.fromkeys(refused)]
        if not said:
            return text
        lead = " " if text and not text[-1].isspace() else ""
        return text + lead + " ".join(said)


class StreamCalls:
    """One streamed choice's `tool_calls` deltas (and a legacy `function_call`).

    Every delta of a call is held until the choice finishes (`flush`): only then is a name
    surely whole (servers may split a name over deltas, send it after the arguments, or
    continue it after they start; parallel calls interleave). Each call is then judged by
    its whole name and sent as one delta (its pieces joined), a refused one dropped; the
    calls kept are numbered 0, 1, ... in the order they started, as clients index them. A
    delta without an `index` belongs to the call its `id` names, else to the last call.
    `refused`: names refused; `kept`: whether any call went through."""

    def __init__(self, calls: CallFilter) -> None:
        self.filter = calls
        self.held: dict[Any, dict[str, Any]] = {}  # call key -> its deltas joined
        self.last: Any = None
        self.function: dict[str, Any] | None = None  # a legacy function_call, joined
        self.refused: list[str] = []
        self.kept = False

    def _key(self, delta: dict[str, Any]) -> Any:
        if delta.get("index") is not None:
            return delta["index"]
        if isinstance(delta.get("id"), str) and delta["id"]:
            return f"id:{delta['id']}"
        return self.last

    def delta(self, deltas: list[Any]) -> list[Any]:
        """Hold this chunk's `tool_calls` deltas; nothing is sent before `flush`."""
        for delta in deltas:
            if isinstance(delta, dict):
                key = self.last = self._key(delta)
                self.held[key] = _joined(self.held.get(key, {}), delta)
        return []

    def function_call(self, delta: dict[str, Any]) -> bool:
        """Hold a legacy `function_call` delta (sent, joined, by `flush`)."""
        self.function = _joined(self.function or {}, delta)
        return False

    def flush(self) -> dict[str, Any]:
        """At the choice's end: the delta fields to send (`tool_calls`, `function_call`), the
        refused calls left out; {} when there is nothing to send."""
        out: dict[str, Any] = {}
        calls: list[dict[str, Any]] = []
        for joined in self.held.values():
            if self._refused(_name(joined)):
                continue
            if "index" in joined:
                joined = {**joined, "index": len(calls)}
            calls.append(joined)
        self.held.clear()
        if calls:
            out["tool_calls"] = calls
        if self.function is not None:
            name = self.function.get("name")
            if not self._refused(name if isinstance(name, str) else ""):
                out["function_call"] = self.function
            self.function = None
        return out

    def _refused(self, name: str) -> bool:
        """Judge one call by its whole name (a call never named is dropped: nothing to judge
        it by). Counts and notes the refused ones."""
        if not name:
            return True
        if forbidden_calls(self.filter.tools, [{"function": {"name": name}}]):
            self.filter.counts[TOOL_CALLS_REFUSED] += 1
            self.refused.append(name)
            return True
        self.kept = True
        return False


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


def _name(call: Any) -> str:
    if not isinstance(call, dict):
        return ""
    inner = call.get("function") if isinstance(call.get("function"), dict) else call.get("custom")
    name = inner.get("name") if isinstance(inner, dict) else call.get("name")
    return name if isinstance(name, str) else ""


def offered_tools(tools: CompiledTools, body: dict[str, Any]) -> dict[str, Any]:
    """The request body with refused tools taken out of `tools` and the legacy `functions`
    (and `tool_choice` / `function_call` dropped when they name one, or when nothing is
    left), so the model is not offered them."""
    out = body
    offered = body.get("tools")
    if isinstance(offered, list) and (refused := set(forbidden_calls(tools, offered))):
        kept = [t for i, t in enumerate(offered) if i not in refused]
        names = {_name(offered[i]) for i in refused}
        out = {**out, "tools": kept}
        if not kept:
            for key in ("tools", "tool_choice", "parallel_tool_calls"):
                out.pop(key, None)
        elif isinstance(out.get("tool_choice"), dict) and _name(out["tool_choice"]) in names:
            del out["tool_choice"]
    functions = body.get("functions")
    if isinstance(functions, list):
        refused = set(forbidden_calls(tools, functions))
        if refused:
            kept = [f for i, f in enumerate(functions) if i not in refused]
            names = {f.get("name") for i, f in enumerate(functions) if i in refused}
            out = {**out, "functions": kept}
            choice = out.get("function_call")
            if not kept:
                out.pop("functions")
                out.pop("function_call", None)
            elif isinstance(choice, dict) and choice.get("name") in names:
                del out["function_call"]
    return out
