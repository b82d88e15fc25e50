"""Legacy completions' prompts screened as a turn: each prompt, and the `suffix` (the text
after the insertion point) as part of the prompt, with one verdict for them all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from replyguard.engine.request import WITHHELD_REPLY, RequestVerdict
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import WITHHELD, screen_text

__all__ = ["screen_prompts"]


def screen_prompts(prompts: Sequence[str], suffix: str | None, rules: CompiledRules
                   ) -> tuple[RequestVerdict, str | None]:
    """Screen legacy prompts and their `suffix` as one turn: the verdict (its messages: one
    user message per screened prompt) and the screened suffix (None when there is none).

    The suffix is counted with the prompts, and a withheld value in it holds the request
    back as one in a prompt does; `reply_pd_withheld` is counted once for the turn, not
    again for the suffix when a prompt was already withheld. A withheld turn is answered
    with the withheld reply (`WITHHELD_REPLY`) and forwards nothing.
    """
    counts: Counter[str] = Counter()
    screened = []
    withheld: set[str] = set()
    for text in prompts:
        result = screen_text(text, rules, "turn")
        counts.update(result.counts)
        withheld.update(result.withheld)
        screened.append(result.text)
    screened_suffix = None
    if suffix is not None:
        result = screen_text(suffix, rules, "turn")
        counts.update({k: v for k, v in result.counts.items()
                       if k != WITHHELD or not withheld})
        withheld.update(result.withheld)
        screened_suffix = result.text
    if withheld:
        return RequestVerdict("withhold", [], WITHHELD_REPLY[rules.language], dict(counts),
                              tuple(sorted(withheld))), screened_suffix
    messages = [{"role": "user", "content": p} for p in screened]
    return RequestVerdict("forward", messages, None, dict(counts)), screened_suffix
