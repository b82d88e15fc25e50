"""reply_temperature, the pure part: which words of a product sentence a rewording must keep,
and whether a rewording read back must be dropped for the template's own sentence
(counted as `reply_temperature_kept` / `reply_temperature_varied`; docs/actions.md).

The proxy asks the model to reword a product sentence and counts; this module only decides
(`rewording_accepted`: may the rewording read back be sent).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from replyguard.engine.claims import NEGATIONS, claim_words, mood
from replyguard.engine.context import compact
from replyguard.engine.find import find
from replyguard.engine.reply import ReplyScreen
from replyguard.engine.rules import Action, CompiledRules

TEMPERATURE_KEPT = "reply_temperature_kept"
TEMPERATURE_VARIED = "reply_temperature_varied"

#: The product's own key terms: the words that say what happened to an action. A rewording
#: that loses one of them, where the template has it, says something else.
KEY_TERMS = {
    "en": frozenset("done completed complete carried refunded cancelled canceled failed fail "
                    "failure declined rejected sent issued through nothing anything succeeded "
                    "success successful successfully went approved processed pounds pound "
                    "dollars dollar euros euro reais real pence cents usd gbp eur brl".split()),
    "pt-BR": frozenset("feito feita concluida concluido realizada realizado reembolsado "
                       "cancelado cancelada falhou falha recusado recusada enviado enviada nada "
                       "nenhuma nenhum sucesso aprovado aprovada processado processada libras "
                       "dolares euros reais real centavos usd gbp eur brl".split()),
}
#: Codes: capitals with a digit or a hyphen ("ABC-XYZ", "RF-2201"): values to lock as well.
_CODE = re.compile(r"(?<![\w-])(?=[A-Z0-9_-]*[A-Z])(?=[A-Z0-9_-]*[0-9-])"
                   r"[A-Z0-9][A-Z0-9_-]+(?![\w-])")
_SYMBOLS = re.compile(r"[$£€¥¢]|R\$")
_TOKEN = re.compile(r"\w+(?:[.,@:/-]\w+)*")
_DIGIT = re.compile(r"\d")


def _tokens(text: str, language: str) -> list[str]:
    return _TOKEN.findall(claim_words(text, language))


def locked_words(sentence: str, values: Iterable[str], language: str) -> frozenset[str]:
    """The words of `sentence` (a filled template) a rewording must keep, folded as claims
    are read (`engine.claims.claim_words`: lower case, accents removed in pt-BR,
    contractions spelt out): every word of every filled value in `values`, every word with a
    digit, the negations, and the product's key terms (`KEY_TERMS`) the sentence holds."""
    words = _tokens(sentence, language)
    locked = {w for v in values for w in _tokens(str(v), language)}
    locked.update(w for code in _CODE.findall(sentence) if len(code) > 1
                  for w in _tokens(code, language))
    locked.update(w for w in words if _DIGIT.search(w))
    locked.update(w for w in words if w in NEGATIONS[language] or w in KEY_TERMS[language])
    return frozenset(locked)


def rewording_kept(template_sentence: str, reworded: str, locked: frozenset[str],
                   language: str) -> bool:
    """True when the template's own sentence must be sent instead of `reworded`: the
    rewording lost a `locked` word; added, dropped or doubled a negation; does not state the
    template's words with digits in the same order (a value added, dropped or moved); puts a
    negation before another key term or value than the template does ("Not to worry, it did
    go through"); says
    an outcome word or a currency (`KEY_TERMS`, a currency sign) the template does not; or
    changed the mood (statement / question / request, `engine.claims.mood`). False: the
    rewording may be sent."""
    if not reworded.strip():
        return True
    template_words = _tokens(template_sentence, language)
    words = _tokens(reworded, language)
    present = set(words)
    if not locked <= present:
        return True
    negations = NEGATIONS[language]
    if Counter(w for w in template_words if w in negations) != Counter(
            w for w in words if w in negations):
        return True  # a negation added, dropped or doubled
    if [w for w in template_words if _DIGIT.search(w)] != [w for w in words if _DIGIT.search(w)]:
        return True  # a value added, dropped, repeated or moved ("4412 for 12.50")
    keys = KEY_TERMS[language]

    def negated(tokens: list[str]) -> Counter[tuple[str, str]]:
        """Each negation with the key term or value it comes before."""
        out: Counter[tuple[str, str]] = Counter()
        for i, word in enumerate(tokens):
            if word in negations:
                after = next((w for w in tokens[i + 1 :] if w not in negations and (
                    w in keys or _DIGIT.search(w))), "")
                out[word, after] += 1
        return out

    if negated(template_words) != negated(words):
        return True  # a negation moved onto another word ("did go through, not to worry")
    if not {w for w in words if w in keys} <= set(template_words):
        return True  # an outcome or a currency the template does not say ("it went through")
    if set(_SYMBOLS.findall(reworded)) != set(_SYMBOLS.findall(template_sentence)):
        return True
    return mood(template_sentence, language) != mood(reworded, language)


def rewording_passes(template_sentence: str, reworded: str, rules: CompiledRules,
                     internals: Action = "redact") -> bool:
    """Would `reworded` pass the reply screen unchanged, stating no value (personal data,
    secret, email, ...) `template_sentence` does not? A model wrote it: it gets the same
    per-sentence checks as the model's own sentences (personal data, `never_say`, `offers`,
    internals)."""
    detectors = rules.detectors
    said = {compact(template_sentence[f.start : f.end])
            for f in find(template_sentence, detectors)}
    if any(compact(reworded[f.start : f.end]) not in said for f in find(reworded, detectors)):
        return False
    screen = ReplyScreen(rules, additions=False, internals=internals)
    return screen.screen_sentence(reworded) == reworded and not screen.counts


def rewording_accepted(template_sentence: str, reworded: str, rules: CompiledRules,
                       internals: Action = "redact") -> bool:
    """May `reworded` (a product sentence's rewording read back) be sent in place of
    `template_sentence`? Not when it must be dropped (`rewording_kept`,
    the template's locked words) or would not pass the reply screen (`rewording_passes`).
    The proxy counts `reply_temperature_varied` when it is, `reply_temperature_kept` when
    not."""
    locked = locked_words(template_sentence, (), rules.language)
    return not rewording_kept(template_sentence, reworded, locked, rules.language) and \
        rewording_passes(template_sentence, reworded, rules, internals)
