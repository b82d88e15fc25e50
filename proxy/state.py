"""The app's typed state (aiohttp AppKeys), the active reply rules, and the request id headers
every response carries (`stamp`, `prepare`)."""

from __future__ import annotations

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
from replyguard.proxy.ops_thread import Heartbeat
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


SETTINGS = web.AppKey("settings", Settings)
RULES = web.AppKey("rules", ActiveRules)
#: The compiled rules a request is screened by, taken when it arrived together with the rules
#: version its `X-ReplyGuard-Rules-Version` names (a swap meanwhile does not change them).
PINNED: Any = web.RequestKey("replyguard_rules", dict) \
    if hasattr(web, "RequestKey") else "replyguard_rules"
METRICS = web.AppKey("metrics", Metrics)
SESSION = web.AppKey("session", aiohttp.ClientSession)
GUARDRAILS = web.AppKey("guardrails", Guardrails)
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
#: The main event loop's heartbeat (proxy.ops_thread), when the app is served by a Server.
BEAT = web.AppKey("heartbeat", Heartbeat)
#: The declared tools compiled once per (language, audience); empty when none is declared.
TOOLS = web.AppKey("tools", dict)
AUDIENCES = ("customer", "staff")


def compile_all_tools(settings: Settings) -> dict[tuple[str, str], CompiledTools]:
    """`settings.tools` compiled for every language and audience (none: {})."""
    if not settings.tools:
        return {}
    return {(lang, aud): compile_tools(settings.tool_rules(aud), lang)
            for lang in LANGUAGES for aud in AUDIENCES}


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
