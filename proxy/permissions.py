"""Tool calls the settings refuse (`tools.<name>.allowed: false`, DESIGN section 5): removed
from the model's reply before the client sees it, streamed or not, and the reply says plainly
that it cannot do that. Also removed from the `tools` a request offers the model.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.actions import cannot_do_sentence, forbidden_calls
from engine.tools import CompiledTools

#: The count of refused tool calls (not a seed 000 count; exported by proxy.metrics).
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

    A call's deltas are held until its name is whole: when its arguments start after a
    name, another call starts, or the choice finishes (`flush`) — servers may split a name
    over deltas, or send the id first. Then the call is judged: a refused call's deltas are
    all dropped; the calls kept are renumbered 0, 1, ... in the order they started, as
    clients index them. A delta without an `index` belongs to the call its `id` names, else
    to the last call. `refused`: names refused; `kept`: whether any call went through."""

    def __init__(self, calls: CallFilter) -> None:
        self.filter = calls
        self.verdicts: dict[Any, bool] = {}  # call key -> refused
        self.numbers: dict[Any, int] = {}  # call key -> the index the client sees
        self.held: dict[Any, list[dict[str, Any]]] = {}  # deltas of calls not yet judged
        self.names: dict[Any, str] = {}
        self.last: Any = None
        self.refused: list[str] = []
        self.kept = False

    def _key(self, delta: dict[str, Any]) -> Any:
        if delta.get("index") is not None:
            return delta["index"]
        if isinstance(delta.get("id"), str) and delta["id"]:
            return f"id:{delta['id']}"
        return self.last

    def delta(self, deltas: list[Any]) -> list[Any]:
        """The `tool_calls` deltas of this chunk that may be sent on now."""
        out: list[Any] = []
        for delta in deltas:
            if not isinstance(delta, dict):
                continue
            key = self._key(delta)
            if key != self.last and self.last in self.held:
                out += self._decide(self.last)  # another call started: the last one is whole
            self.last = key
            if key in self.verdicts:
                if not self.verdicts[key]:
                    out.append(self._renumbered(key, delta))
                continue
            self.held.setdefault(key, []).append(delta)
            self.names[key] = self.names.get(key, "") + _name(delta)
            function = delta.get("function")
            if isinstance(function, dict) and function.get("arguments") and self.names[key]:
                out += self._decide(key)  # its arguments started: its name is whole
        return out

    def flush(self) -> list[Any]:
        """At the choice's end: judge the calls still held; the deltas to send."""
        out: list[Any] = []
        for key in list(self.held):
            out += self._decide(key)
        return out

    def _decide(self, key: Any) -> list[Any]:
        held = self.held.pop(key, [])
        name = self.names.get(key, "")
        if not name or self._judge(key, name):
            self.verdicts[key] = True  # refused, or never named: nothing to judge it by
            return []
        self.numbers[key] = len(self.numbers)
        return [self._renumbered(key, d) for d in held]

    def function_call(self, delta: dict[str, Any]) -> bool:
        """A legacy `function_call` delta: True when it is to be sent on (its name comes
        whole in its first delta)."""
        if "function_call" not in self.verdicts:
            name = delta.get("name") if isinstance(delta.get("name"), str) else ""
            if not name:
                return False
            self._judge("function_call", name)
        return not self.verdicts["function_call"]

    def _judge(self, key: Any, name: str) -> bool:
        refused = bool(forbidden_calls(self.filter.tools, [{"function": {"name": name}}]))
        self.verdicts[key] = refused
        if refused:
            self.filter.counts[TOOL_CALLS_REFUSED] += 1
            self.refused.append(name)
        else:
            self.kept = True
        return refused

    def _renumbered(self, key: Any, delta: dict[str, Any]) -> dict[str, Any]:
        if isinstance(delta.get("index"), int) and self.numbers[key] != delta["index"]:
            return {**delta, "index": self.numbers[key]}
        return delta


def _name(call: Any) -> str:
    function = call.get("function") if isinstance(call, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
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
