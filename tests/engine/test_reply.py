"""engine.ReplyScreen: per-sentence screening, wording rules, additions, exact replies, counts.

The first tests reproduce the shop's example conversation exactly, at the engine level.
"""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path

import pytest

from replyguard.config.rules import load_rules
from replyguard.engine import (
    MustAccompany,
    ReplyExactly,
    ReplyRules,
    ReplyScreen,
    TurnContext,
    compile_rules,
    read_context,
    screen_reply,
    screen_request,
)
from replyguard.engine.request import WITHHELD_REPLY

SHOP = compile_rules(load_rules(Path(__file__).parents[2] / "config/reply-rules.example.yaml"))
CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def call(name: str, arguments: dict, call_id: str = "c1") -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def result(content: object, call_id: str = "c1") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(content)}


REFUND = [user("the parcel for 4412 vanished"),
          call("refund_card", {"order_id": "4412", "amount": 12.50}),
          result({"status": "refunded", "order_id": "4412", "amount": 12.5})]


# -- the shop's replies, screened --------------------------------------------------------------

def test_shop_card_turn_reaches_the_model_masked() -> None:
    verdict = screen_request([user(f"my card is {CARD}, is it on file?")], SHOP)
    assert verdict.kind == "forward"
    assert verdict.messages == [user("my card is **** 1111, is it on file?")]
    assert dict(verdict.counts) == {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}


def test_shop_card_reply() -> None:
    context = screen_request([user(f"my card is {CARD}, is it on file?")], SHOP).context
    reply = "Your card 4111 1111 1111 1111 is on file; the card 4111 1111 1111 1112 is not."
    assert screen_reply(reply, SHOP, context) == (
        "Your card **** 1111 is on file; the card 4111 1111 1111 1112 is not.",
        {"reply_pd_detected_card": 1, "reply_pd_redacted": 1})


def test_shop_ssn_turn_withheld() -> None:
    verdict = screen_request([user(f"my social security number is {SSN}")], SHOP)
    assert (verdict.kind, verdict.messages, verdict.withheld) == ("withhold", [], ("national_id",))
    assert verdict.reply == ("That message held details I can't take here, so I haven't read it "
                             "or done anything. Please send it again without them.")
    assert dict(verdict.counts) == {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1}


def test_shop_refund_turn_forwarded_with_nothing_counted() -> None:
    verdict = screen_request(REFUND, SHOP)
    assert verdict.kind == "forward"
    assert verdict.messages == REFUND
    assert dict(verdict.counts) == {}


def test_shop_refund_reply() -> None:
    context = screen_request(REFUND, SHOP).context
    reply = "I've refunded 12.50 pounds for order 4412. It is a guaranteed refund."
    assert screen_reply(reply, SHOP, context) == (
        "I've refunded 12.50 pounds for order 4412. "
        "Refunds reach the card in three to five working days.",
        {"reply_wording_removed": 1, "reply_wording_added": 1})


def test_shop_refund_reply_streamed_by_word() -> None:
    screen = ReplyScreen(SHOP, screen_request(REFUND, SHOP).context)
    reply = "I've refunded 12.50 pounds for order 4412. It is a guaranteed refund."
    released = [screen.feed(word + " ") for word in reply.split(" ")]
    assert released[:7] == [""] * 7 and released[7] == "I've refunded 12.50 pounds for order 4412. "
    assert "".join(released) + screen.finish() == (
        "I've refunded 12.50 pounds for order 4412. "
        "Refunds reach the card in three to five working days.")


# -- personal data per sentence -----------------------------------------------------------------

RULES = compile_rules(ReplyRules(personal_data={"national_id": "withhold", "email": "allow",
                                                "phone": "redact"}))


