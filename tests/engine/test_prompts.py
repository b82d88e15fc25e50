"""engine.screen_prompts: legacy prompts and their suffix screened as one turn."""

from __future__ import annotations

from replyguard.engine import ReplyRules, compile_rules, screen_prompts
from replyguard.engine.request import WITHHELD_REPLY

CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"
RULES = compile_rules(ReplyRules(personal_data={"national_id": "withhold"}))


def test_prompts_and_suffix_masked_and_counted_together() -> None:
    verdict, suffix = screen_prompts(["def pay(", f"card {CARD}"], f"# card {CARD}\n", RULES)
    assert (verdict.kind, suffix) == ("forward", "# card **** 1111\n")
    assert verdict.messages == [{"role": "user", "content": "def pay("},
                                {"role": "user", "content": "card **** 1111"}]
    assert verdict.counts == {"reply_pd_detected_card": 2, "reply_pd_redacted": 2}


def test_no_suffix_is_none() -> None:
    assert screen_prompts(["hello"], None, RULES)[1] is None


def test_a_withheld_value_in_the_suffix_holds_the_turn_back() -> None:
    verdict, _ = screen_prompts(["def pay("], f"# ssn {SSN}\n", RULES)
    assert (verdict.kind, verdict.reply, verdict.messages) == (
        "withhold", WITHHELD_REPLY["en"], [])
    assert verdict.withheld == ("national_id",)


def test_withheld_is_counted_once_for_the_turn() -> None:
    verdict, _ = screen_prompts([f"ssn {SSN}"], f"# ssn {SSN}\n", RULES)
    assert verdict.counts["reply_pd_withheld"] == 1
    assert verdict.counts["reply_pd_detected_national_id"] == 2
