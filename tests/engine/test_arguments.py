"""engine.arguments: a tool call's arguments in a reply, every string value screened for
personal data and secrets, withhold acting as redact, the JSON kept valid; counted as reply
values."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.config.rules import load_rules
from replyguard.engine import ScreeningError, compile_rules
from replyguard.engine.arguments import (
    screen_arguments,
    screen_arguments_text,
    screen_arguments_value,
)
from replyguard.engine.request_fields import MAX_DEPTH

RULES = compile_rules(load_rules("config/reply-rules.example.yaml"))  # national_id: withhold
CARD = {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}


@pytest.mark.parametrize(("given", "sent", "counts"), [
    pytest.param('{"card": "4111 1111 1111 1111"}', '{"card":"**** 1111"}', CARD, id="card"),
    pytest.param('{"ssn": "123-45-6789"}', '{"ssn":"***6789"}',
                 {"reply_pd_detected_national_id": 1, "reply_pd_redacted": 1},
                 id="withhold-acts-as-redact"),
    pytest.param('{"a": {"b": ["x", "pay 4111 1111 1111 1111 now"]}, "n": 3, "ok": true}',
                 '{"a":{"b":["x","pay **** 1111 now"]},"n":3,"ok":true}', CARD, id="nested"),
    pytest.param('{"n": 4111111111111111}', '{"n":"**** 1111"}', CARD, id="card-as-a-number"),
    pytest.param('{"n": 4111111111111111.0}', '{"n":"**** 1111"}', CARD, id="as-a-float"),
    pytest.param('{"4111 1111 1111 1111": 1}', '{"**** 1111":1}', CARD, id="in-a-key"),
    pytest.param('{"password": "S3cret!pass"}', '{"password":"****"}',
                 {"reply_pd_detected_password": 1, "reply_pd_redacted": 1},
                 id="read-after-its-key"),
    pytest.param('{"name": "Zoë", "card": "4111111111111111"}',
                 '{"name":"Zoë","card":"**** 1111"}', CARD, id="non-ascii-kept"),
    pytest.param('"4111 1111 1111 1111"', '"**** 1111"', CARD, id="a-bare-string"),
    pytest.param('{"card": "4111 1111 1111 1111"', '{"card": "**** 1111"', CARD,
                 id="not-json-screened-as-text"),
    pytest.param('{"order_id": "4412", "amount": 12.5}', '{"order_id": "4412", "amount": 12.5}',
                 {}, id="nothing-masked-sent-as-it-came"),
    pytest.param('{"email": "jane@example.com"}', '{"email": "jane@example.com"}',
                 {"reply_pd_detected_email": 1}, id="allowed-class-counted-not-masked"),
    pytest.param("", "", {}, id="empty"),
    pytest.param("  ", "  ", {}, id="blank"),
])
def test_arguments_screened(given: str, sent: str, counts: dict[str, int]) -> None:
    out, got = screen_arguments(given, RULES)
    assert (out, dict(got)) == (sent, counts)


def test_unchanged_arguments_are_the_text_given() -> None:
    given = '{"order_id":  "4412"}'
    assert screen_arguments(given, RULES)[0] is given


def test_clashing_masked_keys_are_numbered() -> None:
    out, _ = screen_arguments('{"4111 1111 1111 1111": 1, "4111111111111111": 2}', RULES)
    assert json.loads(out) == {"**** 1111": 1, "**** 1111 (1)": 2}


def test_a_value_is_screened_as_it_is() -> None:
    given = {"card": "4111 1111 1111 1111", "items": [1, 2]}
    out, counts = screen_arguments_value(given, RULES)
    assert out == {"card": "**** 1111", "items": [1, 2]}
    assert given["card"] == "4111 1111 1111 1111"  # not changed in place
    assert dict(counts) == CARD
    same = {"order_id": "4412"}
    assert screen_arguments_value(same, RULES)[0] is same


def test_free_text_is_screened_as_text() -> None:
    assert screen_arguments_text("charge 4111 1111 1111 1111", RULES)[0] == "charge **** 1111"


def test_arguments_nested_too_deep_fail_closed() -> None:
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    with pytest.raises(ScreeningError):
        screen_arguments(deep, RULES)
    with pytest.raises(ScreeningError):
        screen_arguments("[" * 100_000 + "]" * 100_000, RULES)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) |
    st.sampled_from(["4111 1111 1111 1111", "123-45-6789", "ok", "GB82 WEST 1234 5698 7654 32"])
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(document=_json)
def test_the_json_stays_valid_and_no_card_is_left(document: Any) -> None:
    out, _ = screen_arguments(json.dumps(document), RULES)
    parsed = json.loads(out)  # valid JSON whatever was masked
    assert "4111 1111 1111 1111" not in out and "123-45-6789" not in out
    assert type(parsed) is type(document) or isinstance(document, int | float)
    if isinstance(document, list | dict):
        assert len(parsed) == len(document)