@pytest.mark.parametrize(
    ("reply", "released", "counts"),
    [
        (f"Card {CARD} is on file.", "Card **** 1111 is on file.",
         {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}),
        (f"Your SSN {SSN} is noted. Anything else?", "Anything else?",
         {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1}),
        (f"SSN {SSN} and 234-56-7891 are noted. Bye.", "Bye.",
         {"reply_pd_detected_national_id": 2, "reply_pd_withheld": 1}),
        (f"SSN {SSN} and card {CARD}. Bye.", "Bye.",
         {"reply_pd_detected_national_id": 1, "reply_pd_detected_card": 1,
          "reply_pd_withheld": 1}),  # a removed sentence masks nothing: no redact count
        ("Write to jane@example.com today.", "Write to jane@example.com today.",
         {"reply_pd_detected_email": 1}),
        ("Call +44 20 7946 0123 now.", "Call ***0123 now.",
         {"reply_pd_detected_phone": 1, "reply_pd_redacted": 1}),
        ("IBAN GB82 WEST 1234 5698 7654 32 is yours.", "IBAN GB** **** 5432 is yours.",
         {"reply_pd_detected_iban": 1, "reply_pd_redacted": 1}),
        ("Card 4111 1111 1111 1112 fails Luhn.", "Card 4111 1111 1111 1112 fails Luhn.", {}),
        ("Use postgres://admin:s3cr3tPa55@db.internal:5432/shop now.",
         "Use postgres://admin:****@db.internal:5432/shop now.",
         {"reply_pd_detected_password": 1, "reply_pd_redacted": 1}),
        ("Pay to gb82 west 1234 5698 7654 32 today.", "Pay to GB** **** 5432 today.",
         {"reply_pd_detected_iban": 1, "reply_pd_redacted": 1}),
        ("Your NI number ab123456c is noted. Bye.", "Bye.",
         {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1}),
        ("Card 4111\u200b1111\u200b1111\u200b1111 is on file.", "Card **** 1111 is on file.",
         {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}),
    ],
)
def test_personal_data_actions(reply: str, released: str, counts: dict) -> None:
    assert screen_reply(reply, RULES) == (released, counts)


def _write_context(arguments: dict, returned: object = None, name: str = "refund_card",
                   writes: set[str] | None = None) -> TurnContext:
    return read_context([user("refund please"), call(name, arguments),
                         result(returned if returned is not None else {"ok": True})], writes)


@pytest.mark.parametrize(
    ("arguments", "returned", "reply", "released", "counts"),
    [
        ({"card": CARD}, None, "I refunded 4111-1111-1111-1111.", "I refunded **** 1111.",
         {"reply_pd_detected_card": 1, "reply_pd_masked": 1}),
        ({"ssn": SSN}, None, f"I updated {SSN} for you.", "I updated ***6789 for you.",
         {"reply_pd_detected_national_id": 1, "reply_pd_masked": 1}),
        # The value the write was sent, with an invisible character inside: the same value.
        ({"ssn": SSN}, None, "I updated 123-45\u200b-6789 for you.", "I updated ***6789 for you.",
         {"reply_pd_detected_national_id": 1, "reply_pd_masked": 1}),
        ({}, {"card": CARD}, f"Refunded to {CARD}.", "Refunded to **** 1111.",
         {"reply_pd_detected_card": 1, "reply_pd_masked": 1}),
        ({"email": "jane@example.com"}, None, "Sent to jane@example.com.",
         "Sent to jane@example.com.", {"reply_pd_detected_email": 1}),
        ({"ssn": SSN}, None, "Also 234-56-7891 and 123-45-6789.", "",
         {"reply_pd_detected_national_id": 2, "reply_pd_withheld": 1}),
        ({"card": CARD}, None, "Card 5555 5555 5555 4444 instead.", "Card **** 4444 instead.",
         {"reply_pd_detected_card": 1, "reply_pd_redacted": 1}),
    ],
)
def test_outcome_exception(arguments: dict, returned: object, reply: str, released: str,
                           counts: dict) -> None:
    assert screen_reply(reply, RULES, _write_context(arguments, returned)) == (released, counts)


def test_outcome_exception_not_for_a_tool_that_does_not_write() -> None:
    context = _write_context({"ssn": SSN}, name="get_order", writes={"refund_card"})
    assert screen_reply(f"Found {SSN}.", RULES, context) == (
        "", {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1})


def test_outcome_exception_not_for_an_earlier_turns_write() -> None:
    messages = [user("refund"), call("refund_card", {"ssn": SSN}), result({"ok": True}),
                {"role": "assistant", "content": "Done."}, user("thanks")]
    assert screen_reply(f"Updated {SSN}.", RULES, read_context(messages)) == (
        "", {"reply_pd_detected_national_id": 1, "reply_pd_withheld": 1})


