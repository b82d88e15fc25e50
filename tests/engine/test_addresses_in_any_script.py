"""E-mail addresses in any script (RFC 6531 local parts, RFC 5890 domains), an ASCII local
part before a domain of CJK letters, the ideographic full stop as a domain's dot, emphasis
around an address's parts and a line break before its `@`; and a CJK sentence end before
Latin text ending its sentence: exact screened text on the request side, in a whole reply and
in a reply streamed cut at every position."""

from __future__ import annotations

import pytest
from released import every_way as _every_way
from released import streamed as _streamed

from replyguard.engine import find
from replyguard.engine.reply import screen_reply
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules
from replyguard.engine.segment import split_sentences

RULES = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")






@pytest.mark.parametrize(("text", "released"), [
    # Any script's letters and marks, in the local part and the domain.
    ("Contact उपयोगकर्ता@उदाहरण.कॉम for help.", "Contact उ***@उदाहरण.कॉम for help."),
    ("Contact อีเมล@ตัวอย่าง.ไทย for help.", "Contact อ***@ตัวอย่าง.ไทย for help."),
    ("Contact δοκιμή@παράδειγμα.δοκιμή for help.", "Contact δ***@παράδειγμα.δοκιμή for help."),
    ("Contact مستخدم@مثال.مصر for help.", "Contact م***@مثال.مصر for help."),
    ("Contact user@例子.广告 for help.", "Contact u***@例子.广告 for help."),
    # An ASCII local part before a domain of CJK letters.
    ("Contact user@ドメイン.jp for help.", "Contact u***@ドメイン.jp for help."),
    ("Contact user@例子.com for help.", "Contact u***@例子.com for help."),
    ("连系user@例子.广告", "连系u***@例子.广告"),
    # The ideographic full stops as a domain's dot (UTS #46); the full-width one reads as `.`.
    ("Contact jane.doe@example。com for help.", "Contact j***@example。com for help."),
    ("Contact jane.doe@example｡com for help.", "Contact j***@example｡com for help."),
    ("Contact jane.doe@example．com for help.", "Contact j***@example.com for help."),
    ("Contact jane.doe@mail。example。co。uk now.", "Contact j***@mail。example。co。uk now."),
    ("連絡先はjane.doe@example。comです。", "連絡先はj***@example。comです。"),
    # ... and before CJK, a sentence end.
    ("メールはjane@example.com。次です。", "メールはj***@example.com。次です。"),
    # Emphasis around the local part or a label.
    ("Contact **jane.doe**@example.com for help.", "Contact j***@example.com for help."),
    ("Contact *jane.doe*@example.com for help.", "Contact j***@example.com for help."),
    ("Contact _jane.doe_@example.com for help.", "Contact j***@example.com for help."),
    ("Contact jane.doe@_example_.com for help.", "Contact j***@example.com for help."),
    ("Contact jane.doe@**example**.com for help.", "Contact j***@example.com for help."),
    # A line break right before the `@`.
    ("Contact jane.doe\n@example.com for help.", "Contact j***@example.com for help."),
    ("Contact jane.doe<br>\n@example.com for help.", "Contact j***@example.com for help."),
])
def test_addresses_are_found_however_they_are_written(text: str, released: str) -> None:
    assert _every_way(text) == {released}


@pytest.mark.parametrize("text", [
    "Contact j***@example.com for help.",            # ReplyGuard's own mask
    "邮箱：用***@例子.广告",
    "Thanks\n@alice for the review.",                # a mention on the next line
    "请发邮件到user@例子。谢谢。",                     # `。` before CJK ends a sentence
    "The token is eyJhbGciOiJIUzI1NiJ9_.eyJzdWIiOiIxIn0 here.",
])
def test_what_is_no_address_stays_as_it_is(text: str) -> None:
    assert [f.cls for f in find(text) if f.cls == "email"] == []
    assert _every_way(text) == {text}


@pytest.mark.parametrize(("text", "pieces"), [
    ("こんにちは！SSNは536-22-8841です！ありがとう？",
     ["こんにちは！", "SSNは536-22-8841です！", "ありがとう？"]),
    ("はい。OKです。", ["はい。", "OKです。"]),
    # Between Latin letters or digits a full-width or ideographic stop is inside a value.
    ("Abc！Def123 ok", ["Abc！Def123 ok"]),
    ("jane@example。com ok", ["jane@example。com ok"]),
])
def test_a_cjk_sentence_end_before_latin_text(text: str, pieces: list[str]) -> None:
    assert split_sentences(text) == pieces


def test_withholding_removes_only_the_sentence_holding_the_value() -> None:
    rules = compile_rules(ReplyRules(personal_data={"national_id": "withhold"}), "en")
    text = "こんにちは！SSNは536-22-8841です！ありがとう？"
    released = {screen_reply(text, rules)[0]}
    released |= {_streamed(text, [cut], rules) for cut in range(1, len(text))}
    assert released == {"こんにちは！ありがとう？"}
