"""The client's tools as the reply screen knows them (docs/actions.md): declarations
(`ToolSpec`, `ToolRules`) and `compile_tools`, which turns them once into `CompiledTools`
(claim phrases as one alternation, templates checked, schema ranges read).

Nothing here reads files: `config` builds `ToolRules` from the settings file.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any, Literal

from replyguard.engine.claims import INSERTS, claim_words
from replyguard.engine.text import PhrasePattern

OutcomeName = Literal["done", "failed", "not_done"]


@dataclass(frozen=True, slots=True)
class Phrasing:
    """The product's sentences for a tool's outcome, filled from the call's arguments and
    result fields (`"I've refunded {amount} for order {order_id}."`); None: the built-in."""

    done: str | None = None
    failed: str | None = None
    not_done: str | None = None


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool of the client's (settings `tools:`).

    `writes`: its calls change something (outcome added when unmentioned, outcome exception).
    `claims`: language ("en", "pt-BR", "*" = any) -> phrases that make a sentence say it was
    done. `phrasing`: language -> `Phrasing`. `fresh_for_s`: how long a result stays fresh
    (its `as_of` / `retrieved_at`). `output_schema`: JSON Schema of the result; numeric
    `minimum` / `maximum` / `exclusiveMinimum` / `exclusiveMaximum` per property are read.
    `allowed`: False -> its calls are refused (`forbidden_calls`). `screen_arguments`:
    False -> its calls' arguments in a reply are released as the model wrote them (by
    default their strings are screened for personal data and secrets, engine.arguments).
    """

    name: str
    writes: bool = False
    claims: Mapping[str, tuple[str, ...]] = field(default_factory=_empty)
    phrasing: Mapping[str, Phrasing] = field(default_factory=_empty)
    fresh_for_s: float | None = None
    output_schema: Mapping[str, Any] | None = None
    allowed: bool = True
    screen_arguments: bool = True


@dataclass(frozen=True, slots=True)
class ToolRules:
    """The `tools:` part of the settings. `audience`: "customer", or "staff" (an untraced
    value is highlighted with `highlight`, which holds `{sentence}`, instead of replaced).
    `temperature`: reply_temperature for product sentences (0 = off; the proxy rewords)."""

    tools: Mapping[str, ToolSpec] = field(default_factory=_empty)
    audience: Literal["customer", "staff"] = "customer"
    highlight: str = "[unverified] {sentence}"
    temperature: float = 0.0


#: The built-in neutral sentences, per language, for an outcome a tool has no phrasing for
#: (or whose placeholders the call does not fill). `{tool}` is the tool's name with `_` and
#: `-` read as spaces.
BUILT_IN: Mapping[str, Phrasing] = MappingProxyType({
    "en": Phrasing(done="The {tool} action was completed.",
                   failed="The {tool} action did not go through.",
                   not_done="I haven't done that: no {tool} action was carried out."),
    "pt-BR": Phrasing(done="A ação {tool} foi concluída.",
                      failed="A ação {tool} não foi concluída.",
                      not_done="Não fiz isso: nenhuma ação {tool} foi realizada."),
})
#: The sentence for a call the settings do not allow (`allowed: false`).
CANNOT_DO: Mapping[str, str] = MappingProxyType({
    "en": "I can't do that here: the {tool} action is not available.",
    "pt-BR": "Não posso fazer isso aqui: a ação {tool} não está disponível.",
})
#: Count of product sentences that fell back to the built-in one (a proxy metric, not one
#: of the `reply_*` counts).
PHRASING_FALLBACK = "replyguard_phrasing_fallbacks"
MAX_FILL = 200  # characters of one filled value at most; longer -> the built-in sentence

Range = tuple[float | None, float | None, float | None, float | None]  # min, max, xmin, xmax


