"""How a reply sentence is read for claims of a write (docs/actions.md): its words folded as
the reply rules fold them, contractions spelt out, quoted speech blanked; negations, questions,
offers and future tense; and the mood of a sentence (statement / question / request).

The word lists are the product's, per language ("en", "pt-BR"); they are data, not a model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from replyguard.engine.text import wording

Mood = Literal["statement", "question", "request"]

#: Words that make a claim one of NOT done ("I haven't refunded", "não reembolsei").
NEGATIONS: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("not never no cannot nothing unable neither nor none without".split()),
    "pt-BR": frozenset("nao nunca nem nada sem jamais nenhum nenhuma ninguem".split()),
})
#: Words before a claim that make it an offer, a future or a hypothesis, not a claim of done
#: ("I will refund", "I can refund", "if it was refunded", "vou reembolsar").
NOT_CLAIMS: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("will ll shall can could would may might going gonna want wants like let "
                    "if whether unless once should must need needs".split()),
    "pt-BR": frozenset("vou vai vamos vao irei ira iremos irao posso podemos pode podera "
                       "poderia poderiamos quer queira gostaria devo deve deveria sera serao "
                       "caso precisa preciso se".split()),
})
#: Modal words that, next to a negation, say a thing could not be done ("couldn't refund",
#: "não posso reembolsar"): a claim of not done, not an offer.
INABILITY: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("could would can".split()),
    "pt-BR": frozenset("posso pode podemos".split()),
})
#: Words that may stand inside a claim phrase without breaking it ("refund has not been
#: issued", "refund has already been issued", "refund has been successfully issued",
#: "reembolso não foi feito").
INSERTS: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("not never no already now just also successfully fully finally completely "
                    "indeed actually".split()),
    "pt-BR": frozenset("nao nunca ja tambem agora finalmente totalmente integralmente".split()),
})
#: Subject pronouns: a negation or modal word before the claim's own subject belongs to
#: another verb ("I can confirm I've refunded it", "No worries, I refunded it").
SUBJECTS: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("i we you he she they".split()),  # not "it": "get it refunded"
    "pt-BR": frozenset("eu nos ele ela eles elas voce voces gente".split()),
})
#: The words of a claim's verb group besides negations and modals: auxiliaries, the pieces
#: of spelt-out contractions, adverbs, object pronouns ("não o reembolsei").
_GROUP: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("have has had having been be being was were is are am do does did get got "
                    "gets getting to yet already just also now still really actually indeed "
                    "successfully fully finally completely ve d s re m it them".split()),
    "pt-BR": frozenset("foi foram era eram tinha tinham tem tenho temos sido ser esta estao "
                       "estava ja ainda tambem agora finalmente consegui conseguimos conseguiu "
                       "conseguiram pude pudemos o a os as lhe lhes me te".split()),
})
#: Subjects that say nothing was done ("Nothing has been refunded", "No order was refunded").
_NEGATIVE_SUBJECTS: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("nothing none no neither nobody".split()),
    "pt-BR": frozenset("nada nenhum nenhuma ninguem".split()),
})
#: Words that make a clause a condition or a time to come: a claim there is not made.
_CONDITIONS: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("if unless whether once when whenever after before until till provided "
                    "assuming suppose".split()),
    "pt-BR": frozenset("caso quando assim depois antes ate enquanto".split()),
})
#: Clause edges: a negation or modal word only reaches the claim in its own clause.
_CLAUSE_WORDS: Mapping[str, str] = MappingProxyType({
    "en": "and but however although though so because since while whereas then that",
    "pt-BR": "e mas porem contudo entretanto embora pois porque entao enquanto que",
})
#: Words a question part may open with when the sentence ends with "?".
_ASKING: Mapping[str, frozenset[str]] = MappingProxyType({
    "en": frozenset("is are was were do does did has have had shall should can could would "
                    "will may what when why how where who which".split()),
    "pt-BR": frozenset("quer posso devo pode podemos sera o que quando por como onde quem "
                       "qual voce".split()),
})
#: Markers of a request (mood), and imperative openers.
_REQUEST: Mapping[str, re.Pattern[str]] = MappingProxyType({
    "en": re.compile(r"(?<!\w)(?:please|kindly)(?!\w)|^\W*(?:send|call|contact|check|try|"
                     r"click|tap|reply|tell|let|make|keep|visit|go|wait)(?!\w)"),
    "pt-BR": re.compile(r"(?<!\w)(?:por favor|favor)(?!\w)|^\W*(?:envie|ligue|entre|verifique|"
                        r"tente|clique|toque|responda|diga|aguarde|acesse|mande)(?!\w)"),
})

_CONTRACTION = re.compile(r"(?<!\w)(can|won|shan|ain|\w+n)\s+t(?!\w)")
_SPECIAL = {"can": "cannot", "won": "will not", "shan": "shall not", "ain": "is not"}
_QUOTED = re.compile(
    r"“[^“”]{0,600}”|«[^«»]{0,600}»|„[^„“”]{0,600}[“”]|\"[^\"\n]{0,600}\""
    r"|(?<!\w)['‘](?:[^'‘’\n]|['’](?=\w)){0,600}['’](?!\w)")
_CLOSERS = "\"')]}»”’*_` \t\r\n"
_PART = re.compile(r"[^,;:]+[,;:]*")
_WORD = re.compile(r"\w+")


def _expand(match: re.Match[str]) -> str:
    stem = match.group(1)
    return _SPECIAL.get(stem) or stem[:-1] + " not"


def claim_words(text: str, language: str) -> str:
    """`text` as claims are matched: folded like the reply rules (`engine.text.wording`:
    lower case, accents removed in pt-BR, quotes and markup read as spaces), with English
    contractions spelt out ("haven't" -> "have not", "can't" -> "cannot"). Offsets do not
    hold."""
    folded = wording(text, strip_accents=language == "pt-BR")
    return _CONTRACTION.sub(_expand, folded) if language == "en" else folded


def unquoted(text: str) -> str:
    """`text` with quoted speech (double, curly, guillemet and single quotes, apostrophes
    inside words kept) read as one space: the customer's words are not the model's claim."""
    return _QUOTED.sub(" ", text) if ("'" in text or "\"" in text or "“" in text
                                       or "‘" in text or "«" in text or "„" in text) else text


def _clause_edges(language: str) -> re.Pattern[str]:
    words = "|".join(_CLAUSE_WORDS[language].split())
    return re.compile(r"[,;:()\[\]]|(?<!\w)(?:" + words + r")(?!\w)")


CLAUSE_EDGES: Mapping[str, re.Pattern[str]] = MappingProxyType(
    {language: _clause_edges(language) for language in _CLAUSE_WORDS})


def reading(folded: str, start: int, end: int, language: str) -> Literal["done", "not_done",
                                                                         "none"]:
    """How the claim found at `folded[start:end]` reads (`folded` from `claim_words`).

    "none" when it is asked (its part of the sentence is a question), supposed (its clause
    opens a condition or a time to come: "if", "unless", "once", "when", "had I", "to get
    it", "se eu", "quando"), or offered or promised (a modal in its verb group: "will", "can",
    "going to", "vou"); "not_done" when a negation stands inside it, in its verb group ("have
    not", "could not", "has yet to", "não", "não consegui"), or as its subject ("nothing",
    "no order"); "done" otherwise. The verb group is the run of auxiliaries, adverbs,
    negations and modals right before the claim (`_GROUP`): a modal or negation further
    back belongs to another verb ("I can confirm it was refunded", "No worries, your order is
    refunded")."""
    edge = 0
    for edge_match in CLAUSE_EDGES[language].finditer(folded, 0, start):
        edge = edge_match.end()
    before = _WORD.findall(folded, edge, start)
    if _supposed(before, language) or _asked(folded, start, end, language):
        return "none"
    negations, unable, group_words = NEGATIONS[language], INABILITY[language], _GROUP[language]
    group: list[str] = []
    for word in reversed(before):
        if word not in group_words and word not in negations and word not in NOT_CLAIMS[language]:
            break
        group.append(word)
    group.reverse()
    modals = [w for i, w in enumerate(group) if w in NOT_CLAIMS[language] and not (
        w in unable and ((i + 1 < len(group) and group[i + 1] in negations)
                         or (i > 0 and group[i - 1] in negations)))]
    if modals:
        return "none"
    inside = _WORD.findall(folded, start, end)
    subject = before[max(0, len(before) - len(group) - 2) : len(before) - len(group)]
    if (negations.intersection(group) or negations.intersection(inside) or "yet" in group
            or _NEGATIVE_SUBJECTS[language].intersection(subject)):
        return "not_done"
    return "done"


def _supposed(before: list[str], language: str) -> bool:
    """Does the clause (its words up to the claim) open a condition, a purpose or a time to
    come? Portuguese "se" counts as "if" only where it opens the clause or comes before a
    subject ("se eu reembolsei"), not as the pronoun ("não se preocupe")."""
    words = set(before)
    if words & _CONDITIONS[language]:
        return True
    if len(before) >= 2 and before[0] in ("had", "were", "should") and before[1] in (
            SUBJECTS[language]):
        return True  # "Had I refunded it, ..."
    if language == "en":
        return bool(before) and before[0] == "to"  # "To get it refunded, reply yes."
    return any(w == "se" and (i == 0 or (i + 1 < len(before) and before[i + 1] in
                                         SUBJECTS[language]))
               for i, w in enumerate(before))


def _asked(folded: str, start: int, end: int, language: str) -> bool:
    """Is the part of the sentence holding `folded[start:end]` a question? A part (cut at
    `, ; :`) ending in "?", or the last part of a sentence ending in "?", or a part opening
    with an asking word of a sentence that ends in "?"."""
    rest = folded.rstrip(_CLOSERS)
    if "?" not in rest:
        return False
    ends_asking = rest.endswith("?")
    parts = list(_PART.finditer(folded))
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if start < part.end() or last:
            text = part.group().rstrip(_CLOSERS + ",;:")
            if text.endswith("?") or (ends_asking and last):
                return True
            first = _WORD.search(text)
            return ends_asking and first is not None and first.group() in _ASKING[language]
    return False


def mood(sentence: str, language: str) -> Mood:
    """The mood of one sentence: "question" (ends in "?"), "request" ("please", "por favor",
    or an imperative opener such as "Send", "Envie"), else "statement"."""
    folded = wording(sentence, strip_accents=language == "pt-BR")
    if folded.rstrip(_CLOSERS).endswith("?"):
        return "question"
    return "request" if _REQUEST[language].search(folded.strip()) else "statement"
