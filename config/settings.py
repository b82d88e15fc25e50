"""The proxy's settings (YAML or JSON file, `REPLYGUARD_*` environment, CLI overrides) read into
frozen dataclasses. Every problem found is reported at once in one `ConfigError`, each line
starting with its dotted key (`listen.port: 'x' is not an integer`) or environment variable.

The schema is the dataclasses themselves: each field's metadata holds its check, so adding a
section is one dataclass plus one `section(...)` field on `Settings`.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from replyguard.config.checks import (
    Ctx,
    Given,
    boolean,
    file_path,
    http_url,
    integer,
    number,
    optional,
    record_fields,
    region_codes,
    routes,
    seconds,
    section,
    section_check,
    setting,
    store_url,
    string,
    workers,
)
from replyguard.config.errors import ConfigError
from replyguard.config.files import read_document
from replyguard.config.guardrails import GuardrailsSettings
from replyguard.config.tools import highlight_check, tools_check
from replyguard.engine.rules import LANGUAGES
from replyguard.engine.tools import ToolRules, ToolSpec, compile_tools

__all__ = [
    "ENV_PREFIX", "AdminSettings", "LimitsSettings", "ListenSettings", "LogSettings",
    "RecordsSettings", "RepliesSettings", "Settings", "StoreSettings", "StreamsSettings",
    "UpstreamSettings", "env_names", "load_settings"
]  # fmt: skip

ENV_PREFIX = "REPLYGUARD_"
"""Environment variables are ENV_PREFIX + the dotted key upper-cased, dots as "_"."""

NOT_SETTINGS = frozenset({"REPLYGUARD_CI"})
"""Variables with the prefix that are no setting: REPLYGUARD_CI=1 makes the test suite fail,
rather than skip, a test whose tool or service is missing."""


@dataclass(frozen=True, slots=True)
class ListenSettings:
    """Where and how the proxy listens. `host`: interface address; `port`: TCP port, 0 = any
    free port. `backlog`: connections the kernel queues before they are accepted (capped by
    net.core.somaxconn). `workers`: server processes sharing the port, or "auto" (the CPUs
    the process may use, its cgroup quota included). `admin_host`, `admin_port`: a second
    listener serving only /healthz, /readyz and /metrics (None: off), for probes and scrapes
    from outside a pod whose model traffic stays on loopback. `shutdown_timeout_s`: how long
    a stopping server lets requests and streams finish before it ends them."""

    host: str = setting("127.0.0.1", string())
    port: int = setting(8080, integer(0, 65535))
    backlog: int = setting(2048, integer(1, 65535))
    workers: int | str = setting(1, workers)
    admin_host: str = setting("0.0.0.0", string())
    admin_port: int | None = setting(None, optional(integer(0, 65535)))
    shutdown_timeout_s: float = setting(30.0, seconds)

    def problems(self) -> list[tuple[str, str]]:
        """Cross-field rules: the admin listener needs a port of its own."""
        if self.admin_port is not None and self.admin_port == self.port != 0:
            return [("admin_port", f"{self.admin_port} is listen.port too (the admin "
                                   "listener needs a port of its own)")]
        return []


@dataclass(frozen=True, slots=True)
class UpstreamSettings:
    """The OpenAI-compatible endpoint replies come from.

    `base_url`: http(s) URL, no trailing slash. `api_key`: if set, replaces the client's
    `Authorization` (Bearer) header; if None the client's header is forwarded. `connect_timeout_s`:
    seconds to open a connection. `read_timeout_s`: the longest wait between two reads of the
    response (for a whole reply, mostly the wait for the completion; streamed, between chunks).
    `max_connections`: pooled connections, >= 1. `pool_wait_s`: how long a request may wait for a
    pooled connection when all are busy; beyond it the client gets 503 `overloaded` with
    `Retry-After: <retry_after_s>` (whole seconds), never an upstream error.
    `anthropic_base_url`: the Anthropic Messages endpoint `/v1/messages` is forwarded to, a
    root without `/v1` (`<anthropic_base_url>/v1/messages`). `anthropic_api_key`: if set,
    sent to it as `x-api-key` in place of the client's key; `api_key` is never sent there.
    """

    base_url: str = setting("https://api.openai.com/v1", http_url)
    api_key: str | None = setting(None, string(nullable=True, secret=True), secret=True)
    connect_timeout_s: float = setting(10.0, seconds)
    read_timeout_s: float = setting(600.0, seconds)
    max_connections: int = setting(100, integer(1))
    pool_wait_s: float = setting(3.0, seconds)
    retry_after_s: int = setting(2, integer(1, 3600))
    anthropic_base_url: str = setting("https://api.anthropic.com", http_url)
    anthropic_api_key: str | None = setting(None, string(nullable=True, secret=True),
                                            secret=True)


@dataclass(frozen=True, slots=True)
class RepliesSettings:
    """Reply screening. `rules`: absolute path of the reply rules file, or None for the built-in
    rules. `max_sentence_chars`: characters (code points) a sentence may grow to before it is split
    at whitespace, >= 512. `internals`: what replies get for the
    platform's internals that `check_reply` finds (pod and host names, stack traces, log lines,
    ...): allow (default, customer traffic), redact (`[internal]`) or withhold (the sentence).
    `phone_regions`: the regions national phone numbers are read in, as ISO 3166-1 alpha-2
    codes (`[US, GB]`), or None for the language's (`en`: US and GB; `pt-BR`: BR); a
    number written with `+` is always read in its own country's numbering plan."""

    rules: Path | None = setting(None, file_path)
    max_sentence_chars: int = setting(2000, integer(512))
    internals: str = setting("allow", string(choices=("allow", "redact", "withhold"),
                                               noun="action"))
    phone_regions: tuple[str, ...] | None = setting(None, region_codes)


