"""Where a reply is cut never stalls the screen and never releases half a value: runs of
sentence-end characters are read in linear time and meet the sentence cap like any text, the
cap's forced split is chosen with the detectors reading past it, and a private key block cut
into pieces (by the cap, or by its own quoted, listed or headed lines) is masked whole."""

from __future__ import annotations

import random

import pytest

from replyguard.engine.reply import ReplyScreen, screen_reply
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules
from replyguard.engine.screen import screen_text
from replyguard.engine.segment import SentenceSegmenter, split_sentences

REDACT_ALL = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")


def _streamed(text: str, size: int, max_chars: int = 2000) -> list[str]:
    segmenter = SentenceSegmenter(max_chars=max_chars)
    pieces: list[str] = []
    for i in range(0, len(text), size):
        pieces += segmenter.feed(text[i : i + size])
    return pieces + segmenter.flush()


# -- runs of sentence-end characters -------------------------------------------------------

RUNS = [
    ("Please wait" + "." * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "!" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "?" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "…" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + ".!?…" * 1250, [7, 1744, 1744, 1516]),
    ("Wait!?" + "…" * 3000 + " Done.", [1744, 1263, 5]),
    (('."' * 2500), [1744, 1744, 1512]),
    (("." * 700 + " ") * 4 + "End.", [1402, 1402, 4]),
    ("Dots" + "." * 3000 + "\n" + "." * 3000 + " Next one.", [1744, 1261, 1744, 1257, 9]),
    ("Please wait" + "。" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "！" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "？" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "．" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "｡" * 5000, [7, 1744, 1744, 1516]),
    ("Please wait" + "。！？．｡" * 1000, [7, 1744, 1744, 1516]),
    ("待って！？" + "。" * 3000 + "」次。", [1744, 1262, 2]),
    ("。」" * 2500, [1744, 1744, 1512]),
    (("。" * 700 + "次") * 4 + "終わり。", [700, 701, 701, 701, 5]),
]


@pytest.mark.parametrize(("text", "lengths"), RUNS, ids=[f"run{i}" for i in range(len(RUNS))])
def test_a_run_of_sentence_ends_meets_the_cap(text: str, lengths: list[int]) -> None:
    pieces = split_sentences(text)
    assert [len(p) for p in pieces] == lengths
    assert "".join(pieces) == text


@pytest.mark.parametrize(("text", "lengths"), RUNS, ids=[f"run{i}" for i in range(len(RUNS))])
@pytest.mark.parametrize("size", [1, 4, 37])
def test_a_run_of_sentence_ends_streamed_gives_the_same_pieces(
        text: str, lengths: list[int], size: int) -> None:
    assert [len(p) for p in _streamed(text, size)] == lengths


def test_a_stream_of_dots_is_released_as_it_passes_the_cap() -> None:
    """Every piece is released once the cap and the window past it have been seen: the
    unreleased text never grows past the cap and the window (3,024 characters)."""
    segmenter = SentenceSegmenter(max_chars=2000)
    held = 0
    most = 0
    for _ in range(20_000):
        held += 4 - sum(len(p) for p in segmenter.feed("...."))
        most = max(most, held)
    assert most <= 2000 + 1024 + 4
    assert sum(map(len, segmenter.flush())) == held


def test_runs_cost_linear_time(cpu_time) -> None:  # type: ignore[no-untyped-def]
    """A small guard (the doubling ratios up to 1 MB are in tests/bench/bench_cuts.py)."""
    for unit in (".", "…\n", '."', " ", "1", "。", "。」", "あ。", "b. "):
        small = cpu_time(split_sentences, "a" + unit * 4_000)
        large = cpu_time(split_sentences, "a" + unit * 16_000)
        assert large < 8 * small + 0.01, unit


# -- the cap's forced split ----------------------------------------------------------------

#: (context before, value, context after, the three as released)
VALUES = [
    (',"card":"', "4111 1111 1111 1111", '",', ',"card":"**** 1111",'),
    (',"iban":"', "GB82 WEST 1234 5698 7654 32", '",', ',"iban":"GB** **** 5432",'),
    (',"ssn":"', "123-45-6789", '",', ',"ssn":"***6789",'),
    (',"nino":"', "AB 12 34 56 C", '",', ',"nino":"***456C",'),
    (',"cpf":"', "529.982.247-25", '",', ',"cpf":"***4725",'),
    (',"password":"', "S3cr3t-value", '",', ',"password":"****",'),
    (" password: ", "S3cr3t-value", ", ", " password: ****, "),
    (',"email":"', "jane.doe@example.com", '",', ',"email":"j***@example.com",'),
    (',"key":"', "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD", '",', ',"key":"sk-proj-****Q1cD",'),
    (',"ip":"', "203.0.113.42", '",', ',"ip":"***.***.***.42",'),
    (" see ", "postgres://admin:S3cretPa55@db:5432/shop", " now ",
     " see postgres://admin:****@db:5432/shop now "),
]


