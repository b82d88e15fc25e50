"""config.settings: defaults, one invalid file per error case, environment, overrides, paths."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from replyguard.config.errors import ConfigError
from replyguard.config.settings import (
    AdminSettings,
    LimitsSettings,
    ListenSettings,
    LogSettings,
    RepliesSettings,
    Settings,
    StreamsSettings,
    UpstreamSettings,
    env_names,
    load_settings,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "config" / "replyguard.example.yaml"
KNOWN_TOP = ("admin, audience, guardrails, highlight, language, limits, listen, log, passthrough, "
             "records, replies, reply_temperature, store, streams, tools, upstream")
KNOWN_LISTEN = "admin_host, admin_port, backlog, host, port, shutdown_timeout_s, workers"


def write(tmp_path: Path, text: str, name: str = "replyguard.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def errors_of(path: Path | None, **kwargs: object) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_settings(path, env=kwargs.pop("env", {}), **kwargs)  # type: ignore[arg-type]
    return info.value.errors


def test_defaults() -> None:
    s = load_settings(env={})
    assert s == Settings()
    assert s.listen == ListenSettings(host="127.0.0.1", port=8080, backlog=2048, workers=1,
                                      admin_host="0.0.0.0", admin_port=None,
                                      shutdown_timeout_s=30.0)
    assert s.upstream == UpstreamSettings(
        base_url="https://api.openai.com/v1",
        api_key=None,
        connect_timeout_s=10.0,
        read_timeout_s=600.0,
        max_connections=100,
        pool_wait_s=3.0,
        retry_after_s=2,
        anthropic_base_url="https://api.anthropic.com",
        anthropic_api_key=None,
    )
    assert s.streams == StreamsSettings(keepalive_s=15.0, idle_timeout_s=300.0)
    assert s.replies == RepliesSettings(rules=None, max_sentence_chars=2000)
    assert s.language == "en"
    assert s.passthrough == ()
    assert s.limits == LimitsSettings(max_body_bytes=4194304, max_response_bytes=16777216,
                                      header_timeout_s=30.0, body_timeout_s=60.0)
    assert s.admin == AdminSettings(token=None)
    assert s.log == LogSettings(level="info", access=True)


def test_example_file_documents_the_defaults() -> None:
    assert load_settings(EXAMPLE, env={}) == Settings()
    text = EXAMPLE.read_text(encoding="utf-8")
    for dotted in env_names().values():
        assert f"{dotted.rsplit('.', 1)[-1]}:" in text, dotted


def test_settings_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().language = "pt-BR"  # type: ignore[misc]


def test_full_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
listen: {host: 0.0.0.0, port: 9000}
upstream:
  base_url: http://localhost:11434/v1/
  api_key: sk-test
  connect_timeout_s: 2.5
  read_timeout_s: 30
  max_connections: 8
replies: {rules: /etc/replyguard/rules.yaml, max_sentence_chars: 512}
language: PT-br
passthrough: [/v1/files, /v1/batches]
limits: {max_body_bytes: 1024}
admin: {token: s3cret-token}
log: {level: DEBUG, access: false}
""",
    )
    s = load_settings(path, env={})
    assert s.listen == ListenSettings("0.0.0.0", 9000)
    assert s.upstream == UpstreamSettings("http://localhost:11434/v1", "sk-test", 2.5, 30.0, 8)
    assert s.replies == RepliesSettings(Path("/etc/replyguard/rules.yaml"), 512)
    assert s.language == "pt-BR"
    assert s.passthrough == ("/v1/files", "/v1/batches")
    assert s.limits.max_body_bytes == 1024
    assert s.admin.token == "s3cret-token"
    assert s.log == LogSettings("debug", False)


