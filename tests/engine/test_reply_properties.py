"""Properties of the reply screen (hypothesis): split invariance, idempotence, and that nothing a
detector finds in the whole reply is released unmasked."""

from __future__ import annotations

import codecs
import json
import re
from functools import partial

from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import luhn

from replyguard.engine import (
    MustAccompany,
    ReplyExactly,
    ReplyRules,
    ReplyScreen,
    SentenceSegmenter,
    TurnContext,
    compile_rules,
    find,
    read_context,
    screen_reply,
)
from replyguard.engine.reply import _unsplittable

REFUND_NOTE = "Refunds reach the card in three to five working days."
RULES = compile_rules(ReplyRules(
    personal_data={"card": "redact", "national_id": "withhold", "email": "redact"},
    never_say=("guaranteed refund", "não garantido"),
    offers_markers=("discount", "voucher"), offers_allowed=("free delivery",),
    must_accompany=(MustAccompany(add=REFUND_NOTE, when_done="refund_card"),
                    MustAccompany(add="Ask a pharmacist.", when_cited="medical")),
    reply_exactly=(ReplyExactly(say="Please talk to a pharmacist.", when_cited="poison"),),
))
RULES_PT = compile_rules(RULES.rules, "pt-BR")


def _context(passages: bool) -> TurnContext:
    messages: list[dict] = [
        {"role": "user", "content": "refund 4412"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "r", "type": "function", "function": {
                "name": "refund_card", "arguments": '{"card": "5555 5555 5555 4444"}'}}]},
        {"role": "tool", "tool_call_id": "r", "content": '{"status": "refunded"}'}]
    if passages:
        found = {"passages": [{"id": "p1", "tags": ["medical"], "text": "Take two."},
                              {"id": "p2", "tags": ["poison"], "text": "Call 111."}]}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "s", "type": "function", "function": {"name": "search",
                                                             "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "s", "content": json.dumps(found)}]
    return read_context(messages)


CONTEXTS = [TurnContext(), _context(False), _context(True)]


@st.composite
def cards(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(["4", "51", "55", "6011", "37"]))
    length = 15 if prefix == "37" else 16
    body = prefix + "".join(draw(st.lists(st.sampled_from("0123456789"),
                                          min_size=length - 1 - len(prefix),
                                          max_size=length - 1 - len(prefix))))
    number = body + luhn.calc_check_digit(body)
    sep = draw(st.sampled_from([" ", "-", ""]))
    groups = (4, 6, 5) if length == 15 else (4, 4, 4, 4)
    parts, i = [], 0
    for size in groups:
        parts.append(number[i : i + size])
        i += size
    return sep.join(parts)


ssns = st.builds("{:03d}-{:02d}-{:04d}".format, st.integers(1, 665), st.integers(1, 99),
                 st.integers(1, 9999))
emails = st.builds("{}.{}@{}.com".format, st.sampled_from(["jane", "j_o", "ana"]),
                   st.sampled_from(["doe", "silva"]), st.sampled_from(["example", "exemplo"]))
#: A URL with a password in its userinfo (RFC 3986), or one without (a user, a port).
urls = st.builds("{}://{}@{}/shop".format, st.sampled_from(["postgres", "redis", "https"]),
                 st.sampled_from(["admin:s3cr3tPa55", ":pass", "app:p@ss!", "git", "u:****"]),
                 st.sampled_from(["db.internal:5432", "example.com"]))


@st.composite
def ibans(draw: st.DrawFn) -> str:
    """An IBAN whose check digits hold, its letters in any mix of cases, grouped in fours or
    not."""
    number = draw(st.sampled_from(["GB82WEST12345698765432", "DE89370400440532013000",
                                   "NL91ABNA0417164300"]))
    number = "".join(c.lower() if draw(st.booleans()) else c for c in number)
    if draw(st.booleans()):
        return " ".join(number[i : i + 4] for i in range(0, len(number), 4))
    return number


INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"


@st.composite
def hidden(draw: st.DrawFn, values: st.SearchStrategy[str]) -> str:
    """A value with one to three invisible characters put inside it."""
    value = draw(values)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(1, len(value) - 1))
        value = value[:at] + draw(st.sampled_from(INVISIBLE)) + value[at:]
    return value