# -- wording ------------------------------------------------------------------------------------

WORDING = compile_rules(ReplyRules(
    never_say=("guaranteed refund", "act now"),
    offers_markers=("discount", "voucher"), offers_allowed=("free delivery",)))


#: (a sentence, the count of its removal: never_say's, offers', None when it is kept)
WORDING_CASES = [
    ("It is a guaranteed refund.", "reply_wording_removed"),
    ("It is a GUARANTEED   Refund.", "reply_wording_removed"),
    ("A guaranteed\nrefund is yours.", "reply_wording_removed"),
    ("Guaranteed refund!", "reply_wording_removed"),
    ("We give guaranteed refunds.", None),  # whole words: "refunds" is not "refund"
    ("It is an unguaranteed refund.", None),
    ("The refund is guaranteed.", None),
    ("Please act now.", "reply_wording_removed"),
    ("We enact nowhere.", None),
    ("Here is a discount for you.", "reply_offer_removed"),
    ("Use this VOUCHER today!", "reply_offer_removed"),
    ("A discount with free delivery.", None),
    ("Discounts apply.", None),  # whole words
    ("Free  Delivery and a voucher.", None),
    ("No offers here.", None),
]


@pytest.mark.parametrize(("sentence", "removed_by"), WORDING_CASES)
def test_never_say_and_offers(sentence: str, removed_by: str | None) -> None:
    reply = sentence + " Thanks."
    expected = ("Thanks.", {removed_by: 1}) if removed_by else (reply, {})
    assert screen_reply(reply, WORDING) == expected


def test_never_say_in_a_list_item_continued_on_the_next_line() -> None:
    # The item's indented second line is the same item (CommonMark 5.2), so the phrase is read
    # whole and the item is removed; the next item is kept.
    reply = "- It is a guaranteed\n  refund for you.\n- Thanks."
    assert screen_reply(reply, WORDING) == ("- Thanks.", {"reply_wording_removed": 1})


def test_never_say_checked_before_offers() -> None:
    assert screen_reply("A guaranteed refund voucher. Ok.", WORDING) == (
        "Ok.", {"reply_wording_removed": 1})


def test_personal_data_checked_before_wording() -> None:
    assert screen_reply(f"Card {CARD}: a guaranteed refund. Ok.", WORDING) == (
        "Ok.", {"reply_pd_detected_card": 1, "reply_pd_redacted": 1, "reply_wording_removed": 1})


PT = compile_rules(ReplyRules(never_say=("nao garantido",), offers_markers=("cupom",),
                              offers_allowed=("frete grátis",)), "pt-BR")


@pytest.mark.parametrize(
    ("reply", "released", "counts"),
    [
        ("O prazo é não garantido. Obrigado.", "Obrigado.", {"reply_wording_removed": 1}),
        ("O prazo é NÃO GARANTIDO. Obrigado.", "Obrigado.", {"reply_wording_removed": 1}),
        ("O prazo é nao garantido. Obrigado.", "Obrigado.", {"reply_wording_removed": 1}),
        ("O prazo é não garantida. Obrigado.", "O prazo é não garantida. Obrigado.", {}),
        ("Use o cupom. Obrigado.", "Obrigado.", {"reply_offer_removed": 1}),
        ("Cupom com frete gratis. Obrigado.", "Cupom com frete gratis. Obrigado.", {}),
        ("O Sr. Silva pagou R$ 12,50. Não garantido!", "O Sr. Silva pagou R$ 12,50. ",
         {"reply_wording_removed": 1}),
    ],
)
def test_portuguese_ignores_accents_and_case(reply: str, released: str, counts: dict) -> None:
    assert screen_reply(reply, PT) == (released, counts)


def test_english_does_not_ignore_accents() -> None:
    rules = compile_rules(PT.rules, "en")
    assert screen_reply("O prazo é não garantido.", rules) == ("O prazo é não garantido.", {})


# -- must_accompany -----------------------------------------------------------------------------