def _filler(rng: random.Random, size: int, kind: str) -> str:
    if kind == "json":  # compact JSON: no whitespace anywhere
        parts = []
        while sum(map(len, parts)) < size:
            parts.append(f'"k{rng.randrange(1000)}":"v{"x" * rng.randrange(1, 30)}",')
        return ("{" + "".join(parts))[:size]
    if kind == "words":
        return ("lorem ipsum dolor sit amet " * (size // 20 + 1))[:size]
    return "a" * size


def _placements(seed: int, count: int) -> list[tuple[int, str, str, str]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        before, value, after, released = rng.choice(VALUES)
        cap = rng.choice([512, 1000, 2000])
        kind = rng.choice(["json", "words", "solid"])
        offset = rng.randrange(cap - 300, cap + 40)  # where the value starts
        head = _filler(rng, max(0, offset - len(before)), kind)
        tail = _filler(rng, 600, kind) + " end."
        cases.append((cap, head + before + value + after + tail, head + released + tail,
                      value))
    return cases


@pytest.mark.parametrize("seed", range(6))
def test_the_cap_never_splits_a_value(seed: int) -> None:
    """Values of every kind placed in the 300 characters before the cap (and just past it),
    in compact JSON, in prose and in a text with no whitespace at all: each is masked whole,
    fed whole and in 7-character deltas."""
    for cap, text, expected, value in _placements(seed, 120):
        released, _ = screen_reply(text, REDACT_ALL, max_chars=cap)
        assert released == expected, (cap, text.index(value), value)
        screen = ReplyScreen(REDACT_ALL, max_chars=cap)
        streamed = "".join(screen.feed(text[i : i + 7]) for i in range(0, len(text), 7))
        assert streamed + screen.finish() == expected


def test_a_compact_json_card_at_the_cap_is_masked() -> None:
    fields = ",".join(f'"f{i}":"{i:05d}"' for i in range(140))
    text = "{" + fields + ',"card":"4111 1111 1111 1111"}'
    assert 1990 < len(text) < 2030
    released, counts = screen_reply(text, REDACT_ALL)
    assert released == text.replace("4111 1111 1111 1111", "**** 1111")
    assert counts["reply_pd_redacted"] == 1


# -- private key blocks ------------------------------------------------------------------

_LINES = [f"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7{i:012d}" for i in range(36)]


def _pem(prefix: str = "", newline: str = "\n", kind: str = "RSA PRIVATE KEY") -> str:
    lines = [f"-----BEGIN {kind}-----", *_LINES, f"-----END {kind}-----"]
    return newline.join(prefix + line for line in lines)


def _form(name: str, prefix: str, newline: str = "\n") -> tuple[str, str, str]:
    """A key block quoted with `prefix` before each line, between two lines of prose. (Where
    each line is a piece of its own, the BEGIN line's break is held until the body shows
    the block goes on: it is the block's, masked, as the whole text reads it.)"""
    text = f"Here:{newline}{_pem(prefix, newline)}{newline}Keep it safe."
    return name, text, f"Here:{newline}{prefix}[RSA PRIVATE KEY ****]{newline}Keep it safe."


KEY_FORMS = [
    _form("quoted", "> "),
    _form("commented", "# "),
    _form("listed", "- "),
    _form("starred", "* "),
    _form("br", "", "<br>"),
    _form("plain", ""),
    ("json", '{"key": "' + _pem(newline="\\n") + '\\n", "note": "rotate it"}',
     '{"key": "[RSA PRIVATE KEY ****]\\n", "note": "rotate it"}'),
    ("pgp", "Key:\n" + _pem(kind="PGP PRIVATE KEY BLOCK") + "\nDone.",
     "Key:\n[PGP PRIVATE KEY ****]\nDone."),
]


@pytest.mark.parametrize(("name", "text", "expected"), KEY_FORMS, ids=[k[0] for k in KEY_FORMS])
@pytest.mark.parametrize("cap", [512, 2000])
def test_a_private_key_block_is_masked_whole(name: str, text: str, expected: str,
                                             cap: int) -> None:
    assert len(_pem()) > 2000
    released, counts = screen_reply(text, REDACT_ALL, max_chars=cap)
    assert released == expected == screen_text(text, REDACT_ALL, "turn").text
    assert counts == {"reply_pd_detected_private_key": 1, "reply_pd_redacted": 1}
    assert screen_reply(text, REDACT_ALL, max_chars=cap, chunks=60, seed=3)[0] == expected


# -- values the cut or a neighbour could hide (found by a breaker session) ---------------

def test_an_armored_key_with_any_header_is_masked_whole() -> None:
    key = ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: Alice <alice@example.com> (c)\n\n"
           "lQOYBF0Tj0sB" + "A" * 64 + "\n=Zx9Q\n-----END PGP PRIVATE KEY BLOCK-----")
    assert screen_reply(f"Key:\n{key}\nDone.", REDACT_ALL)[0] == (
        "Key:\n[PGP PRIVATE KEY ****]\nDone.")


@pytest.mark.parametrize("wrap", ["`{}`", "% {}", "! {}", "$ {}", "~ {}", "@ {}", "({})", "[{}]"])
def test_key_lines_wrapped_any_way_are_masked(wrap: str) -> None:
    lines = "\n".join(wrap.format(line) for line in _LINES[:8])
    text = f"Key:\n-----BEGIN RSA PRIVATE KEY-----\n{lines}\n-----END RSA PRIVATE KEY-----\nOk."
    assert screen_reply(text, REDACT_ALL, max_chars=512)[0] == "Key:\n[RSA PRIVATE KEY ****]\nOk."


def test_a_token_longer_than_the_cap_and_its_window_is_masked_whole() -> None:
    token = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiZGF0YSI6Ij"
             + "FhYWFh" * 600 + "In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
    text = f"Token: {token} done."
    assert len(token) > 2000 + 1024
    assert screen_reply(text, REDACT_ALL)[0] == "Token: eyJ****.****.**** done."
    assert screen_reply(text, REDACT_ALL, chunks=40, seed=2)[0] == "Token: eyJ****.****.**** done."


@pytest.mark.parametrize(("head", "value", "tail"), [
    ("x" * 1719 + '{"password":"', "S3cr3t-value", '"}' + "y" * 1500),
    ("x" * 1716 + "postgres://admin:", "S3cretPa55", "@db:5432/shop" + "y" * 1500),
    ("x" * 1717 + "postgres://admin:", "S3cretPa55", "@db:5432/shop" + "y" * 1500),
    ("x" * 1661 + "postgres://" + "u" * 60 + ":", "S3cretPa55", "@db:5432/shop" + "y" * 1500),
])
def test_the_cap_never_falls_between_a_value_and_what_finds_it(
        head: str, value: str, tail: str) -> None:
    released, _ = screen_reply(head + value + tail, REDACT_ALL)
    assert released == head + "****" + tail


@pytest.mark.parametrize("glue", [",", "|", "/", ":", ";"])
def test_a_password_glued_to_a_key_is_masked_as_well(glue: str) -> None:
    text = f"password=S3cr3t-value{glue}ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ok"
    released, _ = screen_reply(text, REDACT_ALL)
    assert "S3cr3t" not in released and "Q7r8 ok" in released


@pytest.mark.parametrize(("value", "mask", "glue"), [
    ("123-45-6789", "***6789", ";"),
    ("4539148803436467", "**** 6467", ";"),
    ("sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1JkLmN", "sk-proj-****kLmN", "|"),
])
def test_values_back_to_back_past_the_cap_are_each_masked_whole(value: str, mask: str,
                                                                 glue: str) -> None:
    """With no whitespace and each value's span reaching into the next, the cap's cut falls
    before a value, never inside one."""
    text = "List: " + glue.join([value] * (6000 // len(value)))
    whole, _ = screen_reply(text, REDACT_ALL)
    assert whole == "List: " + glue.join([mask] * (6000 // len(value)))
    assert screen_reply(text, REDACT_ALL, chunks=40, seed=2)[0] == whole


#: Values and passwords past the cap with whitespace between them, each password's label a
#: few characters before it (a cut must fall between two entries, never inside one).
_CAP_LISTS = [
    "{" + ",".join(f'"svc{i}":{{"password":"Pw{i:03d}x!"}}' for i in range(65)) + "}",
    "```env\n" + "\n".join(f"SVC{i}_PASSWORD=Pw{i:03d}x!" for i in range(87)) + "\n```",
    "\n".join(f"password: Pw{i:04d}x!" for i in range(106)),
    " ".join(["postgres://admin:S3cret@db/x"] * 70),
    " | ".join(["GB82 WEST 1234 5698 7654 32", "https://u0:Pw0000x@h.io/"][i % 2]
               for i in range(74)),
    ", ".join(['"password":"Pw0000x!"', "123-45-6789"][i % 2] for i in range(115)),
    "\n".join([f"password: Pw{i:04d}x!", "sk-proj-AbC123dEf456GhI789jKl0000MnO"][i % 2]
              for i in range(75)),
]


@pytest.mark.parametrize("text", _CAP_LISTS, ids=range(len(_CAP_LISTS)))
def test_a_list_of_passwords_and_values_past_the_cap_leaks_none(text: str) -> None:
    whole, _ = screen_reply(text, REDACT_ALL)
    assert [s for s in ("Pw0", "S3cret", "WEST 1234", "123-45", "AbC123") if s in whole] == []
    assert screen_reply(text, REDACT_ALL, chunks=30, seed=5)[0] == whole
