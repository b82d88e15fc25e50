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
    """One streamed choice's `tool_calls` deltas: a call is judged on its first delta that
    names its function (OpenAI sends the name whole there); every delta of a refused call's
    index is dropped. `refused`: names refused; `kept`: whether any call went through."""

    def __init__(self, calls: CallFilter) -> None:
        self.filter = calls
        self.verdicts: dict[Any, bool] = {}  # call index -> refused
        self.refused: list[str] = []
        self.kept = False

    def delta(self, deltas: list[Any]) -> list[Any]:
        """The deltas of this chunk to send on."""
        out = []
        for delta in deltas:
            index = delta.get("index") if isinstance(delta, dict) else None
            if index not in self.verdicts:
                name = _name(delta)
                if not name:  # no name yet: nothing to judge it by, it goes through
                    out.append(delta)
                    continue
                refused = bool(forbidden_calls(self.filter.tools, [delta]))
                self.verdicts[index] = refused
                if refused:
                    self.filter.counts[TOOL_CALLS_REFUSED] += 1
                    self.refused.append(name)
            if not self.verdicts[index]:
                self.kept = True
                out.append(delta)
        return out


def _name(call: Any) -> str:
    function = call.get("function") if isinstance(call, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else ""


def offered_tools(tools: CompiledTools, body: dict[str, Any]) -> dict[str, Any]:
    """The request body with refused tools taken out of `tools` (and `tool_choice` dropped
    when it names one, or when no tool is left), so the model is not offered them."""
    offered = body.get("tools")
    if not isinstance(offered, list):
        return body
    refused = set(forbidden_calls(tools, offered))
    if not refused:
        return body
    kept = [t for i, t in enumerate(offered) if i not in refused]
    out = {**body, "tools": kept}
    choice = body.get("tool_choice")
    names = {_name(offered[i]) for i in refused}
    if not kept:
        del out["tools"]
        out.pop("tool_choice", None)
        out.pop("parallel_tool_calls", None)
    elif isinstance(choice, dict) and _name(choice) in names:
        del out["tool_choice"]
    return out
