"""The proxy's subcommands of `replyguard`: `serve`, `demo` and `records`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from replyguard.config.rules import load_rules
from replyguard.config.settings import Settings, load_settings
from replyguard.engine.rules import ReplyRules

EXAMPLE_RULES = Path(__file__).resolve().parent.parent / "config" / "reply-rules.example.yaml"


def load(args: argparse.Namespace) -> tuple[Settings, ReplyRules]:
    """Settings (file < REPLYGUARD_* environment < flags) and the rules they name.

    Raises ConfigError naming the wrong key of either file.
    """
    overrides: dict[str, Any] = {}
    for flag, key in (("upstream", "upstream.base_url"), ("rules", "replies.rules"),
                      ("host", "listen.host"), ("port", "listen.port"),
                      ("language", "language"), ("workers", "listen.workers"),
                      ("backlog", "listen.backlog"), ("admin_port", "listen.admin_port")):
        value = getattr(args, flag, None)
        if value is not None:
            overrides[key] = value
    settings = load_settings(args.config, overrides=overrides)
    rules = load_rules(settings.replies.rules) if settings.replies.rules else ReplyRules()
    return settings, rules


def configure_logging(level: str) -> None:
    """Plain JSON lines on stderr: the access log's records are JSON already."""
    logging.basicConfig(level=level.upper(), stream=sys.stderr, format="%(message)s")


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the proxy until SIGTERM or SIGINT (SIGHUP reloads the rules file)."""
    from replyguard.proxy.workers import serve

    settings, rules = load(args)
    configure_logging(settings.log.level)
    return serve(settings, rules)


def cmd_demo(args: argparse.Namespace) -> int:
    """Run the shop's conversation through the proxy with the real openai SDK."""
    from replyguard.proxy.demo import run_demo
    from replyguard.proxy.workers import install_uvloop

    install_uvloop()
    return asyncio.run(run_demo(args.rules or str(EXAMPLE_RULES), args.chunk_chars))


def cmd_fake_upstream(args: argparse.Namespace) -> int:
    """Serve the built-in fake model until Ctrl-C."""
    from replyguard.proxy.fake_upstream import main as fake_main

    fake_main(["--host", args.host, "--port", str(args.port), "--chunk-chars",
               str(args.chunk_chars)])
    return 0


def _positive(value: str) -> int:
    """An integer of at least 1 (argparse type)."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return number


def add_proxy_commands(sub: Any) -> None:
    """Add `serve`, `demo` and `fake-upstream` to the `replyguard` subcommands."""
    serve = sub.add_parser("serve", help="run the proxy")
    serve.add_argument("--config", help="settings file (YAML or JSON)")
    serve.add_argument("--upstream", help="upstream base URL, e.g. https://api.openai.com/v1")
    serve.add_argument("--rules", help="reply rules file (YAML or JSON)")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1; 0.0.0.0 for "
                                      "every interface, e.g. in a container)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8080; 0: any free "
                                                "port)")
    serve.add_argument("--language", choices=("en", "pt-BR"),
                       help="the rules' language (default en); a request may choose with the "
                            "X-ReplyGuard-Language header")
    serve.add_argument("--workers", help="server processes sharing the port: a number, or "
                                         "auto (the CPUs this process may use)")
    serve.add_argument("--backlog", type=int, help="listen backlog (default 2048)")
    serve.add_argument("--admin-port", type=int,
                       help="a second port serving only /healthz, /readyz and /metrics")
    serve.set_defaults(func=cmd_serve)

    demo = sub.add_parser("demo", help="the shop example end to end, on a built-in upstream")
    demo.add_argument("--rules", help="reply rules file (default: the shop's example rules)")
    demo.add_argument("--chunk-chars", type=_positive, default=4,
                      help="characters per upstream chunk (default 4)")
    demo.set_defaults(func=cmd_demo)

    fake = sub.add_parser("fake-upstream",
                          help="a built-in fake model to try `serve` without a provider: the "
                               "shop's script, and any other turn echoed back")
    fake.add_argument("--host", default="127.0.0.1", help="address to listen on (default "
                                                          "127.0.0.1)")
    fake.add_argument("--port", type=int, default=9000, help="port to listen on (default 9000)")
    fake.add_argument("--chunk-chars", type=_positive, default=4,
                      help="characters per streamed chunk (default 4)")
    fake.set_defaults(func=cmd_fake_upstream)

    from replyguard.proxy.records_cli import add_records_command

    add_records_command(sub)
