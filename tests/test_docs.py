"""The documentation matches the product: every relative link of the README and `docs/` leads to
a file (and heading) that exists, the README's two commands are the ones that work, every
setting, metric and command-line option is documented, the Python examples run, and no shipped
text names a planning document instead of saying the behaviour."""

from __future__ import annotations

import argparse
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]

INSTALL_AND_DEMO = ("python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
                    "replyguard demo")
INSTALL_AND_TEST = ("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' "
                    "&& python -m pytest")

_FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """`text` without fenced code blocks and HTML comments (no links are read there)."""
    return re.sub(r"<!--.*?-->", "", _FENCE.sub("", text), flags=re.S)


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, Markdown marks and punctuation dropped
    (letters, digits, `_`, `-` and spaces kept), spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page (a repeated heading gets `-1`, `-2`, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for _, title in _HEADING.findall(_FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = _slug(title)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(page: Path) -> list[str]:
    """The relative link targets of a page (web addresses and mail links left out)."""
    return [target for target in _LINK.findall(_prose(page.read_text(encoding="utf-8")))
            if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def test_the_slug_is_githubs() -> None:
    assert _slug("7. Load figures") == "7-load-figures"
    assert _slug("Rewording (`reply_temperature`)") == "rewording-reply_temperature"
    assert _slug("Not screened: images, audio and files, `model`, JSON keys") == (
        "not-screened-images-audio-and-files-model-json-keys")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no file {dest.relative_to(ROOT)}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_every_docs_page_is_in_the_index() -> None:
    index = set(links(DOCS / "README.md"))
    pages = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    assert pages <= {target.partition("#")[0] for target in index}


def test_the_readme_gives_the_two_commands_exactly() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)\n```", readme, re.M | re.S)
    assert INSTALL_AND_DEMO in blocks
    assert INSTALL_AND_TEST in blocks
    assert len(readme.splitlines()) <= 300  # what a user reads first; the reference is in docs/


def test_every_setting_is_documented() -> None:
    from replyguard.config.settings import env_names

    text = (DOCS / "settings.md").read_text(encoding="utf-8")
    missing = [key for key in [*env_names().values(), "tools"] if f"`{key}`" not in text]
    assert not missing, f"docs/settings.md does not name {missing}"


def test_every_metric_is_documented() -> None:
    from replyguard.engine.rules import CLASSES
    from replyguard.proxy.metrics import Metrics

    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    names = {metric.name for metric in Metrics().registry.collect()
             if not metric.name.startswith("process_")} | {"replyguard_workers"}
    detected = {f"reply_pd_detected_{cls}" for cls in CLASSES}
    missing = sorted(name for name in names - detected if f"`{name}" not in text)
    assert not missing, f"docs/metrics.md does not name {missing}"
    assert "`reply_pd_detected_<class>`" in text
    assert all(f"`{cls}`" in text for cls in CLASSES)


def test_every_command_line_option_is_documented() -> None:
    from replyguard.proxy.cli import build_parser

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    subparsers = next(a for a in build_parser()._actions
                      if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, parser in subparsers.choices.items():
        if f"replyguard {name}" not in text:
            missing.append(name)
        missing += [f"{name} {flag}" for action in parser._actions
                    for flag in action.option_strings
                    if flag.startswith("--") and flag != "--help" and flag not in text]
    assert not missing, f"docs/cli.md does not name {missing}"


@pytest.mark.parametrize("page", ["docs/python.md", "README.md"])
def test_the_python_examples_run(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `python` block that does not call a model (the README's SDK examples need a
    server) runs as written, from the repository root."""
    monkeypatch.chdir(ROOT)
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"^```python\n(.*?)\n```", text, re.M | re.S)
              if "openai" not in b and "anthropic" not in b]
    assert blocks
    for block in blocks:
        scope: dict[str, object] = {}
        exec(compile(block, page, "exec"), scope)  # noqa: S102 - the docs' own example
        if "released" in scope:
            assert scope["released"] == "Your card **** 1111 is on file."


#: What a planning document is named as: its seeds and sections, or the file itself.
PLANNING = re.compile(r"\bseeds?\s+00\d|\bDESIGN\s+sections?\b|\bDESIGN\.md\b", re.I)
#: Shipped text: what the wheel, the container image and the repository's pages hold.
SHIPPED = ("README.md", "CHANGELOG.md", "docs", "config", "engine", "proxy", "deploy",
           "replyguard", "pyproject.toml")


def _shipped() -> list[Path]:
    out = []
    for name in SHIPPED:
        path = ROOT / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        out += [f for f in files if "__pycache__" not in f.parts and not f.is_symlink()]
    return out


def test_no_shipped_text_names_a_planning_document() -> None:
    found = []
    for path in _shipped():
        rel = path.relative_to(ROOT).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
                  for m in PLANNING.finditer(text)]
    assert not found, "say the behaviour instead: " + "; ".join(found)
