"""The reply rules as immutable values: classes, actions, wording (the reply rules file).

`ReplyRules` is what a rules file says; `compile_rules` turns it once into `CompiledRules`, the
object every screening call takes. Nothing here reads files: `config.rules` does that.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from replyguard.engine.detector import Detector
from replyguard.engine.detector_sets import PHONE_REGIONS_BY_LANGUAGE, detectors_for, phone_regions
from replyguard.engine.text import PhrasePattern, phrase_pattern, wording, wording_spans

Action = Literal["redact", "withhold", "allow"]
ACTIONS: tuple[Action, ...] = ("redact", "withhold", "allow")
Language = Literal["en", "pt-BR"]
LANGUAGES: tuple[Language, ...] = ("en", "pt-BR")

#: Every class a detector finds, with the action it gets where the rules say nothing
#: (personal data: card, iban and national ids redacted, email and phone allowed; secrets
#: redacted, IP addresses allowed).
DEFAULT_ACTIONS: Mapping[str, Action] = MappingProxyType(
    {
        "card": "redact",
        "iban": "redact",
        "national_id": "redact",
        "email": "allow",
        "phone": "allow",
        "api_key": "redact",
        "aws_access_key": "redact",
        "private_key": "redact",
        "jwt": "redact",
        "password": "redact",
        "ip_address": "allow",
    }
)
CLASSES: tuple[str, ...] = tuple(DEFAULT_ACTIONS)


@dataclass(frozen=True, slots=True)
class MustAccompany:
    """`must_accompany[]`: `add` is appended once when `when_done` ran or `when_cited` was cited."""

    add: str
    when_done: str | None = None
    when_cited: str | None = None


@dataclass(frozen=True, slots=True)
class ReplyExactly:
    """`reply_exactly[]`: `say` is the whole reply when the turn asks about `when_asked`
    (its `words`, else the topic name with `_`/`-` read as spaces) or a passage tagged
    `when_cited` is cited."""

    say: str
    when_asked: str | None = None
    when_cited: str | None = None
    words: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ReplyRules:
    """Exactly the keys of the reply rules file, as frozen values.

    `personal_data` maps a class to its action; classes not listed take `DEFAULT_ACTIONS`.
    """

    personal_data: Mapping[str, Action] = field(default_factory=lambda: MappingProxyType({}))
    never_say: tuple[str, ...] = ()
    offers_allowed: tuple[str, ...] = ()
    offers_markers: tuple[str, ...] = ()
    must_accompany: tuple[MustAccompany, ...] = ()
    reply_exactly: tuple[ReplyExactly, ...] = ()

    def action(self, cls: str) -> Action:
        """The action for detector class `cls` (the rules' own, else the default)."""
        return self.personal_data.get(cls, DEFAULT_ACTIONS[cls])


@dataclass(frozen=True, slots=True)
class CompiledRules:
    """`ReplyRules` compiled once for one language: actions resolved, phrase lists made into
    one alternation each (matched on accent-folded text in pt-BR, lower-cased text always).

    Attributes: `actions` (class -> action), `never_say` / `offers_markers` / `offers_allowed`
    (a `PhrasePattern` or None when the list is empty), `asked` (one pattern per
    `reply_exactly` entry with `when_asked`, in file order, paired with the entry),
    `phone_regions` (where national phone numbers are read) and `detectors` (the detector
    set reading them there, which every screen passes to `find`).
    """

    rules: ReplyRules
    language: Language
    actions: Mapping[str, Action]
    never_say: PhrasePattern | None
    offers_markers: PhrasePattern | None
    offers_allowed: PhrasePattern | None
    asked: tuple[tuple[PhrasePattern, ReplyExactly], ...]
    phone_regions: tuple[str, ...] = PHONE_REGIONS_BY_LANGUAGE["en"]
    detectors: Sequence[Detector] = field(default_factory=lambda: detectors_for(("US", "GB")))

    def words(self, text: str) -> str:
        """Text as phrase patterns match it (`engine.text.wording`): its canonical view,
        folded, invisible characters removed, the marks inside words read as spaces
        (offsets do not hold)."""
        return wording(text, strip_accents=self.language == "pt-BR")

    def never_say_spans(self, text: str) -> list[tuple[int, int]]:
        """Where in `text` a `never_say` phrase is said (`engine.text.wording_spans`)."""
        if self.never_say is None:
            return []
        return wording_spans(self.never_say, text, strip_accents=self.language == "pt-BR")


def compile_rules(rules: ReplyRules, language: Language = "en",
                  phone_regions: Iterable[str] | None = None) -> CompiledRules:
    """Compile `rules` for `language` ("en" or "pt-BR"), national phone numbers read in
    `phone_regions` (ISO 3166-1 alpha-2 codes; None: the language's, `en` US and GB,
    `pt-BR` BR; a `+` number is always read in its own country's plan). Raises ValueError
    for another language or a region with no numbering plan."""
    if language not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {', '.join(LANGUAGES)}")
    regions = _regions(language, phone_regions)
    accents = language == "pt-BR"
    asked: list[tuple[PhrasePattern, ReplyExactly]] = []
    for entry in rules.reply_exactly:
        if entry.when_asked is None:
            continue
        words = entry.words or (re.sub(r"[_-]+", " ", entry.when_asked),)
        pattern = phrase_pattern(words, strip_accents=accents)
        if pattern is not None:
            asked.append((pattern, entry))
    return CompiledRules(
        rules=rules,
        language=language,
        actions=MappingProxyType({cls: rules.action(cls) for cls in CLASSES}),
        never_say=phrase_pattern(rules.never_say, strip_accents=accents),
        offers_markers=phrase_pattern(rules.offers_markers, strip_accents=accents),
        offers_allowed=phrase_pattern(rules.offers_allowed, strip_accents=accents),
        asked=tuple(asked),
        phone_regions=regions,
        detectors=detectors_for(regions),
    )


def _regions(language: Language, given: Iterable[str] | None) -> tuple[str, ...]:
    """The regions national phone numbers are read in: `given`, else the language's."""
    return phone_regions(PHONE_REGIONS_BY_LANGUAGE[language] if given is None else given)