REFUND_NOTE = "Refunds reach the card in three to five working days."
MEDICAL_NOTE = "Ask a pharmacist before combining medicines."
ACCOMPANY = compile_rules(ReplyRules(must_accompany=(
    MustAccompany(add=REFUND_NOTE, when_done="refund_card"),
    MustAccompany(add=MEDICAL_NOTE, when_cited="medical"),
    MustAccompany(add=REFUND_NOTE, when_cited="refunds"),
)))
PASSAGES = {"passages": [{"id": "p1", "tags": ["medical"], "text": "Take two."},
                         {"id": "p2", "tags": ["hours"], "text": "Open at nine."},
                         {"id": "p3", "tags": ["refunds"], "text": "Three to five days."}]}


def _turn(refund: object | None = None, passages: bool = False) -> TurnContext:
    messages: list[dict] = [user("help")]
    if refund is not None:
        messages.append(call("refund_card", {"order_id": "4412"}, "r"))
        if refund != "pending":
            messages.append(result(refund, "r"))
    if passages:
        messages += [call("search", {"q": "x"}, "s"), result(PASSAGES, "s")]
    return read_context(messages)


@pytest.mark.parametrize(
    ("refund", "added"),
    [({"status": "refunded"}, True), ({"status": "failed"}, False), ({"error": "no"}, False),
     ({"ok": False}, False), ("pending", False), (None, False)],
)
def test_when_done_only_for_a_done_outcome(refund: object, added: bool) -> None:
    text, counts = screen_reply("Your order is sorted.", ACCOMPANY, _turn(refund))
    if added:
        assert (text, counts) == ("Your order is sorted. " + REFUND_NOTE,
                                  {"reply_wording_added": 1})
    else:
        assert (text, counts) == ("Your order is sorted.", {})


@pytest.mark.parametrize(
    ("reply", "released", "counts"),
    [
        ("Take two a day [p1].", "Take two a day [p1]. " + MEDICAL_NOTE,
         {"reply_wording_added": 1}),
        ("Take two a day.", "Take two a day.", {}),
        ("We open at nine [p2].", "We open at nine [p2].", {}),
        ("Take two [p1].\n", "Take two [p1].\n" + MEDICAL_NOTE, {"reply_wording_added": 1}),
        ("Take two [p1]. ASK a  pharmacist before\ncombining medicines.",
         "Take two [p1]. ASK a  pharmacist before\ncombining medicines.", {}),
        ("Take two [p1]. Ask a pharmacist before combining medicines",
         "Take two [p1]. Ask a pharmacist before combining medicines", {}),
        ("Take two [p1] and see [p3].", "Take two [p1] and see [p3]. " + MEDICAL_NOTE + " "
         + REFUND_NOTE, {"reply_wording_added": 2}),
    ],
)
def test_when_cited(reply: str, released: str, counts: dict) -> None:
    assert screen_reply(reply, ACCOMPANY, _turn(passages=True)) == (released, counts)


def test_same_sentence_due_twice_is_added_once() -> None:
    context = _turn({"ok": True}, passages=True)
    assert screen_reply("See [p3].", ACCOMPANY, context) == (
        "See [p3]. " + REFUND_NOTE, {"reply_wording_added": 1})


def test_addition_when_every_sentence_was_removed() -> None:
    rules = compile_rules(ReplyRules(never_say=("guaranteed refund",),
                                     must_accompany=ACCOMPANY.rules.must_accompany))
    assert screen_reply("It is a guaranteed refund.", rules, _turn({"ok": True})) == (
        REFUND_NOTE, {"reply_wording_removed": 1, "reply_wording_added": 1})


def test_a_removed_sentence_does_not_count_as_said() -> None:
    rules = compile_rules(ReplyRules(never_say=("guaranteed",),
                                     must_accompany=ACCOMPANY.rules.must_accompany))
    reply = "Guaranteed: refunds reach the card in three to five working days. Bye."
    assert screen_reply(reply, rules, _turn({"ok": True})) == (
        "Bye. " + REFUND_NOTE, {"reply_wording_removed": 1, "reply_wording_added": 1})


FEES = compile_rules(ReplyRules(must_accompany=(
    MustAccompany(add="Fees apply.", when_done="refund_card"),)))


