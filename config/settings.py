"""The proxy's settings (YAML or JSON file, `REPLYGUARD_*` environment, CLI overrides) read into
frozen dataclasses. Every problem found is reported at once in one `ConfigError`, each line
starting with its dotted key (`listen.port: 'x' is not an integer`) or environment variable.

The schema is the dataclasses themselves: each field's metadata holds its check, so adding a
section is one dataclass plus one `_section(...)` field on `Settings`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from config.errors import ConfigError
from config.files import read_document

__all__ = [
    "ENV_PREFIX", "AdminSettings", "LimitsSettings", "ListenSettings", "LogSettings",
    "RepliesSettings", "Settings", "UpstreamSettings", "env_names", "load_settings"
]  # fmt: skip

ENV_PREFIX = "REPLYGUARD_"
"""Environment variables are ENV_PREFIX + the dotted key upper-cased, dots as "_"."""

_BAD: Any = object()  # returned by a check that has recorded an error


@dataclass(frozen=True, slots=True)
class _Given:
    """A value from the environment or an override; `label` names it in errors. Strings are
    parsed as the field's type; relative paths are taken from the working directory."""

    value: object
    label: str


@dataclass(slots=True)
class _Ctx:
    errors: list[str]
    base: Path  # folder relative paths in the file are resolved against


# (value, key, given, ctx) -> checked value, or _BAD after appending an error to ctx.errors
Check = Callable[[object, str, bool, _Ctx], Any]


def _fail(ctx: _Ctx, key: str, message: str) -> Any:
    ctx.errors.append(f"{key}: {message}")
    return _BAD


