"""Wording rules read past markup: Markdown emphasis, hyphens, no-break spaces, invisible
characters, HTML tags and full-width letters do not hide a `never_say` phrase, an offer marker
or a `reply_exactly` word, in `en` and in `pt-BR`."""

from __future__ import annotations

import pytest

from replyguard.engine import ReplyExactly, ReplyRules, ReplyScreen, compile_rules, screen_request
from replyguard.engine.text import phrase_pattern, wording, wording_spans

RULES = compile_rules(ReplyRules(never_say=("guaranteed refund",),
                                 offers_markers=("discount",), offers_allowed=("free delivery",)))
PT_RULES = ReplyRules(never_say=("reembolso garantido",), offers_markers=("desconto",),
                      offers_allowed=("frete grátis",),
                      reply_exactly=(ReplyExactly(say="Fale com a farmácia.", when_asked="alergia",
                                                  words=("alérgico",)),))
PT = compile_rules(PT_RULES, "pt-BR")


def _screen(text: str, rules=RULES, max_chars: int = 2000) -> tuple[str, dict[str, int]]:
    screen = ReplyScreen(rules, max_chars=max_chars)
    return screen.feed(text) + screen.finish(), dict(screen.counts)


@pytest.mark.parametrize("sentence", [
    "A **guaranteed** refund.", "It's a guaranteed-refund.", "A guaran\u200bteed refund.",
    "A Guaranteed\u00a0Refund!", "A _guaranteed_ `refund`.", "A guaranteed\u2011refund.",
    "A guaranteed\u2014refund.", "A \u201cguaranteed\u201d refund.", "A 'guaranteed' refund.",
    "A guaranteed/refund.",
])
def test_never_say_read_past_markup(sentence: str) -> None:
    assert _screen(f"Hello. {sentence} Bye.") == ("Hello. Bye.", {"reply_wording_removed": 1})


@pytest.mark.parametrize(("text", "released"), [
    ("Get a dis\u00adcount now. Ok.", "Ok."),
    ("Free-delivery discount today. Ok.", "Free-delivery discount today. Ok."),
])
def test_offers_read_past_markup(text: str, released: str) -> None:
    assert _screen(text)[0] == released


def test_whole_words_still_required() -> None:
    assert _screen("Guaranteed refunds are rare.")[0] == "Guaranteed refunds are rare."


@pytest.mark.parametrize("sentence", [
    "A guaranteed <b>refund</b>.", "A guaranteed<br>refund.", "A guaranteed<br/>refund.",
    "A guaranteed<BR />refund.", "A <span class=\"x\">guaranteed</span> refund.",
    "A <i>guaranteed</i><b>refund</b>.", "A <a href=\"https://example.com/r\">guaranteed "
    "refund</a>.", "A guaranteed<p>refund.", "A guaranteed</p>\n<p>refund.",
    "A \uff47\uff55\uff41\uff52\uff41\uff4e\uff54\uff45\uff45\uff44 refund.",
    "A \uff27\uff35\uff21\uff32\uff21\uff2e\uff34\uff25\uff25\uff24\uff0d\uff32\uff25\uff26"
    "\uff35\uff2e\uff24.",
    "A \uff47uaranteed <b>\uff52efund</b>.",
])
def test_never_say_read_past_html_tags_and_full_width_letters(sentence: str) -> None:
    assert _screen(f"Hello. {sentence} Bye.") == ("Hello. Bye.", {"reply_wording_removed": 1})


@pytest.mark.parametrize(("text", "released", "counts"), [
    ("Um <b>reembolso</b> <i>garantido</i>. Ok.", "Ok.", {"reply_wording_removed": 1}),
    ("Um reembolso<br>garantído. Ok.", "Ok.", {"reply_wording_removed": 1}),
    ("Um \uff52\uff45\uff45\uff4d\uff42\uff4f\uff4c\uff53\uff4f garantido. Ok.", "Ok.",
     {"reply_wording_removed": 1}),
    ("Um <span class=\"promo\">desconto</span> hoje. Ok.", "Ok.", {"reply_offer_removed": 1}),
    ("Um \uff44\uff45\uff53\uff43\uff4f\uff4e\uff54\uff4f hoje. Ok.", "Ok.",
     {"reply_offer_removed": 1}),
    ("Desconto com <b>frete</b><br>grátis. Ok.", "Desconto com <b>frete</b><br>grátis. Ok.", {}),
])
def test_pt_br_reads_past_html_tags_and_full_width_letters(
        text: str, released: str, counts: dict[str, int]) -> None:
    assert _screen(text, PT) == (released, counts)


