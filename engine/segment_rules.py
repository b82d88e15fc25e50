"""The sentence segmenter's data: its punctuation, what a period after a word means per language
(abbreviation tables, the words that start a sentence) and inline list markers.

Words are lower-cased and written without their final period; inner periods stay ("e.g",
"v.exa"). Sentence starters keep their case ("The", "I'm"), with a straight apostrophe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

#: Sentence ends written without a space after them (CJK text has none): the ideographic full
#: stop, the full-width `！ ？ ．` and the halfwidth ideographic full stop.
CJK_TERMINALS = "。！？．｡"
#: Characters whose runs may end a sentence.
TERMINALS = ".!?…" + CJK_TERMINALS
#: Closing quotes, brackets and emphasis kept with the sentence end before them (`."`, `。」`;
#: emphasis typed full-width too, `．＊＊`, which the detectors' view reads as `**`).
CLOSERS = "\"')]}»”’*_`」』）】〕〉》］｝〗〙｣＊＿"
#: Opening quotes, brackets and emphasis, skipped to find a sentence's first character.
OPENERS = "\"'([{«“‘¿¡*_"
#: Characters no sentence starts with: punctuation that goes on the one before it (`, ; :`,
#: closers, sentence ends, CJK commas) and the dashes and tilde of a citation after a quotation
#: (`"Stay hungry." – Steve Jobs`).
NOT_START = ",;:)]}»”’…-–—―~.!?%、，；：」』）】〕〉》］｝〗〙｣" + CJK_TERMINALS

#: Japanese quotative particles (`と`, `って`): after a closed quotation they go on the sentence
#: that quotes it (「行きます。」と言った).
QUOTATIVE = "とっ"

#: What a period after a word means (`Abbreviations.kind`): never a sentence end; no end before
#: a digit; no end unless a sentence starter follows; an ordinary word (an end before a capital).
HOLD, BEFORE_NUMBER, BEFORE_NAME, END = "hold", "before a number", "before a name", "end"

#: Number signs (`No.`, `Nos.`, `Nr.`, `N°.`, `nº.`, any case): besides a digit, a code does
#: not start a sentence after one (`NI no. AB 12 34 56`).
NUMBER_SIGNS = frozenset({"no", "nos", "nr", "n\u00b0", "n\u00ba"})

#: Inline list markers (`1.`, `2.)`, `a.`, `B.`) that may open a list after a colon
#: ("Steps: 1. Open it. 2. Close it."); any marker opens an item at the start of a piece or
#: right after its predecessor's item ("a. Red b. Blue": `b` follows `a`).
FIRST_MARKERS = frozenset({"1", "a", "A"})


def _initials(word: str) -> bool:
    """True for capital letters joined by periods, last period left out: "J", "U.S", "J.R.R"."""
    if word[1:2] != ".":  # (the first part is one letter: a longer word is no initials)
        return len(word) == 1 and word.isupper()
    parts = word.split(".")
    return all(len(part) == 1 and part.isupper() for part in parts)


def _lowercase_word(word: str) -> bool:
    """A word in lower case ending in a letter ("plan", not "Plan", "one:" or "")."""
    return word[:1].islower() and word[-1:].isalpha()


def _capitalised_word(word: str) -> bool:
    """A capitalised word ending in a letter ("Albert", not "and", "Yes," or "")."""
    return word[:1].isupper() and word[-1:].isalpha()


@dataclass(frozen=True)
class Abbreviations:
    """What a period after a word means in one language (`kind`), and the words after it.

    * `always`: never a sentence end (titles such as Mr./Sra., and e.g., i.e., vs., approx.).
    * `before_number`: not an end when what follows starts with a digit ("No. 5", "Jan. 3",
      "p. 12", "ver. 10.0.0.1", "ref. 2024"), nor after a number sign (`NUMBER_SIGNS`)
      before a code ("NI no. AB 12 34 56"); before a capital ("in Jan. Then") the period
      ends the sentence.
    * `before_name`: not an end unless a sentence starter follows ("Mt. Fuji", "St. Louis",
      "John Smith Jr. He left" ends after "Jr.").
    * `pairs`: two-word abbreviations as (first word with its period or not, second word):
      ("p.", "ex") is "p. ex.", ("et", "al") is "et al.".
    * Capital letters joined by periods ("U.S.", "P.M.", "S.A.") are acronyms: no end unless a
      sentence starter follows ("in the U.S. How about you?" ends; "the U.S. Army" does not).
      A single capital letter is an initial ("J. R. R. Tolkien"): no end, but after a
      lower-case word it is read as an acronym ("plan B. Then we left." ends).
    * `not_initials`: words that look like initials but are not (English "I"): after a
      capitalised word they are read as an acronym ("Albert I. Jones"), else as a word
      ("you and I. Did you" ends).
    * `starters`: common sentence-starting words (pronouns, articles, conjunctions, question
      words, titles), a capitalised word outside them being taken for a name.
    * `after_ellipsis`: capitalised words that go on a sentence after an ellipsis, which a
      capital otherwise ends ("Well... I think so." is one sentence).

    Anything else (etc., Inc., Ltd., a.m., p.m., ltda.) is an ordinary word: the period ends the
    sentence when a new one starts after it ("... at 5 p.m. The next day"). Sources: the
    abbreviation, initial and sentence-starter heuristics of Punkt (Kiss and Strunk 2006,
    "Unsupervised Multilingual Sentence Boundary Detection") and the English Golden Rules of
    pySBD / Pragmatic Segmenter; common style-guide lists of English and Portuguese
    abbreviations.
    """

    always: frozenset[str]
    before_number: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    not_initials: frozenset[str] = frozenset()
    before_name: frozenset[str] = frozenset()
    starters: frozenset[str] = frozenset()
    after_ellipsis: frozenset[str] = frozenset()

    def kind(self, word: str, previous: str) -> str:
        """What `word` followed by "." means: HOLD, BEFORE_NUMBER, BEFORE_NAME or END.

        `word` is the text between the last whitespace and the period, without opening quotes
        or brackets; `previous` is the word before it, the same way.
        """
        low = word.lower()
        if low in self.always or (previous.lower(), low) in self.pairs:
            return HOLD
        if low in self.before_number:
            return BEFORE_NUMBER
        if low in self.before_name:
            return BEFORE_NAME
        if word in self.not_initials:
            return BEFORE_NAME if _capitalised_word(previous) else END
        if not _initials(word):
            return END
        if len(word) == 1 and not _lowercase_word(previous):
            return HOLD
        return BEFORE_NAME


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SHARED_ALWAYS = "dr dra prof profa sra srta e.g i.e vs cf approx fig figs"

ABBREVIATIONS: Mapping[str, Abbreviations] = MappingProxyType(
    {
        "en": Abbreviations(
            always=_words(
                _SHARED_ALWAYS
                + " mr mrs ms mx rev hon gen col capt lt sgt gov sen rep messrs"
                " pres supt cmdr adm maj brig cpl pvt fr mme mlle"
                " v viz incl dept eq"
            ),
            before_number=_words(
                "no nos nr n° nº vol vols p pp pg ch chap sec art ca pt op ed tel ext ref ver"
                " jan feb mar apr jun jul aug sep sept oct nov dec"
            ),
            before_name=_words("jr sr st mt ft ave blvd rd bros esq"),
            pairs=frozenset({("et", "al")}),
            not_initials=frozenset({"I"}),
            starters=_words(
                "A An The This That These Those There Here Then Now So But And Or Yet Also"
                " However Still Thus Hence Therefore Meanwhile Moreover Furthermore Otherwise"
                " Instead Finally Next Later Today Tomorrow Yesterday"
                " I I'm I've I'll I'd We We're We've We'll You You're You've You'll He He's"
                " She She's It It's They They're They've My Our Your His Her Its Their"
                " What What's Why How How's When Where Who Whose Which"
                " If Is Are Was Were Do Does Did Can Could Would Should Shall Must Have Has Had"
                " Don't Doesn't Didn't Isn't Aren't Wasn't Can't Won't"
                " In On At For From With Without By After Before Since During Until Unless"
                " Although Though While Because As Once"
                " Yes No Not Please Thanks Thank Sorry Let Let's Note See Some Many Most All"
                " Each Every Both Neither Either One Another Such"
                " Mr Mrs Ms Dr Prof"
            ),
            after_ellipsis=_words("I I'm I've I'll I'd"),
        ),
        "pt-BR": Abbreviations(
            always=_words(
                _SHARED_ALWAYS + " sr srs sras drs dras exmo exma ilmo ilma v.exa v.sa sto sta"
                " pe gal cel maj ten sgt dep des gov pres sen eng arq adv"
                " av al rod pça trav jd pq lgo tel pág págs pag pags cap séc inc cia aprox"
            ),
            before_number=_words(
                "n nº n° num p pp fl fls vol art arts sec ref ver"
                " jan fev mar abr mai jun jul ago set out nov dez"
            ),
            pairs=frozenset({("p.", "ex"), ("por", "ex"), ("et", "al"), ("v.", "exa"),
                             ("v.", "sa")}),
            starters=_words(
                "O A Os As Um Uma Uns Umas Eu Ele Ela Eles Elas Nós Você Vocês Isso Isto Este"
                " Esta Esse Essa Aquele Aquela Mas E Então Depois Antes Agora Também Porém"
                " Contudo Entretanto Assim Portanto Ainda Hoje Amanhã Ontem Se Quando Como"
                " Por Para Em No Na Nos Nas De Do Da Com Sem Sim Não Obrigado Obrigada Veja"
                " Há Foi É São Era Meu Minha Seu Sua Nosso Nossa Qual Quais Que Quem Onde"
                " Sr Sra Dr Dra Prof Profa"
            ),
        ),
    }
)
