"""What a screened request is screened with, for every API (chat, legacy completions,
Responses, Anthropic Messages): the rules and tools for its language and audience, the
reply screen each text field gets, the output stage, and the texts the guardrails read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from aiohttp import web

from replyguard.config.settings import Settings
from replyguard.engine.context import TurnContext, content_text
from replyguard.engine.json_reply import JsonReplyScreen
from replyguard.engine.reply import Piece, ReplyScreen
from replyguard.engine.request import RequestVerdict
from replyguard.engine.rules import LANGUAGES, Action, CompiledRules
from replyguard.engine.segment import split_sentences
from replyguard.engine.tools import CompiledTools
from replyguard.proxy.errors import BadRequest
from replyguard.proxy.output import OutputStage
from replyguard.proxy.pipeline import Screen, Text
from replyguard.proxy.record import RECORD
from replyguard.proxy.state import (
    AUDIENCES,
    GUARDRAILS,
    METRICS,
    PINNED,
    RULES,
    SESSION,
    SETTINGS,
    TOOLS,
)
from replyguard.proxy.upstream import upstream_headers

__all__ = ["AUDIENCE_HEADER", "LANGUAGE_HEADER", "Kind", "blocked_reply", "compiled_rules",
           "compiled_tools", "output_stage", "product_reply", "screen_maker", "turn_text",
           "user_text"]

#: The API a screened route speaks: chat completions, legacy completions, Responses.
Kind = Literal["chat", "text", "responses"]
LANGUAGE_HEADER = "X-ReplyGuard-Language"
AUDIENCE_HEADER = "X-ReplyGuard-Audience"
_LANGUAGES_BY_LOWER = {known.lower(): known for known in LANGUAGES}


def compiled_rules(request: web.Request) -> CompiledRules:
    """The rules for this request's language: the `X-ReplyGuard-Language` header (any case),
    else the settings' language (never guessed from the text)."""
    app = request.app
    language = request.headers.get(LANGUAGE_HEADER) or app[SETTINGS].language
    language = _LANGUAGES_BY_LOWER.get(language.lower(), language)
    if language not in LANGUAGES:
        raise BadRequest(f"{LANGUAGE_HEADER}: not a language ReplyGuard reads (known: "
                         f"{', '.join(LANGUAGES)})", code="invalid_language")
    compiled = request.get(PINNED) or app[RULES].compiled  # pinned: see store_app
    return compiled[language]


def compiled_tools(request: web.Request, language: str) -> CompiledTools | None:
    """The declared tools (settings `tools:`) for this request's language and audience (the
    `X-ReplyGuard-Audience` header, else the settings'), None when no tool is declared."""
    app = request.app
    audience = (request.headers.get(AUDIENCE_HEADER) or app[SETTINGS].audience).lower()
    if audience not in AUDIENCES:
        raise BadRequest(f"{AUDIENCE_HEADER}: not an audience ReplyGuard knows (known: "
                         f"{', '.join(AUDIENCES)})", code="invalid_audience")
    tools = app[TOOLS]
    if not tools:
        return None
    return tools[language, audience]


def output_stage(request: web.Request, body: dict[str, Any], rules: CompiledRules,
                  json_reply: bool) -> OutputStage:
    """The output stage (moderation, rewording; one of them is on)."""
    app = request.app
    settings, guard = app[SETTINGS], app[GUARDRAILS]
    return OutputStage(
        app[SESSION], guard=guard if guard.output else None,
        temperature=settings.reply_temperature, base_url=settings.upstream.base_url,
        model=str(body.get("model") or ""), auth=upstream_headers(request, settings),
        rules=rules, internals=settings.replies.internals,  # type: ignore[arg-type]
        record=request[RECORD], whole=json_reply)


def screen_maker(settings: Settings, kind: Kind, verdict: RequestVerdict,
                  rules: CompiledRules, tools: CompiledTools | None,
                  json_reply: bool) -> Callable[[], Screen]:
    """What makes a fresh reply screen for each text field of each choice."""
    screen_class = JsonReplyScreen if json_reply else ReplyScreen
    internals: Action = settings.replies.internals  # type: ignore[assignment]
    context = verdict.context if kind != "text" else TurnContext()
    if tools is None:
        return partial(screen_class, rules, context, settings.replies.max_sentence_chars,
                       internals=internals)
    return partial(screen_class, rules, context, settings.replies.max_sentence_chars,
                   internals=internals, tools=tools, now=time.time())


async def product_reply(stage: OutputStage, text: str, language: str) -> str:
    """A reply the product writes whole (withheld, blocked) through the output stage, each
    sentence a product sentence (reworded at `reply_temperature`)."""
    pieces = tuple(Piece(s, True) for s in split_sentences(text, language))
    return await stage(Text("content", "".join(p.text for p in pieces), pieces))


async def blocked_reply(request: web.Request, body: dict[str, Any], verdict: RequestVerdict,
                        kind: Kind, rules: CompiledRules, stage: OutputStage | None
                        ) -> str | None:
    """The input guardrails on the screened turn (their judges and moderation called at the
    OpenAI upstream, with its key): for a blocked turn, the reply the client gets (the
    check's block message, through the output stage when rewording is on), the block
    counted and recorded; else None."""
    app = request.app
    settings, guard, record = app[SETTINGS], app[GUARDRAILS], request[RECORD]
    check, how = await guard.check_turn(app[SESSION], turn_text(verdict, kind),
                                        str(body.get("model") or ""),
                                        upstream_headers(request, settings),
                                        user_text(verdict, kind), api=record.api)
    if check is None:
        return None
    app[METRICS].guardrail_blocks_by(check, record.api).inc()
    record.verdict, record.guardrail = "blocked", f"{check} ({how})"
    reply = guard.block_message(check, rules.language)
    if settings.reply_temperature > 0 and stage is not None:
        reply = await product_reply(stage, reply, rules.language)
    return reply


def user_text(verdict: RequestVerdict, kind: Kind) -> str:
    """Every screened user message (every prompt), joined by newlines."""
    if kind == "text":
        return turn_text(verdict, kind)
    return "\n".join(content_text(m.get("content")) for m in verdict.messages
                     if isinstance(m, dict) and m.get("role") == "user")


def turn_text(verdict: RequestVerdict, kind: Kind) -> str:
    """The screened turn the guardrails read: the last user message (chat), every prompt
    (legacy completions)."""
    if kind == "text":
        return "\n".join(str(m["content"]) for m in verdict.messages)
    for message in reversed(verdict.messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""
