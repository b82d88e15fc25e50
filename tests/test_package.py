"""One import name: ReplyGuard installs as `replyguard` (its `engine`, `proxy` and `config`
folders as `replyguard.engine`, ...), nothing under a bare folder name, and `import replyguard`
gives the public API without loading the server."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import replyguard


@pytest.mark.parametrize("name", ["engine", "proxy", "config", "engine.find", "proxy.app"])
def test_a_bare_folder_name_is_not_importable(name: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(name)


def test_the_public_api_screens() -> None:
    rules = replyguard.compile_rules(
        replyguard.load_rules(Path(__file__).parents[1] / "config/reply-rules.example.yaml"),
        "en")
    assert replyguard.screen_reply("Your card 4111 1111 1111 1111 is on file.", rules) == (
        "Your card **** 1111 is on file.",
        {"reply_pd_detected_card": 1, "reply_pd_redacted": 1})
    assert sorted(replyguard.__all__) == replyguard.__all__
    assert all(hasattr(replyguard, name) for name in replyguard.__all__)


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = replyguard.nothing_here  # type: ignore[attr-defined]


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_users_own_config_module_does_not_clash(tmp_path: Path) -> None:
    (tmp_path / "config.py").write_text("VALUE = 1\n", encoding="utf-8")
    (tmp_path / "proxy.py").write_text("VALUE = 2\n", encoding="utf-8")
    (tmp_path / "engine.py").write_text("VALUE = 3\n", encoding="utf-8")
    done = _run("import config, engine, proxy\n"
                "from replyguard.proxy.app import create_app\n"
                "from replyguard.config import load_settings\n"
                "print(config.VALUE, proxy.VALUE, engine.VALUE, create_app.__name__)", tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "1 2 3 create_app\n", "")


def test_importing_the_engine_loads_no_server(tmp_path: Path) -> None:
    done = _run("import sys\nimport replyguard.engine\n"
                "print(sorted(m for m in sys.modules if m.startswith(('aiohttp', "
                "'replyguard.proxy', 'replyguard.config', 'yaml'))))", tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")
