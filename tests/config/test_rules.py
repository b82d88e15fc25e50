"""The reply rules file: one invalid file per case with its exact errors, and valid files."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from replyguard.config.errors import ConfigError
from replyguard.config.rules import load_rules
from replyguard.engine import MustAccompany, ReplyExactly, ReplyRules

EXAMPLE = Path(__file__).parents[2] / "config" / "reply-rules.example.yaml"
KNOWN_CLASSES = ("api_key, aws_access_key, card, email, iban, ip_address, jwt, national_id, "
                 "password, phone, private_key")
KNOWN_TOP = "must_accompany, never_say, offers, personal_data, reply_exactly"


def _errors(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_rules(path)
    return caught.value.errors


INVALID_YAML = [
    ("unknown class", "personal_data:\n  cardd: redact\n",
     [f"personal_data.cardd: unknown class (known: {KNOWN_CLASSES})"]),
    ("wrong action", "personal_data:\n  card: mask\n",
     ["personal_data.card: 'mask' is not one of redact, withhold, allow"]),
    ("personal_data not a mapping", "personal_data: [card]\n",
     ["personal_data: expected a mapping of class to action, got list ['card']"]),
    ("unknown top key", "nevr_say: [x]\n", [f"nevr_say: unknown key (known: {KNOWN_TOP})"]),
    ("unknown offers key", "offers:\n  allowd: [x]\n",
     ["offers.allowd: unknown key (known: allowed, markers)"]),
    ("must_accompany without add", "must_accompany:\n  - when_done: refund_card\n",
     ["must_accompany[0].add: required"]),
    ("must_accompany without when", "must_accompany:\n  - add: Refunds take 3 days.\n",
     ["must_accompany[0]: needs when_done or when_cited"]),
    ("must_accompany unknown key",
     "must_accompany:\n  - when_done: refund_card\n    add: Hi.\n    when: x\n",
     ["must_accompany[0].when: unknown key (known: add, when_cited, when_done)"]),
    ("reply_exactly with both",
     "reply_exactly:\n  - when_asked: a\n    when_cited: b\n    say: x\n",
     ["reply_exactly[0]: needs exactly one of when_asked or when_cited"]),
    ("reply_exactly with neither", "reply_exactly:\n  - say: x\n",
     ["reply_exactly[0]: needs exactly one of when_asked or when_cited"]),
    ("reply_exactly without say", "reply_exactly:\n  - when_asked: allergy\n",
     ["reply_exactly[0].say: required"]),
    ("words without when_asked", "reply_exactly:\n  - when_cited: b\n    words: [a]\n    say: x\n",
     ["reply_exactly[0].words: only read with when_asked"]),
    ("never_say a number", "never_say: 3\n", ["never_say: expected a list of strings, got int 3"]),
    ("never_say a mapping", "never_say:\n  a: b\n",
     ["never_say: expected a list of strings, got dict {'a': 'b'}"]),
    ("never_say empty phrase", "never_say: ['ok', '']\n",
     ["never_say[1]: expected a non-empty string, got str ''"]),
    ("top level a list", "- card\n", ["(top level): expected a mapping, got list ['card']"]),
    ("several errors in file order",
     "personal_data:\n  cardd: redact\n  card: mask\nnevr_say: x\nreply_exactly:\n  - say: x\n",
     [f"personal_data.cardd: unknown class (known: {KNOWN_CLASSES})",
      "personal_data.card: 'mask' is not one of redact, withhold, allow",
      f"nevr_say: unknown key (known: {KNOWN_TOP})",
      "reply_exactly[0]: needs exactly one of when_asked or when_cited"]),
]


@pytest.mark.parametrize(("text", "errors"), [(t, e) for _, t, e in INVALID_YAML],
                         ids=[name for name, _, _ in INVALID_YAML])
def test_invalid_rules_file(tmp_path: Path, text: str, errors: list[str]) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    assert _errors(path) == errors


#: (file name, its text, its errors, `{path}` standing for the file's path)
BAD_FILES = [
    ("rules.yaml", "personal_data:\n  card: redact\n  email: [allow\n",
     ["{path}:4: expected ',' or ']', but got '<stream end>'"]),
    ("rules.yaml", "personal_data:\n  card: redact\n  card: allow\n",
     ["{path}:3: duplicate key 'card'"]),
    ("rules.json", '{\n  "never_say": ["x"],\n  "offers": {\n}\n',
     ["{path}:5: Expecting ',' delimiter"]),
    ("rules.json", '{"personal_data": {"card": "redact", "card": "allow"}}',
     ["{path}: duplicate key 'card'"]),
    ("rules.json", '{"personal_data": {"card": "mask"}}',
     ["personal_data.card: 'mask' is not one of redact, withhold, allow"]),
]


@pytest.mark.parametrize(("name", "text", "errors"), BAD_FILES,
                         ids=["yaml syntax error names file and line",
                              "yaml duplicate key names file and line",
                              "json syntax error names file and line", "json duplicate key",
                              "json wrong action"])
def test_a_bad_file_is_named_in_its_errors(tmp_path: Path, name: str, text: str,
                                           errors: list[str]) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert _errors(path) == [error.format(path=path) for error in errors]


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.yaml"
    assert _errors(path) == [f"{path}: file not found"]


def test_error_message_lists_file_and_count(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("personal_data:\n  card: mask\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_rules(path)
    assert str(caught.value) == (
        f"{path}: 1 error(s)\n  personal_data.card: 'mask' is not one of redact, withhold, allow")


SHOP = ReplyRules(
    personal_data=MappingProxyType({"card": "redact", "national_id": "withhold",
                                    "email": "allow"}),
    never_say=("guaranteed refund",),
    must_accompany=(MustAccompany(add="Refunds reach the card in three to five working days.",
                                  when_done="refund_card"),),
)


def test_example_file_loads_to_the_shops_rules() -> None:
    assert load_rules(EXAMPLE) == SHOP


def test_json_file_with_same_content_gives_equal_rules(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_text(
        '{"personal_data": {"card": "redact", "national_id": "withhold", "email": "allow"},\n'
        ' "never_say": ["guaranteed refund"],\n'
        ' "must_accompany": [{"when_done": "refund_card",\n'
        '   "add": "Refunds reach the card in three to five working days."}]}\n',
        encoding="utf-8")
    assert load_rules(path) == SHOP


def test_empty_file_gives_defaults(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("", encoding="utf-8")
    assert load_rules(path) == ReplyRules()


def test_every_key_of_the_key_table_is_read(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(
        "personal_data: {phone: redact, api_key: allow}\n"
        "never_say: [guaranteed refund]\n"
        "offers: {allowed: [free delivery], markers: [discount, voucher]}\n"
        "must_accompany:\n  - {when_cited: medical, add: Ask a pharmacist.}\n"
        "reply_exactly:\n"
        "  - {when_asked: allergy_advice, words: [allergy, nut], say: Check the label.}\n"
        "  - {when_cited: legal, say: Please ask our legal team.}\n",
        encoding="utf-8")
    assert load_rules(path) == ReplyRules(
        personal_data=MappingProxyType({"phone": "redact", "api_key": "allow"}),
        never_say=("guaranteed refund",),
        offers_allowed=("free delivery",),
        offers_markers=("discount", "voucher"),
        must_accompany=(MustAccompany(add="Ask a pharmacist.", when_cited="medical"),),
        reply_exactly=(
            ReplyExactly(say="Check the label.", when_asked="allergy_advice",
                         words=("allergy", "nut")),
            ReplyExactly(say="Please ask our legal team.", when_cited="legal"),
        ),
    )
