"""`replyguard screen --side reply`: the reply screen on stdin, whole or in random chunks."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from replyguard.proxy.cli import main

RULES = str(Path(__file__).parents[1] / "config/reply-rules.example.yaml")
REPLY = ("Your card 4111 1111 1111 1111 is on file; the card 4111 1111 1111 1112 is not. "
         "It is a guaranteed refund. Dr. Smith's SSN 123-45-6789 was noted. "
         "Write to jane@example.com — café é ótimo 😀.\n- item 5555-5555-5555-4444\n")
SCREENED = ("Your card **** 1111 is on file; the card 4111 1111 1111 1112 is not. "
            "Write to jane@example.com — café é ótimo 😀.\n- item **** 4444\n")
COUNTS = ("reply_pd_detected_card 2\nreply_pd_detected_email 1\n"
          "reply_pd_detected_national_id 1\nreply_pd_redacted 2\nreply_pd_withheld 1\n"
          "reply_wording_removed 1\n")


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
         data: bytes = REPLY.encode()) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", _Stdin(data))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


BASE = ["screen", "--side", "reply", "--rules", RULES]


@pytest.mark.parametrize("extra", [[], ["--chunks", "7", "--seed", "3"], ["--chunks", "1"],
                                   ["--chunks", "500", "--seed", "1"], ["--chunks", "7"]])
def test_chunks_give_the_same_output(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    assert _run(monkeypatch, capsys, BASE + extra + ["--counts"]) == (0, SCREENED, COUNTS)


def test_empty_reply(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, capsys, BASE + ["--chunks", "7"], b"") == (0, "", "")


def test_portuguese_reply(monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    data = "O Sr. Silva pagou R$ 12,50. Cartão 4111 1111 1111 1111 ok.".encode()
    assert _run(monkeypatch, capsys, BASE + ["--language", "pt-BR", "--chunks", "9", "--seed",
                                             "2"], data) == (
        0, "O Sr. Silva pagou R$ 12,50. Cartão **** 1111 ok.", "")


def test_not_utf8(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="stdin is not UTF-8 text"):
        _run(monkeypatch, capsys, BASE, b"caf\xe9")


def test_max_chars_splits_a_long_sentence_the_same_way_in_chunks(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    data = ("word " * 150 + "4111 1111 1111 1111 " + "word " * 150 + "end.").encode()
    expected = data.decode().replace("4111 1111 1111 1111", "**** 1111")
    for extra in ([], ["--chunks", "13", "--seed", "5"]):
        assert _run(monkeypatch, capsys, BASE + ["--max-chars", "512", *extra], data) == (
            0, expected, "")


def test_max_chars_below_512_refused(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _run(monkeypatch, capsys, BASE + ["--max-chars", "100"])
    assert exc.value.code == 2
    assert "--max-chars: 100 is below 512" in capsys.readouterr().err
