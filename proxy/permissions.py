"""The tool calls of a reply, judged and screened for every API: a call of a tool the settings
refuse (`tools.<name>.allowed: false`, docs/actions.md) is removed from the model's reply
before the client sees it, streamed or not, and the reply says plainly that it cannot do that;
every other call's arguments have their strings screened for personal data and secrets
(engine.arguments) unless its tool is declared `screen_arguments: false`. Refused tools are
also taken out of the `tools` a request offers the model (`offered_tools`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from replyguard.engine.actions import cannot_do_sentence, forbidden_calls
from replyguard.engine.arguments import (
    screen_arguments,
    screen_arguments_text,
    screen_arguments_value,
)
from replyguard.engine.rules import CompiledRules
from replyguard.engine.tools import CompiledTools

__all__ = ["TOOL_CALLS_REFUSED", "CallFilter", "call_name", "offered_tools"]

#: The count of refused tool calls (not one of the `reply_*` counts; exported by
#: proxy.metrics).
TOOL_CALLS_REFUSED = "replyguard_tool_calls_refused"
#: The holders of a chat call's name and arguments: `function` (`arguments`, a JSON text)
#: and `custom` (`input`, free text).
_INNER = ("function", "custom")


class CallFilter:
    """Judges and screens the tool calls of one response with `rules` and the declared
    `tools` (None: none declared, no call is refused). `counts` gains TOOL_CALLS_REFUSED per
    refused call and the `reply_pd_*` counts of the arguments screened.

    Each method takes a call in the shape its API sends it: a chat `tool_calls` item
    (`{"function": {"name", "arguments"}}`, `{"custom": {"name", "input"}}`), a legacy
    `function_call`, a Responses `function_call` item (`{"name", "arguments"}`) or an
    Anthropic `tool_use` block (`{"name", "input": {...}}`). Raises engine ScreeningError
    for arguments nested too deep to screen.
    """

    def __init__(self, rules: CompiledRules, tools: CompiledTools | None = None) -> None:
        self.rules = rules
        self.tools = tools
        self.counts: Counter[str] = Counter()

    def refuses(self, call: Any) -> bool:
        """Is `call` (any shape, judged by its whole name) refused? Counted when it is."""
        if self.tools is None or not forbidden_calls(self.tools, [call]):
            return False
        self.counts[TOOL_CALLS_REFUSED] += 1
        return True

    def message(self, calls: list[Any]) -> tuple[list[Any], list[str]]:
        """A whole message's `tool_calls`: (the calls kept, their arguments screened; names
        of the refused). The kept list is `calls` itself when no call was refused or
        changed."""
        kept: list[Any] = []
        refused: list[str] = []
        changed = False
        for call in calls:
            if self.refuses(call):
                refused.append(call_name(call))
                changed = True
                continue
            screened = self.call(call)
            changed = changed or screened is not call
            kept.append(screened)
        return (kept if changed else calls), refused

    def call(self, call: Any) -> Any:
        """`call` with its arguments screened (the same object when nothing changed)."""
        if not isinstance(call, dict):
            return call
        for key in _INNER:
            inner = call.get(key)
            if isinstance(inner, dict):
                screened = self._inner(inner)
                return call if screened is inner else {**call, key: screened}
        return self._inner(call)

    def _inner(self, inner: dict[str, Any]) -> dict[str, Any]:
        """A call's object holding its name with `arguments` / `input` screened."""
        name = call_name(inner)
        out = inner
        for key in ("arguments", "input"):
            if key not in inner:
                continue
            given = inner[key]
            if isinstance(given, str):
                screened = self.arguments(name, given) if key == "arguments" else \
                    self.text(name, given)
            else:
                screened = self.value(name, given)
            if screened is not given:
                out = {**out, key: screened}
        return out

    def _screens(self, name: str) -> bool:
        """Are the arguments of tool `name`'s calls screened (not opted out)?"""
        spec = self.tools.spec(name) if self.tools is not None else None
        return spec is None or spec.screen_arguments

    def arguments(self, name: str, text: str) -> str:
        """Tool `name`'s arguments, a JSON text, screened (engine.arguments)."""
        if not self._screens(name):
            return text
        out, counts = screen_arguments(text, self.rules)
        self.counts.update(counts)
        return out

    def text(self, name: str, text: str) -> str:
        """Tool `name`'s free-form input (a custom tool's), screened as text."""
        if not self._screens(name):
            return text
        out, counts = screen_arguments_text(text, self.rules)
        self.counts.update(counts)
        return out

    def value(self, name: str, value: Any) -> Any:
        """Tool `name`'s arguments as a JSON value (an object), screened; the same object
        when nothing changed."""
        if not self._screens(name) or not isinstance(value, dict | list | str):
            return value
        out, counts = screen_arguments_value(value, self.rules)
        self.counts.update(counts)
        return out

    def sentences(self, refused: list[str], text: str) -> str:
        """`text` (the released reply) followed by one plain sentence per refused tool."""
        tools = self.tools
        if tools is None or not refused:  # (only a declared tool is ever refused)
            return text
        said = [cannot_do_sentence(tools, name, tools.language)
                for name in dict.fromkeys(refused)]
        lead = " " if text and not text[-1].isspace() else ""
        return text + lead + " ".join(said)


def call_name(call: Any) -> str:
    """The name a call (or an offered tool) of any shape gives, "" when none."""
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
        names = {call_name(offered[i]) for i in refused}
        out = {**out, "tools": kept}
        if not kept:
            for key in ("tools", "tool_choice", "parallel_tool_calls"):
                out.pop(key, None)
        elif isinstance(out.get("tool_choice"), dict) and call_name(out["tool_choice"]) in names:
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
