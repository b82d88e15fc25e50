"""The `tools:` settings (docs/actions.md): the client's tools as the reply screen must know
them, read into `engine.tools.ToolSpec`s. Errors name the key (`tools.refund_card.writes: 'x'
is not a boolean`); the engine's own checks (template placeholders) run once at load too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from replyguard.config.checks import (
    BAD,
    Check,
    Ctx,
    boolean,
    fail,
    optional,
    seconds,
    section_check,
    setting,
    string,
)
from replyguard.engine.tools import Phrasing, ToolSpec

__all__ = ["TOOL_LANGUAGES", "highlight_check", "tools_check"]

#: The keys a per-language mapping may have: the product's languages, and "*" for any.
TOOL_LANGUAGES = ("en", "pt-BR", "*")
#: OpenAI function names: letters, digits, underscores and dashes, at most 64 characters.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_OUTCOMES = ("done", "failed", "not_done")


def _phrases(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A list of non-empty phrases."""
    if not isinstance(v, list):
        return fail(ctx, key, f"{v!r} is not a list")
    out = [string(max_chars=200)(item, f"{key}[{i}]", given, ctx) for i, item in enumerate(v)]
    return BAD if BAD in out else tuple(out)


def _per_language(inner: Check, plain: type) -> Check:
    """A value for every language (`plain` form, stored under "*"), or a mapping of
    language ("en", "pt-BR", "*") to such values."""

    def check(v: object, key: str, given: bool, ctx: Ctx) -> Any:
        if isinstance(v, plain) and not (isinstance(v, dict) and set(v) & set(TOOL_LANGUAGES)):
            value = inner(v, key, given, ctx)
            return BAD if value is BAD else MappingProxyType({"*": value})
        if not isinstance(v, Mapping):
            return fail(ctx, key, f"{v!r} is neither a list nor a mapping of languages")
        out = {}
        for lang, item in v.items():
            if lang not in TOOL_LANGUAGES:
                out[lang] = fail(ctx, f"{key}.{lang}", "unknown language (known: *, en, pt-BR)")
            else:
                out[lang] = inner(item, f"{key}.{lang}", given, ctx)
        return BAD if BAD in out.values() else MappingProxyType(out)

    return check


@dataclass(frozen=True, slots=True)
class _PhrasingSettings:
    done: str | None = setting(None, string(nullable=True, max_chars=500))
    failed: str | None = setting(None, string(nullable=True, max_chars=500))
    not_done: str | None = setting(None, string(nullable=True, max_chars=500))


def _phrasing(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    value = section_check(_PhrasingSettings)(v, key, given, ctx)
    return BAD if value is BAD else Phrasing(value.done, value.failed, value.not_done)


def _schema(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A JSON Schema (draft 2020-12), checked by the jsonschema library."""
    if not isinstance(v, Mapping):
        return fail(ctx, key, f"{v!r} is not a mapping")
    try:
        Draft202012Validator.check_schema(v)
    except SchemaError as exc:
        where = ".".join(str(p) for p in exc.path)
        return fail(ctx, f"{key}.{where}" if where else key,
                    f"not a valid JSON Schema: {exc.message}")
    return MappingProxyType(dict(v))


@dataclass(frozen=True, slots=True)
class _ToolSettings:
    writes: bool = setting(False, boolean)
    claims: Mapping[str, tuple[str, ...]] | None = setting(None, optional(
        _per_language(_phrases, list)))
    phrasing: Mapping[str, Phrasing] | None = setting(None, optional(
        _per_language(_phrasing, dict)))
    fresh_for_s: float | None = setting(None, optional(seconds))
    output_schema: Mapping[str, Any] | None = setting(None, optional(_schema))
    allowed: bool = setting(True, boolean)
    screen_arguments: bool = setting(True, boolean)


def tools_check(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """`tools:`: tool name -> its declaration; returns a read-only mapping of ToolSpec.

    Each tool: `writes` (bool), `claims` (phrases; a list for every language or a mapping
    en / pt-BR / * -> list), `phrasing` (`done`, `failed`, `not_done` templates; or a mapping
    of language -> those), `fresh_for_s` (seconds), `output_schema` (JSON Schema 2020-12),
    `allowed` (bool, default true), `screen_arguments` (bool, default true: the strings of
    its calls' arguments in a reply are screened)."""
    if v is None:
        return MappingProxyType({})
    if not isinstance(v, Mapping):
        return fail(ctx, key, f"{v!r} is not a mapping of tool names")
    out: dict[str, ToolSpec] = {}
    before = len(ctx.errors)
    for name, raw in v.items():
        dotted = f"{key}.{name}"
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            fail(ctx, dotted, "a tool name is 1 to 64 letters, digits, '_' or '-'")
            continue
        spec = section_check(_ToolSettings)(raw, dotted, given, ctx)
        if spec is not BAD:
            out[name] = ToolSpec(name, spec.writes, spec.claims or MappingProxyType({}),
                                 spec.phrasing or MappingProxyType({}), spec.fresh_for_s,
                                 spec.output_schema, spec.allowed, spec.screen_arguments)
    return BAD if len(ctx.errors) > before else MappingProxyType(out)


def highlight_check(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """The staff marker template: text holding `{sentence}`, its only placeholder."""
    if (text := string(max_chars=200)(v, key, given, ctx)) is BAD:
        return BAD
    if "{sentence}" not in text:
        return fail(ctx, key, "must hold {sentence}")
    if "{" in text.replace("{sentence}", "") or "}" in text.replace("{sentence}", ""):
        return fail(ctx, key, "{sentence} is its only placeholder")
    return text
