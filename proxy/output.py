"""The output stage: what happens to released reply text after the engine and before the
client, for the checks that call a model — product sentences reworded at `reply_temperature`
(the `reply_temperature_*` counts) and every sentence moderated (guardrails
`moderation.output`). Run per chunk by the relay's pipeline (proxy/relay.py), or on each text
field of a whole completion.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

import aiohttp
import orjson

from replyguard.engine.reply import Piece
from replyguard.engine.rewording import TEMPERATURE_KEPT, TEMPERATURE_VARIED, rewording_accepted
from replyguard.engine.rules import Action, CompiledRules
from replyguard.engine.segment import split_sentences
from replyguard.proxy.errors import OutputBlocked
from replyguard.proxy.guardrails import Guardrails
from replyguard.proxy.judges import completion_text
from replyguard.proxy.pipeline import Slot, Text
from replyguard.proxy.record import RequestRecord

log = logging.getLogger("replyguard.output")

#: The fixed rewording request (docs/actions.md). The sentence is sent between tags.
REWORD_PROMPT = (
    "Reword the sentence between the <sentence> tags so it reads naturally in a customer "
    "conversation. Keep its meaning, its language, its form (statement, question or request), "
    "every number, amount, name and code exactly as written, and every negation. Answer with "
    "the reworded sentence only, without tags or quotes."
)
REWORD_TIMEOUT_S = 10.0


class OutputStage:
    """One response's output stage: `await stage(text)` gives the text to send for a released
    `Text` (its sentences, when it has them, tell the product's from the model's).

    `guard`: moderates each sentence (None: off). `temperature` > 0: each product sentence
    (not an exact reply) is reworded by `model` at the upstream `base_url` and read back with
    `engine.rewording`: a rewording that lost a locked word or changed the mood is dropped
    for the template's sentence (`reply_temperature_kept`), else it is sent
    (`reply_temperature_varied`). A rewording the reply screen would change, or that states
    a value the template does not, is dropped too. A failed rewording call sends the template
    (counted kept).
    `whole`: the text is one piece (a JSON document), never split.
    """

    def __init__(self, session: aiohttp.ClientSession, *, guard: Guardrails | None,
                 temperature: float, base_url: str, model: str, auth: Mapping[str, str],
                 rules: CompiledRules, internals: Action, record: RequestRecord,
                 whole: bool = False) -> None:
        self.session, self.guard, self.temperature = session, guard, temperature
        self.base_url, self.model, self.auth = base_url, model, auth
        self.rules, self.internals, self.language = rules, internals, rules.language
        self.record, self.counts, self.whole = record, record.counts, whole

    async def __call__(self, released: Text) -> str:
        text = released.text
        if not text.strip():
            return text
        if released.pieces is not None:
            pieces = list(released.pieces)
        elif self.whole:
            pieces = [Piece(text, False)]
        else:
            pieces = [Piece(s, False) for s in split_sentences(text, self.language)]
        texts = [p.text for p in pieces]
        if self.temperature > 0:
            jobs = {i: self._reword(p.text) for i, p in enumerate(pieces)
                    if p.product and not p.exact and p.text.strip()}
            for i, reworded in zip(jobs, await asyncio.gather(*jobs.values()), strict=True):
                texts[i] = reworded
        if self.guard is not None:
            checked = await self.guard.moderate(self.session, texts, auth=self.auth,
                                                record=self.record)
            if self.whole and checked != texts:
                raise OutputBlocked("the reply was flagged by moderation; a JSON reply cannot "
                                    "lose a part, so none of it was sent")
            texts = checked
        return "".join(texts)

    async def _reword(self, sentence: str) -> str:
        """`sentence` reworded, or itself when the rewording must not be used."""
        core = sentence.strip()
        lead = sentence[: len(sentence) - len(sentence.lstrip())]
        trail = sentence[len(sentence.rstrip()) :]
        try:
            async with asyncio.timeout(REWORD_TIMEOUT_S):
                reworded = await self._ask(core)
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("rewording a product sentence failed (%s); the template is sent",
                        type(exc).__name__)
            reworded = None
        if reworded is None or not rewording_accepted(core, reworded, self.rules,
                                                      self.internals):
            self.counts[TEMPERATURE_KEPT] += 1
            return sentence
        self.counts[TEMPERATURE_VARIED] += 1
        return lead + reworded + trail

    async def _ask(self, sentence: str) -> str:
        payload = {"model": self.model, "temperature": self.temperature, "max_tokens": 200,
                   "stream": False, "messages": [
                       {"role": "system", "content": REWORD_PROMPT},
                       {"role": "user", "content": f"<sentence>{sentence}</sentence>"}]}
        async with self.session.post(f"{self.base_url}/chat/completions",
                                     data=orjson.dumps(payload), headers=dict(self.auth),
                                     allow_redirects=False) as resp:
            if resp.status != 200:
                raise ValueError(f"HTTP {resp.status}")
            body = orjson.loads(await resp.read())
        answer = completion_text(body)
        if answer is None:
            raise ValueError("no text at choices[0].message.content")
        return " ".join(answer.split()).strip("\"'“”")


async def stage_texts(texts: list[Slot], stage: OutputStage) -> None:
    """Run each released text of a whole reply through the output stage, putting the result
    where the text was (concurrently across fields and choices)."""
    results = await asyncio.gather(*(stage(text) for _, text in texts))
    for (holder, text), result in zip(texts, results, strict=True):
        holder[text.field] = result
