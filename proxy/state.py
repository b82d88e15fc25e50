"""The app's typed state (aiohttp AppKeys), the active reply rules, and the request id headers
every response carries (`stamp`, `prepare`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from replyguard.config.settings import Settings
from replyguard.engine.rules import LANGUAGES, CompiledRules, ReplyRules, compile_rules
from replyguard.engine.screen_cache import ScreenCache
from replyguard.engine.tools import CompiledTools, compile_tools
from replyguard.proxy.guardrails import Guardrails
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.offload import Offload
from replyguard.proxy.overload import UpstreamWatch
from replyguard.proxy.peers import Peers
from replyguard.proxy.record import RECORD, RequestRecord


@dataclass
class ActiveRules:
    """The reply rules in force, compiled once for each language the product reads.

    `version` counts loads; `swap` replaces the rules atomically (a request keeps the
    compiled rules it started with). `phone_regions`: where national phone numbers are
    read (the `replies.phone_regions` setting; None: each language's regions).
    """

    rules: ReplyRules
    version: int = 1
    compiled: dict[str, CompiledRules] = field(default_factory=dict)
    phone_regions: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        self.compiled = self._compile(self.rules)

    def _compile(self, rules: ReplyRules) -> dict[str, CompiledRules]:
        return {lang: compile_rules(rules, lang, self.phone_regions) for lang in LANGUAGES}

    def for_language(self, language: str) -> CompiledRules:
        """The compiled rules for `language` (KeyError for one the product does not read)."""
        return self.compiled[language]

    def swap(self, rules: ReplyRules) -> None:
        """Make `rules` the rules in force."""
        compiled = self._compile(rules)
        self.rules, self.compiled, self.version = rules, compiled, self.version + 1


class RequestIds:
    """Fresh request ids: 16 hex digits of `os.urandom`, as `secrets.token_hex(8)` gives,
    cut from 4 KiB read at once (one getrandom call per 512 ids rather than one per
    request). A forked process reads its own."""

    __slots__ = ("_pool", "_at", "_pid")

    def __init__(self) -> None:
        self._pool = b""
        self._at = 0
        self._pid = 0

    def __call__(self) -> str:
        at = self._at
        if at >= len(self._pool) or self._pid != os.getpid():
            self._pool, at, self._pid = os.urandom(4096), 0, os.getpid()
        self._at = at + 8
        return self._pool[at:at + 8].hex()


SETTINGS = web.AppKey("settings", Settings)
RULES = web.AppKey("rules", ActiveRules)
#: The compiled rules a request is screened by, taken when it arrived together with the rules
#: version its `X-ReplyGuard-Rules-Version` names (a swap meanwhile does not change them).
PINNED: Any = web.RequestKey("replyguard_rules", dict) \
    if hasattr(web, "RequestKey") else "replyguard_rules"
METRICS = web.AppKey("metrics", Metrics)
SESSION = web.AppKey("session", aiohttp.ClientSession)
GUARDRAILS = web.AppKey("guardrails", Guardrails)
REQUEST_IDS = web.AppKey("request_ids", RequestIds)
#: The upstream client's trace hooks: pool-wait timeouts, upstream reachability.
WATCH = web.AppKey("watch", UpstreamWatch)
#: The other workers' metrics, when several serve one port (proxy.peers); absent with one.
PEERS = web.AppKey("peers", Peers)


@dataclass
class Lifecycle:
    """The server's state the routes read: `stopping` once shutdown began (/readyz 503)."""

    stopping: bool = False


LIFECYCLE = web.AppKey("lifecycle", Lifecycle)
#: Screened texts of the history and system prompt clients resend with every request
#: (`engine.ScreenCache`: digests and screened results only), one per server.
SCREEN_CACHE = web.AppKey("screen_cache", ScreenCache)
OFFLOAD = web.AppKey("offload", Offload)
#: The declared tools compiled once per (language, audience); empty when none is declared.
TOOLS = web.AppKey("tools", dict)
AUDIENCES = ("customer", "staff")


#: The (language, audience) pairs whose declared tools include one refused (`allowed:
#: false`): only their replies go through a CallFilter. Decided once, with TOOLS.
REFUSING = web.AppKey("refusing", frozenset)


def compile_all_tools(settings: Settings) -> dict[tuple[str, str], CompiledTools]:
    """`settings.tools` compiled for every language and audience (none: {})."""
    if not settings.tools:
        return {}
    return {(lang, aud): compile_tools(settings.tool_rules(aud), lang)
            for lang in LANGUAGES for aud in AUDIENCES}


def refusing(tools: dict[tuple[str, str], CompiledTools]) -> frozenset[tuple[str, str]]:
    """The keys of `tools` (compile_all_tools) whose tools refuse some call."""
    return frozenset(key for key, compiled in tools.items()
                     if any(not s.allowed for s in compiled.rules.tools.values()))
def stamp(response: web.StreamResponse, record: RequestRecord) -> None:
    """The request id headers, set just before `response`'s headers go out (by the middleware
    for a whole response; by the route, before `prepare`, for a streamed one):
    `X-ReplyGuard-Request-Id` (the access log's id), `X-Request-Id` the upstream's own when it
    sent one, else ours, and `X-ReplyGuard-Verdict` (forward, withhold, exact, blocked) on a
    screened turn."""
    request_id = record.request_id
    headers = response.headers
    headers["X-ReplyGuard-Request-Id"] = request_id
    headers.setdefault("X-Request-Id", request_id)
    if record.verdict:  # forward, withhold, exact or blocked: what happened to the turn
        headers["X-ReplyGuard-Verdict"] = record.verdict


async def prepare(request: web.Request, response: web.StreamResponse) -> None:
    """Send a streamed `response`'s headers, the request id headers among them (`stamp`)."""
    record = request.get(RECORD)
    if record is not None:
        stamp(response, record)
    await response.prepare(request)
