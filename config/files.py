"""Reading a YAML or JSON document from disk, with syntax errors named by file and line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from replyguard.config.errors import ConfigError


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key written twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            hashable = isinstance(key, str | int | float | bool)
            if hashable and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key if hashable else id(key))
        return super().construct_mapping(node, deep=deep)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object, refusing a key written twice in it (json keeps the last silently)."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def parse_document(text: str, source: str) -> object:
    """Parse `text` as JSON when `source` ends in `.json` (any case), else as YAML (safe
    loader). Raises ConfigError(`source:LINE: problem`) on a syntax error or a duplicate key.
    """
    if source.lower().endswith(".json"):
        try:
            return json.loads(text, object_pairs_hook=_unique_pairs)
        except json.JSONDecodeError as exc:
            raise ConfigError(source, [f"{source}:{exc.lineno}: {exc.msg}"]) from None
        except _DuplicateKey as exc:
            raise ConfigError(source, [f"{source}: duplicate key {exc.key!r}"]) from None
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = exc.problem or exc.context or "invalid YAML"
        raise ConfigError(source, [f"{source}:{line}: {problem}"]) from None
    except yaml.YAMLError as exc:
        raise ConfigError(source, [f"{source}: {exc}"]) from None


def read_document(path: str | os.PathLike[str], label: str | None = None) -> object:
    """Read and parse the YAML or JSON file at `path` (UTF-8, a leading BOM allowed).

    Errors start with `label` (default: the path as given). Raises ConfigError when the file
    is missing, unreadable, not UTF-8 (with the byte offset) or not well formed.
    """
    source = os.fspath(path)
    name = label if label is not None else source
    try:
        text = Path(source).read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(name, [f"{name}: file not found"]) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(name, [f"{name}: not UTF-8 (byte {exc.start})"]) from None
    except OSError as exc:
        raise ConfigError(name, [f"{name}: cannot read ({exc.strerror})"]) from None
    return parse_document(text, name)
