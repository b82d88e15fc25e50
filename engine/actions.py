"""The action check: each reply sentence against the real outcome of the calls it speaks of,
and the facts it states against the records (docs/actions.md; counted as `reply_assertion_*`,
`reply_outcome_*`, `reply_value_*` and `reply_facts_*`).

Per sentence: a claim of a write nothing attempted -> the `not_done` phrasing
(`reply_assertion_refused`); a claim the real outcome contradicts -> the real outcome's
phrasing (`reply_outcome_replaced`); a claim stating a value its call was neither sent nor
returned -> its phrasing (`reply_value_replaced`; staff: highlighted instead). Every value a
model sentence states is traced (`reply_facts_*`). At the end, a write of this turn no sentence
spoke of gets its outcome phrasing (`reply_outcome_added`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from replyguard.engine.claims import claim_words, reading, unquoted
from replyguard.engine.context import ToolCall, TurnContext
from replyguard.engine.facts import (
    FACTS_CONFLICT,
    FACTS_OUT_OF_RANGE,
    FACTS_STALE,
    FACTS_TRACED,
    FACTS_UNTRACED,
    Source,
    SourceIndex,
    Value,
    read_time,
    stated_values,
)
from replyguard.engine.tools import CANNOT_DO, CompiledTools, OutcomeName, tool_words

ASSERTION_REFUSED = "reply_assertion_refused"
OUTCOME_REPLACED = "reply_outcome_replaced"
OUTCOME_ADDED = "reply_outcome_added"
VALUE_REPLACED = "reply_value_replaced"
VALUE_HIGHLIGHTED = "reply_value_highlighted"


def fields_of(call: ToolCall) -> dict[str, Any]:
    """The fields a phrasing is filled from: the result's top-level fields, overridden by
    the arguments' (what the call was asked to do comes first)."""
    fields: dict[str, Any] = {}
    for part in (call.result, call.arguments):
        if isinstance(part, Mapping):
            fields.update({str(k): v for k, v in part.items()})
    return fields