def _integer(lo: int, hi: int | None = None) -> Check:
    def check(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
        if given and isinstance(v, str) and re.fullmatch(r"\s*[+-]?\d+\s*", v):
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            return _fail(ctx, key, f"{v!r} is not an integer")
        if v < lo or (hi is not None and v > hi):
            bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            return _fail(ctx, key, f"{v} is out of range ({bounds})")
        return v

    return check


def _seconds(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
    """A duration in seconds: a finite number > 0, returned as float."""
    if given and isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            pass
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return _fail(ctx, key, f"{v!r} is not a number")
    if v <= 0:
        return _fail(ctx, key, f"{v} is out of range (> 0)")
    return float(v)


def _string(
    *, nullable: bool = False, secret: bool = False, choices: tuple[str, ...] = (), noun: str = ""
) -> Check:
    """A non-empty string; with `choices`, one of them in any case, returned as spelled there."""
    canonical = {c.lower(): c for c in choices}

    def check(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            shown = type(v).__name__ if secret else repr(v)
            return _fail(ctx, key, f"{shown} is not a string")
        if not v:
            return _fail(ctx, key, "must not be empty")
        if canonical:
            if v.lower() not in canonical:
                known = ", ".join(sorted(choices))
                return _fail(ctx, key, f"unknown {noun} {v!r} (known: {known})")
            return canonical[v.lower()]
        return v

    return check


def _url(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
    """An http(s) URL with a host and no query or fragment; trailing slashes stripped."""
    if (url := _string()(v, key, given, ctx)) is _BAD:
        return _BAD
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # e.g. a port that is not a number
        ok = False
    if not ok or parts.query or parts.fragment:
        return _fail(ctx, key, f"{url!r} is not an http(s) URL")
    return url.rstrip("/")


def _path(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
    """A file path or null; relative paths are resolved against the settings file's folder
    (values from the environment or overrides: against the working directory)."""
    if v is None:
        return None
    if given and isinstance(v, os.PathLike):
        return Path(v).expanduser().absolute()
    if (text := _string()(v, key, given, ctx)) is _BAD:
        return _BAD
    path = Path(text).expanduser()
    return path if path.is_absolute() else (Path.cwd() if given else ctx.base) / path


def _boolean(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
    words = {"true": True, "yes": True, "on": True, "1": True}
    words |= {"false": False, "no": False, "off": False, "0": False}
    if given and isinstance(v, str) and v.strip().lower() in words:
        return words[v.strip().lower()]
    if not isinstance(v, bool):
        return _fail(ctx, key, f"{v!r} is not a boolean")
    return v


def _routes(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
    """A list of URL paths, each starting with "/" (from text: comma-separated)."""
    if given and isinstance(v, str):
        v = [part.strip() for part in v.split(",") if part.strip()]
    if not isinstance(v, list | tuple):
        return _fail(ctx, key, f"{v!r} is not a list")
    out = [_string()(item, f"{key}[{i}]", given, ctx) for i, item in enumerate(v)]
    for i, item in enumerate(out):
        if item is not _BAD and not item.startswith("/"):
            out[i] = _fail(ctx, f"{key}[{i}]", f'{item!r} does not start with "/"')
    return _BAD if _BAD in out else tuple(out)


def _check_value(check: Check, raw: object, key: str, ctx: _Ctx) -> Any:
    if isinstance(raw, _Given):
        return check(raw.value, raw.label, True, ctx)
    return check(raw, key, False, ctx)


def _section_check(cls: type) -> Check:
    """Check a mapping against the dataclass `cls`: unknown keys, then each field's own check."""

    def check(v: object, key: str, given: bool, ctx: _Ctx) -> Any:
        if v is None:  # `listen:` with nothing under it
            v = {}
        if not isinstance(v, Mapping):
            return _fail(ctx, key, f"{v!r} is not a mapping")
        specs = {f.name: f for f in fields(cls)}
        values, before = {}, len(ctx.errors)
        for name, raw in v.items():
            dotted = f"{key}.{name}" if key else str(name)
            spec = specs.get(name) if isinstance(name, str) else None
            if spec is None:
                _fail(ctx, dotted, f"unknown key (known: {', '.join(sorted(specs))})")
            else:
                values[name] = _check_value(spec.metadata["check"], raw, dotted, ctx)
        return _BAD if len(ctx.errors) > before else cls(**values)

    return check


def _setting(default: object, check: Check, *, env: bool = True, secret: bool = False) -> Any:
    """A leaf setting: its default, its check, and whether REPLYGUARD_<KEY> may set it."""
    return field(default=default, repr=not secret, metadata={"check": check, "env": env})


def _section(cls: type) -> Any:
    """A nested section: defaults to `cls()`, checked field by field."""
    return field(default_factory=cls, metadata={"check": _section_check(cls), "section": cls})


@dataclass(frozen=True, slots=True)
class ListenSettings:
    """Where the proxy listens. `host`: interface address; `port`: TCP port, 0 = any free port."""

    host: str = _setting("127.0.0.1", _string())
    port: int = _setting(8080, _integer(0, 65535))


@dataclass(frozen=True, slots=True)
class UpstreamSettings:
    """The OpenAI-compatible endpoint replies come from.

    `base_url`: http(s) URL, no trailing slash. `api_key`: if set, replaces the client's
    `Authorization` (Bearer) header; if None the client's header is forwarded. `connect_timeout_s`:
    seconds to open a connection. `read_timeout_s`: seconds for the whole response when not
    streaming, between two chunks when streaming. `max_connections`: pooled connections, >= 1.
    """

    base_url: str = _setting("https://api.openai.com/v1", _url)
    api_key: str | None = _setting(None, _string(nullable=True, secret=True), secret=True)
    connect_timeout_s: float = _setting(10.0, _seconds)
    read_timeout_s: float = _setting(600.0, _seconds)
    max_connections: int = _setting(100, _integer(1))


@dataclass(frozen=True, slots=True)
class RepliesSettings:
    """Reply screening. `rules`: absolute path of the reply rules file, or None for the built-in
    rules. `max_sentence_chars`: characters (code points) a sentence may grow to before it is split
    at whitespace (DESIGN.md section 2), >= 512. `internals`: what replies get for the
    platform's internals that `check_reply` finds (pod and host names, stack traces, log lines,
    ...): allow (default, customer traffic), redact (`[internal]`) or withhold (the sentence)."""

    rules: Path | None = _setting(None, _path)
    max_sentence_chars: int = _setting(2000, _integer(512))
    internals: str = _setting("allow", _string(choices=("allow", "redact", "withhold"),
                                               noun="action"))


@dataclass(frozen=True, slots=True)
class LimitsSettings:
    """Size limits, in bytes. `max_body_bytes`: largest request body accepted (default
    4 MiB). `max_response_bytes`: largest upstream reply screened, a whole completion or one
    streamed event (default 16 MiB); a larger one is refused (502), never passed unscreened."""

    max_body_bytes: int = _setting(4 * 1024 * 1024, _integer(1))
    max_response_bytes: int = _setting(16 * 1024 * 1024, _integer(1024))


@dataclass(frozen=True, slots=True)
class AdminSettings:
    """Admin API. `token`: bearer token the admin routes require; None disables them."""

    token: str | None = _setting(None, _string(nullable=True, secret=True), secret=True)


@dataclass(frozen=True, slots=True)
class LogSettings:
    """Logging. `level`: debug, info, warning, error or critical. `access`: one line per request."""

    level: str = _setting(
        "info", _string(choices=("debug", "info", "warning", "error", "critical"), noun="level")
    )
    access: bool = _setting(True, _boolean)


@dataclass(frozen=True, slots=True)
class Settings:
    """All of the proxy's settings; every key optional. `language`: `en` or `pt-BR` (DESIGN.md
    section 4), the default when a request names none. `passthrough`: extra routes forwarded
    unscreened (`/v1/files`), each starting with "/". Sections: see their classes."""

    listen: ListenSettings = _section(ListenSettings)
    upstream: UpstreamSettings = _section(UpstreamSettings)
    replies: RepliesSettings = _section(RepliesSettings)
    language: str = _setting("en", _string(choices=("en", "pt-BR"), noun="language"))
    passthrough: tuple[str, ...] = _setting((), _routes)
    limits: LimitsSettings = _section(LimitsSettings)
    admin: AdminSettings = _section(AdminSettings)
    log: LogSettings = _section(LogSettings)


def env_names(cls: type = Settings, prefix: str = "") -> dict[str, str]:
    """Every environment variable the settings read, mapped to its dotted key
    (`REPLYGUARD_LISTEN_PORT` -> `listen.port`). A list (`passthrough`) is comma-separated."""
    out: dict[str, str] = {}
    for f in fields(cls):
        dotted = prefix + f.name
        if "section" in f.metadata:
            out |= env_names(f.metadata["section"], dotted + ".")
        elif f.metadata["env"]:
            out[ENV_PREFIX + dotted.upper().replace(".", "_")] = dotted
    return out


def _read(path: Path, errors: list[str]) -> object:
    """The parsed file (`.json`: JSON, otherwise YAML), or None after appending its errors."""
    try:
        data = read_document(path, label=path.name)
    except ConfigError as exc:
        errors.extend(exc.errors)
        return None
    if data is None and path.suffix.lower() != ".json":
        return {}  # an empty YAML file: the defaults
    return data


def _put(tree: dict[str, Any], dotted: str, value: _Given) -> None:
    """Set `dotted` in the raw tree, creating sections; a non-mapping in the way is left for
    the section check to report."""
    *parents, leaf = dotted.split(".")
    node = tree
    for part in parents:
        if node.get(part) is None:
            node[part] = {}
        if not isinstance(node[part], dict):
            return
        node = node[part]
    node[leaf] = value


def load_settings(
    path: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> Settings:
    """Read the settings: defaults < the file at `path` (YAML, or JSON if it ends in `.json`)
    < environment variables (`env_names()`; `env=None` reads os.environ; empty values are
    ignored) < `overrides` (dotted keys, e.g. `{"listen.port": 9000}`; string values are
    parsed as the field's type, as environment values are).

    Raises ConfigError listing every problem: unknown keys, wrong types, values out of range,
    bad URLs, unknown language, syntax errors (`replyguard.yaml:3: ...`), a missing file.
    """
    errors: list[str] = []
    tree: Any = {}
    base = Path.cwd()
    if path is not None:
        file = Path(path)
        base = file.absolute().parent
        tree = _read(file, errors)
        if not errors and not isinstance(tree, dict):
            kind = "null" if tree is None else type(tree).__name__
            errors.append(f"{file.name}: top level must be a mapping, not a {kind}")
        if errors:
            raise ConfigError(str(path), errors)
    environ = os.environ if env is None else env
    for var, dotted in env_names().items():
        if environ.get(var):
            _put(tree, dotted, _Given(environ[var], var))
    for dotted, value in (overrides or {}).items():
        _put(tree, dotted, _Given(value, dotted))
    settings = _section_check(Settings)(tree, "", False, _Ctx(errors, base))
    if errors:
        raise ConfigError(str(path) if path is not None else "settings", errors)
    return settings
