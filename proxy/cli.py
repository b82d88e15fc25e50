"""The `replyguard` command line: screen, check-rules, check-settings, check-reply, and (with
the proxy) serve and demo."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable, Sequence

from replyguard.config.errors import ConfigError


def _read_stdin() -> str:
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SystemExit(f"replyguard: stdin is not UTF-8 text (byte {exc.start})") from None


def _load_compiled(path: str | None, language: str,  # type: ignore[no-untyped-def]
                   regions: tuple[str, ...] | None = None):
    from replyguard.config.rules import load_rules
    from replyguard.engine.rules import ReplyRules, compile_rules

    rules = load_rules(path) if path else ReplyRules()
    return compile_rules(rules, language, regions)  # type: ignore[arg-type]


def _regions(value: str) -> tuple[str, ...]:
    """An argparse type: comma-separated region codes with a phone numbering plan."""
    from replyguard.engine.detector_sets import phone_regions

    try:
        return phone_regions(part.strip() for part in value.split(",") if part.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("phone_regions: ")) from None


def cmd_screen(args: argparse.Namespace) -> int:
    """Screen stdin as a turn or a reply and print what would be released."""
    from replyguard.engine.screen import screen_text

    rules = _load_compiled(args.rules, args.language, args.phone_regions)
    text = _read_stdin()
    if args.side == "reply":
        from replyguard.engine.reply import screen_reply

        released, counts = screen_reply(text, rules, chunks=args.chunks, seed=args.seed,
                                        max_chars=args.max_chars)
        sys.stdout.write(released)
    else:
        screened = screen_text(text, rules, side="turn")
        counts = dict(screened.counts)
        if screened.action == "withhold":
            classes = ", ".join(screened.withheld)
            sys.stdout.write(f"withheld: the turn holds {classes}; nothing is forwarded\n")
        else:
            sys.stdout.write(screened.text)
    if args.counts:
        for name, value in sorted(counts.items()):
            sys.stderr.write(f"{name} {value}\n")
    return 0


def _checked(path: str, load: Callable[[], object]) -> int:
    """Run `load`: print "<path>: ok" and return 0, or print every error and return 1."""
    try:
        load()
    except ConfigError as exc:
        for line in exc.errors:
            sys.stderr.write(f"{line}\n")
        return 1
    sys.stdout.write(f"{path}: ok\n")
    return 0


def cmd_check_rules(args: argparse.Namespace) -> int:
    """Validate a rules file: exit 0 when it can be used, 1 with every error otherwise."""
    from replyguard.config.rules import load_rules

    return _checked(args.file, lambda: load_rules(args.file))


def cmd_check_settings(args: argparse.Namespace) -> int:
    """Validate a settings file (and the rules file it names): exit 0 when the proxy can
    start with it, 1 with every error otherwise. The environment is not read."""
    from replyguard.config.rules import load_rules
    from replyguard.config.settings import load_settings

    def load() -> None:
        settings = load_settings(args.file, env={})
        if settings.replies.rules is not None:
            load_rules(settings.replies.rules)

    return _checked(args.file, load)


def _max_chars(value: str) -> int:
    number = int(value)
    if number < 512:
        raise argparse.ArgumentTypeError(f"{number} is below 512")
    return number


def cmd_check_reply(args: argparse.Namespace) -> int:
    """Check a staff draft (stdin) against the reply rules; exit 1 when anything is
    found. A safety net, not a guarantee: a clean result does not mean the draft is right."""
    import dataclasses
    import json

    from replyguard.engine.check_reply import check_reply
    from replyguard.engine.detector_sets import detectors_for

    findings = check_reply(_read_stdin(), args.requester, args.max_findings,
                           detectors_for(args.phone_regions))
    if args.json:
        sys.stdout.write(json.dumps({"findings": [dataclasses.asdict(f) for f in findings]},
                                    ensure_ascii=False) + "\n")
    elif not findings:
        sys.stdout.write("clean (a safety net, not a guarantee: read the draft before "
                         "sending)\n")
    else:
        for f in findings:
            sys.stdout.write(f"{f.rule}: {f.text!r} - {f.why}\n")
    return 1 if findings else 0


def _count(value: str) -> int:
    """An argparse type: a whole number >= 0."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"{number} is below 0")
    return number


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="replyguard",
        description="An OpenAI-compatible proxy that screens requests and replies.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    screen = sub.add_parser("screen", help="screen text on stdin and print what is released")
    screen.add_argument("--rules", help="reply rules file (YAML or JSON); default rules if none")
    screen.add_argument("--side", choices=("turn", "reply"), default="turn",
                        help="screen stdin as a user's turn (request side) or as a model's "
                             "reply (default turn)")
    screen.add_argument("--language", choices=("en", "pt-BR"), default="en",
                        help="the rules' language (default en)")
    screen.add_argument("--chunks", type=int, default=0,
                        help="reply side: feed the reply in this many random pieces")
    screen.add_argument("--seed", type=int, default=None, help="random seed for --chunks")
    screen.add_argument("--max-chars", type=_max_chars, default=2000,
                        help="reply side: the sentence cap (at least 512; default 2000)")
    screen.add_argument("--counts", action="store_true", help="print the counts on stderr")
    screen.add_argument("--phone-regions", type=_regions, default=None, metavar="US,GB",
                        help="regions national phone numbers are read in (default: the "
                             "language's, en US,GB and pt-BR BR)")
    screen.set_defaults(func=cmd_screen)

    check = sub.add_parser("check-rules", help="validate a reply rules file")
    check.add_argument("file", help="the reply rules file (YAML or JSON)")
    check.set_defaults(func=cmd_check_rules)

    check_settings = sub.add_parser("check-settings",
                                    help="validate a settings file and the rules file it names")
    check_settings.add_argument("file", help="the settings file (YAML or JSON)")
    check_settings.set_defaults(func=cmd_check_settings)

    draft = sub.add_parser("check-reply", help="check a staff draft on stdin")
    draft.add_argument("--requester", help="the requester's own email, which may appear")
    draft.add_argument("--json", action="store_true", help="print the findings as JSON")
    draft.add_argument("--max-findings", type=_count, default=20, help="stop after this many")
    draft.add_argument("--phone-regions", type=_regions, default=("US", "GB"), metavar="US,GB",
                       help="regions national phone numbers are read in (default US,GB)")
    draft.set_defaults(func=cmd_check_reply)

    if importlib.util.find_spec("replyguard.proxy.commands") is not None:
        from replyguard.proxy.commands import add_proxy_commands

        add_proxy_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `replyguard` console script. Returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ConfigError as exc:
        for line in exc.errors:
            sys.stderr.write(f"{line}\n")
        return 2
    except BrokenPipeError:  # pragma: no cover - e.g. piped into `head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
