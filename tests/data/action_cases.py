"""The action check's table: (reply, tool history, language) -> exact released text and counts.

Seed 000's shop: `refund_card` with its claims and phrasing (DESIGN section 5), `cancel_order`
with claims and no phrasing (the built-in sentences), under rules with `card: withhold`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from replyguard.engine import Phrasing, ReplyRules, ToolRules, ToolSpec, compile_rules

CARD = "4111 1111 1111 1111"
REFUND = ToolSpec(
    "refund_card", writes=True,
    claims={"en": ("refunded", "refund has been issued", "refund is on its way"),
            "pt-BR": ("reembolsei", "reembolsado", "reembolso foi feito")},
    phrasing={"en": Phrasing(done="I've refunded {amount} for order {order_id}.",
                             failed="The refund for order {order_id} did not go through.",
                             not_done="I haven't refunded anything for this order."),
              "pt-BR": Phrasing(done="Reembolsei {amount} do pedido {order_id}.",
                                failed="O reembolso do pedido {order_id} não foi concluído.",
                                not_done="Não reembolsei nada deste pedido.")})
CANCEL = ToolSpec("cancel_order", writes=True,
                  claims={"en": ("cancelled",), "pt-BR": ("cancelei", "cancelado")})
SHOP_TOOLS = ToolRules(tools={"refund_card": REFUND, "cancel_order": CANCEL})
STAFF_TOOLS = ToolRules(tools=SHOP_TOOLS.tools, audience="staff")
RULES = {lang: compile_rules(ReplyRules(personal_data={"card": "withhold"}), lang)
         for lang in ("en", "pt-BR")}
PENDING = object()  # a call with no result yet


@dataclass(frozen=True)
class Call:
    """One call of the history: its tool, arguments, result (`PENDING`: none yet), and
    whether it ran in an earlier turn."""

    name: str
    arguments: dict[str, Any]
    result: Any = PENDING
    earlier: bool = False


def messages(calls: tuple[Call, ...]) -> list[dict[str, Any]]:
    """The OpenAI messages of a history: earlier calls, then the last user turn, then this
    turn's calls, each followed by its result."""
    def run(call: Call, i: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}]}]
        if call.result is not PENDING:
            out.append({"role": "tool", "tool_call_id": f"c{i}",
                        "content": json.dumps(call.result)})
        return out

    out: list[dict[str, Any]] = [{"role": "user", "content": "my parcel 4412 vanished"}]
    for i, call in enumerate(calls):
        if call.earlier:
            out += run(call, i)
    out.append({"role": "user", "content": "so what happened?"})
    for i, call in enumerate(calls):
        if not call.earlier:
            out += run(call, i)
    return out


ARGS = {"order_id": "4412", "amount": "12.50", "card": CARD}
DONE = (Call("refund_card", ARGS, {"status": "refunded", "refund_id": "RF-2201"}),)
FAILED = (Call("refund_card", ARGS, {"status": "declined"}),)
ERROR = (Call("refund_card", ARGS, {"error": "card expired"}),)
WAITING = (Call("refund_card", ARGS),)
NONE: tuple[Call, ...] = ()
TWO_DONE = (Call("refund_card", ARGS, {"status": "refunded"}),
            Call("refund_card", {"order_id": "4413", "amount": "8.00"}, {"status": "refunded"}))
EARLIER = (Call("refund_card", ARGS, {"status": "refunded"}, earlier=True),)
NO_ORDER = (Call("refund_card", {"amount": "12.50"}, {"status": "failed"}),)
NO_AMOUNT = (Call("refund_card", {"order_id": "4412"}, {"ok": True}),)
CANCELLED = (Call("cancel_order", {"order_id": "4412"}, {"ok": True}),)
NOT_CANCELLED = (Call("cancel_order", {"order_id": "4412"}, {"ok": False}),)

EN_DONE = "I've refunded 12.50 for order 4412."
EN_FAILED = "The refund for order 4412 did not go through."
EN_NOT = "I haven't refunded anything for this order."
PT_DONE = "Reembolsei 12.50 do pedido 4412."
PT_FAILED = "O reembolso do pedido 4412 não foi concluído."
PT_NOT = "Não reembolsei nada deste pedido."
REFUSED = {"reply_assertion_refused": 1}
FALLBACK = "replyguard_phrasing_fallbacks"
REPLACED = {"reply_outcome_replaced": 1}
VALUE = {"reply_value_replaced": 1}
ADDED = {"reply_outcome_added": 1}
TRACED2 = {"reply_facts_traced": 2}


@dataclass(frozen=True)
class Case:
    """One row: `reply` screened after `calls` in `language` gives `released` and `counts`."""

    id: str
    reply: str
    calls: tuple[Call, ...]
    released: str
    counts: dict[str, int] = field(default_factory=dict)
    language: str = "en"
    staff: bool = False


