"""Screening one piece of text for personal data: find, decide the action, mask, count.

The actions: redact masks the value, withhold holds back the whole turn (or removes the whole
reply sentence), allow leaves it as it is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from replyguard.engine.find import Finding, apply_masks, find
from replyguard.engine.rules import CompiledRules

Side = Literal["turn", "reply", "tool"]
Outcome = Literal["allow", "redact", "withhold"]

REDACTED = "reply_pd_redacted"
WITHHELD = "reply_pd_withheld"
MASKED = "reply_pd_masked"


def detected(cls: str) -> str:
    """The count name for a value of class `cls` found: `reply_pd_detected_<class>`."""
    return f"reply_pd_detected_{cls}"


@dataclass(frozen=True, slots=True)
class Screened:
    """The result of screening a text.

    `text` is what may be released: masked where the rules redact; for a withheld reply
    sentence it is `""`; for a withheld turn it is the turn with every found value masked
    (never forwarded, but safe to show or record). `action` is the strongest action taken
    (allow < redact < withhold). `counts` are count names (`reply_pd_*`) -> increments.
    `withheld` names the classes that caused a withhold, sorted.
    """

    text: str
    action: Outcome
    counts: Mapping[str, int] = field(default_factory=dict)
    withheld: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()


def screen_text(
    text: str,
    rules: CompiledRules,
    side: Side = "turn",
    findings: list[Finding] | None = None,
) -> Screened:
    """Screen `text` as a request turn (`side="turn"`), a tool result (`"tool"`: withhold
    acts as redact, since a tool message cannot be dropped) or a reply sentence (`"reply"`).

    Counts: `reply_pd_detected_<class>` per value; `reply_pd_redacted` per value masked
    because its class is redacted; `reply_pd_withheld` once when the turn is held back or
    the sentence removed. `findings` may be passed when already computed for `text` (with
    `rules.detectors`).
    """
    if findings is None:
        findings = find(text, rules.detectors)
    if not findings:
        return Screened(text, "allow")
    counts: Counter[str] = Counter(detected(f.cls) for f in findings)
    actions = rules.actions
    withheld = sorted({f.cls for f in findings if actions[f.cls] == "withhold"})
    if withheld and side != "tool":
        counts[WITHHELD] += 1
        masked = apply_masks(text, findings, {c: a != "allow" for c, a in actions.items()})
        released = "" if side == "reply" else masked
        return Screened(released, "withhold", dict(counts), tuple(withheld), tuple(findings))
    to_mask = {c: a != "allow" for c, a in actions.items()}
    n_masked = sum(1 for f in findings if to_mask[f.cls])
    if not n_masked:
        return Screened(text, "allow", dict(counts), (), tuple(findings))
    counts[REDACTED] += n_masked
    return Screened(apply_masks(text, findings, to_mask), "redact", dict(counts), (),
                    tuple(findings))
