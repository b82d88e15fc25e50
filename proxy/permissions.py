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
    """One streamed choice's `tool_calls` deltas (and a legacy `function_call`): a call is
    judged on its first delta that names its function (OpenAI sends the name whole there);
    deltas before that are held, and dropped if no name ever comes. Every delta of a refused
    call is dropped, and the calls kept are renumbered 0, 1, ... in the order they started,
    as clients index them. `refused`: names refused; `kept`: whether any call went through."""

    def __init__(self, calls: CallFilter) -> None:
        self.filter = calls
        self.verdicts: dict[Any, bool] = {}  # call index -> refused
        self.numbers: dict[Any, int] = {}  # call index -> the index the client sees
        self.held: dict[Any, list[dict[str, Any]]] = {}  # deltas of a call not yet named
        self.refused: list[str] = []
        self.kept = False

    def delta(self, deltas: list[Any]) -> list[Any]:
        """The `tool_calls` deltas of this chunk to send on."""
        out: list[Any] = []
        for delta in deltas:
            if not isinstance(delta, dict):
                continue
            index = delta.get("index")
            if index not in self.verdicts:
                name = _name(delta)
                if not name:
                    self.held.setdefault(index, []).append(delta)
                    continue
                if self._judge(index, name):
                    self.held.pop(index, None)
                    continue
                self.numbers[index] = len(self.numbers)
                out.extend(self._renumbered(index, d)
                           for d in (*self.held.pop(index, ()), delta))
            elif not self.verdicts[index]:
                out.append(self._renumbered(index, delta))
        return out

    def function_call(self, delta: dict[str, Any]) -> bool:
        """A legacy `function_call` delta: True when it is to be sent on."""
        if "function_call" not in self.verdicts:
            name = delta.get("name") if isinstance(delta.get("name"), str) else ""
            if not name:
                return False
            self._judge("function_call", name)
        return not self.verdicts["function_call"]

    def _judge(self, index: Any, name: str) -> bool:
        refused = bool(forbidden_calls(self.filter.tools, [{"function": {"name": name}}]))
        self.verdicts[index] = refused
        if refused:
            self.filter.counts[TOOL_CALLS_REFUSED] += 1
            self.refused.append(name)
        else:
            self.kept = True
        return refused

    def _renumbered(self, index: Any, delta: dict[str, Any]) -> dict[str, Any]:
        if isinstance(index, int) and self.numbers[index] != index:
            return {**delta, "index": self.numbers[index]}
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