def test_secrets_stay_out_of_repr(tmp_path: Path) -> None:
    path = write(tmp_path, "upstream: {api_key: sk-abcdef}\nadmin: {token: tok-123456}\n")
    assert "sk-abcdef" not in repr(s := load_settings(path, env={}))
    assert "tok-123456" not in repr(s)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", Settings()),
        ("# only a comment\n", Settings()),
        ("listen:\n", Settings()),
        ("listen: {port: 0}\n", Settings(listen=ListenSettings(port=0))),
        (
            "upstream: {base_url: 'https://x.test'}\n",
            Settings(upstream=UpstreamSettings("https://x.test")),
        ),
        ("listen: {workers: AUTO}\n", Settings(listen=ListenSettings(workers="auto"))),
        ("listen: {workers: 4, admin_port: 9090}\n",
         Settings(listen=ListenSettings(workers=4, admin_port=9090))),
        ("listen: {port: 0, admin_port: 0}\n",
         Settings(listen=ListenSettings(port=0, admin_port=0))),
        (
            "replies: {phone_regions: [us, GB, 'no', US]}\n",
            Settings(replies=RepliesSettings(phone_regions=("US", "GB", "NO"))),
        ),
        ("replies: {phone_regions: null}\n", Settings()),
    ],
)
def test_valid_small_files(tmp_path: Path, text: str, expected: Settings) -> None:
    assert load_settings(write(tmp_path, text), env={}) == expected