@pytest.mark.parametrize(("reply", "said"), [
    ("Done. Coffees apply to everyone.", False),  # inside a word: not said
    ("Done. The fees applying now.", False),
    ("Done. No fees apply.", True),
    ("Done. Fees apply!", True),
    ("Done. **Fees** apply to you.", True),
    ("Fees apply.", True),
])
@pytest.mark.parametrize("chunks", [0, 3, 40])
def test_already_said_means_in_whole_words(reply: str, said: bool, chunks: int) -> None:
    """The "already said" check reads whole words: "Coffees apply" does not say "Fees apply"
    (found by the breaker session; it was a substring test)."""
    text, counts = screen_reply(reply, FEES, _turn({"ok": True}), chunks=chunks, seed=1)
    assert (text, counts) == ((reply, {}) if said else
                              (reply + " Fees apply.", {"reply_wording_added": 1}))


def test_a_word_the_said_window_cuts_is_not_read_as_whole() -> None:
    """The window the check keeps of a long reply starts at a word start: "...coffees" cut to
    "fees" by the window is not "fees"."""
    filler = "Done and dusted with everything we talked about earlier today. " * 3
    reply = filler + "Coffees apply to the whole team every morning."
    text, counts = screen_reply(reply, FEES, _turn({"ok": True}), chunks=60, seed=2)
    assert (text, counts) == (reply + " Fees apply.", {"reply_wording_added": 1})


# -- reply_exactly.when_cited -------------------------------------------------------------------

SAY = "Please talk to a pharmacist about this."
EXACT = compile_rules(ReplyRules(
    reply_exactly=(ReplyExactly(say=SAY, when_cited="medical"),),
    must_accompany=ACCOMPANY.rules.must_accompany))


def test_exact_when_cited_replaces_the_whole_reply() -> None:
    screen = ReplyScreen(EXACT, _turn({"ok": True}, passages=True))
    fed = [screen.feed(s) for s in ("Rest well. ", "Take two [p1]. ", "Bye. ", f"Card {CARD}.")]
    assert fed == ["", "", "", ""]
    assert screen.finish() == SAY
    assert dict(screen.counts) == {"reply_exact_reply": 1, "reply_pd_detected_card": 1,
                                   "reply_pd_redacted": 1}


def test_exact_tag_present_but_not_cited_releases_the_reply_at_the_end() -> None:
    screen = ReplyScreen(EXACT, _turn(passages=True))
    assert [screen.feed(s) for s in ("Open at nine [p2]. ", "Bye. ")] == ["", ""]
    assert screen.finish() == "Open at nine [p2]. Bye. "
    assert dict(screen.counts) == {}


def test_exact_tag_absent_streams_sentence_by_sentence() -> None:
    screen = ReplyScreen(EXACT, _turn())
    assert [screen.feed(s) for s in ("Open at nine. ", "Bye. ")] == ["", "Open at nine. "]
    assert screen.finish() == "Bye. "


# -- the sentence cap ---------------------------------------------------------------------------

@pytest.mark.parametrize("offset", range(230, 290, 3))
def test_cap_split_never_leaves_a_card_unmasked(offset: int) -> None:
    words = ("word " * 200)[: offset - 1] + " "
    body = f"{words}{CARD} " + ("more " * 40) + f"{CARD} " + ("tail " * 80)
    reply = body + body + "end."
    released, counts = screen_reply(reply, RULES, max_chars=512)
    assert released == reply.replace(CARD, "**** 1111")
    assert counts == {"reply_pd_detected_card": 4, "reply_pd_redacted": 4}


