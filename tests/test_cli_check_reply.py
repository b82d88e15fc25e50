"""`replyguard check-reply`: a staff draft on stdin, findings out, exit 1 when any."""

from __future__ import annotations

import io
import json
import sys

import pytest

from replyguard.proxy.cli import main

DRAFT = b"Pod api-7d9f8b6c5-x2x7k logged KeyError for bob@example.com and jane@example.com\n"


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
         stdin: bytes) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
    status = main(argv)
    return status, capsys.readouterr().out


def test_findings_listed_and_exit_1(monkeypatch, capsys) -> None:
    status, out = _run(monkeypatch, capsys, ["check-reply", "--requester", "Jane@Example.com"],
                       DRAFT)
    assert (status, out) == (1, (
        "email: 'bob@example.com' - Email addresses other than the requester's are another "
        "person's data.\n"
        "pod_name: 'api-7d9f8b6c5-x2x7k' - Pod names describe how the platform is deployed.\n"
        "exception_name: 'KeyError' - Exception names show the platform's code.\n"))


def test_json_output(monkeypatch, capsys) -> None:
    status, out = _run(monkeypatch, capsys, ["check-reply", "--json", "--max-findings", "1"],
                       DRAFT)
    assert status == 1
    assert json.loads(out) == {"findings": [
        {"rule": "email", "text": "bob@example.com",
         "why": "Email addresses other than the requester's are another person's data."}]}


def test_clean_draft_exit_0(monkeypatch, capsys) -> None:
    status, out = _run(monkeypatch, capsys, ["check-reply"],
                       b"Thanks! Your order 4412 ships on Friday for 12.50 pounds.\n")
    assert (status, out) == (0, "clean (a safety net, not a guarantee: read the draft before "
                                "sending)\n")


def test_negative_max_findings_refused(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(b"x"))
    with pytest.raises(SystemExit) as exc:
        main(["check-reply", "--max-findings", "-1"])
    assert exc.value.code == 2
    assert "-1 is below 0" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "out"), [
    ([], "phone_number: '(202) 555-0143' - Phone numbers are personal data.\n"),
    (["--phone-regions", "br"], "phone_number: '(11) 98765-4321' - Phone numbers are personal "
                                "data.\n"),
])
def test_phone_regions(monkeypatch, capsys, argv: list[str], out: str) -> None:
    status, got = _run(monkeypatch, capsys, ["check-reply", *argv],
                       b"Call (202) 555-0143 or (11) 98765-4321\n")
    assert (status, got) == (1, out)


def test_unknown_phone_region_is_refused(monkeypatch, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        _run(monkeypatch, capsys, ["check-reply", "--phone-regions", "US,UK"], b"x")
    assert (caught.value.code, capsys.readouterr().err.splitlines()[-1]) == (
        2, "replyguard check-reply: error: argument --phone-regions: 'UK' is not a region "
           "with a phone numbering plan (ISO 3166-1 alpha-2 codes: US, GB, BR, ...)")
