"""The reply rules file: YAML or JSON -> `engine.ReplyRules`.

Exactly the rules file's keys are read (`personal_data`, `never_say`, `offers`,
`must_accompany`, `reply_exactly` and theirs: docs/rules.md); anything else is refused with its
dotted key, and every problem of a file is reported at once in one ConfigError.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import MappingProxyType

from replyguard.config.errors import ConfigError
from replyguard.config.files import read_document
from replyguard.engine.rules import (
    ACTIONS,
    CLASSES,
    Action,
    MustAccompany,
    ReplyExactly,
    ReplyRules,
)

TOP_KEYS = ("must_accompany", "never_say", "offers", "personal_data", "reply_exactly")
OFFERS_KEYS = ("allowed", "markers")
MUST_ACCOMPANY_KEYS = ("add", "when_cited", "when_done")
REPLY_EXACTLY_KEYS = ("say", "when_asked", "when_cited", "words")


def _known(keys: tuple[str, ...]) -> str:
    return ", ".join(sorted(keys))


def _describe(value: object) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"


class _Checker:
    """Collects errors while reading a document; each error starts with its dotted key."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, key: str, message: str) -> None:
        self.errors.append(f"{key}: {message}")

    def mapping(self, key: str, value: object, known: tuple[str, ...]) -> dict[str, object]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(key, f"expected a mapping, got {_describe(value)}")
            return {}
        out: dict[str, object] = {}
        for name, item in value.items():
            if name not in known:
                where = f"{key}.{name}" if key else str(name)
                self.fail(where, f"unknown key (known: {_known(known)})")
            else:
                out[name] = item
        return out

    def entry(self, key: str, value: object, known: tuple[str, ...]) -> dict[str, object] | None:
        """An entry of a list, which must be a mapping (its `known` keys, as `mapping` reads
        them); None, the error noted, when it is none."""
        if not isinstance(value, dict):
            self.fail(key, f"expected a mapping, got {_describe(value)}")
            return None
        return self.mapping(key, value, known)

    def text(self, key: str, value: object, required: bool = False) -> str | None:
        if value is None:
            if required:
                self.fail(key, "required")
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"expected a non-empty string, got {_describe(value)}")
            return None
        return value

    def fields(self, key: str, entry: dict[str, object], first: str, *others: str
               ) -> list[str | None]:
        """The text fields of an entry at `key`: `first` (required), then `others`."""
        return [self.text(f"{key}.{name}", entry.get(name), required=name == first)
                for name in (first, *others)]

    def texts(self, key: str, value: object) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            self.fail(key, f"expected a list of strings, got {_describe(value)}")
            return ()
        out = []
        for i, item in enumerate(value):
            checked = self.text(f"{key}[{i}]", item, required=True)
            if checked is not None:
                out.append(checked)
        return tuple(out)

    def entries(self, key: str, value: object, read: Callable[[str, object], object]) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(key, f"expected a list, got {_describe(value)}")
            return []
        out = []
        for i, item in enumerate(value):
            entry = read(f"{key}[{i}]", item)
            if entry is not None:
                out.append(entry)
        return out


def _personal_data(check: _Checker, value: object) -> dict[str, Action]:
    out: dict[str, Action] = {}
    if value is None:
        return out
    if not isinstance(value, dict):
        check.fail("personal_data",
                   f"expected a mapping of class to action, got {_describe(value)}")
        return out
    for cls, action in value.items():
        key = f"personal_data.{cls}"
        if cls not in CLASSES:
            check.fail(key, f"unknown class (known: {_known(CLASSES)})")
        elif action not in ACTIONS:
            check.fail(key, f"{action!r} is not one of {', '.join(ACTIONS)}")
        else:
            out[cls] = action
    return out


def _must_accompany(check: _Checker, key: str, value: object) -> MustAccompany | None:
    entry = check.entry(key, value, MUST_ACCOMPANY_KEYS)
    if entry is None:
        return None
    add, done, cited = check.fields(key, entry, "add", "when_done", "when_cited")
    if "when_done" not in entry and "when_cited" not in entry:
        check.fail(key, "needs when_done or when_cited")
    if add is None:
        return None
    return MustAccompany(add=add, when_done=done, when_cited=cited)


def _reply_exactly(check: _Checker, key: str, value: object) -> ReplyExactly | None:
    entry = check.entry(key, value, REPLY_EXACTLY_KEYS)
    if entry is None:
        return None
    say, asked, cited = check.fields(key, entry, "say", "when_asked", "when_cited")
    words = check.texts(f"{key}.words", entry.get("words"))
    if ("when_asked" in entry) == ("when_cited" in entry):
        check.fail(key, "needs exactly one of when_asked or when_cited")
    if words and "when_asked" not in entry:
        check.fail(f"{key}.words", "only read with when_asked")
    if say is None:
        return None
    return ReplyExactly(say=say, when_asked=asked, when_cited=cited, words=words)


def parse_rules(document: object, source: str = "<rules>") -> ReplyRules:
    """Validate a parsed rules document (the file's mapping) into frozen `ReplyRules`.

    An empty document gives the default rules. Raises ConfigError listing every problem,
    e.g. `personal_data.cardd: unknown class (known: ...)`.
    """
    check = _Checker()
    if document is not None and not isinstance(document, dict):
        raise ConfigError(source, [f"(top level): expected a mapping, got {_describe(document)}"])
    personal_data: dict[str, Action] = {}
    never_say: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    accompany: list = []
    exactly: list = []
    for name, value in (document or {}).items():  # in file order, so errors come in file order
        if name == "personal_data":
            personal_data = _personal_data(check, value)
        elif name == "never_say":
            never_say = check.texts("never_say", value)
        elif name == "offers":
            offers = check.mapping("offers", value, OFFERS_KEYS)
            allowed = check.texts("offers.allowed", offers.get("allowed"))
            markers = check.texts("offers.markers", offers.get("markers"))
        elif name == "must_accompany":
            accompany = check.entries(
                "must_accompany", value, lambda k, v: _must_accompany(check, k, v)
            )
        elif name == "reply_exactly":
            exactly = check.entries(
                "reply_exactly", value, lambda k, v: _reply_exactly(check, k, v)
            )
        else:
            check.fail(str(name), f"unknown key (known: {_known(TOP_KEYS)})")
    if check.errors:
        raise ConfigError(source, check.errors)
    return ReplyRules(
        personal_data=MappingProxyType(personal_data),
        never_say=never_say,
        offers_allowed=allowed,
        offers_markers=markers,
        must_accompany=tuple(accompany),
        reply_exactly=tuple(exactly),
    )


def load_rules(path: str | os.PathLike[str]) -> ReplyRules:
    """Read and validate the reply rules file at `path` (YAML, or JSON by `.json`).

    Raises ConfigError (file missing, syntax error with line, or every wrong key).
    """
    return parse_rules(read_document(path), os.fspath(path))