INVALID = [
    (
        "phone regions not a list",
        "replies: {phone_regions: US}\n",
        ["replies.phone_regions: 'US' is not a list"],
    ),
    (
        "phone regions empty",
        "replies: {phone_regions: []}\n",
        ["replies.phone_regions: names no region (leave it out for the language's regions)"],
    ),
    (
        "phone regions unknown, a number, a bare NO",
        "replies: {phone_regions: [US, XX, 44, NO, gbr]}\n",
        [
            "replies.phone_regions[1]: unknown region 'XX' (ISO 3166-1 alpha-2 codes with a "
            "phone numbering plan: US, GB, BR, ...)",
            "replies.phone_regions[2]: 44 is not a string",
            'replies.phone_regions[3]: False is not a string (quote a region code: "NO")',
            "replies.phone_regions[4]: unknown region 'gbr' (ISO 3166-1 alpha-2 codes with a "
            "phone numbering plan: US, GB, BR, ...)",
        ],
    ),
    ("unknown top key", "upstrem: {}\n", [f"upstrem: unknown key (known: {KNOWN_TOP})"]),
    ("unknown nested key", "listen: {hots: x}\n",
     [f"listen.hots: unknown key (known: {KNOWN_LISTEN})"]),
    ("port not an integer", "listen: {port: x}\n", ["listen.port: 'x' is not an integer"]),
    ("port quoted", "listen: {port: '8080'}\n", ["listen.port: '8080' is not an integer"]),
    ("port bool", "listen: {port: true}\n", ["listen.port: True is not an integer"]),
    ("port float", "listen: {port: 80.5}\n", ["listen.port: 80.5 is not an integer"]),
    (
        "port out of range",
        "listen: {port: 70000}\n",
        ["listen.port: 70000 is out of range (0..65535)"],
    ),
    ("empty host", "listen: {host: ''}\n", ["listen.host: must not be empty"]),
    ("section not a mapping", "listen: 8080\n", ["listen: 8080 is not a mapping"]),
    (
        "url scheme",
        "upstream: {base_url: 'ftp://x.test'}\n",
        ["upstream.base_url: 'ftp://x.test' is not an http(s) URL"],
    ),
    (
        "url no host",
        "upstream: {base_url: 'https://'}\n",
        ["upstream.base_url: 'https://' is not an http(s) URL"],
    ),
    (
        "url bad port",
        "upstream: {base_url: 'http://x.test:port/v1'}\n",
        ["upstream.base_url: 'http://x.test:port/v1' is not an http(s) URL"],
    ),
    (
        "url query",
        "upstream: {base_url: 'https://x.test/v1?a=1'}\n",
        ["upstream.base_url: 'https://x.test/v1?a=1' is not an http(s) URL"],
    ),
    ("url not a string", "upstream: {base_url: 12}\n", ["upstream.base_url: 12 is not a string"]),
    (
        "url with credentials, never shown",
        "upstream: {base_url: 'http://admin:S3cret@host.test/v1'}\n",
        ["upstream.base_url: 'http://***@host.test/v1' holds credentials (user:password@), "
         "which are not accepted in a URL: put the key in upstream.api_key"],
    ),
    (
        "url with a user name only",
        "upstream: {base_url: 'https://sk-abc@host.test'}\n",
        ["upstream.base_url: 'https://***@host.test' holds credentials (user:password@), "
         "which are not accepted in a URL: put the key in upstream.api_key"],
    ),
    (
        "anthropic url with credentials",
        "upstream: {anthropic_base_url: 'https://sk-ant@host.test'}\n",
        ["upstream.anthropic_base_url: 'https://***@host.test' holds credentials "
         "(user:password@), which are not accepted in a URL: put the key in "
         "upstream.anthropic_api_key"],
    ),
    (
        "judge url with credentials",
        "guardrails: {topic: {judge: {base_url: 'http://u:p@judge.test/v1'}}}\n",
        ["guardrails.topic.judge.base_url: 'http://***@judge.test/v1' holds credentials "
         "(user:password@), which are not accepted in a URL: put the key in "
         "guardrails.topic.judge.api_key"],
    ),
    ("workers word", "listen: {workers: many}\n",
     ["listen.workers: 'many' is neither a whole number nor 'auto'"]),
    ("workers zero", "listen: {workers: 0}\n",
     ["listen.workers: 0 is out of range (1..256, or 'auto')"]),
    ("workers quoted number", "listen: {workers: '2'}\n",
     ["listen.workers: '2' is neither a whole number nor 'auto'"]),
    ("backlog", "listen: {backlog: 0}\n", ["listen.backlog: 0 is out of range (1..65535)"]),
    (
        "admin port is the main port",
        "listen: {port: 9000, admin_port: 9000}\n",
        ["listen.admin_port: 9000 is listen.port too (the admin listener needs a port of its "
         "own)"],
    ),
    ("admin port range", "listen: {admin_port: -1}\n",
     ["listen.admin_port: -1 is out of range (0..65535)"]),
    ("shutdown timeout", "listen: {shutdown_timeout_s: 0}\n",
     ["listen.shutdown_timeout_s: 0 is out of range (> 0)"]),
    ("pool wait", "upstream: {pool_wait_s: -1}\n",
     ["upstream.pool_wait_s: -1 is out of range (> 0)"]),
    ("retry after", "upstream: {retry_after_s: 0.5}\n",
     ["upstream.retry_after_s: 0.5 is not an integer"]),
    ("header timeout", "limits: {header_timeout_s: 0}\n",
     ["limits.header_timeout_s: 0 is out of range (> 0)"]),
    ("body timeout", "limits: {body_timeout_s: soon}\n",
     ["limits.body_timeout_s: 'soon' is not a number"]),
    ("keepalive", "streams: {keepalive_s: 0}\n", ["streams.keepalive_s: 0 is out of range (> 0)"]),
    ("idle timeout", "streams: {idle_timeout_s: x, keepalive: 1}\n",
     ["streams.idle_timeout_s: 'x' is not a number",
      "streams.keepalive: unknown key (known: idle_timeout_s, keepalive_s)"]),
    (
        "api key value not shown",
        "upstream: {api_key: 12345}\n",
        ["upstream.api_key: int is not a string"],
    ),
    (
        "timeout zero",
        "upstream: {connect_timeout_s: 0}\n",
        ["upstream.connect_timeout_s: 0 is out of range (> 0)"],
    ),
    (
        "timeout text",
        "upstream: {read_timeout_s: long}\n",
        ["upstream.read_timeout_s: 'long' is not a number"],
    ),
    (
        "timeout infinite",
        "upstream: {read_timeout_s: .inf}\n",
        ["upstream.read_timeout_s: inf is not a number"],
    ),
    (
        "max connections",
        "upstream: {max_connections: 0}\n",
        ["upstream.max_connections: 0 is out of range (>= 1)"],
    ),
    (
        "sentence cap",
        "replies: {max_sentence_chars: 100}\n",
        ["replies.max_sentence_chars: 100 is out of range (>= 512)"],
    ),
    ("rules not a path", "replies: {rules: [a]}\n", ["replies.rules: ['a'] is not a string"]),
    ("language", "language: fr\n", ["language: unknown language 'fr' (known: en, pt-BR)"]),
    ("language bool (YAML 1.1 no)", "language: no\n", ["language: False is not a string"]),
    (
        "passthrough not a list",
        "passthrough: /v1/files\n",
        ["passthrough: '/v1/files' is not a list"],
    ),
    (
        "passthrough items",
        "passthrough: [/v1/files, v1/batches, 3]\n",
        [
            "passthrough[2]: 3 is not a string",
            "passthrough[1]: 'v1/batches' does not start with \"/\"",
        ],
    ),
    (
        "body limit",
        "limits: {max_body_bytes: -1}\n",
        ["limits.max_body_bytes: -1 is out of range (>= 1)"],
    ),
    ("admin token empty", "admin: {token: ''}\n", ["admin.token: must not be empty"]),
    (
        "log level",
        "log: {level: loud}\n",
        ["log.level: unknown level 'loud' (known: critical, debug, error, info, warning)"],
    ),
    ("log access", "log: {access: sometimes}\n", ["log.access: 'sometimes' is not a boolean"]),
    ("non-string key", "1: x\n", [f"1: unknown key (known: {KNOWN_TOP})"]),
    (
        "all errors at once",
        "listen: {port: x, host: ''}\nupstrem: 1\nlanguage: fr\nlog: {level: loud, acces: true}\n",
        [
            "listen.port: 'x' is not an integer",
            "listen.host: must not be empty",
            f"upstrem: unknown key (known: {KNOWN_TOP})",
            "language: unknown language 'fr' (known: en, pt-BR)",
            "log.level: unknown level 'loud' (known: critical, debug, error, info, warning)",
            "log.acces: unknown key (known: access, level)",
        ],
    ),
    (
        "top level a list",
        "- a\n- b\n",
        ["replyguard.yaml: top level must be a mapping, not a list"],
    ),
    ("top level a scalar", "hello\n", ["replyguard.yaml: top level must be a mapping, not a str"]),
    (
        "yaml syntax",
        "listen:\n  port: 1\n  host: [\n",
        ["replyguard.yaml:4: expected the node content, but found '<stream end>'"],
    ),
    (
        "yaml bad indentation",
        "listen:\n  port: 1\n host: x\n",
        ["replyguard.yaml:3: expected <block end>, but found '<block mapping start>'"],
    ),
    (
        "yaml mapping in scalar",
        "listen: a: b\n",
        ["replyguard.yaml:1: mapping values are not allowed here"],
    ),
    (
        "yaml duplicate key",
        "listen:\n  port: 1\n  port: 2\n",
        ["replyguard.yaml:3: duplicate key 'port'"],
    ),
    (
        "yaml tab",
        "listen:\n\tport: 1\n",
        ["replyguard.yaml:2: found character '\\t' that cannot start any token"],
    ),
    (
        "block message over 500 characters",
        "guardrails: {block_message: '" + "x" * 501 + "'}\n",
        ["guardrails.block_message: is 501 characters long (at most 500)"],
    ),
    (
        "topic enabled without a site name",
        "guardrails: {topic: {enabled: true}}\n",
        ["guardrails.topic.site_name: required when the topic check is enabled"],
    ),
    (
        "on_error choice",
        "guardrails: {moderation: {on_error: ignore}}\n",
        ["guardrails.moderation.on_error: unknown choice 'ignore' (known: allow, block)"],
    ),
    (
        "judge url",
        "guardrails: {topic: {judge: {base_url: judge.test}}}\n",
        ["guardrails.topic.judge.base_url: 'judge.test' is not an http(s) URL"],
    ),
    (
        "check timeout",
        "guardrails: {prompt_injection: {timeout_ms: 0, use_jugde: true}}\n",
        [
            "guardrails.prompt_injection.timeout_ms: 0 is out of range (10..120000)",
            "guardrails.prompt_injection.use_jugde: unknown key (known: enabled, judge, "
            "on_error, timeout_ms, use_judge)",
        ],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID]
)
def test_invalid_file(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = write(tmp_path, text)
    assert errors_of(path) == expected


def test_error_message_names_file_and_every_error(tmp_path: Path) -> None:
    path = write(tmp_path, "listen: {port: x}\nlanguage: fr\n")
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    assert info.value.source == str(path)
    assert str(info.value) == (
        f"{path}: 2 error(s)\n"
        "  listen.port: 'x' is not an integer\n"
        "  language: unknown language 'fr' (known: en, pt-BR)"
    )
    assert isinstance(info.value, ValueError)


def test_missing_file(tmp_path: Path) -> None:
    assert errors_of(tmp_path / "nope.yaml") == ["nope.yaml: file not found"]


def test_directory_instead_of_file(tmp_path: Path) -> None:
    (tmp_path / "dir.yaml").mkdir()
    assert errors_of(tmp_path / "dir.yaml") == ["dir.yaml: cannot read (Is a directory)"]


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "replyguard.yaml"
    path.write_bytes(b"language: \xff\n")
    assert errors_of(path) == ["replyguard.yaml: not UTF-8 (byte 10)"]


# --- JSON ---------------------------------------------------------------------------------------


def test_json_file(tmp_path: Path) -> None:
    path = write(tmp_path, '{"listen": {"port": 9001}, "language": "pt-BR"}', "s.json")
    s = load_settings(path, env={})
    assert (s.listen.port, s.language) == (9001, "pt-BR")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"listen": {"port": "x"}}', ["listen.port: 'x' is not an integer"]),
        (
            '{\n  "listen": {"port": 1,}\n}',
            ["s.json:2: Expecting property name enclosed in double quotes"],
        ),
        ("[1, 2]", ["s.json: top level must be a mapping, not a list"]),
        ("null", ["s.json: top level must be a mapping, not a null"]),
    ],
)
def test_invalid_json_file(tmp_path: Path, text: str, expected: list[str]) -> None:
    assert errors_of(write(tmp_path, text, "s.json")) == expected