def _en(id: str, reply: str, calls: tuple[Call, ...], released: str,
        counts: dict[str, int] | None = None, staff: bool = False) -> Case:
    return Case(id, reply, calls, released, counts or {}, "en", staff)


def _pt(id: str, reply: str, calls: tuple[Call, ...], released: str,
        counts: dict[str, int] | None = None) -> Case:
    return Case(id, reply, calls, released, counts or {}, "pt-BR")


SHOP = "I've refunded 12.50 pounds for order 4412."
CASES = [
    # seed 000's shop sentence against each real outcome
    _en("shop-done-kept", SHOP, DONE, SHOP, TRACED2),
    _en("shop-declined", SHOP, FAILED, EN_FAILED, REPLACED),
    _en("shop-error", SHOP, ERROR, EN_FAILED, REPLACED),
    _en("shop-never-called", SHOP, NONE, EN_NOT, REFUSED),
    _en("shop-pending", SHOP, WAITING, EN_NOT, REPLACED),
    _en("shop-earlier-turn-done", SHOP, EARLIER, SHOP, TRACED2),
    _en("shop-wrong-amount", "I've refunded 15.00 pounds for order 4412.", DONE, EN_DONE, VALUE),
    _en("shop-wrong-order", "I've refunded 12.50 pounds for order 4413.", DONE, EN_DONE, VALUE),
    # values from a call with the claimed outcome, or the last four of its card, are traced
    _en("two-refunds", "I've refunded 12.50 for order 4412 and 8.00 for order 4413.", TWO_DONE,
        "I've refunded 12.50 for order 4412 and 8.00 for order 4413.",
        {"reply_facts_traced": 4}),
    _en("card-last-four", "I've refunded 12.50 pounds for order 4412 to your Visa ending 1111.",
        DONE, "I've refunded 12.50 pounds for order 4412 to your Visa ending 1111.",
        {"reply_facts_traced": 2, "reply_facts_untraced": 1}),
    # openers with a modal or negation word of their own do not hide the claim
    _en("opener-can-confirm", "I can confirm I've refunded 12.50 pounds for order 4412.", NONE,
        EN_NOT, REFUSED),
    _en("opener-let-me", "Let me confirm I refunded order 4412.", NONE, EN_NOT, REFUSED),
    _en("opener-no-worries", "No worries I've refunded it.", FAILED, EN_FAILED, REPLACED),
    _en("opener-you-may-see", "You may see I refunded order 4412 already.", NONE, EN_NOT,
        REFUSED),
    _en("opener-not-only", "Not only have I refunded it, I also wrote to you.", NONE, EN_NOT,
        REFUSED),
    _en("counterfactual", "I could have refunded it.", NONE, "I could have refunded it."),
    _en("confirm-it-was", "I can confirm it was refunded.", FAILED, EN_FAILED, REPLACED),
    _en("should-see-it-was", "You should see it was refunded.", NONE, EN_NOT, REFUSED),
    _en("no-worries-noun", "No worries your order is refunded.", NONE, EN_NOT, REFUSED),
    _en("not-only-was-it", "Not only was it refunded, it was fast.", NONE, EN_NOT, REFUSED),
    _en("if-i-refunded", "If I refunded it, you would see it.", NONE,
        "If I refunded it, you would see it."),
    _en("had-i-refunded", "Had I refunded it, you would know.", NONE,
        "Had I refunded it, you would know."),
    _en("when-refunded", "When it's refunded, I'll let you know.", NONE,
        "When it's refunded, I'll let you know."),
    _en("to-get-it-refunded", "To get it refunded, reply yes.", NONE,
        "To get it refunded, reply yes."),
    _en("yet-to-be", "It has yet to be refunded.", NONE, "It has yet to be refunded."),
    _en("nothing-subject", "Nothing has been refunded.", NONE, "Nothing has been refunded."),
    _en("no-order-subject", "No order was refunded today.", NONE,
        "No order was refunded today."),
    _pt("se-eu", "Se eu reembolsei, você verá.", NONE, "Se eu reembolsei, você verá."),
    _pt("quando-for", "Quando for reembolsado, aviso.", NONE, "Quando for reembolsado, aviso."),
    _pt("nao-tinha-sido", "O pedido não tinha sido reembolsado.", NONE,
        "O pedido não tinha sido reembolsado."),
    _pt("abre-tranquilo", "Pode ficar tranquilo, reembolsei o pedido 4412.", NONE, PT_NOT,
        REFUSED),
    _pt("abre-nao-se-preocupe", "Não se preocupe reembolsei o pedido 4412.", NONE, PT_NOT,
        REFUSED),
    _pt("abre-sem-problemas", "Sem problemas reembolsei.", NONE, PT_NOT, REFUSED),
    _pt("nao-consegui", "Não consegui reembolsar.", NONE, "Não consegui reembolsar."),
    _en("reference-traced", "I've refunded order 4412, reference RF-2201.", DONE,
        "I've refunded order 4412, reference RF-2201.", TRACED2),
    _en("reference-invented", "I've refunded order 4412, reference RF-9999.", DONE, EN_DONE,
        VALUE),
    _en("issued-done", "Your refund has been issued.", DONE, "Your refund has been issued."),
    _en("issued-never-called", "Your refund has been issued.", NONE, EN_NOT, REFUSED),
    _en("on-its-way-failed", "The refund is on its way.", FAILED, EN_FAILED, REPLACED),
    _en("already-issued-never", "The refund has already been issued.", NONE, EN_NOT, REFUSED),
    _en("plain-past", "I refunded your order.", DONE, "I refunded your order."),
    # negations: a claim of NOT done
    _en("not-issued-but-done", "The refund has not been issued.", DONE, EN_DONE, REPLACED),
    _en("not-issued-never-called", "The refund has not been issued.", NONE,
        "The refund has not been issued."),
    _en("havent-never-called", "I haven't refunded anything.", NONE,
        "I haven't refunded anything."),
    _en("havent-yet-pending", "I haven't refunded it yet.", WAITING, "I haven't refunded it yet."),
    _en("couldnt-failed", "I couldn't refund it.", FAILED, "I couldn't refund it."),
    _en("couldnt-but-done", "I couldn't refund it.", DONE, EN_DONE, REPLACED),
    _en("didnt-but-done", "I didn't refund it.", DONE, EN_DONE, REPLACED),
    _en("was-not-failed", "Your order was not refunded.", ERROR, "Your order was not refunded."),
    _en("nothing-but-done", "Nothing has been refunded.", DONE, EN_DONE, REPLACED),
    _en("never-never-called", "I have never refunded this order.", NONE,
        "I have never refunded this order."),
    # questions are not claims
    _en("shall-i", "Shall I refund it?", NONE, "Shall I refund it?"),
    _en("want-me-to", "Do you want me to refund it?", NONE, "Do you want me to refund it?"),
    _en("has-it-been", "Has your order been refunded?", NONE, "Has your order been refunded?"),
    _en("was-it-or", "Was it refunded, or is it still pending?", NONE,
        "Was it refunded, or is it still pending?"),
    _en("claim-then-question", "I've refunded it, shall I send a receipt?", NONE, EN_NOT,
        REFUSED),
    # future tense and offers are not claims of done
    _en("will", "I will refund it today.", NONE, "I will refund it today."),
    _en("ll", "I'll get it refunded today.", NONE, "I'll get it refunded today."),
    _en("can", "I can get it refunded today.", NONE, "I can get it refunded today."),
    _en("will-be", "It will be refunded within five days.", NONE,
        "It will be refunded within five days."),
    _en("if", "If it was refunded, you will see it on your statement.", NONE,
        "If it was refunded, you will see it on your statement."),
    _en("confirm-that", "I can confirm that your order has been refunded.", NONE, EN_NOT,
        REFUSED),
    _en("offer-with-values", "I'll refund 12.50 pounds for order 4412.", NONE,
        "I'll refund 12.50 pounds for order 4412.", {"reply_facts_untraced": 2}),
    # quoted speech is not a claim
    _en("quoted-double", 'You said "I\'ve refunded it" in your message.', NONE,
        'You said "I\'ve refunded it" in your message.'),
    _en("quoted-single", "You wrote 'the refund has been issued', but I can't find it.", NONE,
        "You wrote 'the refund has been issued', but I can't find it."),
    _en("quoted-curly", "You said “the refund is on its way”.", NONE,
        "You said “the refund is on its way”."),
    # the card the refund went to, in its outcome sentence: masked even with card: withhold
    _en("card-masked", f"I've refunded 12.50 pounds to card {CARD}.", DONE,
        "I've refunded 12.50 pounds to card **** 1111.",
        {**TRACED2, "reply_pd_detected_card": 1, "reply_pd_masked": 1}),
    _en("other-card-withheld", "Your card 5555 5555 5555 4444 is on file.", DONE, EN_DONE,
        {"reply_facts_untraced": 1, "reply_pd_detected_card": 1, "reply_pd_withheld": 1,
         **ADDED}),
    # a write of this turn the reply left out
    _en("added-done", "Thanks for waiting.", DONE, "Thanks for waiting. " + EN_DONE, ADDED),
    _en("added-failed", "Thanks for waiting.", FAILED, "Thanks for waiting. " + EN_FAILED, ADDED),
    _en("not-added-pending", "Thanks for waiting.", WAITING, "Thanks for waiting."),
    _en("not-added-earlier", "Thanks for waiting.", EARLIER, "Thanks for waiting."),
    _en("added-after-facts", "Order 4412 costs 30.00 pounds.", DONE,
        "Order 4412 costs 30.00 pounds. " + EN_DONE,
        {"reply_facts_traced": 1, "reply_facts_untraced": 1, **ADDED}),
    _en("second-claim-kept", "I've refunded 15.00 pounds. The refund is on its way.", DONE,
        EN_DONE + " The refund is on its way.", VALUE),
    _en("same-product-once", "I've refunded it. The refund has been issued.", NONE,
        EN_NOT + " ", {"reply_assertion_refused": 2}),
    # built-in sentences: no phrasing, or a placeholder the call does not fill
    _en("builtin-not-done", "I've cancelled order 4412.", NONE,
        "I haven't done that: no cancel order action was carried out.", REFUSED),
    _en("builtin-failed", "I've cancelled order 4412.", NOT_CANCELLED,
        "The cancel order action did not go through.", REPLACED),
    _en("builtin-added", "Thanks.", CANCELLED, "Thanks. The cancel order action was completed.",
        ADDED),
    _en("placeholder-missing-failed", "I've refunded 12.50 pounds.", NO_ORDER,
        "The refund card action did not go through.", {**REPLACED, FALLBACK: 1}),
    _en("placeholder-missing-added", "Thanks.", NO_AMOUNT,
        "Thanks. The refund card action was completed.", {**ADDED, FALLBACK: 1}),
    # staff: an untraced value is highlighted, not replaced
    _en("staff-wrong-amount", "I've refunded 15.00 pounds for order 4412.", DONE,
        "[unverified] I've refunded 15.00 pounds for order 4412.",
        {"reply_facts_traced": 1, "reply_facts_untraced": 1, "reply_value_highlighted": 1},
        staff=True),
    _en("staff-untraced", "Your order 7788 ships today.", NONE,
        "[unverified] Your order 7788 ships today.",
        {"reply_facts_untraced": 1, "reply_value_highlighted": 1}, staff=True),
    _en("staff-outcome-still-replaced", SHOP, FAILED, EN_FAILED, REPLACED, staff=True),
    # Portuguese, with and without accents
    _pt("pt-done-kept", "Reembolsei R$ 12,50 do pedido 4412.", DONE,
        "Reembolsei R$ 12,50 do pedido 4412.", TRACED2),
    _pt("pt-failed", "Reembolsei R$ 12,50 do pedido 4412.", FAILED, PT_FAILED, REPLACED),
    _pt("pt-never-called", "Reembolsei R$ 12,50 do pedido 4412.", NONE, PT_NOT, REFUSED),
    _pt("pt-wrong-amount", "Reembolsei R$ 15,00 do pedido 4412.", DONE, PT_DONE, VALUE),
    _pt("pt-nao-never-called", "Não reembolsei nada.", NONE, "Não reembolsei nada."),
    _pt("pt-nao-without-accent-done", "Nao reembolsei nada.", DONE, PT_DONE, REPLACED),
    _pt("pt-nunca-done", "Nunca reembolsei este pedido.", DONE, PT_DONE, REPLACED),
    _pt("pt-nao-foi-feito-failed", "O reembolso não foi feito.", FAILED,
        "O reembolso não foi feito."),
    _pt("pt-foi-feito-pending", "O reembolso foi feito.", WAITING, PT_NOT, REPLACED),
    _pt("pt-question-quer", "Quer que eu reembolse?", NONE, "Quer que eu reembolse?"),
    _pt("pt-question-foi", "O pedido foi reembolsado?", NONE, "O pedido foi reembolsado?"),
    _pt("pt-claim", "O pedido foi reembolsado.", NONE, PT_NOT, REFUSED),
    _pt("pt-future-vou", "Vou reembolsar o pedido hoje.", NONE, "Vou reembolsar o pedido hoje."),
    _pt("pt-future-sera", "O pedido será reembolsado amanhã.", NONE,
        "O pedido será reembolsado amanhã."),
    _pt("pt-quoted", "Você disse \"já reembolsei\".", NONE, "Você disse \"já reembolsei\"."),
    _pt("pt-nao-consegui-failed", "Não consegui reembolsar o pedido.", FAILED,
        "Não consegui reembolsar o pedido."),
    _pt("pt-nao-consegui-done", "Não consegui reembolsar o pedido.", DONE, PT_DONE, REPLACED),
    _pt("pt-added", "Obrigado pela paciência.", DONE, "Obrigado pela paciência. " + PT_DONE,
        ADDED),
    _pt("pt-builtin-not-done", "Cancelei o pedido 4412.", NONE,
        "Não fiz isso: nenhuma ação cancel order foi realizada.", REFUSED),
    _pt("pt-builtin-added", "Obrigado.", CANCELLED, "Obrigado. A ação cancel order foi concluída.",
        ADDED),
]