@dataclass(frozen=True, slots=True)
class LimitsSettings:
    """Size limits, in bytes. `max_body_bytes`: largest request body accepted (default
    4 MiB). `max_response_bytes`: largest upstream reply screened, a whole completion or one
    streamed event (default 16 MiB); a larger one is refused (502), never passed unscreened.
    `header_timeout_s`: seconds a client has to send a whole request head, from its connection
    (or, on a kept-alive connection, from the first byte of its next request); then the
    connection is closed. `body_timeout_s`: seconds to send the whole body once the head came
    (else 408 `body_timeout`)."""

    max_body_bytes: int = setting(4 * 1024 * 1024, integer(1))
    max_response_bytes: int = setting(16 * 1024 * 1024, integer(1024))
    header_timeout_s: float = setting(30.0, seconds)
    body_timeout_s: float = setting(60.0, seconds)


@dataclass(frozen=True, slots=True)
class StreamsSettings:
    """Streamed replies. `keepalive_s`: while nothing was written to the client for this long
    (the upstream is silent, or a long sentence is held back) an SSE comment is sent, which
    clients ignore and proxies and load balancers read as traffic. `idle_timeout_s`: an
    upstream silent this long mid-stream ends the stream with an `upstream_idle` error event
    (the upstream's `read_timeout_s` still applies too)."""

    keepalive_s: float = setting(15.0, seconds)
    idle_timeout_s: float = setting(300.0, seconds)