# --- paths --------------------------------------------------------------------------------------


def test_relative_rules_path_resolved_against_settings_folder(tmp_path: Path) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    path = write(folder, "replies: {rules: rules/reply.yaml}\n")
    assert load_settings(path, env={}).replies.rules == folder / "rules/reply.yaml"


def test_relative_rules_path_with_relative_settings_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "etc").mkdir()
    write(tmp_path / "etc", "replies: {rules: r.yaml}\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings("etc/replyguard.yaml", env={}).replies.rules == tmp_path / "etc/r.yaml"


def test_relative_rules_path_from_env_resolved_against_working_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "etc").mkdir()
    path = write(tmp_path / "etc", "replies: {max_sentence_chars: 512}\n")
    monkeypatch.chdir(tmp_path)
    s = load_settings(path, env={"REPLYGUARD_REPLIES_RULES": "r.yaml"})
    assert s.replies.rules == tmp_path / "r.yaml"


def test_absolute_rules_path_kept(tmp_path: Path) -> None:
    path = write(tmp_path, f"replies: {{rules: {tmp_path / 'x.yaml'}}}\n")
    assert load_settings(path, env={}).replies.rules == tmp_path / "x.yaml"


# --- environment and overrides ------------------------------------------------------------------


def test_env_names() -> None:
    names = env_names()
    assert {
        "REPLYGUARD_LISTEN_HOST": "listen.host",
        "REPLYGUARD_LISTEN_PORT": "listen.port",
        "REPLYGUARD_UPSTREAM_BASE_URL": "upstream.base_url",
        "REPLYGUARD_UPSTREAM_API_KEY": "upstream.api_key",
        "REPLYGUARD_UPSTREAM_CONNECT_TIMEOUT_S": "upstream.connect_timeout_s",
        "REPLYGUARD_UPSTREAM_READ_TIMEOUT_S": "upstream.read_timeout_s",
        "REPLYGUARD_REPLIES_RULES": "replies.rules",
        "REPLYGUARD_REPLIES_PHONE_REGIONS": "replies.phone_regions",
        "REPLYGUARD_LANGUAGE": "language",
        "REPLYGUARD_ADMIN_TOKEN": "admin.token",
        "REPLYGUARD_LIMITS_MAX_BODY_BYTES": "limits.max_body_bytes",
        "REPLYGUARD_LOG_LEVEL": "log.level",
    }.items() <= names.items()
    assert len(set(names.values())) == len(names)


