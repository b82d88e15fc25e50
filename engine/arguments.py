"""A tool call's arguments in a reply, screened for personal data and secrets: every string
value of the arguments' JSON masked as the rules say, withhold acting as redact (an argument
cannot be dropped from a call), and the JSON kept valid; arguments that are not JSON are
screened as text, so nothing is released unscreened.

The counts are the reply's own (`reply_pd_detected_<class>`, `reply_pd_redacted`).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from replyguard.engine.reply import ScreeningError
from replyguard.engine.request_fields import MAX_DEPTH, field_label, read_after
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import screen_text

__all__ = ["screen_arguments", "screen_arguments_text", "screen_arguments_value"]

#: Integers from this size may be a card or account number written as a JSON number: read
#: as text (masked, such a number becomes a string, the mask's own).
_LONG = 10 ** 12


class _Walk:
    """One arguments value screened: `counts` gathers each string's counts; `changed` tells
    whether any string, long number or key was masked."""

    __slots__ = ("rules", "counts", "changed", "_keys")

    def __init__(self, rules: CompiledRules) -> None:
        self.rules = rules
        self.counts: Counter[str] = Counter()
        self.changed = False
        self._keys: set[str] = set()

    def text(self, text: str) -> str:
        if not text:
            return text
        screened = screen_text(text, self.rules, "tool")
        if screened.counts:
            self.counts.update(screened.counts)
        if screened.text == text:
            return text
        self.changed = True
        return screened.text

    def value(self, value: Any, depth: int = 0) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int | float):
            return self._number(value)
        if depth >= MAX_DEPTH:
            raise ScreeningError(f"tool-call arguments nested deeper than {MAX_DEPTH} objects "
                                 "and lists")
        if isinstance(value, list):
            return [self.value(item, depth + 1) for item in value]
        if isinstance(value, dict):
            return {self._key(key): self._item(value, key, item, depth)
                    for key, item in value.items()}
        return value

    def _number(self, value: float) -> Any:
        """A long whole number (`4111111111111111`, or as a float) read as text; masked, it
        becomes the masked string."""
        if isinstance(value, float) and not (value.is_integer() and abs(value) >= _LONG):
            return value
        if abs(value) < _LONG:
            return value
        text = str(int(value))
        screened = self.text(text)
        return value if screened == text else screened

    def _item(self, holder: dict[str, Any], key: str, item: Any, depth: int) -> Any:
        """An object's value; a string under a key that may name a password is read after it
        (`{"password": "S3cret!"}` as `password: S3cret!`)."""
        label = field_label(holder, key)
        if label is not None and isinstance(item, list):  # (`{"passwords": ["...", ...]}`)
            return [read_after(label, each, self.text) if isinstance(each, str) and each
                    else self.value(each, depth + 2) for each in item]
        if label is None or not isinstance(item, str) or not item:
            return self.value(item, depth + 1)
        return read_after(label, item, self.text)

    def _key(self, key: str) -> str:
        """A key masked when it holds a value (its wording is the schema's); a masked key that
        clashes with another gets a numbered suffix."""
        masked = self.text(key)
        if masked is key:
            return key
        out, n = masked, 1
        while out in self._keys:
            out, n = f"{masked} ({n})", n + 1
        self._keys.add(out)
        return out


def screen_arguments_value(value: Any, rules: CompiledRules) -> tuple[Any, Counter[str]]:
    """A parsed JSON value (an Anthropic `tool_use` block's `input`) with every string in it
    screened: (the value, the counts). The same object when nothing in it was masked. Raises
    ScreeningError for a value nested deeper than engine.request_fields.MAX_DEPTH."""
    walk = _Walk(rules)
    out = walk.value(value)
    return (out if walk.changed else value), walk.counts


def screen_arguments(text: str, rules: CompiledRules) -> tuple[str, Counter[str]]:
    """A call's arguments, a JSON text as the model wrote it (chat `function.arguments`, a
    Responses `function_call`'s `arguments`), screened: (the text to send, the counts).

    The text as it came when nothing in it was masked; else the screened document written
    compactly, non-ASCII kept (`{"card":"**** 1111"}`). Arguments that are not JSON (a
    model's slip, or cut short) are screened as text. Raises ScreeningError for a document
    nested deeper than engine.request_fields.MAX_DEPTH.
    """
    if not text or text.isspace():
        return text, Counter()
    try:
        document = json.loads(text)
    except ValueError:
        return screen_arguments_text(text, rules)
    except RecursionError as exc:
        raise ScreeningError("tool-call arguments nested too deeply to screen") from exc
    walk = _Walk(rules)
    screened = walk.value(document)
    if not walk.changed:
        return text, walk.counts
    return json.dumps(screened, ensure_ascii=False, separators=(",", ":")), walk.counts


def screen_arguments_text(text: str, rules: CompiledRules) -> tuple[str, Counter[str]]:
    """Arguments read as plain text (a custom tool's free-form `input`, or arguments that
    are not JSON), screened: (the text to send, the counts)."""
    walk = _Walk(rules)
    return walk.text(text), walk.counts
