"""What a detector is: its declaration (`Detector`: pattern, keywords, validator, mask,
priority, examples) and what finds its candidates (`Finder`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

KeywordsIn = Literal["text", "lower", "shape"]


class Finder(Protocol):
    """What finds a detector's candidates: a compiled pattern, or one whose matches a context
    function turns down (`engine.context_marks.Refusing`)."""

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
               ) -> re.Match[str] | None: ...

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
              ) -> re.Match[str] | None: ...

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
                 ) -> Iterator[re.Match[str]]: ...


class CompiledOnUse:
    """A pattern compiled the first time it is searched (a `Finder`), for a detector that
    runs only where a rare keyword occurs and whose pattern is slow to compile (many large
    character classes: an address's domain): the import pays nothing for it. `compiled()`
    is the compiled pattern."""

    __slots__ = ("_compiled", "_source")

    def __init__(self, source: str) -> None:
        self._source = source
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
               ) -> re.Match[str] | None:
        return self.compiled().search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
              ) -> re.Match[str] | None:
        return self.compiled().match(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize, /
                 ) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(string, pos, endpos)

    def __repr__(self) -> str:
        return f"CompiledOnUse({self._source[:40]!r}...)"


@dataclass(frozen=True, slots=True)
class Detector:
    """One detector: what a value of its class looks like, how it is confirmed and masked.

    `id` names it (`credit_card`, `us_ssn`, ...); `category` is the class the rules act on
    (`card`, `national_id`, ...). `regex` finds candidates (group `group` is the value; a
    `Refusing` pattern skips those its context marks as something else);
    `keywords` is a cheap prefilter (the detector runs only if one of them is in the text);
    `validate` confirms a candidate (check digits, parsers); `mask` writes the masked value.
    `keywords_in` says what keywords are matched against: the text, its ASCII lower case
    (`"lower"`), or its shape (`"shape"`: `A` for an ASCII letter of either case, `0` for
    a digit, space for a space, `_` for anything else). `trim_groups` retries a candidate
    that fails validation without its trailing space-separated groups (an IBAN followed by a
    capitalised word). `priority` orders overlapping findings: the lower number keeps the
    text (card > iban > national_id > ip_address > phone). `examples` must each be found
    whole; `counterexamples` must give no finding of this detector.

    `rest`, for a value of no bounded length (a key block, a token, a password): what
    continues it past the end of the text read, so that a value running out of a window of
    text (`engine.find`) or out of a piece of a reply (`engine.reply`) is read, or dropped,
    to its real end. (A password's pattern reads `VALUE_READ` characters of a value and
    sets its group `cut` when the value goes on: `value_end` reads it to its end.)

    Where in a text the regex is searched is no part of the declaration: the planner's table
    (`engine.tuning`) holds the built-in detectors' windows; any other detector is searched
    wherever its keywords allow, with the same findings.
    """

    id: str
    category: str
    regex: Finder
    keywords: tuple[str, ...]
    validate: Callable[[str], bool] | None
    mask: Callable[[str], str]
    priority: int
    examples: tuple[str, ...]
    counterexamples: tuple[str, ...]
    group: int | str = 0
    keywords_in: KeywordsIn = "text"
    trim_groups: bool = False
    rest: re.Pattern[str] | None = None