TEMPLATES = [
    "Your card {card} is on file.",
    "Send it to {email} please.",
    "Dr. Smith said e.g. the fee is 12.50 today.",
    "Your SSN {ssn} is noted.",
    "It is a guaranteed refund!",
    "It is a Guaranteed  Refund.",
    "Here is a discount for you.",
    "A voucher with free delivery.",
    "Você pagou R$ 12,50 à vista — ótimo 😀.",
    "O prazo é não garantido.",
    "Olá, a ação foi concluída às 10h; a Sra. Souza confirmou.",
    "- item paid with {card}\n",
    "1. First step, write to {email}\n",
    "```\ncode {card} here. Not split.\n```\n",
    "Café é ótimo 👩‍👩‍👧!",
    "U.S. customers see refunds in 3 days.",
    "The file report.pdf is at https://example.com/a.b?x=1.",
    "The card 4111 1111 1111 1112 is not valid.",
    "Take two a day [p1].",
    "Refunds reach the card in three to five working days.",
    "# Heading {card}\n",
    "| a | {email} |\n",
    "Why?! Because…",
    "It is a guaranteed <b>refund</b>!",
    "A <span class=\"x\">voucher</span> with <i>free</i><br/>delivery.",
    "\uff47\uff55\uff41\uff52\uff41\uff4e\uff54\uff45\uff45\uff44<br>refund for {email}.",
    "Um \uff44\uff45\uff53\uff43\uff4f\uff4e\uff54\uff4f <b>não</b> <i>garantido</i>.",
    "See <span title=\"Note. Read it\">this</span> <voucher> for {card}.",
    "Connect with {url} today.",
    "Pay to {iban} now.",
    "Card {hidden_card} and IBAN {hidden_iban} are saved.",
    "Mail {hidden_email} or use {hidden_url}.",
    "カードは {card} です。ありがとう！本当？",
    "我的邮箱是 {email} ，谢谢。「はい。」と言った。",
    "円周率は３．１４です．次へ｡（注意。）",
    "I live in the U.S. How about you? Mt. Fuji, St. Louis and Albert I. Jones.",
    "Well... I think so. At 6 P.M. Mr. Smith paid with {card}.",
    "Steps: 1.) Open it 2.) Pay with {card} 3.) Done. a. Red b. Blue",
    "\"Stay hungry.\" – Steve Jobs. O pedido n.º 4412 na Av. Paulista.",
]
FIELDS: dict[str, st.SearchStrategy[str]] = {
    "card": cards(), "ssn": ssns, "email": emails, "url": urls, "iban": ibans(),
    "hidden_card": hidden(cards()), "hidden_iban": hidden(ibans()),
    "hidden_email": hidden(emails), "hidden_url": hidden(urls)}
LONG = "word " * 70 + "{card} " + "more " * 30 + "{email} "
#: A phrase with a long tag in it where a 512-character cap would split it.
LONG_TAG = "word " * 43 + 'so guaranteed <span class="a b c d e f">refund</span> ' + "more " * 80


@st.composite
def replies(draw: st.DrawFn, long: bool = False) -> str:
    templates = TEMPLATES + [LONG, LONG_TAG] if long else TEMPLATES
    parts = []
    for template in draw(st.lists(st.sampled_from(templates), min_size=1, max_size=10)):
        parts.append(template.format(**{name: draw(values) for name, values in FIELDS.items()
                                        if "{" + name + "}" in template}))
        parts.append(draw(st.sampled_from([" ", " ", "\n", "\n\n", "", "  "])))
    return "".join(parts)