@dataclass(frozen=True, slots=True)
class AdminSettings:
    """Admin API. `token`: bearer token the admin routes require; None leaves them open
    (`POST /v1/check-reply` only reads the text it is sent)."""

    token: str | None = setting(None, string(nullable=True, secret=True), secret=True)


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Where rules versions and records are kept. `url`: `sqlite:///path` (a file, relative
    to the working directory; `sqlite:////abs/path` for an absolute one), or
    `postgresql://user@host:5432/database` for a fleet sharing one store, or `none` (no
    store: the rules file only, no records). Credentials may be in the URL or in `password`
    (REPLYGUARD_STORE_PASSWORD); neither is ever printed. `poll_s`: how often each process
    looks for a newly activated rules version (and for an edited rules file)."""

    url: str | None = setting("sqlite:///replyguard.db", store_url, secret=True)
    password: str | None = setting(None, string(nullable=True, secret=True), secret=True)
    poll_s: float = setting(1.0, seconds)


@dataclass(frozen=True, slots=True)
class RecordsSettings:
    """Records of model requests (kept when a store is set). `text`: `none` (default) or
    `screened` (the text as screened, never an original value). `retention_days`: records
    older than this are purged (0: kept). `redact`: fields stored as `[redacted]`
    (request_id, model, route, guardrail, text, tenant, key_id). `queue`: records waiting to
    be written at most; beyond, a record is dropped (counted and logged by request id)."""

    text: str = setting("none", string(choices=("none", "screened"), noun="text mode"))
    retention_days: int = setting(30, integer(0, 36500))
    redact: tuple[str, ...] = setting((), record_fields)
    queue: int = setting(10_000, integer(1, 1_000_000))


@dataclass(frozen=True, slots=True)
class LogSettings:
    """Logging. `level`: debug, info, warning, error or critical. `access`: one line per request."""

    level: str = setting(
        "info", string(choices=("debug", "info", "warning", "error", "critical"), noun="level")
    )
    access: bool = setting(True, boolean)


@dataclass(frozen=True, slots=True)
class Settings:
    """All of the proxy's settings; every key optional. `language`: `en` or `pt-BR`, the
    default when a request names none. `passthrough`: extra routes forwarded
    unscreened (`/v1/files`), each starting with "/". Sections: see their classes."""

    listen: ListenSettings = section(ListenSettings)
    upstream: UpstreamSettings = section(UpstreamSettings)
    replies: RepliesSettings = section(RepliesSettings)
    language: str = setting("en", string(choices=("en", "pt-BR"), noun="language"))
    passthrough: tuple[str, ...] = setting((), routes)
    limits: LimitsSettings = section(LimitsSettings)
    streams: StreamsSettings = section(StreamsSettings)
    admin: AdminSettings = section(AdminSettings)
    store: StoreSettings = section(StoreSettings)
    records: RecordsSettings = section(RecordsSettings)
    log: LogSettings = section(LogSettings)
    guardrails: GuardrailsSettings = section(GuardrailsSettings)
    tools: Mapping[str, ToolSpec] = setting(None, tools_check, env=False,
                                            factory=lambda: MappingProxyType({}))
    audience: str = setting("customer", string(choices=("customer", "staff"), noun="audience"))
    highlight: str = setting("[unverified] {sentence}", highlight_check)
    reply_temperature: float = setting(0.0, number(0.0, 2.0))

    def tool_rules(self, audience: str | None = None) -> ToolRules:
        """The `tools:`, `audience`, `highlight` and `reply_temperature` settings as the
        engine takes them (`audience`: a request's own choice, else the settings')."""
        return ToolRules(self.tools, audience or self.audience,  # type: ignore[arg-type]
                         self.highlight, self.reply_temperature)


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


def _put(tree: dict[str, Any], dotted: str, value: Given) -> None:
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

    Raises ConfigError listing every problem: unknown keys (and `REPLYGUARD_*` variables that
    are no setting, such as a misspelt one or `REPLYGUARD_TOOLS`), wrong types, values out of range,
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
    known = env_names()
    for var, dotted in known.items():
        if environ.get(var):
            _put(tree, dotted, Given(environ[var], var))
    for var in sorted(v for v in environ if v.startswith(ENV_PREFIX) and v not in known
                      and v not in NOT_SETTINGS and environ[v]):
        near = difflib.get_close_matches(var, list(known), n=1, cutoff=0.85)
        hint = f"did you mean {near[0]}?" if near else (
            "`tools` is read from the settings file only" if var.startswith(
                ENV_PREFIX + "TOOLS") else "no setting has that name")
        errors.append(f"{var}: not a setting read from the environment ({hint})")
    for dotted, value in (overrides or {}).items():
        _put(tree, dotted, Given(value, dotted))
    settings = section_check(Settings)(tree, "", False, Ctx(errors, base))
    if not errors:
        for language in LANGUAGES:  # what only the engine can judge (template placeholders)
            try:
                compile_tools(settings.tool_rules(), language)
            except ValueError as exc:
                errors.extend(e for e in str(exc).split("; ") if e not in errors)
    if errors:
        raise ConfigError(str(path) if path is not None else "settings", errors)
    return settings
