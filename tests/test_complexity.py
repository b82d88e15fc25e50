"""The complexity limit: no function of engine, proxy or config over ruff's C901 limit (12,
`[tool.ruff.lint.mccabe]` in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_function_over_the_complexity_limit() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "C901", "--output-format",
         "concise", "--no-cache", "engine", "proxy", "config"],
        cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_limit_is_twelve() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.ruff.lint.mccabe]\nmax-complexity = 12\n" in text
