"""Screening a reply that is a JSON document (`response_format` `json_object` or
`json_schema`): every string value is screened as a reply of its own, and the document stays
valid JSON, because a removed sentence is removed from its string, not from the document.

The reply is held whole (a JSON document is read at its end). A reply that does not parse as
JSON is screened as ordinary text, so nothing is ever released unscreened.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from replyguard.engine.context import TurnContext
from replyguard.engine.find import find
from replyguard.engine.reply import ReplyScreen, ScreeningError
from replyguard.engine.request_fields import field_label, read_after
from replyguard.engine.rules import Action, CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.engine.tools import CompiledTools

MAX_HELD = 1 << 24  # characters of a JSON reply held to be screened whole


class JsonReplyScreen:
    """The `ReplyScreen` interface (`feed(delta) -> str`, `finish() -> str`, `counts`) for a
    JSON reply: `feed` holds everything and returns ""; `finish` returns the document with
    each string value screened as a reply (with `tools`, the action checks too), each key
    holding personal data or a secret masked, re-serialised compactly with non-ASCII kept.
    `must_accompany` sentences are not added to a document.
    Raises ScreeningError if screening fails; the screen is closed after `finish`."""

    def __init__(self, rules: CompiledRules, context: TurnContext | None = None,
                 max_chars: int = 2000, internals: Action = "allow", *,
                 tools: CompiledTools | None = None, now: float | None = None) -> None:
        self.rules = rules
        self.internals = internals
        self.tools, self.now = tools, now
        self.context = context
        self.max_chars = max_chars
        self.counts: Counter[str] = Counter()
        self._pieces: list[str] = []
        self._held = 0
        self._closed = False
        self._keys = 0
        self._used: set[str] = set()

    def feed(self, delta: str) -> str:
        """Hold the next piece of the reply; nothing is released before the end. Raises
        ScreeningError past `MAX_HELD` characters (the document cannot be screened)."""
        if self._closed:
            raise ScreeningError("the reply screen is closed")
        self._held += len(delta)
        if self._held > MAX_HELD:
            self._closed = True
            raise ScreeningError(f"the JSON reply is over {MAX_HELD} characters")
        self._pieces.append(delta)
        return ""

    def finish(self) -> str:
        """The whole reply, screened: a JSON document with its strings screened, or, when it
        does not parse, the text screened as an ordinary reply."""
        if self._closed:
            raise ScreeningError("the reply screen is closed")
        self._closed = True
        text = "".join(self._pieces)
        try:
            document = json.loads(text)
        except ValueError:
            return self._text(text, additions=True)
        try:
            screened = self._walk(document)
        except RecursionError as exc:
            raise ScreeningError("the JSON reply is nested too deeply to screen") from exc
        return json.dumps(screened, ensure_ascii=False, separators=(",", ":"))

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._text(value, additions=False) if value else value
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 12:
            text = str(value)  # a long number may be a card: masked, it becomes a string
            screened = self._text(text, additions=False)
            return value if screened == text else screened
        if isinstance(value, float) and value.is_integer() and abs(value) >= 1e12:
            text = str(int(value))  # 4111111111111111.0 or 4.111111111111111e15: the same
            screened = self._text(text, additions=False)
            return value if screened == text else screened
        if isinstance(value, dict):
            return {self._key(key): self._item(field_label(value, key), item)
                    for key, item in value.items()}
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        return value

    def _item(self, label: str | None, item: Any) -> Any:
        """An object's value; a string under a key that may name a password, or each string
        of a list under it, read after it (`field_label`: `{"password": "S3cret!"}` as
        `password: "S3cret!"`)."""
        if label is not None and isinstance(item, list):  # (`{"passwords": ["...", ...]}`)
            return [self._item(label, each) for each in item]
        if label is None or not isinstance(item, str) or not item:
            return self._walk(item)
        return read_after(label, item, lambda text: self._text(text, additions=False))

    def _key(self, key: str) -> str:
        """A key screened for personal data and secrets only (its wording is the schema's):
        a value found in it is masked, whatever its class's action (a key cannot be removed
        from a document); a masked key that clashes gets a numbered suffix."""
        if not find(key):
            return key
        screened = screen_text(key, self.rules, "tool")
        self.counts.update(screened.counts)
        out = screened.text
        if out in self._used:
            self._keys += 1
            out = f"{out} ({self._keys})"
        self._used.add(out)
        return out

    def _text(self, text: str, additions: bool) -> str:
        screen = ReplyScreen(self.rules, self.context, self.max_chars, additions=additions,
                             internals=self.internals, tools=self.tools, now=self.now)
        out = screen.feed(text) + screen.finish()
        self.counts.update(screen.counts)
        return out