@dataclass(frozen=True, slots=True)
class CompiledTools:
    """`ToolRules` compiled for one language. `claims`: one `PhrasePattern` over `claim_words` text,
    group `t<i>` for tool `claim_tools[i]`, `b<i>` for its `base_forms`, which claim only
    when negated (None: no claims). `phrasing`: tool -> the
    language's `Phrasing` (the language's own, else "*"). `ranges`: tool -> field name ->
    (minimum, maximum, exclusiveMinimum, exclusiveMaximum)."""

    rules: ToolRules
    language: str
    claims: PhrasePattern | None
    claim_tools: tuple[str, ...]
    phrasing: Mapping[str, Phrasing]
    ranges: Mapping[str, Mapping[str, Range]]
    writes: frozenset[str]

    def spec(self, name: str) -> ToolSpec | None:
        """The declaration of tool `name`, None when the settings do not declare it."""
        return self.rules.tools.get(name)

    def phrase(self, tool: str, outcome: OutcomeName, fields: Mapping[str, Any],
               counts: Counter[str] | None = None) -> str:
        """The product sentence for `tool`'s `outcome`, filled from `fields` (a call's
        arguments and result fields). The tool's template when it has one and `fields`
        fills every placeholder with a short one-line value; else the built-in sentence (and,
        when the tool had a template, `counts[PHRASING_FALLBACK]` += 1: a placeholder the
        calls do not provide, such as a misspelt field name, shows in the metrics)."""
        template = getattr(self.phrasing.get(tool, Phrasing()), outcome)
        if template is not None:
            filled = fill(template, {"tool": tool_words(tool), **fields}, self.language)
            if filled is not None:
                return filled
            if counts is not None:
                counts[PHRASING_FALLBACK] += 1
        builtin = getattr(BUILT_IN[self.language], outcome)
        return str(builtin).replace("{tool}", tool_words(tool))


def tool_words(name: str) -> str:
    """A tool name as a sentence names it: `refund_card` -> `refund card`."""
    return re.sub(r"[_-]+", " ", name).strip()


def _usable(value: object) -> str | None:
    if isinstance(value, bool) or value is None or isinstance(value, dict | list):
        return None
    text = str(value)
    return text if text and len(text) <= MAX_FILL and "\n" not in text else None


def _formatted(value: object, spec: str, language: str) -> str | None:
    """`value` in the format `spec` (Python's format mini-language): a number (or a string
    holding one) as a decimal, e.g. `.2f` gives "12.50" for 12.5 ("12,50" in pt-BR, where
    the decimal and grouping marks swap); None when it does not apply."""
    text = _usable(value)
    if text is None:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        number = None
    try:
        if number is not None and number.is_finite():
            out = format(number, spec)
            return out.translate(_PT_MARKS) if language == "pt-BR" else out
        return format(text, spec)
    except ValueError:
        return None


_PT_MARKS = str.maketrans({".": ",", ",": "."})


def fill(template: str, fields: Mapping[str, Any], language: str = "en") -> str | None:
    """`template` with each `{name}` (or `{name:spec}`) replaced by `fields[name]`; None when
    a placeholder has no usable value (missing, empty, not a scalar, over `MAX_FILL`
    characters, multi-line, a format that does not apply), so a raw placeholder never reaches
    the output."""
    out = []
    for literal, name, spec, _ in string.Formatter().parse(template):
        out.append(literal)
        if name is not None:
            value = _formatted(fields.get(name), spec, language) if spec else \
                _usable(fields.get(name))
            if value is None:
                return None
            out.append(value)
    return "".join(out)


def _check_template(template: str, where: str) -> list[str]:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        return [f"{where}: {exc}"]
    errors = []
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier():
            errors.append(f"{where}: {{{name}}} is not a field name")
        elif conversion:
            errors.append(f"{where}: {{{name}!{conversion}}} takes no conversion")
        elif spec and _formatted("1", spec, "en") is None and _formatted("x", spec, "en") is None:
            errors.append(f"{where}: {{{name}:{spec}}} is not a valid format")
    return errors


def _claim_alternation(phrases: tuple[str, ...], language: str) -> str | None:
    inserts = "|".join(sorted(INSERTS[language]))
    gap = r"\s+(?:(?:" + inserts + r")\s+){0,2}"
    parts = {gap.join(map(re.escape, claim_words(p, language).split())) for p in phrases}
    parts.discard("")
    return "|".join(sorted(parts, key=len, reverse=True)) or None


