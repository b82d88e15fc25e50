"""Guardrails before and after the model: topic focus, prompt injection, moderation.

Input: the local prompt-injection patterns first (a match blocks at once); then the enabled
external checks (moderation, prompt-injection judge, topic judge) concurrently, each bounded by
its timeout, on every window of the whole message. The reason recorded when several trigger
follows a fixed order: moderation, then prompt_injection, then topic. A check that errs or
times out lets the turn through (`on_error: allow`, fail-open) or blocks it
(`block`); both are counted. Output: each released sentence is sent to moderation before it
reaches the client (see proxy/relay.py for the pipelining); a flagged one is removed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import aiohttp

from replyguard.config.guardrails import GuardrailsSettings
from replyguard.engine.injection import detect_injection
from replyguard.proxy.errors import OutputBlocked
from replyguard.proxy.judges import (
    INJECTION_QUESTION,
    TOPIC_QUESTION,
    CheckError,
    ask_judge,
    moderate,
    windows,
)
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.offload import Offload
from replyguard.proxy.record import RequestRecord

log = logging.getLogger("replyguard.guardrails")

#: Judge calls one check makes at once (the windows of a long message): the upstream's
#: connection pool is shared with every client's requests.
JUDGE_CONCURRENCY = 8


class TooLong(CheckError):
    """The message needs more windows than `guardrails.max_windows`."""


#: The reporting order when several checks trigger on one message.
ORDER = ("moderation", "prompt_injection", "topic")

#: Default block messages, by language: in English the guardrails' documented defaults word
#: for word (the site's name in place of `{site_name}`), in Portuguese their translation.
TOPIC_BLOCK = {
    "en": "I can only help with questions about {site_name}. What would you like to know?",
    "pt-BR": "Só posso ajudar com perguntas sobre {site_name}. O que você gostaria de saber?",
}
GENERAL_BLOCK = {
    "en": "Sorry, I can't help with that. Is there anything else I can help you with?",
    "pt-BR": "Desculpe, não posso ajudar com isso. Posso ajudar com mais alguma coisa?",
}


class Guardrails:
    """The configured checks of one app. `session` is the app's upstream ClientSession;
    `base_url` the upstream's, used by checks that name no endpoint of their own."""

    def __init__(self, settings: GuardrailsSettings, metrics: Metrics, base_url: str) -> None:
        self.settings = settings
        self.metrics = metrics
        self.base_url = base_url
        m = settings.moderation
        #: Is each reply sentence moderated before release? (Read on every request: decided
        #: once, the settings are frozen.)
        self.output: bool = m.enabled and m.output
        #: Is any check run on the turn?
        self.input: bool = settings.prompt_injection.enabled or settings.topic.enabled or (
            m.enabled and m.input)
        #: Where the local patterns read a long text (off the event loop).
        self.offload = Offload()

    def block_message(self, check: str, language: str) -> str:
        """What a turn blocked by `check` is told: the custom `block_message`, else the
        topic default naming the site, else the general default."""
        if self.settings.block_message:
            return self.settings.block_message
        if check == "topic":
            site = self.settings.topic.site_name or "this site"
            return TOPIC_BLOCK.get(language, TOPIC_BLOCK["en"]).format(site_name=site)
        return GENERAL_BLOCK.get(language, GENERAL_BLOCK["en"])

    async def check_turn(self, session: aiohttp.ClientSession, text: str, model: str,
                         auth: Mapping[str, str], everything: str | None = None,
                         *, api: str) -> tuple[str | None, str | None]:
        """Run the enabled input checks on `text` (the screened turn); the local patterns
        read `everything` (every user message of the request, joined by newlines: an
        injection kept in the history or split over messages reaches the model too) when
        given. `api`: the API the request speaks (the metrics' label). Returns (check that
        blocks or None, how: "pattern", "flagged" or "error")."""
        s = self.settings
        if s.prompt_injection.enabled:
            started = time.perf_counter()
            read = everything if everything is not None else text
            match = await self.offload.run(len(read), detect_injection, read, process=True)
            self._observe("prompt_injection_local", "input", started, api)
            if match is not None:
                return "prompt_injection", "pattern"
        parts = windows(text, s.window_chars)
        if len(parts) > s.max_windows:  # nothing is cut off: the checks fail instead
            too_long = TooLong(f"{len(parts)} windows, over max_windows {s.max_windows}")

            async def fail() -> bool:
                raise too_long

            calls: dict[str, Callable[[], Awaitable[bool]]] = {}
            if s.moderation.enabled and s.moderation.input:
                calls["moderation"] = fail
            if s.prompt_injection.enabled and s.prompt_injection.use_judge:
                calls["prompt_injection"] = fail
            if s.topic.enabled:
                calls["topic"] = fail
            return await self._run(calls, api)
        calls = {}
        if s.moderation.enabled and s.moderation.input:
            calls["moderation"] = lambda: self._moderated(session, parts, auth)
        if s.prompt_injection.enabled and s.prompt_injection.use_judge:
            calls["prompt_injection"] = lambda: self._judged(
                session, s.prompt_injection.judge, INJECTION_QUESTION, parts, model, auth,
                flag_on=True)
        if s.topic.enabled:
            question = TOPIC_QUESTION.format(site_name=s.topic.site_name)
            calls["topic"] = lambda: self._judged(session, s.topic.judge, question, parts,
                                                  model, auth, flag_on=False)
        return await self._run(calls, api)

    async def _run(self, calls: dict[str, Callable[[], Awaitable[bool]]], api: str
                   ) -> tuple[str | None, str | None]:
        """Run the external checks concurrently; the first to block in reporting order."""
        if not calls:
            return None, None
        tasks = {name: asyncio.ensure_future(self._bounded(name, "input", call, api))
                 for name, call in calls.items()}
        try:
            for name in ORDER:  # in reporting order: a later check never waits for nothing
                if name in tasks:
                    verdict = await tasks[name]
                    if verdict is not None:
                        return name, verdict
            return None, None
        finally:
            for task in tasks.values():
                task.cancel()

    async def _bounded(self, name: str, stage: str, call: Callable[[], Awaitable[bool]],
                       api: str) -> str | None:
        """Run one check within its timeout: "flagged", "error" (when its `on_error` is
        block), or None to let the turn through."""
        spec = getattr(self.settings, name)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(spec.timeout_ms / 1000):
                flagged = await call()
        except (CheckError, TimeoutError) as exc:
            kind = "timeout" if isinstance(exc, TimeoutError) else \
                "too_long" if isinstance(exc, TooLong) else "error"
            self.metrics.guardrail_errors.labels(name, stage, kind, api).inc()
            decision = "closed" if spec.on_error == "block" else "open"
            self.metrics.guardrail_decisions.labels(name, stage, decision, api).inc()
            log.warning("guardrail %s (%s) failed: %s; failing %s", name, stage,
                        "timed out" if kind == "timeout" else exc, decision)
            return "error" if decision == "closed" else None
        finally:
            self._observe(name, stage, started, api)
        return "flagged" if flagged else None

    def _observe(self, name: str, stage: str, started: float, api: str) -> None:
        self.metrics.guardrail_seconds.labels(name, stage, api).observe(
            time.perf_counter() - started)

    async def _moderated(self, session: aiohttp.ClientSession, parts: Sequence[str],
                         auth: Mapping[str, str]) -> bool:
        flags = await moderate(session, self.settings.moderation, self.base_url, auth, parts)
        return any(flags)

    async def _judged(self, session: aiohttp.ClientSession, judge: Any, question: str,
                      parts: Sequence[str], model: str, auth: Mapping[str, str], *,
                      flag_on: bool) -> bool:
        """Ask the judge about every window at once; flagged when any window's answer is
        `flag_on` ("yes" for injection, "no" for topic)."""
        gate = asyncio.Semaphore(JUDGE_CONCURRENCY)

        async def ask(part: str) -> bool:
            async with gate:
                return await ask_judge(session, judge, self.base_url, auth, model, question,
                                       part)

        answers = await asyncio.gather(*(ask(part) for part in parts))
        return any(answer is flag_on for answer in answers)

    async def moderate(self, session: aiohttp.ClientSession, sentences: Sequence[str], *,
                       auth: Mapping[str, str], record: RequestRecord) -> list[str]:
        """The output check: `sentences` (released reply text, one sentence each) with each
        one moderation flags replaced by "" (removed). Blank ones are not sent. On a
        moderation failure: all of them (`on_error: allow`), or OutputBlocked (`block`: the
        client gets an error, never an empty reply)."""
        asked = [i for i, s in enumerate(sentences) if s.strip()]
        if not asked:
            return list(sentences)
        flags = [False] * len(sentences)

        async def call() -> bool:
            answers = await moderate(session, self.settings.moderation, self.base_url, auth,
                                     [sentences[i] for i in asked])
            for i, flagged in zip(asked, answers, strict=True):
                flags[i] = flagged
            return any(answers)

        verdict = await self._bounded("moderation", "output", call, record.api)
        if verdict == "error":
            record.guardrail_output = "blocked_on_error"
            raise OutputBlocked("the reply could not be checked by moderation (on_error: "
                                "block); the rest of it was not sent")
        if verdict is None:
            return list(sentences)
        self.metrics.guardrail_output_removed.inc(sum(flags))
        record.guardrail_output = "flagged"
        return ["" if flagged else s for s, flagged in zip(sentences, flags, strict=True)]
