"""The app's typed state (aiohttp AppKeys) and the active reply rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from config.settings import Settings
from engine.rules import LANGUAGES, CompiledRules, ReplyRules, compile_rules
from engine.tools import CompiledTools, compile_tools
from proxy.guardrails import Guardrails
from proxy.metrics import Metrics


@dataclass
class ActiveRules:
    """The reply rules in force, compiled once for each language the product reads.

    `version` counts loads; `swap` replaces the rules atomically (a request keeps the
    compiled rules it started with).
    """

    rules: ReplyRules
    version: int = 1
    compiled: dict[str, CompiledRules] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.compiled = {lang: compile_rules(self.rules, lang) for lang in LANGUAGES}

    def for_language(self, language: str) -> CompiledRules:
        """The compiled rules for `language` (KeyError for one the product does not read)."""
        return self.compiled[language]

    def swap(self, rules: ReplyRules) -> None:
        """Make `rules` the rules in force."""
        compiled = {lang: compile_rules(rules, lang) for lang in LANGUAGES}
        self.rules, self.compiled, self.version = rules, compiled, self.version + 1


SETTINGS = web.AppKey("settings", Settings)
RULES = web.AppKey("rules", ActiveRules)
METRICS = web.AppKey("metrics", Metrics)
SESSION = web.AppKey("session", aiohttp.ClientSession)
GUARDRAILS = web.AppKey("guardrails", Guardrails)
#: The declared tools compiled once per (language, audience); empty when none is declared.
TOOLS = web.AppKey("tools", dict)
AUDIENCES = ("customer", "staff")


def compile_all_tools(settings: Settings) -> dict[tuple[str, str], CompiledTools]:
    """`settings.tools` compiled for every language and audience (none: {})."""
    if not settings.tools:
        return {}
    return {(lang, aud): compile_tools(settings.tool_rules(aud), lang)
            for lang in LANGUAGES for aud in AUDIENCES}
#: Per-request screening info (route, counts, verdict, outcome) the middleware reads back.
#: A typed RequestKey where aiohttp has them (3.13+): a str key warns there.
INFO: Any = web.RequestKey("replyguard", dict) if hasattr(web, "RequestKey") else "replyguard"
