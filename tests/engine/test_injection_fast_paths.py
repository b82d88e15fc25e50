"""The prompt-injection shortcuts give the plain results: the lead gate against trying every
pattern at every word start, and the normaliser's fast paths against a plain normaliser (the
one the shortcuts replaced, kept here as the reference)."""

from __future__ import annotations

import dataclasses
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replyguard.engine import injection
from replyguard.engine.canon import canonical
from replyguard.engine.injection import (
    INJECTION_PATTERNS,
    InjectionMatcher,
    InjectionPattern,
    lead_regex,
    normalize_injection_text,
)
from tests.data.injection_cases import ATTEMPTS, BENIGN

UNGATED = InjectionMatcher(dataclasses.replace(p, lead=()) for p in INJECTION_PATTERNS)
GATED = InjectionMatcher(INJECTION_PATTERNS)
TEXTS = [text for text, _ in ATTEMPTS + BENIGN] + [
    text for p in INJECTION_PATTERNS for text in p.examples + p.counterexamples]
#: Words of the table's regexes and a few others, to make texts near the patterns.
WORDS = sorted(set(re.findall(r"[a-z]+", " ".join(p.regex for p in INJECTION_PATTERNS)))
               | {"please", "order", "my", "i", "a", "x", "ok"})


@pytest.mark.parametrize("text", TEXTS)
def test_gate_changes_no_result(text: str) -> None:
    assert GATED.detect(text) == UNGATED.detect(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=12),
       st.sampled_from([" ", ": ", "", ", ", "\u200b", " - "]))
def test_gate_changes_no_result_on_table_words(words: list[str], gap: str) -> None:
    text = gap.join(words)
    assert GATED.detect(text) == UNGATED.detect(text)


@pytest.mark.parametrize("pattern", INJECTION_PATTERNS, ids=[p.id for p in INJECTION_PATTERNS])
def test_every_example_starts_with_a_lead_of_its_pattern(pattern: InjectionPattern) -> None:
    lead = re.compile(lead_regex(pattern.lead))
    starts = [(found.start, normalize_injection_text(example))
              for example in pattern.examples if (found := GATED.detect(example))]
    assert all(lead.match(text, start) for start, text in starts)
    assert len(starts) == len(pattern.examples)


def test_lead_regex_is_a_trie() -> None:
    assert lead_regex(["act as", "ai", "am", "you", "you are"]) == "(?:a(?:ct[ :]*as|i|m)|you)"


def test_bad_lead_is_refused() -> None:
    pattern = InjectionPattern(id="p", category="role_play", language="en", regex="dan mode",
                               examples=("dan mode",), counterexamples=(), lead=("Dan", "dan  x"))
    with pytest.raises(ValueError) as raised:
        InjectionMatcher([pattern])
    assert str(raised.value) == (
        "p: lead 'Dan' is not lower-case words set apart by single spaces\n"
        "p: lead 'dan  x' is not lower-case words set apart by single spaces")


def test_empty_matching_pattern_is_refused_with_leads() -> None:
    pattern = InjectionPattern(id="p", category="role_play", language="en", regex="(?:dan)?",
                               examples=("dan",), counterexamples=(), lead=("dan",))
    with pytest.raises(ValueError, match="^p: regex matches the empty text$"):
        InjectionMatcher([pattern])


# -- the normaliser against the plain one ---------------------------------------------------

_PLAIN_SPACED = re.compile(
    r"(?<=(?<![^\W_])[^\W_])(?P<sep>[\W_]{1,3})[^\W_](?![^\W_])(?:(?P=sep)[^\W_](?![^\W_]))+")
_PLAIN_GAP = re.compile(r"(?:[^\w: ]|_)(?:[^\w:]|_)*| (?:[^\w:]|_)+")
_PLAIN_COLONS = re.compile(r"(?: ?:)+ ?")


def plain_normalize(text: str) -> str:
    """The normaliser without shortcuts: every step on every text."""
    text = canonical(injection._MARKUP.sub("", text), join=False, any_tag=False).text
    if not text.isascii():
        text = injection._TAGS.sub(injection._reveal_tags, text)
        text = injection._INVISIBLE.sub("", text)
        text = unicodedata.normalize("NFKD", text).translate(injection._LOOKALIKE_TABLE)
        text = injection._MARKS.sub("", text.casefold())
    else:
        text = text.lower()
    text = _PLAIN_SPACED.sub(injection._join_spaced, text)
    text = _PLAIN_GAP.sub(" ", text)
    return _PLAIN_COLONS.sub(": ", text).strip(" ")


_ALPHABET = list("abIG1 .-_:\n\t,!?'") + [
    "\u200b", "\u00ad", "\u0456", "\u043e", "\u0397", "\u03b7", "\u0345", "\u00e7", "\u0301",
    "\u00df", "\u3000", "\x1c", "\u1d00", "\u0663", "\ufb01", "\u0130", "\u03a3", "\u00b5",
    "\uff49", "\U000e0041", "\U000e0020", "\U0001d42b", "\u4e2d", " : ", "  "]


@pytest.mark.parametrize("text", TEXTS + ["i  g  n  o  r  e", "a - b - c", "x_y_z", "a:b : c::"])
def test_normaliser_is_the_plain_one(text: str) -> None:
    assert normalize_injection_text(text) == plain_normalize(text)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=30).map("".join))
def test_normaliser_is_the_plain_one_on_tricky_text(text: str) -> None:
    assert normalize_injection_text(text) == plain_normalize(text)