def test_env_values_parsed_as_their_type(tmp_path: Path) -> None:
    env = {
        "REPLYGUARD_LISTEN_HOST": "0.0.0.0",
        "REPLYGUARD_LISTEN_PORT": "9000",
        "REPLYGUARD_UPSTREAM_BASE_URL": "http://up.test/v1/",
        "REPLYGUARD_UPSTREAM_API_KEY": "sk-env",
        "REPLYGUARD_UPSTREAM_CONNECT_TIMEOUT_S": "1.5",
        "REPLYGUARD_UPSTREAM_READ_TIMEOUT_S": "20",
        "REPLYGUARD_LANGUAGE": "pt-BR",
        "REPLYGUARD_ADMIN_TOKEN": "tok",
        "REPLYGUARD_LIMITS_MAX_BODY_BYTES": "2048",
        "REPLYGUARD_LOG_LEVEL": "warning",
        "REPLYGUARD_LOG_ACCESS": "off",
        "REPLYGUARD_PASSTHROUGH": "/v1/files, /v1/batches",
        "REPLYGUARD_REPLIES_PHONE_REGIONS": "br, pt",
        "OTHER_LISTEN_PORT": "1",
    }
    s = load_settings(write(tmp_path, "listen: {port: 1}\n"), env=env)
    assert s.listen == ListenSettings("0.0.0.0", 9000)
    assert s.upstream == UpstreamSettings("http://up.test/v1", "sk-env", 1.5, 20.0, 100)
    assert (s.language, s.admin.token, s.limits.max_body_bytes) == ("pt-BR", "tok", 2048)
    assert s.log == LogSettings("warning", False)
    assert s.passthrough == ("/v1/files", "/v1/batches")
    assert s.replies.phone_regions == ("BR", "PT")