def test_cap_split_never_cuts_a_never_say_phrase() -> None:
    for offset in range(240, 275):
        reply = "x " * (offset // 2) + "guaranteed refund " + "y " * 300 + "end."
        released, counts = screen_reply(reply, WORDING, max_chars=512)
        assert "guaranteed" not in released, offset
        assert counts["reply_wording_removed"] >= 1


def test_cap_split_masks_a_private_key_longer_than_the_cap() -> None:
    body = "\n".join(["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" + f"{i:012d}"
                      for i in range(40)])
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    released, counts = screen_reply(f"Here:\n{pem}\nKeep it safe.", RULES, max_chars=512)
    assert released == "Here:\n[RSA PRIVATE KEY ****]\nKeep it safe."
    assert counts == {"reply_pd_detected_private_key": 1, "reply_pd_redacted": 1}


def test_values_of_the_new_shapes_masked_however_the_reply_is_streamed() -> None:
    """A URL's password, a lower-case IBAN and a card with zero-width spaces inside, fed in
    deltas of 1 to 7 characters that cut inside each value: the sentence comes out masked."""
    reply = ("Connect with postgres://admin:s3cr3tPa55@db.internal:5432/shop and pay to "
             "gb82 west 1234 5698 7654 32 with card 4111\u200b1111\u200b1111\u200b1111. Done.")
    expected = ("Connect with postgres://admin:****@db.internal:5432/shop and pay to "
                "GB** **** 5432 with card **** 1111. Done.")
    for size in range(1, 8):
        screen = ReplyScreen(RULES)
        out = "".join(screen.feed(reply[i : i + size]) for i in range(0, len(reply), size))
        assert (out + screen.finish(), dict(screen.counts)) == (expected, {
            "reply_pd_detected_password": 1, "reply_pd_detected_iban": 1,
            "reply_pd_detected_card": 1, "reply_pd_redacted": 3}), size


# -- the screen's contract ----------------------------------------------------------------------

def test_closed_after_finish() -> None:
    from replyguard.engine import ScreeningError

    screen = ReplyScreen(RULES)
    screen.finish()
    with pytest.raises(ScreeningError):
        screen.feed("more")


def test_withheld_reply_text_is_the_request_sides() -> None:
    assert WITHHELD_REPLY["en"].startswith("That message held details")


def test_forced_split_keeps_a_password_label_with_its_value() -> None:
    from replyguard.engine import ReplyRules, ReplyScreen, compile_rules

    rules = compile_rules(ReplyRules())
    for pad in range(230, 270):
        text = "x" * (512 - pad) + " password: hunter2Secret! " + "y " * 300
        screen = ReplyScreen(rules, max_chars=512)
        out = "".join(screen.feed(text[i:i + 7]) for i in range(0, len(text), 7))
        out += screen.finish()
        assert "hunter2Secret" not in out, pad


def test_leading_whitespace_over_the_cap_screens_the_sentences_after_it() -> None:
    """Whole or streamed, a reply that starts with whitespace reaching the cap is cut into its
    sentences: only the `never_say` sentence goes (it used to take the whole reply with it
    when fed whole)."""
    text = " " * 512 + "Hello. It is a guaranteed refund. Bye."
    whole, counts = screen_reply(text, SHOP, max_chars=512)
    screen = ReplyScreen(SHOP, max_chars=512)
    streamed = "".join(screen.feed(c) for c in text) + screen.finish()
    assert (whole == streamed, whole.strip(), counts) == (
        True, "Hello. Bye.", {"reply_wording_removed": 1})


@pytest.mark.parametrize("delta", [None, b"card 4111", 42])
def test_a_delta_that_is_not_text_fails_closed(delta: object) -> None:
    """The delta gate fails closed like the rest of `feed`: a ScreeningError naming the type,
    the screen closed, and nothing released after it."""
    from replyguard.engine import ScreeningError

    screen = ReplyScreen(SHOP)
    assert screen.feed("Your card 4111 1111 ") == ""
    with pytest.raises(ScreeningError, match="screening a reply sentence failed: TypeError"):
        screen.feed(delta)  # type: ignore[arg-type]
    with pytest.raises(ScreeningError, match="closed"):
        screen.feed("1111 1111 is on file. ")


def test_a_reply_screen_leaves_no_reference_cycle() -> None:
    """A screen is freed when the reply is done, not left to the garbage collector (one
    cycle per reply adds up on a busy proxy)."""
    screen = ReplyScreen(SHOP)
    screen.feed(f"Your card {CARD} was charged. ")
    screen.finish()
    alive = weakref.ref(screen)
    gc.disable()
    try:
        del screen
        assert alive() is None
    finally:
        gc.enable()
