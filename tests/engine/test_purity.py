"""engine/ is pure: no import of proxy or config, no asyncio, aiohttp, socket or logging, and
no file I/O (CONVENTIONS, "Three packages, three jobs")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).parents[2] / "engine"
#: Module names the engine may not import, and their children (`replyguard.proxy.app`, ...).
FORBIDDEN = ("replyguard.proxy", "replyguard.config", "asyncio", "aiohttp", "socket", "logging",
             "proxy", "config")
MODULES = sorted(ENGINE.glob("*.py"))


def _forbidden(name: str) -> bool:
    return any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)


def _absolute(node: ast.ImportFrom) -> str:
    """The absolute name of the module a `from ... import` in an engine module names."""
    if node.level == 0:
        return node.module or ""
    package = "replyguard.engine".split(".")[: 2 - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def _impurities(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: imports {alias.name}" for alias in node.names
                      if _forbidden(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            # `from replyguard import proxy` imports `replyguard.proxy`: the module, or the
            # child module a name may be (the first forbidden one is reported); a relative
            # import by the absolute name it stands for (`from ..proxy import app`).
            module = _absolute(node)
            names = [module, *(f"{module}.{a.name}" for a in node.names)]
            found += [f"line {node.lineno}: imports {n}" for n in names if _forbidden(n)][:1]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "open"):
            found.append(f"line {node.lineno}: open(...)")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("read_text", "read_bytes", "write_text", "write_bytes")):
            found.append(f"line {node.lineno}: .{node.func.attr}(...)")
    return found


def test_engine_has_modules() -> None:
    assert ENGINE / "find.py" in MODULES


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_engine_module_is_pure(path: Path) -> None:
    assert _impurities(path) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import logging", ["line 1: imports logging"]),
        ("from replyguard.config.rules import load_rules",
         ["line 1: imports replyguard.config.rules"]),
        ("import replyguard.proxy.app", ["line 1: imports replyguard.proxy.app"]),
        ("from replyguard import proxy", ["line 1: imports replyguard.proxy"]),
        ("from replyguard.proxy import app", ["line 1: imports replyguard.proxy"]),
        ("import asyncio.tasks", ["line 1: imports asyncio.tasks"]),
        ("data = open('x').read()", ["line 1: open(...)"]),
        ("from ..proxy import app", ["line 1: imports replyguard.proxy"]),
        ("from .. import config", ["line 1: imports replyguard.config"]),
        ("from . import find", []),
        ("from replyguard.engine import find", []),
        ("from replyguard.engine.views import Views", []),
    ],
)
def test_purity_check_catches(tmp_path: Path, source: str, found: list[str]) -> None:
    module = tmp_path / "module.py"
    module.write_text(source + "\n", encoding="utf-8")
    assert _impurities(module) == found