def test_env_phone_regions_error_names_the_variable() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(env={"REPLYGUARD_REPLIES_PHONE_REGIONS": "US,UK"})
    assert caught.value.errors == [
        "REPLYGUARD_REPLIES_PHONE_REGIONS[1]: unknown region 'UK' (ISO 3166-1 alpha-2 codes "
        "with a phone numbering plan: US, GB, BR, ...)"]


def test_empty_env_value_is_ignored(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, "listen: {port: 1}\n"), env={"REPLYGUARD_LISTEN_PORT": ""})
    assert s.listen.port == 1


def test_os_environ_used_when_env_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLYGUARD_LISTEN_PORT", "9123")
    assert load_settings().listen.port == 9123


def test_env_errors_name_the_variable(tmp_path: Path) -> None:
    env = {
        "REPLYGUARD_LISTEN_PORT": "abc",
        "REPLYGUARD_UPSTREAM_READ_TIMEOUT_S": "soon",
        "REPLYGUARD_UPSTREAM_BASE_URL": "localhost:8000",
        "REPLYGUARD_LANGUAGE": "fr",
        "REPLYGUARD_LOG_ACCESS": "maybe",
    }
    assert errors_of(None, env=env) == [
        "REPLYGUARD_LISTEN_PORT: 'abc' is not an integer",
        "REPLYGUARD_UPSTREAM_BASE_URL: 'localhost:8000' is not an http(s) URL",
        "REPLYGUARD_UPSTREAM_READ_TIMEOUT_S: 'soon' is not a number",
        "REPLYGUARD_LANGUAGE: unknown language 'fr' (known: en, pt-BR)",
        "REPLYGUARD_LOG_ACCESS: 'maybe' is not a boolean",
    ]


