"""Where each built-in detector's regex is searched (the planner's table): windows around its
keywords, a gate's matches or runs of digits, so that a regex never sweeps a text it cannot
match in. A tuning changes the cost of a search, never what it finds (tests/engine/test_find.py
checks `find` against each regex run over the whole text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from types import MappingProxyType

from replyguard.engine.address_shapes import EMAIL_START
from replyguard.engine.detector import Detector
from replyguard.engine.detectors import DETECTORS


@dataclass(frozen=True, slots=True)
class Tuning:
    """Where a detector's regex runs (every match must lie in these windows; see `engine.find`).

    With `reach=(before, after)`, only from `before` characters before to `after` characters
    after each keyword occurrence or each `gate` match; with `reach=(0, after)`, only at each
    keyword occurrence (every match starts at one); with `start` (whose matches hold no space),
    only where `start`, searched from `before` characters back (from the last space in them),
    reaches the end of a keyword occurrence; with `min_digits`, only around runs of digits
    and separators (` .()[]/+-_,:|\\~'`) holding at least that many digits (and
    `run_marks`, `unmarked_digits`) and passing `run_filter` (from the run's start less
    `before` to its end plus `after`; every match must be a stretch of those characters
    starting with one that is no space, so that it lies inside one run). A tuning may leave
    out a run where the detector's validator can confirm no value (`min_digits`,
    `unmarked_digits`: a phone number's digits). `UNTUNED` (all defaults): over the whole
    text when one of the detector's keywords occurs (always, with no keywords).
    """

    reach: tuple[int, int] | None = None
    gate: re.Pattern[str] | None = None
    min_digits: int = 0
    run_filter: Callable[[str], bool] | None = None
    #: `(character, count)`: a run holding `character` fewer than `count` times is not
    #: searched (counted in the text, without a slice or a call per run: cheaper than a
    #: `run_filter`).
    run_marks: tuple[str, int] | None = None
    #: `(character, count)`: a run not holding `character` is searched only where it holds
    #: `count` digits at least (more than `min_digits`, the least for a run holding it).
    unmarked_digits: tuple[str, int] | None = None
    start: re.Pattern[str] | None = None
    #: With `reach=(0, after)`: every match starts a word or a camelCase word's part, as a
    #: password's name does (`_PASSWORD_NAME`: `password`, `dbPassword`), so a keyword
    #: occurrence after an ASCII letter or digit (`shopping`'s `pin`) is passed over unless
    #: it is a capital `P` or `S` after a small letter (`engine.find._starting_words`).
    word_start: bool = False
    #: With `min_digits`: every match starts as a number does (`NUMBER_START`), so a run where
    #: no number can start is not searched (the tail of a UUID, `…-a716-446655440000`).
    number_start: bool = False


UNTUNED = Tuning()


def many_groups(run: str) -> bool:
    """A run of digits that may hold a card in groups of one, two or three digits: four
    spaces or hyphens at least inside it (five groups; a card in fours has three)."""
    inner = run.strip(" ")
    return inner.count(" ") + inner.count("-") >= 4


#: The gate of the IPv6 detector: two colons at most four hex digits apart.
COLON_PAIR = re.compile(r":[0-9A-Fa-f]{0,4}:")
#: What a run of digits holding an IPv4 address holds: three dots at least.
_DOTTED_QUAD = (".", 3)
#: Where a number detector runs: from the start of a run of digits and separators to 5
#: characters past its end (its look-aheads read at most 4 past a run: `,12/`).
_NEAR_RUN = (0, 5)

#: Where every match of a number detector (a card's, an SSN's, a CPF's, a phone's) may start,
#: found at the character before it: a `+` or `(` after no word character, or a digit after
#: none, not after a digit and a space, dot or hyphen (`4111-1111`) but after eleven digits
#: and one of those or after a digit and a space or tab (the second of two cards, a CPF's
#: check digits). Each detector's own start (`engine.detectors`: `_START_NUM`, `_START_CARD`,
#: `_START_SSN`, `_START_CPF`) is one of these: where this finds nothing, none of them
#: matches (`engine.find._number_starts`).
NUMBER_START = re.compile(r"\W(?=[+(]|\d(?:(?<!\d[ .-]\d)|(?<=\d{11}[ .-]\d)|(?<=\d[ \t]\d)))")

#: The built-in detectors' tunings, by detector id.
TUNING: Mapping[str, Tuning] = MappingProxyType({
    "api_key": Tuning(reach=(11, 1100)),
    "aws_access_key": Tuning(reach=(0, 20)),
    # (A qualifier, `password (temporary)`, between the name and its value: 1200.)
    "password_assignment": Tuning(reach=(0, 1200), word_start=True),
    "secret_assignment": Tuning(reach=(0, 1200)),
    # (A `Cookie` header's pairs: up to 64 of them; a match for each, so not only at the
    # keyword: from the character before it.)
    "cookie_value": Tuning(reach=(1, 8400)),
    "password_label": Tuning(reach=(0, 1200)),
    "password_quoted": Tuning(reach=(0, 1200), word_start=True),
    "password_argument": Tuning(reach=(0, 1200), word_start=True),
    # (An input's attributes, up to 16, then its value.)
    "password_input": Tuning(reach=(0, 3400)),
    "password_list": Tuning(reach=(0, 4200), word_start=True),
    # (A heading up to 96 characters before its keyword, the value on a line below.)
    "password_layout": Tuning(reach=(96, 400)),
    # (The header's keyword; its column's cells in the lines below.)
    # (As far as `engine.find` reads at once: a window, what it reads around it and the
    # header read before it, 32,768 + 2 x 2,048 + 4,096.)
    "password_column": Tuning(reach=(1, 40_960)),
    "password_column_wide": Tuning(reach=(1, 40_960)),
    # (The heading's keyword; its items in the lines below, as far as a table's rows.)
    "password_pairs": Tuning(reach=(1, 40_960)),
    "password_layout_wide": Tuning(reach=(96, 400)),
    "password_confirm": Tuning(reach=(0, 1100)),
    "cli_password": Tuning(reach=(0, 1100)),
    "uk_nhs": Tuning(reach=(0, 40)),
    # (A label, then a value in any grouping: nine or eleven digits and a separator of up to
    # three characters between each two; a NINO's letters and six digits.)
    "us_ssn_labelled": Tuning(reach=(0, 72)),
    "br_cpf_labelled": Tuning(reach=(0, 80)),
    "uk_nino_labelled": Tuning(reach=(0, 64)),
    # (Each match starts at a keyword; `type="password"`'s attributes, then the value.)
    "password_phrase": Tuning(reach=(0, 1200)),
    "url_password": Tuning(reach=(0, 200)),
    # (Each branch tried only where a run of its characters starts: ~2.5x cheaper.)
    "email": Tuning(reach=(65, 600), start=EMAIL_START),
    # (Its keywords, a space beside `@` or a spaced dot, are rare: the windows around them
    # are read whole.)
    "email_spaced": Tuning(reach=(200, 400)),
    # (Its keyword, a quote before `@`, is rare: a quoted local part of 64 characters at most
    # before it, the domain after.)
    "email_quoted": Tuning(reach=(66, 600)),
    "credit_card": Tuning(min_digits=13, reach=_NEAR_RUN, number_start=True),
    "card_in_other_groups": Tuning(min_digits=13, run_filter=many_groups, reach=_NEAR_RUN,
                                   number_start=True),
    "card_in_quoted_strings": Tuning(reach=(10, 400)),
    "iban": Tuning(reach=(0, 72)),
    "us_ssn": Tuning(min_digits=9, reach=_NEAR_RUN, number_start=True),
    "uk_nino": Tuning(reach=(0, 12)),
    "br_cpf": Tuning(min_digits=11, reach=_NEAR_RUN, number_start=True),
    # (Its validator's numbers: 8 digits at least after a `+`, 10 written nationally.)
    "phone_number": Tuning(min_digits=8, unmarked_digits=("+", 10), reach=(2, 3),
                           number_start=True),
    "phone_carrier_code": Tuning(reach=(1, 40)),
    "ipv4_address": Tuning(min_digits=4, run_marks=_DOTTED_QUAD, reach=_NEAR_RUN),
    "ipv4_in_other_bases": Tuning(reach=(16, 24)),
    # (Its keywords, a spaced dot or an ideographic full stop: three digits at most before
    # the first, three groups of a dot and three digits after it.)
    "ipv4_spaced": Tuning(reach=(4, 20)),
    "ipv6_address": Tuning(gate=COLON_PAIR, reach=(8, 60)),
})

_BUILT_IN = {d.id: d for d in DETECTORS}


def tuning_of(detector: Detector) -> Tuning:
    """The tuning `detector` is searched with: its id's entry in `TUNING` when it reads what
    the built-in detector of that id reads (the same regex and keywords: a built-in with
    another validator, as `engine.detector_sets` makes, keeps it); else `UNTUNED`, so that a
    detector of one's own, or a built-in with another regex or keywords, is searched wherever
    its keywords allow (the windows of another regex could miss its matches)."""
    tuning = TUNING.get(detector.id)
    built_in = _BUILT_IN.get(detector.id)
    if tuning is None or built_in is None:
        return UNTUNED
    if (detector.regex != built_in.regex or detector.keywords != built_in.keywords
            or detector.keywords_in != built_in.keywords_in):
        return UNTUNED
    if tuning.unmarked_digits is not None and not _same_check(detector, built_in):
        return replace(tuning, unmarked_digits=None)  # (what it leaves out is the validator's)
    return tuning


def _same_check(detector: Detector, built_in: Detector) -> bool:
    """Whether `detector` validates with the built-in's validator, or with the function the
    built-in's binds (`engine.detector_sets`: the phone validator bound to other regions)."""
    mine, theirs = detector.validate, built_in.validate
    if mine is theirs:
        return True
    return (isinstance(mine, partial) and isinstance(theirs, partial)
            and mine.func is theirs.func)
