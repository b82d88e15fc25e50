"""reply_temperature, the pure part: which words of a product sentence a rewording must keep,
and whether a rewording read back must be dropped for the template's own sentence (seed 000:
`reply_temperature_kept` / `reply_temperature_varied`; DESIGN section 5).

The proxy asks the model to reword a product sentence and counts; this module only decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.claims import NEGATIONS, claim_words, mood

TEMPERATURE_KEPT = "reply_temperature_kept"
TEMPERATURE_VARIED = "reply_temperature_varied"

#: The product's own key terms: the words that say what happened to an action. A rewording
#: that loses one of them, where the template has it, says something else.
KEY_TERMS = {
    "en": frozenset("done completed carried refunded cancelled canceled failed declined "
                    "rejected sent issued through nothing anything".split()),
    "pt-BR": frozenset("feito feita concluida concluido realizada realizado reembolsado "
                       "cancelado cancelada falhou recusado recusada enviado enviada nada "
                       "nenhuma nenhum".split()),
}
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
    locked.update(w for w in words if _DIGIT.search(w))
    locked.update(w for w in words if w in NEGATIONS[language] or w in KEY_TERMS[language])
    return frozenset(locked)


def rewording_kept(template_sentence: str, reworded: str, locked: frozenset[str],
                   language: str) -> bool:
    """True when the template's own sentence must be sent instead of `reworded`: the
    rewording lost a `locked` word, added or dropped a negation, added a word with a digit
    (a value the template does not state), or changed the mood (statement / question /
    request, `engine.claims.mood`). False: the rewording may be sent."""
    if not reworded.strip():
        return True
    template_words = _tokens(template_sentence, language)
    words = _tokens(reworded, language)
    present = set(words)
    if not locked <= present:
        return True
    negations = NEGATIONS[language]
    if {w for w in template_words if w in negations} != {w for w in words if w in negations}:
        return True
    template_set = set(template_words)
    if any(_DIGIT.search(w) and w not in template_set for w in words):
        return True
    return mood(template_sentence, language) != mood(reworded, language)