def test_file_and_env_errors_reported_together(tmp_path: Path) -> None:
    path = write(tmp_path, "language: fr\n")
    assert errors_of(path, env={"REPLYGUARD_LISTEN_PORT": "99999"}) == [
        "language: unknown language 'fr' (known: en, pt-BR)",
        "REPLYGUARD_LISTEN_PORT: 99999 is out of range (0..65535)",
    ]


def test_precedence_defaults_file_env_overrides(tmp_path: Path) -> None:
    path = write(
        tmp_path, "listen: {host: file.test, port: 1}\nlanguage: pt-BR\nlog: {level: error}\n"
    )
    env = {"REPLYGUARD_LISTEN_PORT": "2", "REPLYGUARD_LOG_LEVEL": "debug"}
    s = load_settings(path, env=env, overrides={"listen.port": 3})
    assert s.listen == ListenSettings("file.test", 3)  # host: file; port: override over env
    assert s.log.level == "debug"  # env over file
    assert s.language == "pt-BR"  # file over default
    assert s.upstream.max_connections == 100  # default


def test_overrides_without_file() -> None:
    s = load_settings(
        env={},
        overrides={"upstream.base_url": "http://127.0.0.1:9/v1/", "listen.port": "9000"},
    )
    assert (s.upstream.base_url, s.listen.port) == ("http://127.0.0.1:9/v1", 9000)


def test_override_path_object_resolved_against_working_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    s = load_settings(env={}, overrides={"replies.rules": Path("r.yaml")})
    assert s.replies.rules == tmp_path / "r.yaml"


def test_override_errors_name_the_dotted_key() -> None:
    overrides = {"listen.port": "x", "listen.prot": 1, "upstrem.base_url": "http://x.test"}
    assert errors_of(None, overrides=overrides) == [
        "listen.port: 'x' is not an integer",
        f"listen.prot: unknown key (known: {KNOWN_LISTEN})",
        f"upstrem: unknown key (known: {KNOWN_TOP})",
    ]


def test_override_into_a_broken_section_reports_the_file_error(tmp_path: Path) -> None:
    path = write(tmp_path, "listen: 5\n")
    assert errors_of(path, overrides={"listen.port": 1}) == ["listen: 5 is not a mapping"]


def test_unknown_replyguard_variables_are_refused_by_name() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(None, env={"REPLYGUARD_LISTEN_PROT": "9000", "REPLYGUARD_TOOLS": "x",
                                 "REPLYGUARD_FOO": "1", "REPLYGUARD_BAR": "", "OTHER": "1"})
    assert caught.value.errors == [
        "REPLYGUARD_FOO: not a setting read from the environment (no setting has that name)",
        "REPLYGUARD_LISTEN_PROT: not a setting read from the environment (did you mean "
        "REPLYGUARD_LISTEN_PORT?)",
        "REPLYGUARD_TOOLS: not a setting read from the environment (`tools` is read from the "
        "settings file only)",
    ]


def test_workers_from_the_environment_and_flags() -> None:
    assert load_settings(env={"REPLYGUARD_LISTEN_WORKERS": "3"}).listen.workers == 3
    assert load_settings(env={}, overrides={"listen.workers": "auto"}).listen.workers == "auto"
    assert errors_of(None, env={"REPLYGUARD_LISTEN_WORKERS": "two"}) == [
        "REPLYGUARD_LISTEN_WORKERS: 'two' is neither a whole number nor 'auto'"]


def test_the_ci_switch_is_no_setting() -> None:
    """REPLYGUARD_CI (set by .ci/run) is read by the test suite, not refused as a setting."""
    assert load_settings(env={"REPLYGUARD_CI": "1", "REPLYGUARD_LISTEN_PORT": "9124"}).listen.port \
        == 9124
