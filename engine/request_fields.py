"""The text a chat or completions request sends upstream beside its messages or prompt: the
end-user ids (`user`, `safety_identifier`) and Predicted Outputs (`prediction`).

They are the application's text, not the turn the person typed, and are resent with every
request: screened like a system prompt or a tool result (DESIGN section 3), masked, withhold
acting as redact (asking the person to send them again could not help), never counted (a
prediction usually repeats text the turn already holds, an id comes with every request).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.rules import CompiledRules
from engine.screen import screen_text
from engine.screen_cache import ScreenCache

#: Top-level string fields that name the end user (often an email address).
ID_FIELDS = ("user", "safety_identifier")
#: Every field `screen_fields` reads; a body holding none of them costs a few dict look-ups.
FIELDS = (*ID_FIELDS, "prediction")


def _screen(text: str, rules: CompiledRules, cache: ScreenCache | None) -> str:
    if cache is None:
        return screen_text(text, rules, "tool").text
    return cache.screen(text, rules, "tool").text


def _prediction(prediction: Mapping[str, Any], rules: CompiledRules,
                cache: ScreenCache | None) -> dict[str, Any]:
    content = prediction.get("content")
    if isinstance(content, str):
        content = _screen(content, rules, cache)
    elif isinstance(content, list):
        content = [{**part, "text": _screen(part["text"], rules, cache)}
                   if isinstance(part, dict) and isinstance(part.get("text"), str) else part
                   for part in content]
    return {**prediction, "content": content}


def screen_fields(body: Mapping[str, Any], rules: CompiledRules,
                  cache: ScreenCache | None = None) -> dict[str, Any]:
    """The fields of `FIELDS` that `body` holds, screened: each id string, and the content of
    `prediction` (a string, or a list of parts whose `text` is screened). Returns the fields
    to send in place of the client's, {} when the body holds none; the input is not mutated.

    Shapes are the caller's to check (the proxy refuses others with a 400): a field of any
    other shape is returned as it is.
    """
    out: dict[str, Any] = {}
    for name in ID_FIELDS:
        value = body.get(name)
        if isinstance(value, str):
            out[name] = _screen(value, rules, cache)
    prediction = body.get("prediction")
    if isinstance(prediction, Mapping):
        out["prediction"] = _prediction(prediction, rules, cache)
    return out