@pytest.mark.parametrize(("text", "released", "counts"), [
    ("A <b>discount</b> today. Ok.", "Ok.", {"reply_offer_removed": 1}),
    ("A dis<wbr>count today. Ok.", "A dis<wbr>count today. Ok.", {}),  # a tag splits a word
    ("A \uff44\uff49\uff53\uff43\uff4f\uff55\uff4e\uff54 today. Ok.", "Ok.",
     {"reply_offer_removed": 1}),
    ("A discount with <b>free</b><br>delivery. Ok.",
     "A discount with <b>free</b><br>delivery. Ok.", {}),
    ("A discount with \uff46\uff52\uff45\uff45 delivery. Ok.",
     "A discount with \uff46\uff52\uff45\uff45 delivery. Ok.", {}),
])
def test_offers_read_past_html_tags_and_full_width_letters(
        text: str, released: str, counts: dict[str, int]) -> None:
    assert _screen(text) == (released, counts)


@pytest.mark.parametrize("text", [
    "Use your <discount> code.",  # not an HTML element: read as it is, the marker and all
    "Use the <discount code> here.",
    "Use the &lt;b&gt;discount here.",
])
def test_angle_brackets_that_are_no_html_tag_do_not_hide_a_marker(text: str) -> None:
    assert _screen(f"Hello. {text} Bye.") == ("Hello. Bye.", {"reply_offer_removed": 1})


@pytest.mark.parametrize("turn", [
    "Sou <b>alérgico</b> a nozes", "Sou<br>alérgico", "Sou \uff41\uff4c\uff45\uff52\uff47\uff49"
    "\uff43\uff4f a nozes", "SOU \uff21\uff2c\uff25\uff32\uff27\uff29\uff23\uff2f",
])
def test_reply_exactly_words_read_past_html_tags_and_full_width_letters(turn: str) -> None:
    verdict = screen_request([{"role": "user", "content": turn}], PT)
    assert (verdict.kind, verdict.reply, verdict.counts) == (
        "exact", "Fale com a farmácia.", {"reply_exact_reply": 1})


@pytest.mark.parametrize(("text", "strip_accents", "words"), [
    ("A <B>Guaranteed</B> refund", False, "a guaranteed refund"),
    ("x<br/>y<br />z", False, "x y z"),
    ('<span class="a-b" id=\'c\'>x</span>', False, " x "),
    ("<voucher> <order id> <b", False, "<voucher> <order id> <b"),
    ("a < b > c", False, "a < b > c"),
    ("\uff21\uff42\uff43\uff0d\uff11\uff12\uff0a\uff3f\uff40\uff5e", False, "abc 12"),
    ("N\u00c3O <b>\uff27aranti\u200bdo</b>", True, "nao garantido "),
    ("\uff1c\uff42\uff1ex", False, "<b>x"),  # full-width brackets: not a tag
    ("A &lt;b&gt;guaranteed&nbsp;refund", False, "a <b>guaranteed refund"),
    ("A guar\u0430nteed refund", False, "a guaranteed refund"),  # (a Cyrillic а)
])
def test_wording_reads_the_canonical_view(text: str, strip_accents: bool, words: str) -> None:
    assert wording(text, strip_accents=strip_accents) == words


@pytest.mark.parametrize(("text", "spans"), [
    ("So a <b>guaranteed</b> refund, a guaranteed-refund.", [(8, 29), (33, 50)]),
    ("A **guaranteed** refund", [(4, 23)]),
    ("A guaranteed&nbsp;refund", [(2, 24)]),
    ("A g\u0443aranteed refund", []),  # (a Cyrillic у is a y: no phrase)
])
def test_wording_spans_map_back_onto_the_text(text: str, spans: list[tuple[int, int]]) -> None:
    pattern = phrase_pattern(["guaranteed refund"])
    assert pattern is not None
    assert wording_spans(pattern, text) == spans


def test_a_forced_split_never_cuts_a_phrase_with_a_tag_in_it() -> None:
    # No sentence end: the 512-character cap splits at whitespace at or before 256, which
    # here would fall inside the phrase's tag; the phrase is kept whole and its piece removed.
    text = "word " * 43 + 'so guaranteed <span class="a b c d e f">refund</span> ' + "more " * 80
    assert text.index(" f") == 251  # the last whitespace at or before 256
    assert _screen(text, max_chars=512) == ("word " * 43 + "so ", {"reply_wording_removed": 1})
