"""The `replyguard` command line: screen and check-rules, in process and as the installed script."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

import pytest

from replyguard.proxy.cli import main

ROOT = Path(__file__).parents[1]
EXAMPLE = str(ROOT / "config" / "reply-rules.example.yaml")


class _Stdin:
    """A stand-in for sys.stdin with the `.buffer` the CLI reads bytes from."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
         stdin: bytes = b"") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_screen_masks_a_card(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, capsys, ["screen", "--rules", EXAMPLE],
                b"my card is 4111 1111 1111 1111\n") == (0, "my card is **** 1111\n", "")


def test_screen_withholds_a_turn_with_an_ssn(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, capsys, ["screen", "--rules", EXAMPLE],
                b"my social security number is 123-45-6789\n") == (
        0, "withheld: the turn holds national_id; nothing is forwarded\n", "")


def test_screen_leaves_a_failing_card_alone(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, capsys, ["screen", "--rules", EXAMPLE],
                b"the card 4111 1111 1111 1112 is not on file\n") == (
        0, "the card 4111 1111 1111 1112 is not on file\n", "")


def test_screen_prints_counts_on_stderr(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, capsys, ["screen", "--rules", EXAMPLE, "--counts"],
                b"card 4111 1111 1111 1111") == (
        0, "card **** 1111", "reply_pd_detected_card 1\nreply_pd_redacted 1\n")


def test_screen_without_rules_uses_defaults(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, capsys, ["screen"], b"SSN 123-45-6789") == (0, "SSN ***6789", "")


def test_screen_reads_phones_in_the_regions_given(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["screen", "--counts", "--language", "pt-BR"]
    assert (_run(monkeypatch, capsys, argv, b"(11) 98765-4321"),
            _run(monkeypatch, capsys, [*argv, "--phone-regions", "US"], b"(11) 98765-4321")) == (
        (0, "(11) 98765-4321", "reply_pd_detected_phone 1\n"), (0, "(11) 98765-4321", ""))


def test_check_rules_ok(monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, capsys, ["check-rules", EXAMPLE]) == (0, f"{EXAMPLE}: ok\n", "")


def test_check_rules_errors_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("personal_data:\n  card: mask\n  cardd: redact\n", encoding="utf-8")
    assert _run(monkeypatch, capsys, ["check-rules", str(path)]) == (
        1, "",
        "personal_data.card: 'mask' is not one of redact, withhold, allow\n"
        "personal_data.cardd: unknown class (known: api_key, aws_access_key, card, email, "
        "iban, ip_address, jwt, national_id, password, phone, private_key)\n")


def test_screen_with_a_bad_rules_file_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("personal_data:\n  card: mask\n", encoding="utf-8")
    assert _run(monkeypatch, capsys, ["screen", "--rules", str(path)], b"hi") == (
        2, "", "personal_data.card: 'mask' is not one of redact, withhold, allow\n")


def test_installed_console_script_screens_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "replyguard.proxy.cli", "screen", "--rules", EXAMPLE],
        input=b"my card is 4111 1111 1111 1111\n", capture_output=True, timeout=60, cwd=ROOT,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"my card is **** 1111\n", b"")


