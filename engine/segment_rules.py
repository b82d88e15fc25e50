"""Abbreviation tables for the sentence segmenter, one per language (DESIGN sections 2 and 4).

A period after one of these words does not end a sentence. Words are lower-cased and written
without their final period; inner periods stay ("e.g", "v.exa").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


def _initials(word: str) -> bool:
    """True for capital letters joined by periods, last period left out: "J", "U.S", "J.R.R"."""
    if word[1:2] != ".":  # (the first part is one letter: a longer word is no initials)
        return len(word) == 1 and word.isupper()
    parts = word.split(".")
    return all(len(part) == 1 and part.isupper() for part in parts)


@dataclass(frozen=True)
class Abbreviations:
    """What a period after a word means in one language.

    * `always`: never a sentence end (titles such as Mr./Sra., and e.g., i.e., vs., approx.).
    * `before_number`: not an end when what follows starts with a digit ("No. 5", "Jan. 3",
      "p. 12"); before a capital ("in Jan. Then") the period ends the sentence.
    * `pairs`: two-word abbreviations as (first word with its period or not, second word):
      ("p.", "ex") is "p. ex.", ("et", "al") is "et al.".
    * Single capital letters joined by periods are initials or acronyms ("J. R. R. Tolkien",
      "U.S.", "S.A."), except the words in `not_initials` (English "I").

    Anything else (etc., Inc., Ltd., a.m., p.m., ltda.) is an ordinary word: the period ends the
    sentence when a new one starts after it ("... at 5 p.m. The next day"). Source: DESIGN
    section 4 (the segmenter knows Portuguese abbreviations) and common style-guide lists.
    """

    always: frozenset[str]
    before_number: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    not_initials: frozenset[str] = frozenset()

    def holds(self, word: str, previous: str, next_char: str) -> bool:
        """True when `word` followed by "." (then `next_char`) is an abbreviation, not an end.

        `word` is the text between the last whitespace and the period, without opening quotes
        or brackets; `previous` is the word before it, the same way.
        """
        low = word.lower()
        if low in self.always or (previous.lower(), low) in self.pairs:
            return True
        if low in self.before_number and next_char.isdigit():
            return True
        return word not in self.not_initials and _initials(word)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SHARED_ALWAYS = "dr dra prof profa sr sra srta e.g i.e vs cf approx fig figs"

ABBREVIATIONS: Mapping[str, Abbreviations] = MappingProxyType(
    {
        "en": Abbreviations(
            always=_words(
                _SHARED_ALWAYS
                + " mr mrs ms mx jr st rev hon gen col capt lt sgt gov sen rep messrs"
                " v viz incl dept eq"
            ),
            before_number=_words(
                "no nos nr vol vols p pp ch chap sec art ca pt op ed"
                " jan feb mar apr jun jul aug sep sept oct nov dec"
            ),
            pairs=frozenset({("et", "al")}),
            not_initials=frozenset({"I"}),
        ),
        "pt-BR": Abbreviations(
            always=_words(
                _SHARED_ALWAYS + " srs sras drs dras exmo exma ilmo ilma v.exa v.sa sto sta av tel"
                " pág págs cia aprox"
            ),
            before_number=_words(
                "n nº num p pp vol art arts cap sec jan fev mar abr mai jun jul ago set out nov dez"
            ),
            pairs=frozenset({("p.", "ex"), ("por", "ex")}),
        ),
    }
)