def _streamed(text: str, cuts: list[int], screen: ReplyScreen) -> str:
    """Feed `text` cut at these UTF-8 byte offsets, decoded incrementally as the proxy does."""
    data = text.encode()
    decoder = codecs.getincrementaldecoder("utf-8")()
    out = []
    bounds = [0, *sorted(set(cuts)), len(data)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        out.append(screen.feed(decoder.decode(data[start:end])))
    out.append(screen.feed(decoder.decode(b"", final=True)))
    out.append(screen.finish())
    return "".join(out)


@settings(max_examples=200, deadline=None)
@given(st.data(), replies(long=True), st.sampled_from(range(len(CONTEXTS))),
       st.sampled_from([RULES, RULES_PT]), st.sampled_from([512, 2000]))
def test_any_cutting_gives_the_whole_replys_screening(
    data: st.DataObject, text: str, which: int, rules: object, max_chars: int
) -> None:
    size = len(text.encode())
    cuts = data.draw(st.lists(st.integers(1, max(1, size - 1)), max_size=60))
    context = CONTEXTS[which]
    whole = screen_reply(text, rules, context, max_chars=max_chars)  # type: ignore[arg-type]
    screen = ReplyScreen(rules, context, max_chars=max_chars)  # type: ignore[arg-type]
    assert (_streamed(text, cuts, screen), dict(screen.counts)) == whole


@settings(max_examples=200, deadline=None)
@given(replies(long=True), st.sampled_from([1, 4, 7]), st.sampled_from([512, 2000]))
def test_fixed_size_deltas_give_the_whole_replys_screening(
    text: str, size: int, max_chars: int
) -> None:
    context = CONTEXTS[1]
    whole = screen_reply(text, RULES, context, max_chars=max_chars)
    screen = ReplyScreen(RULES, context, max_chars=max_chars)
    out = "".join(screen.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert (out + screen.finish(), dict(screen.counts)) == whole


ACTION_COUNTS = ("reply_pd_redacted", "reply_pd_withheld", "reply_pd_masked",
                 "reply_wording_removed", "reply_offer_removed", "reply_wording_added",
                 "reply_exact_reply")


@settings(max_examples=200, deadline=None)
@given(replies(), st.sampled_from([RULES, RULES_PT]))
def test_screening_twice_changes_nothing(text: str, rules: object) -> None:
    """screen(screen(x)) == screen(x), and the second pass takes no action at all."""
    once, _ = screen_reply(text, rules)  # type: ignore[arg-type]
    twice, counts = screen_reply(once, rules)  # type: ignore[arg-type]
    assert twice == once
    assert {k: v for k, v in counts.items() if k in ACTION_COUNTS} == {}


@settings(max_examples=200, deadline=None)
@given(replies(), st.sampled_from([RULES, RULES_PT]))
def test_screening_twice_with_additions_adds_nothing_again(text: str, rules: object) -> None:
    """With a sentence due (`must_accompany`), the first pass adds it; a second pass under the
    same context finds it already said, so the text is unchanged and nothing is added."""
    context = CONTEXTS[1]
    once, counts_once = screen_reply(text, rules, context)  # type: ignore[arg-type]
    assert REFUND_NOTE in once
    twice, counts = screen_reply(once, rules, context)  # type: ignore[arg-type]
    assert twice == once
    assert {k: v for k, v in counts.items() if k in ACTION_COUNTS} == {}


@settings(max_examples=200, deadline=None)
@given(st.data(), replies(long=True), st.sampled_from([512, 2000]))
def test_nothing_found_in_the_whole_reply_is_released_unmasked(
    data: st.DataObject, text: str, max_chars: int
) -> None:
    size = len(text.encode())
    cuts = data.draw(st.lists(st.integers(1, max(1, size - 1)), max_size=60))
    out = _streamed(text, cuts, ReplyScreen(RULES, CONTEXTS[0], max_chars=max_chars))
    for f in find(text):
        if RULES.actions[f.cls] != "allow":
            assert text[f.start : f.end] not in out


@settings(max_examples=200, deadline=None)
@given(st.data(), replies(long=True))
def test_each_sentence_released_as_soon_as_the_segmenter_decides_it(
    data: st.DataObject, text: str
) -> None:
    """The delta gate (text that cannot end a sentence is held back) never delays a release:
    after every delta, what was released is what the segmenter fed the same deltas decided."""
    cuts = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=80))))
    bounds = [0, *cuts, len(text)]
    screen, reference = ReplyScreen(RULES, max_chars=512), ReplyScreen(RULES, max_chars=512)
    segmenter = SentenceSegmenter("en", max_chars=512,
                                  no_cut=partial(_unsplittable, reference.rules))
    for start, end in zip(bounds, bounds[1:], strict=False):
        expected = "".join(reference.screen_sentence(p)
                           for p in segmenter.feed(text[start:end]))
        assert screen.feed(text[start:end]) == expected


@settings(max_examples=1000)
@given(st.text(alphabet=" \t\n\u00a0\u2003\x1cab.", max_size=12))
def test_one_space_is_the_whitespace_substitution(text: str) -> None:
    """`engine.reply._one_space` gives what `re.sub(r"\\s+", " ", text)` gives."""
    from replyguard.engine.reply import _one_space

    assert _one_space(text) == re.sub(r"\s+", " ", text)