class ActionCheck:
    """Checks one reply's sentences against the conversation's calls (`context.earlier` and
    `context.calls`) and the compiled tools.

    `sentence(text) -> (text to release, is_product_sentence)`: `text` is one whole sentence with
    its whitespace, raw (before personal-data masking); "" removes it. `finish() -> list[str]`: the
    product sentences to add at the end, in call order. `counts` holds the counts each reply
    reports (shared with the caller when `counts` is given). `now`: epoch seconds the staleness of
    results is judged at (default: the clock).
    """

    def __init__(self, tools: CompiledTools, context: TurnContext, *, now: float | None = None,
                 counts: Counter[str] | None = None) -> None:
        self.tools = tools
        self.context = context
        self.counts: Counter[str] = counts if counts is not None else Counter()
        self.now = time.time() if now is None else now
        self.language = tools.language
        self._calls = context.conversation_calls()
        self._index: SourceIndex | None = None  # built on the first stated value
        self._mentioned: set[str] = set()
        self._released: set[str] = set()

    @property
    def index(self) -> SourceIndex:
        """The conversation's values by key, built once when first needed."""
        if self._index is None:
            self._index = SourceIndex(self._calls, self.language)
        return self._index

    def sentence(self, text: str) -> tuple[str, bool]:
        """One sentence in, what to release out (see the class docstring)."""
        core = text.strip()
        if not core:
            return text, False
        lead = text[: len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()):]
        values: list[Value] | None = None
        if self.tools.claims is not None:
            folded = claim_words(unquoted(core), self.language)
            readings: dict[str, bool] = {}  # tool -> said done (the last reading wins)
            for match in self.tools.claims.finditer(folded):
                said = reading(folded, match.start(), match.end(), self.language)
                group = match.lastgroup or "t0"
                if said == "not_done" or (said == "done" and group[0] == "t"):
                    readings[self.tools.claim_tools[int(group[1:])]] = said == "done"
            for tool, done in readings.items():
                self._mentioned.add(tool)
                if values is None:
                    values = stated_values(core, self.language)
                verdict = self._claim(tool, done, values)
                if verdict is not None:
                    self._mentioned.update(readings)
                    return self._product(lead, verdict, trail)
        if values is None:
            values = stated_values(core, self.language)
        if values and self._facts(values) and self.tools.rules.audience == "staff":
            self.counts[VALUE_HIGHLIGHTED] += 1
            return lead + self.tools.rules.highlight.replace("{sentence}", core) + trail, False
        return text, False

    def _claim(self, tool: str, done: bool, values: list[Value]) -> str | None:
        """The product sentence replacing a claim of `tool` (done or not), None to keep it."""
        calls = [c for c in self._calls if c.name == tool]
        if not calls:
            if not done:
                return None  # "I haven't refunded anything": true, kept
            self.counts[ASSERTION_REFUSED] += 1
            return self.tools.phrase(tool, "not_done", {}, self.counts)
        call = self._call_for(calls, values)
        real: OutcomeName = "not_done" if call.outcome == "pending" else (
            "done" if call.outcome == "done" else "failed")
        if done != (real == "done"):
            self.counts[OUTCOME_REPLACED] += 1
            return self.tools.phrase(tool, real, fields_of(call), self.counts)
        # A value may come from any call of this tool with the outcome the sentence claims
        # ("I've refunded 12.50 for 4412 and 8.00 for 4413" after two refunds), or be the
        # last four digits of a card or account number such a call holds ("Visa ending 1111").
        alike = [c for c in calls if c.outcome == call.outcome] or [call]
        foreign = [v for v in values
                   if not any(s.call in alike for s in self.index.sources(v))
                   and not _tail_of(v, alike)]
        if not foreign or self.tools.rules.audience == "staff":
            return None  # staff: the facts step highlights the untraced value
        self.counts[VALUE_REPLACED] += 1
        return self.tools.phrase(tool, real, fields_of(call), self.counts)

    def _call_for(self, calls: list[ToolCall], values: list[Value]) -> ToolCall:
        """The call a claim speaks of: the latest one holding the most of its values."""
        best, score = calls[-1], -1
        for call in reversed(calls):
            held = sum(any(s.call is call for s in self.index.sources(v)) for v in values)
            if held > score:
                best, score = call, held
        return best

    def _product(self, lead: str, sentence: str, trail: str) -> tuple[str, bool]:
        """A product sentence in place of a model one; the same one twice is said once."""
        if sentence in self._released:
            return "", True
        self._released.add(sentence)
        return lead + sentence + trail, True

    def _facts(self, values: list[Value]) -> bool:
        """Count each value traced or not, and the traced ones' conflicts, staleness and
        range; True when one is untraced."""
        untraced = False
        this_turn = self.context.calls
        for value in values:
            sources = self.index.sources(value)
            if not sources:
                self.counts[FACTS_UNTRACED] += 1
                untraced = True
                continue
            self.counts[FACTS_TRACED] += 1
            names = {s.field for s in sources if s.field}
            if any(self.index.differs(call, name, value) for call in this_turn
                   for name in names):
                self.counts[FACTS_CONFLICT] += 1
            results = [s for s in sources if s.part == "result"]
            if results and len(results) == len(sources) and all(map(self._stale, results)):
                self.counts[FACTS_STALE] += 1
            if value.number is not None and any(self._out_of_range(s, value) for s in results):
                self.counts[FACTS_OUT_OF_RANGE] += 1
        return untraced

    def _stale(self, source: Source) -> bool:
        spec = self.tools.spec(source.call.name)
        fresh = spec.fresh_for_s if spec is not None else None
        read = read_time(source.call.result) if fresh is not None else None
        return fresh is not None and read is not None and self.now - read > fresh

    def _out_of_range(self, source: Source, value: Value) -> bool:
        bounds = self.tools.ranges.get(source.call.name, {}).get(source.field)
        if bounds is None or value.number is None:
            return False
        number = float(value.number)
        low, high, xlow, xhigh = bounds
        return ((low is not None and number < low) or (high is not None and number > high)
                or (xlow is not None and number <= xlow) or (xhigh is not None and number >= xhigh))

    def finish(self) -> list[str]:
        """The outcome sentences of this turn's writes (done or failed) no sentence spoke of,
        in call order, each once (`reply_outcome_added`)."""
        out: list[str] = []
        for call in self.context.calls:
            if call.name not in self.tools.writes or call.name in self._mentioned or (
                    call.outcome == "pending"):
                continue
            sentence = self.tools.phrase(call.name, call.outcome, fields_of(call), self.counts)
            if sentence not in out and sentence not in self._released:
                out.append(sentence)
                self.counts[OUTCOME_ADDED] += 1
        return out


def forbidden_calls(tools: CompiledTools, tool_calls: list[dict[str, Any]]) -> list[int]:
    """Indices of the entries of an OpenAI `tool_calls` (or `tools`) list
    (`{"function": {"name": ...}}`, `{"custom": {"name": ...}}`, or a bare `{"name": ...}`)
    that call a tool the settings declare with `allowed: false`. Undeclared tools are not
    refused. Malformed entries are skipped."""
    out = []
    for i, call in enumerate(tool_calls):
        if not isinstance(call, Mapping):
            continue
        inner = call.get("function") if isinstance(call.get("function"), Mapping) else \
            call.get("custom")
        name = inner.get("name") if isinstance(inner, Mapping) else call.get("name")
        spec = tools.spec(name) if isinstance(name, str) else None
        if spec is not None and not spec.allowed:
            out.append(i)
    return out


def cannot_do_sentence(tools: CompiledTools, name: str, language: str) -> str:
    """The product sentence for a refused call of tool `name`, plainly:
    "I can't do that here: the refund card action is not available." (pt-BR: "Não posso
    fazer isso aqui: ..."). Raises KeyError for a language other than "en" or "pt-BR"."""
    return CANNOT_DO[language].replace("{tool}", tool_words(name))


def _tail_of(value: Value, calls: list[ToolCall]) -> bool:
    """Is `value` 4 digits that end a card or account number (12+ characters) one of `calls`
    was sent or returned? A reply names a card by its last four, as its mask shows them."""
    digits = next((k for k in value.keys if len(k) == 4 and k.isdigit()), None)
    if digits is None and value.number is not None and value.number == value.number.to_integral():
        text = str(int(value.number))
        digits = text if len(text) == 4 else None
    if digits is None:
        return False
    return any(len(held) >= 12 and held.endswith(digits) for call in calls
               for held in call.values())