def test_serve_on_port_0_announces_the_port_it_bound() -> None:
    """`replyguard serve --port 0` logs the port the OS chose, and serves on it."""
    import json
    import urllib.request

    proc = subprocess.Popen(
        [sys.executable, "-m", "replyguard.proxy.cli", "serve", "--port", "0", "--upstream",
         "http://127.0.0.1:9/v1"], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if '"event": "serving"' in line:
                break
        else:
            raise AssertionError("serve never announced itself")
        port = json.loads(line[line.index("{"):])["port"]
        assert port > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as resp:
            assert resp.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()


def test_check_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "replyguard.yaml"
    good.write_text("listen: {port: 9000}\nguardrails: {prompt_injection: {enabled: true}}\n",
                    encoding="utf-8")
    assert main(["check-settings", str(good)]) == 0
    assert capsys.readouterr().out == f"{good}: ok\n"
    bad = tmp_path / "bad.yaml"
    bad.write_text("guardrails: {topic: {enabled: true}}\nreplies: {rules: missing.yaml}\n",
                   encoding="utf-8")
    assert main(["check-settings", str(bad)]) == 1
    assert capsys.readouterr().err == (
        "guardrails.topic.site_name: required when the topic check is enabled\n")


def test_fake_upstream_echoes_and_serve_screens_the_echo() -> None:
    """`replyguard fake-upstream` answers a turn it has no script for by echoing it; behind
    `replyguard serve`, the card in the echo comes back masked, as does the card in its
    scripted tool call's arguments; it prints each turn it received (masked by the proxy)."""
    import json
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        fake_port = probe.getsockname()[1]
    fake = subprocess.Popen([sys.executable, "-m", "replyguard.proxy.cli", "fake-upstream",
                             "--port", str(fake_port)], stdout=subprocess.PIPE, text=True)
    proxy = subprocess.Popen(
        [sys.executable, "-m", "replyguard.proxy.cli", "serve", "--port", "0", "--upstream",
         f"http://127.0.0.1:{fake_port}/v1"], stderr=subprocess.PIPE, text=True)
    try:
        assert proxy.stderr is not None
        for line in proxy.stderr:
            if '"event": "serving"' in line:
                break
        port = json.loads(line[line.index("{"):])["port"]
        body = json.dumps({"model": "m", "messages": [
            {"role": "user", "content": "what is 4111 1111 1111 1111?"}]}).encode()
        deadline = time.monotonic() + 30
        while True:
            try:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/v1/chat/completions", body,
                    {"Content-Type": "application/json"})
                with urllib.request.urlopen(request, timeout=10) as resp:
                    reply = json.loads(resp.read())
                break
            except OSError:  # the fake upstream still starting: 502 for a moment
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert reply["choices"][0]["message"]["content"] == "You said: what is **** 1111?"
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/chat/completions", json.dumps({
                "model": "m", "messages": [{"role": "user", "content":
                                            "charge my card on file for order 4412"}]}).encode(),
            {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as resp:
            call = json.loads(resp.read())["choices"][0]["message"]["tool_calls"][0]
        assert call["function"] == {"name": "charge_card",
                                    "arguments": '{"order_id":"4412","card":"**** 1111"}'}
    finally:
        for proc in (proxy, fake):
            proc.terminate()
            proc.wait(timeout=10)
        if proxy.stderr is not None:
            proxy.stderr.close()
    assert fake.stdout is not None
    received = [line for line in fake.stdout.read().splitlines() if line.startswith("received")]
    fake.stdout.close()
    assert received[-2:] == ["received: what is **** 1111?",
                             "received: charge my card on file for order 4412"]


def test_demo_refuses_a_chunk_size_below_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["demo", "--chunk-chars", "0"])
    assert exited.value.code == 2
    assert "'0' is not a whole number of at least 1" in capsys.readouterr().err


def _help_of(command: str, flag: str) -> str | None:
    """The help text of `flag` of the subcommand `command` (None when it has none)."""
    from replyguard.proxy.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next(a.help for a in sub.choices[command]._actions if flag in a.option_strings)


@pytest.mark.parametrize(("command", "flag", "text"), [
    ("serve", "--host", "address to listen on (default 127.0.0.1; 0.0.0.0 for every "
                        "interface, e.g. in a container)"),
    ("serve", "--port", "port to listen on (default 8080; 0: any free port)"),
    ("serve", "--language", "the rules' language (default en); a request may choose with the "
                            "X-ReplyGuard-Language header"),
    ("screen", "--side", "screen stdin as a user's turn (request side) or as a model's reply "
                         "(default turn)"),
    ("screen", "--language", "the rules' language (default en)"),
])
def test_every_flag_says_what_it_does(command: str, flag: str, text: str) -> None:
    assert _help_of(command, flag) == text


def test_no_argument_goes_without_help() -> None:
    from replyguard.proxy.cli import build_parser

    def silent(parser: argparse.ArgumentParser, name: str) -> list[str]:
        found = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    found += silent(sub, f"{name} {sub_name}")
            elif action.help is None:
                found.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
        return found

    assert silent(build_parser(), "replyguard") == []


def test_records_list_refuses_an_unknown_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["records", "list", "--store", "sqlite:///nowhere.db", "--verdict", "nonsense"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "replyguard records list: error: argument --verdict: invalid choice: 'nonsense' "
        "(choose from 'forward', 'withhold', 'exact', 'blocked', 'passthrough', 'error')")
