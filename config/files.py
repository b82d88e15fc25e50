"""Reading a YAML or JSON document from disk, with syntax errors named by file and line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from config.errors import ConfigError


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key written twice in one mapping (PyYAML keeps the last)."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[object, object]:
    seen: set[object] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return dict(loader.construct_pairs(node))


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


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
    """Parse `text` as JSON when `source` ends in `.json`, else as YAML (safe loader).

    Raises ConfigError(`source:LINE: problem`) on a syntax error or a duplicate key.
    """
    if source.endswith(".json"):
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


def read_document(path: str | os.PathLike[str]) -> object:
    """Read and parse the YAML or JSON file at `path`.

    Raises ConfigError when the file is missing, unreadable, not UTF-8 or not well formed.
    """
    source = os.fspath(path)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(source, [f"{source}: no such file"]) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(source, [f"{source}: not UTF-8 text ({exc.reason})"]) from None
    except OSError as exc:
        raise ConfigError(source, [f"{source}: cannot be read ({exc.strerror})"]) from None
    return parse_document(text, source)