def base_forms(phrase: str, language: str) -> tuple[str, ...]:
    """The forms of a one-word past claim that only a negation makes a claim ("refunded" ->
    "refund": "I couldn't refund it"; "reembolsei" / "reembolsado" -> "reembolsar": "não
    consegui reembolsar"). Empty for a phrase of several words or another ending."""
    word = claim_words(phrase, language).strip()
    if not word or " " in word:
        return ()
    if language == "en" and word.endswith("ed"):
        stem = word[:-2]
        forms = {stem, word[:-1]}
        if len(stem) > 2 and stem[-1] == stem[-2]:
            forms.add(stem[:-1])
        return tuple(sorted(forms))
    for ending in ("ei", "ado", "ou"):
        if language == "pt-BR" and word.endswith(ending) and len(word) > len(ending) + 2:
            return (word[: -len(ending)] + "ar",)
    return ()


def _ranges(schema: object, out: dict[str, Range], depth: int = 0) -> None:
    """Every property's numeric bounds, by property name, however deep (`properties`,
    `items`)."""
    if not isinstance(schema, Mapping) or depth > 16:
        return
    properties = schema.get("properties")
    for name, sub in properties.items() if isinstance(properties, Mapping) else ():
        if isinstance(sub, Mapping):
            bounds = tuple(sub.get(k) if isinstance(sub.get(k), int | float) and not isinstance(
                sub.get(k), bool) else None for k in (
                "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"))
            if any(b is not None for b in bounds):
                out[str(name)] = bounds  # type: ignore[assignment]
            _ranges(sub, out, depth + 1)
    _ranges(schema.get("items"), out, depth + 1)


def _phrasing_errors(name: str, spec: ToolSpec) -> list[str]:
    """The errors in tool `name`'s phrasing templates, every language's."""
    errors: list[str] = []
    for lang, entry in spec.phrasing.items():
        for outcome in ("done", "failed", "not_done"):
            template = getattr(entry, outcome)
            if template is not None:
                where = f"tools.{name}.phrasing.{'' if lang == '*' else lang + '.'}{outcome}"
                errors += _check_template(template, where)
    return errors


def compile_tools(tools: ToolRules, language: str) -> CompiledTools:
    """Compile `tools` for `language` ("en" or "pt-BR"). Raises ValueError naming every key
    only the engine can judge: an unknown language, a template placeholder that is not a
    plain field name (`{0}`, `{a.b}`, `{x:>9}`), a highlight without `{sentence}`."""
    if language not in BUILT_IN:
        raise ValueError(f"language: {language!r} is not one of {', '.join(BUILT_IN)}")
    errors: list[str] = []
    if "{sentence}" not in tools.highlight:
        errors.append("tools.highlight: must hold {sentence}")
    elif tools.highlight.replace("{sentence}", "").count("{"):
        errors.append("tools.highlight: {sentence} is its only placeholder")
    alternatives: list[str] = []
    claim_tools: list[str] = []
    phrasing: dict[str, Phrasing] = {}
    ranges: dict[str, Mapping[str, Range]] = {}
    for name, spec in tools.tools.items():
        errors += _phrasing_errors(name, spec)
        chosen = spec.phrasing.get(language) or spec.phrasing.get("*")
        if chosen is not None:
            phrasing[name] = chosen
        phrases = (*spec.claims.get(language, ()), *spec.claims.get("*", ()))
        alternation = _claim_alternation(tuple(phrases), language)
        if alternation is not None:
            alternatives.append(f"(?P<t{len(claim_tools)}>{alternation})")
            bases = sorted({b for p in phrases for b in base_forms(p, language)}, key=len,
                           reverse=True)
            if bases:  # after the claims: a claim at the same place wins
                alternatives.append(f"(?P<b{len(claim_tools)}>{'|'.join(map(re.escape, bases))})")
            claim_tools.append(name)
        found: dict[str, Range] = {}
        _ranges(spec.output_schema, found)
        if found:
            ranges[name] = MappingProxyType(found)
    if errors:
        raise ValueError("; ".join(errors))
    claims = PhrasePattern("|".join(alternatives)) if alternatives else None
    return CompiledTools(tools, language, claims, tuple(claim_tools),
                         MappingProxyType(phrasing), MappingProxyType(ranges),
                         frozenset(n for n, s in tools.tools.items() if s.writes))
