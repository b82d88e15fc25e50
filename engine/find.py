"""Finding values in text: run the detectors, confirm with validators, settle overlaps.

A digit run claimed by one class is not claimed again by another; the detector with the lower
`priority` keeps it (secrets, then email, then card > iban > national_id > ip_address >
phone). Findings never carry the value itself, only where it is.

Speed: Python's `re` pays for every position where a pattern's first character occurs, so
a regex never sweeps the whole text when it need not. Cheap scans (`str.find`/`bytes.find`
of keywords, one `bytes.translate` for digit runs and text shapes) mark the windows where a
detector may match (its tuning, `engine.tuning`), and its regex runs only there. Each keyword is
scanned for once per text, however many detectors read it. Candidates are validated in the
order overlaps are settled in, and one starting on text an earlier finding already holds
is not validated at all (it could never be kept). None of this skips a place where a
regex could match: the result is what a whole-text scan gives (tests/engine/test_find.py),
for a text without invisible characters; one holding them is read twice, without them and
with them as spaces (`_through_invisible`).
The views live in `engine.views`, the gate that says which detectors may match in
`engine.plan`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from operator import attrgetter

from replyguard.engine.canon import Canonical, canonical
from replyguard.engine.context_marks import Refusing, id_as_written
from replyguard.engine.detector import Detector, Finder, KeywordsIn
from replyguard.engine.detectors import DETECTORS
from replyguard.engine.layout import html_table, needs_lines, open_layout
from replyguard.engine.lists import listed_unnamed
from replyguard.engine.mask_edges import balanced
from replyguard.engine.plain import plain
from replyguard.engine.plan import Plan, Tuned
from replyguard.engine.secret_shapes import value_end
from replyguard.engine.text import (
    has_invisible,
    invisible_as_spaces,
    invisible_gaps,
    spaced_by_invisible,
    visible,
)
from replyguard.engine.tuning import NUMBER_START, Tuning
from replyguard.engine.views import Views

_MASKS = {d.id: d.mask for d in DETECTORS}


@dataclass(frozen=True, slots=True)
class Finding:
    """A value of class `cls` at `text[start:end]`, found by detector `detector`.

    It holds no part of the value, so its repr is safe to log.
    """

    cls: str
    start: int
    end: int
    detector: str


Spans = list[tuple[int, int]]
#: What reads a text for its findings (`_find`, `_find_in`).
Reader = Callable[[str, Sequence[Detector]], list["Finding"]]
#: A match before validation: `(detector.priority, start of its value, detector, match)`.
Candidate = tuple[int, int, Detector, "re.Match[str]"]


def _merge(spans: Spans, length: int) -> Spans:
    """Sorted, non-overlapping `[lo, hi)` windows clipped to `[0, length)`."""
    spans.sort()
    merged: Spans = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], min(hi, length))
        else:
            merged.append((max(lo, 0), min(hi, length)))
    return merged


def _keyword_windows(views: Views, where: KeywordsIn, keywords: Iterable[str], before: int,
                     after: int) -> Spans:
    """Windows around every occurrence of each keyword in `views.hay(where)`, from where the
    views found them (`Views.places`: detectors sharing a keyword share one scan).

    Occurrences whose windows overlap are taken in one step (a bisection jumps to the last one
    a window reaches), so a text made of one keyword repeated costs O(len / after) steps
    after its places are found.
    """
    spans: Spans = []
    for word in keywords:
        size = len(word)
        places = views.places(where, word)
        k, count = 0, len(places)
        while k < count:
            i = places[k]
            lo, hi = i - before, i + size + after
            j = bisect_right(places, hi + before, k + 1) - 1
            while j > k:
                k = j
                i = places[k]
                hi = i + size + after
                j = bisect_right(places, hi + before, k + 1) - 1
            spans.append((lo, hi))
            k += 1
    return spans


def _anchored(views: Views, detector: Detector, tuning: Tuning) -> Iterator[re.Match[str]]:
    """Matches of a detector whose matches start at a keyword occurrence (`reach` before 0)
    or where its tuning's `start` pattern, searched back from a keyword and ending at the keyword's
    end, begins: the regex is tried once at each such place, the last match's end not
    overlapped. Where keywords are dense the regex runs over the whole text instead.
    A detector's refusal (`Refusing`) is read here only where its pattern matched (the
    pattern's `match` called directly: no call through the wrapper at each place)."""
    text = views.text
    where = detector.keywords_in
    before, after = tuning.reach or (0, 0)
    regex, back = detector.regex, tuning.start
    match_at = _unrefused(regex).match
    refuse = regex.refuse if isinstance(regex, Refusing) else _never
    length = len(text)
    last = 0
    places: list[tuple[int, int]] = []
    for word in detector.keywords:
        size = len(word)
        places.extend((i, i + size) for i in views.places(where, word))
    if len(places) > length // 64:  # dense keywords (adversarial): one scan is cheaper
        yield from regex.finditer(text)
        return
    if len(detector.keywords) > 1:
        places.sort()
    if tuning.word_start:
        places = _starting_words(text, places)
    for at, end in places:
        if at < last:
            continue
        if back is not None:  # (from the last space before the keyword: `start` holds none)
            lo = max(at - before, last)
            head = back.search(text, max(lo, text.rfind(" ", lo, at) + 1), end)
            if head is None:
                continue
            at = head.start()
        hi = min(end + after, length)
        match = match_at(text, at, hi)
        if match is not None and not refuse(text, match.start(), match.end()):
            if match.end() == hi < length:
                match = _unclipped(text, detector, match)
            last = match.end()
            yield match


def _never(text: str, start: int, end: int) -> bool:
    """No refusal (a detector without a `Refusing`)."""
    return False


_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _starting_words(text: str, places: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The keyword `places` where a password's name can start (`Tuning.word_start`): after no
    ASCII letter or digit, or as a capital `P` or `S` after a letter (`dbPassword`,
    `userSenha`, `PGPASSWORD`, `SMTPPASSWORD`: as the password's name reads them, so that
    they are read whatever the text's length)."""
    return [(at, end) for at, end in places
            if text[at - 1:at] not in _ASCII_ALNUM
            or (text[at] in "PS" and text[at - 1] in _ASCII_LETTERS)]


def _windows(views: Views, detector: Detector, tuning: Tuning) -> Spans | None:
    """Where a keyword or gate detector runs: `[]` nowhere, None over the whole text."""
    text = views.text
    before, after = tuning.reach or (0, 0)
    if tuning.gate is not None:
        return _merge([(m.start() - before, m.end() + after)
                       for m in tuning.gate.finditer(text)], len(text))
    if not detector.keywords:
        return None
    where = detector.keywords_in
    present = [key for key in detector.keywords if views.has(where, key)]
    if tuning.reach is None:
        return None if present else []
    return _merge(_keyword_windows(views, where, present, before, after), len(text))


def _near_runs(views: Views, detectors: list[Tuned], pending: list[Candidate],
               claimed: bytearray, kept: list[tuple[int, int, Detector]]) -> list[Candidate]:
    """Add the candidates of the digit-run `detectors` (in order of priority) to `pending`,
    each regex run only around the runs it may match in, and settle into `kept` every
    pending candidate of a lower priority number before a detector runs; returns what is
    left pending.

    A detector's windows may overlap; its search restarts at the end of its last match, so
    no match is yielded twice and none overlaps an earlier one, as with one `finditer` (no
    detector matches the empty string, so `search` from a match's end is `finditer`'s next).
    A run whose characters but trailing spaces findings of a lower priority number already
    hold (`claimed`) is not searched: a digit-run detector's match is a stretch of run
    characters starting with one that is no space (`Tuning.min_digits`), so it lies inside
    one run and would start on held text, never to be kept. Skipping it only leaves `last`
    short, so the next run's search may start inside this run: whatever it finds there is
    such a match, dropped, and the first match from the next run's start is the same.
    """
    text = views.text
    length = len(text)
    by_digits = _runs_by_digits(text, views.runs(), detectors)
    lowest = min(c[0] for c in pending) if pending else _NO_PRIORITY
    for detector, tuning in detectors:
        priority = detector.priority
        if lowest < priority:  # settle what ranks before this detector
            below = [c for c in pending if c[0] < priority]
            pending = [c for c in pending if c[0] >= priority]
            _confirm_and_settle(text, below, claimed, kept)
            lowest = min(c[0] for c in pending) if pending else _NO_PRIORITY
        search = _unrefused(detector.regex).search
        before, after = tuning.reach or (0, 0)
        group = detector.group
        last = 0
        runs = by_digits[tuning.min_digits, tuning.number_start]
        for start, end, _ in _runs_searched(text, runs, tuning):
            if claimed[start] and _held(claimed, text, start, end):
                continue
            lo = start - before if start - before > last else last
            hi = end + after if end + after < length else length
            match = search(text, lo, hi)
            while match is not None:
                last = match.end()
                pending.append((priority, match.start(group), detector, match))
                if priority < lowest:
                    lowest = priority
                match = search(text, last, hi)
    return pending


_NO_PRIORITY = 1 << 30
Run = tuple[int, int, int]


def _runs_by_digits(text: str, runs: list[Run], detectors: list[Tuned]
                    ) -> dict[tuple[int, bool], list[Run]]:
    """For each of the detectors' `min_digits` and `number_start`, the runs (`Views.runs`)
    holding at least that many digits and, with `number_start`, where a number may start, in
    order: each list filtered from the one of the next lower count, so that the runs are
    walked once a count, not once a detector, and `NUMBER_START` is searched once a run.
    It is searched from 3 characters before the run (a window starts at most 2 before it,
    and the character before a start is read) to 5 after it (where a window ends at the
    latest); a run near the text's start is kept."""
    by_digits: dict[tuple[int, bool], list[Run]] = {}
    for least in sorted({tuning.min_digits for _, tuning in detectors}):
        runs = [run for run in runs if run[2] >= least]
        by_digits[least, False] = runs
    started: list[Run] | None = None
    search = NUMBER_START.search
    for least in sorted({tuning.min_digits for _, tuning in detectors if tuning.number_start}):
        if started is None:
            started = [run for run in by_digits[least, False]
                       if run[0] < 3 or search(text, run[0] - 3, run[1] + 5) is not None]
        started = [run for run in started if run[2] >= least]
        by_digits[least, True] = started
    return by_digits


def _runs_searched(text: str, runs: list[Run], tuning: Tuning) -> list[Run]:
    """Those of `runs` (holding the tuning's `min_digits`, and where a number may start with
    its `number_start`: `_runs_by_digits`) that hold its `run_marks` and its
    `unmarked_digits` and pass its `run_filter`: where a digit-run detector is searched."""
    if tuning.unmarked_digits is not None:
        mark, least = tuning.unmarked_digits
        find = text.find
        runs = [run for run in runs if run[2] >= least or find(mark, run[0], run[1]) != -1]
    if tuning.run_marks is not None:
        mark, times = tuning.run_marks
        count = text.count
        runs = [run for run in runs if count(mark, run[0], run[1]) >= times]
    accept = tuning.run_filter
    if accept is not None:
        runs = [run for run in runs if accept(text[run[0]:run[1]])]
    return runs


def _unrefused(finder: Finder) -> Finder:
    """What a digit-run detector searches with: its pattern without its refusal, when it has
    one (`Refusing`). The refusal is read at confirmation instead (`_refused`), once the
    value is confirmed: a refused match and a match its validator turns down are both
    dropped, and the search goes on from its end either way, so the findings are the same;
    the context is read for the few candidates that hold a value, not for every date and
    amount (`find` on the realistic corpus: 476k -> 456k instructions a KB). (`_anchored`
    matches with it too, and reads the refusal where it matched.)"""
    return finder.pattern if isinstance(finder, Refusing) else finder


def _refused(text: str, detector: Detector, match: re.Match[str]) -> bool:
    """Whether the detector's refusal (`Refusing`) turns `match` down."""
    finder = detector.regex
    return isinstance(finder, Refusing) and finder.refuse(text, match.start(), match.end())


def _held(claimed: bytearray, text: str, start: int, end: int) -> bool:
    """Whether `claimed` holds every character of the run `text[start:end]` but its
    trailing spaces (a run may end in spaces; no match starts on one)."""
    free = claimed.find(0, start, end)
    return free == -1 or text.count(" ", free, end) == end - free


def _last_separator(text: str, start: int, end: int) -> int:
    """The last space or hyphen in `text[start:end]`, -1 if none."""
    return max(text.rfind(" ", start, end), text.rfind("-", start, end))


def _confirmed(text: str, detector: Detector, match: re.Match[str]) -> tuple[int, int] | None:
    """The span of the value `match` holds once `detector.validate` confirms it, else None.
    A value its pattern read only the start of (group `cut`: a password longer than
    `secret_shapes.VALUE_READ`, a key's body longer than `KEY_READ`) is read on to its end
    (a password's by `secret_shapes.value_end`; a key's by its detector's `rest`, once what
    its pattern read is confirmed: `_key_read_on`)."""
    start, end = match.span(detector.group)
    if "cut" in match.re.groupindex and match.start("cut") != -1:
        if "q" not in match.re.groupindex and detector.rest is not None:
            return _key_read_on(text, detector, detector.rest, start, end)
        end = value_end(text, match, end)
    validate = detector.validate
    if validate is None or validate(text[start:end]):
        return start, end
    if detector.trim_groups:
        cut = _last_separator(text, start, end)
        while cut > start + 8:
            if validate(text[start:cut]):
                return start, cut
            cut = _last_separator(text, start, cut)
    return None


def _key_read_on(text: str, detector: Detector, rest: re.Pattern[str], start: int, end: int
                 ) -> tuple[int, int] | None:
    """The span of a key whose pattern read only the start of its body (`text[start:end]`):
    confirmed by what was read, then read on to its end by `rest`. (Confirming first keeps
    a run of key starts that are no keys linear: none of them is read to the run's end.)"""
    validate = detector.validate
    if validate is not None and not validate(text[start:end]):
        return None
    found = rest.match(text, end)
    return start, found.end() if found is not None else end


def _matches(views: Views, detector: Detector, tuning: Tuning) -> Iterator[re.Match[str]]:
    """The matches of a detector that reads keywords or a gate (not digit runs)."""
    reach = tuning.reach
    if reach is not None and (reach[0] == 0 or tuning.start):
        yield from _anchored(views, detector, tuning)
        return
    windows = _windows(views, detector, tuning)
    if windows is None:
        yield from detector.regex.finditer(views.text)
    else:
        text = views.text
        length = len(text)
        for lo, hi in windows:
            if hi == length:
                yield from detector.regex.finditer(text, lo, hi)
                continue
            for match in detector.regex.finditer(text, lo, hi):
                yield match if match.end() != hi else _unclipped(text, detector, match)


def _unclipped(text: str, detector: Detector, match: re.Match[str]) -> re.Match[str]:
    """For a `match` that ends at its window's end before the text's: the match at its start
    read to the text's end, so that a window never cuts a value short (a password under a
    heading past a run of blank lines)."""
    whole = detector.regex.match(text, match.start())
    return whole if whole is not None else match


_PLANS = {id(DETECTORS): Plan.of(DETECTORS)}


#: A text longer than this is read in windows of this many characters (`_windowed`).
WINDOW = 32_768
#: What each window also reads on either side of it: more than any value of bounded length
#: and the context a detector reads before one (a password's label, an e-mail's local part).
_AROUND = 2048
#: A value ending this close to what its window read may go on past it (a key block's END
#: line cut by the window's end) and is read on (`_read_on`).
_EDGE = 64


def find(text: str, detectors: Sequence[Detector] = DETECTORS, before: str = ""
         ) -> list[Finding]:
    """Every value the detectors find in `text`, in order of position, overlaps settled
    (`_find`). A text longer than `WINDOW` is read in windows (`_windowed`): the same
    findings, and no single scan of the text (a regex search, a translation) reads more than
    a window and its surroundings, so that screening in a worker thread lets the thread that
    serves requests run between scans. `before`: the text that came before `text` (a
    reply's earlier pieces), read only for a name of the class of a value whose groups a
    list sets apart (`engine.lists`)."""
    if len(text) > WINDOW:
        return _windowed(text, detectors, before)
    if plain(text):  # (most sentences: the text is its own view)
        return _unlisted(text, _find_in(text, detectors), before)
    return _find(text, detectors, before=before)


def _windowed(text: str, detectors: Sequence[Detector], before: str = "") -> list[Finding]:
    """`find` over `text` in windows of `WINDOW` characters, each read with `_AROUND`
    characters of the text on either side: a window keeps the findings that start before
    its end and after the end of the last one kept (one that starts before it and runs
    into it was settled by the window it starts in, which read both; one that starts just
    before it and that window could not read whole, a token with a long header, is kept
    here). A value running to (near) the end of what its window read (a key block, a
    token) is read on to its end (`_read_on`). A window is read after the header of a table
    or a CSV whose rows run on into it (`layout.open_layout`): its rows are found in every
    window, however long the table."""
    out: list[Finding] = []
    held = 0  # where the last kept finding ends
    size = len(text)
    carry, read = "", 0  # what governs `text[read:]`: a table's header (`layout.open_layout`)
    for low in range(0, size, WINDOW):
        high = min(size, low + WINDOW)
        base, top = max(0, low - _AROUND), min(size, high + _AROUND)
        if base > read:
            carry, read = open_layout(carry + text[read:base]), base
        shift = len(carry)
        for f in _find(carry + text[base:top], detectors, before=before if base == 0 else ""):
            if f.start < shift:
                continue  # (the header read before the window: the window before kept it)
            start, end = f.start - shift + base, f.end - shift + base
            if start < held or start >= high:
                continue
            if top < size and end >= top - _EDGE:  # (it may run on past what was read)
                end = _read_on(text, start, end, f.detector, detectors)
            out.append(Finding(f.cls, start, end, f.detector))
            held = end
    return out


def _read_on(text: str, start: int, end: int, detector: str,
             detectors: Sequence[Detector]) -> int:
    """Where a value the end of a window cut short (from `start`, it runs to `end`, the end of
    what the window read) really ends: read again from its start, as `_find` reads it, over a
    stretch twice as long each time until it ends before the stretch does. Only a value of
    no bounded length (a key block, a token) is ever cut short: the others are shorter than
    `_AROUND`."""
    size = len(text)
    reach = WINDOW
    while True:
        base, top = max(0, start - _AROUND), min(size, end + reach)
        found = [f for f in _find(text[base:top], detectors)
                 if f.start + base == start and f.detector == detector]
        if not found:
            return end
        end = found[0].end + base
        if end < top - _EDGE or top == size:  # (a password's value ends before punctuation
            return end  # that may go on: read on while it ends near the stretch's end)
        reach *= 2


def _find(text: str, detectors: Sequence[Detector] = DETECTORS, tables: bool = True,
          before: str = "") -> list[Finding]:
    """Every value the detectors find in `text` read whole, in order of position, overlaps
    settled. The detectors read the text's canonical view (`engine.canon`: markup, entities,
    separators, full-width forms, look-alike letters and other scripts' digits undone), each
    finding's span mapped back onto `text` whole, markup inside included. A text holding
    invisible characters (`engine.text.INVISIBLE`) is read without them and with them as
    spaces (`_through_invisible`): `4111\u200b1111\u200b1111\u200b1111` is a card, its span
    the whole of it.

    Cost is linear in `len(text)`: each detector's regex runs only in the windows where it
    may match (their tunings, `engine.tuning`), found by cheap scans, or over the whole
    text when one of its keywords occurs. The result is what one `finditer` of each regex
    over the whole view, then validation and settling overlaps by priority, would give.
    """
    if not text:
        return []
    if plain(text):  # (most sentences: the text is its own view)
        return _unlisted(text, _find_in(text, detectors), before)
    if not text.isascii() and has_invisible(text):
        return _through_invisible(text, detectors, partial(_find, before=before))
    view = canonical(text)
    escaped = _may_write_invisible(text)
    found = _read(text, view, detectors, escaped, before)
    # Numbers joined across lines or spaces, or a password laid out in lines (a table's
    # column, a heading then its value): read them apart too.
    lines = needs_lines(text)
    if view.joined or lines:
        apart = canonical(text, join=False)
        found = _kept_apart(found, _read(text, apart, detectors, escaped, before))
    if "\t" in text and (lines or _TAB_BETWEEN_DIGITS.search(text) is not None):
        # (a TSV's columns, or two values a tab sets apart: its tabs kept)
        tabbed = canonical(text, join=False, tabs=True)
        found = _kept_apart(found, _read(text, tabbed, detectors, escaped, before))
    if view.glued:  # an element of one word glued to a word: read them as one word too
        found = _kept_apart(found, _read(text, canonical(text, glue=True), detectors, escaped,
                                         before))
    if view.attributes:  # a tag's attributes read as text: read the text as shown too
        shown = canonical(text, shown=True)
        found = _kept_apart(found, _read(text, shown, detectors, escaped, before))
    if tables and view.edited and "<" in text:  # an HTML table: its rows as lines too
        table = html_table(text)
        if table:
            found = _kept_apart(found, [f for f in _find(table, detectors, False)
                                        if f.cls == "password"])
    return found


#: A tab between two digits (`4539 1488 0343 6467<TAB>5500 0055 5555 5559`: two cards).
_TAB_BETWEEN_DIGITS = re.compile(r"\t(?<=[0-9]\t)\t*[0-9]")


def _may_write_invisible(text: str) -> bool:
    """Might the view of `text` (which holds no invisible character) hold one: does `text`
    hold a reference, a JSON escape or a percent-encoding (`&`, `\\u`, `%`)?"""
    return "&" in text or "%" in text or "\\u" in text



def _find_in_view(view: str, detectors: Sequence[Detector], escaped: bool = True
                  ) -> list[Finding]:
    """`_find_in` on a canonical view, read through the invisible characters a reference or
    an escape wrote there (`&#8203;`, `&shy;`, `\\u200b`, `%E2%80%8B`) as through typed
    ones (`_through_invisible`): an invisible character reads the same however it is typed.
    `escaped`: the text the view was read from may have written one (`_may_write_invisible`)."""
    if not escaped or view.isascii() or not has_invisible(view):
        return _find_in(view, detectors)
    return _through_invisible(view, detectors, _find_read_again)


def _find_read_again(text: str, detectors: Sequence[Detector]) -> list[Finding]:
    """`_find_in` on the canonical view of `text`, itself a view read without its invisible
    characters or with them as spaces (`_find_in_view`): so that what they leave is read as
    typed text is (`4539&#8203; 1488`: two spaces in a row read as one)."""
    view = canonical(text)
    return _mapped(view, _find_in(view.text, detectors))


def _read(text: str, view: Canonical, detectors: Sequence[Detector], escaped: bool,
          before: str) -> list[Finding]:
    """The findings of one reading of `text` (its view `view`), mapped onto `text`, but for
    the values whose groups a list sets apart with nothing naming their class
    (`_unlisted`): each reading drops its own, so that another reading's findings there
    are kept (`_kept_apart`)."""
    return _unlisted(text, _mapped(view, _find_in_view(view.text, detectors, escaped)), before)


def _unlisted(text: str, found: list[Finding], before: str) -> list[Finding]:
    """`found` but for each value whose groups a list separator sets apart (a line break, a
    tab, a comma, a table's cell) with no name of its class before it in `before + text`:
    its groups are a list's numbers (`engine.lists.listed_unnamed`); and but for each phone
    number the text as written marks as an id (`context_marks.id_as_written`: its label in
    `before`, the header of its table's column)."""
    if not found:
        return found
    return [f for f in found if not listed_unnamed(text, f.cls, f.start, f.end, before)
            and not (f.cls == "phone" and id_as_written(text, f.start, f.end, before))]


def _mapped(view: Canonical, found: list[Finding]) -> list[Finding]:
    """Findings in `view` as findings in its text."""
    if not found or not view.edited:
        return found
    return [Finding(f.cls, view.start(f.start), view.end(f.end), f.detector) for f in found]


def _kept_apart(joined: list[Finding], apart: list[Finding]) -> list[Finding]:
    """The findings of a text read two ways (numbers joined across lines and runs of spaces,
    and kept apart): those of the joined reading, and each of the other reading's that
    overlaps none of them (`4111 1111` / `1111 1111` is one card; `4111 1111 1111 1111` /
    `5500 0055 5555 5559` are two), in order of position."""
    out = list(joined)
    out += [f for f in apart if not any(f.start < g.end and g.start < f.end for g in joined)]
    out.sort(key=attrgetter("start"))
    return out


def _find_in(text: str, detectors: Sequence[Detector]) -> list[Finding]:
    """`_find` on a canonical view."""
    plan = _PLANS.get(id(detectors))
    if plan is None:
        plan = Plan.of(detectors)
    if text.isascii() and plan.clean(text):
        return []
    views = Views(text)
    active = plan.active(views)
    if not active:
        return []
    return [Finding(d.category, start, end, d.id) for start, end, d in _found(views, active)]


def _through_invisible(text: str, detectors: Sequence[Detector],
                       read: Reader | None = None) -> list[Finding]:
    """The findings of a text holding invisible characters, read two ways: as it shows, without
    them (`visible`; `4111\u200b1111\u200b1111\u200b1111`, `jane\u200d.doe@example.com`),
    each span mapped back onto `text` so that it covers the invisible characters inside the
    value (its mask replaces them too); and with each read as a space, where it stands in
    for a separator (`4111\u00ad1111 1111 1111`). A finding of the second reading is kept
    where it overlaps none of the first's. `read` reads each of the two (`_find`: a text
    as typed; `_find_read_again`: a canonical view holding the invisible characters its
    references stand for)."""
    read = read or _find
    seen = read(visible(text), detectors)
    if seen:
        gaps = invisible_gaps(text)
        seen = [Finding(f.cls, f.start + bisect_right(gaps, f.start),
                        f.end + bisect_right(gaps, f.end - 1), f.detector) for f in seen]
    spaced = read(invisible_as_spaces(text), detectors) if spaced_by_invisible(text) else []
    if _OVERRIDE in text:  # (text shown right to left: read as shown too)
        seen = _kept_apart(seen, _overridden(text, detectors))
    if not spaced or not seen:
        return spaced or seen
    out: list[Finding] = []
    i, count = 0, len(seen)
    for f in spaced:
        while i < count and seen[i].end <= f.start:
            out.append(seen[i])
            i += 1
        if i == count or f.end <= seen[i].start:  # (overlaps no finding of `seen`)
            out.append(f)
    out.extend(seen[i:])
    return out


#: The right-to-left override (U+202E): what follows it shows in reverse order, up to its
#: pop (U+202C), another override or embedding, or the line's end (`_overridden`).
_OVERRIDE = "\u202e"
_OVERRIDDEN = re.compile("\u202e([^\u202a-\u202e\n]*)")


def _overridden(text: str, detectors: Sequence[Detector]) -> list[Finding]:
    """The findings of `text` read as shown where a right-to-left override reverses it: the
    characters after each U+202E, up to its end (`_OVERRIDDEN`), in reverse order
    (`Card \u202e1111 1111 1111 1114\u202c` shows the card 4111 1111 1111 1111), invisible
    characters as spaces; each span mapped back onto what it was read from. (An embedding or
    an isolate, U+202B, U+2067, reorders runs of digits but not the digits of a run: it is
    read as typed.)"""
    spans = [m.span(1) for m in _OVERRIDDEN.finditer(text)]
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        parts += [text[pos:start], text[start:end][::-1]]
        pos = end
    parts.append(text[pos:])
    shown = _find(invisible_as_spaces("".join(parts)), detectors)
    return [Finding(f.cls, *_mirrored(spans, f.start, f.end), f.detector) for f in shown]


def _mirrored(spans: Spans, start: int, end: int) -> tuple[int, int]:
    """The span of text that `[start, end)` of the reading `_overridden` makes (each of `spans`
    reversed) was read from: the smallest holding all its characters."""
    pieces: Spans = []
    pos = start
    for low, high in spans:
        inside, until = max(start, low), min(end, high)
        if inside < until:
            if pos < inside:
                pieces.append((pos, inside))
            pieces.append((low + high - until, low + high - inside))
            pos = until
    if pos < end:
        pieces.append((pos, end))
    return min(p[0] for p in pieces), max(p[1] for p in pieces)


def _found(views: Views, detectors: Sequence[Tuned]) -> list[tuple[int, int, Detector]]:
    """The confirmed values settling by priority keeps among the matches of `detectors` (each
    with its tuning), as `(start, end, detector)` in order of position.

    The keyword and gate detectors' candidates are taken first; then the digit-run
    detectors', lowest priority number first, each after every candidate of a lower number
    has been settled, so that runs already held whole are not searched (`_near_runs`).
    Settling in these batches is settling in one pass: each batch holds exactly the
    candidates of its priorities, in settling order (priority, then position)."""
    text = views.text
    pending: list[Candidate] = []
    numeric: list[Tuned] = []
    for tuned in detectors:
        detector, tuning = tuned
        if tuning.min_digits:
            numeric.append(tuned)
            continue
        priority, group = detector.priority, detector.group
        pending.extend((priority, m.start(group), detector, m)
                       for m in _matches(views, detector, tuning))
    claimed = bytearray(len(text))
    kept: list[tuple[int, int, Detector]] = []
    if numeric and views.runs():
        if len(numeric) > 1:
            numeric.sort(key=_priority)  # (stable: the set's order within a priority)
        pending = _near_runs(views, numeric, pending, claimed, kept)
    if pending:
        _confirm_and_settle(text, pending, claimed, kept)
    if len(kept) > 1:
        kept.sort(key=_by_start)
    return kept


def _priority(tuned: Tuned) -> int:
    return tuned[0].priority


def _by_rank(candidate: Candidate) -> tuple[int, int]:
    return candidate[0], candidate[1]


def _confirm_and_settle(text: str, candidates: list[Candidate], claimed: bytearray,
                        kept: list[tuple[int, int, Detector]]) -> None:
    """Add to `kept` (`(start, end, detector)`) the confirmed values among `candidates`
    (`(priority, start, detector, match)`) that settling by priority keeps, marking their text in
    `claimed` (what earlier kept findings hold).

    Candidates are taken in order of priority, then position, so a candidate
    whose first character a kept finding already holds would be dropped whatever its
    validator says: it is skipped without validating (a confirmed span starts where the
    match's group does and is never empty).
    """
    if len(candidates) > 1:
        candidates.sort(key=_by_rank)
    for _, first, detector, match in candidates:
        if claimed[first]:
            continue
        span = _confirmed(text, detector, match)
        if span is None or _refused(text, detector, match):
            continue
        start, end = span
        taken = claimed.find(1, start, end)
        if taken != -1:  # a value glued to one already kept: a password before a token
            end = _unglued(text, detector, start, taken)
        if end > start:
            claimed[start:end] = b"\x01" * (end - start)
            kept.append((start, end, detector))


#: What glues a password to the value after it: a separator and the next value's label
#: (`;token=`, `, api_key: `, `|`), read back from the end of what is left of it.
_GLUE = re.compile(r"(?:[;,|/&\s]+(?:[A-Za-z_][\w.-]{0,40}[ \t]*[:=][ \t]*[\"']?)?|[:=])\Z")


def _unglued(text: str, detector: Detector, start: int, taken: int) -> int:
    """The end of a password whose value runs into a value already kept (it starts at
    `taken`): the password up to it, without the separator and label between them, if that
    still is one (`password=S3cr3t-value;token=ghp_...` holds two secrets); else `start` (the
    candidate is dropped, as any candidate overlapping a kept value is)."""
    if detector.category != "password" or taken <= start:
        return start
    value = text[start:taken]
    glue = _GLUE.search(value)
    if glue is not None:
        value = value[: glue.start()]
    if value and detector.validate is not None and not detector.validate(value):
        return start
    return start + len(value)


def _by_start(item: tuple[int, int, Detector]) -> int:
    return item[0]


def _as_read(value: str, before: str = "") -> str:
    """A value as the detectors read it (its canonical view, without invisible characters,
    its letters as written): what its mask is written from, so that a mask never repeats
    markup, an entity or a full-width form of the value (`<b>jane</b>@example.com` ->
    `j***@example.com`) and shows the letters it shows as they were written. A value
    holding a code's strings joined (`sk-" + "proj-" + "Ab3d…`) is read after `before`, the
    character before it, when that is the quote opening its first string: its strings then
    read as one, as the detectors read them (`sk-proj-Ab3d…`, masked `sk-proj-****…`)."""
    if not value.isascii():
        value = visible(value)
    if before in _QUOTE_MARKS and "+" in value:
        return canonical(before + value, letters=False).text[1:]
    return canonical(value, letters=False).text


#: The quotes that open a code's string (`_as_read`).
_QUOTE_MARKS = ("\"", "'")


def apply_masks(text: str, findings: Iterable[Finding], to_mask: Mapping[str, bool]) -> str:
    """`text` with each finding whose class `to_mask[cls]` is true replaced by its mask,
    written from the value as the detectors read it (`_as_read`), over the markup paired
    with markup inside the value too (`engine.mask_edges.balanced`). A value written as a JSON
    member's number (`"card": 4111111111111111,`) is replaced by its mask as a JSON string
    (`"card": "**** 1111",`), so that the document stays valid JSON.

    `findings` must be in order of position and not overlap (as `find` returns them).
    """
    out: list[str] = []
    pos = 0
    overrides = _OVERRIDE in text
    for f in findings:
        if not to_mask.get(f.cls):
            continue
        start, end = balanced(text, f.start, f.end, pos)
        out.append(text[pos:start])
        value = _as_read(text[f.start : f.end], text[f.start - 1 : f.start])
        if overrides and _shown_reversed(text, start):  # (the mask as it shows, too)
            out.append(_MASKS[f.detector](value[::-1])[::-1])
        elif _json_number(text, start, end):
            out.append(f'"{_MASKS[f.detector](value)}"')
        else:
            out.append(_MASKS[f.detector](value))
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def _json_number(text: str, start: int, end: int) -> bool:
    """Is `text[start:end]` a JSON number written as a JSON member's value (after a quoted
    key and `:`: `{"password": -12345678}`), or a number or numbers of a JSON array (after
    `[` or after a comma inside one: `[4539148803436467, 5500005555555559]`,
    `{"card": [4003,4004,4005,4006]}`), before `,`, `}`, `]` or a line break (spaces and
    tabs between)?"""
    value = text[start:end]
    if _JSON_NUMBER.fullmatch(value) is None and _NUMBER_LIST.fullmatch(value) is None:
        return False
    before = text[max(0, start - 16):start].rstrip(" \t\r\n")
    after = text[end:end + 16].lstrip(" \t")[:1]
    if after == "" or after not in ",}]\r\n":
        return False
    if before.endswith(":"):
        return before[:-1].rstrip(" \t").endswith('"')
    return before.endswith("[") or (before.endswith(",") and _in_array(text, start))


#: A JSON number (RFC 8259: `-12345678`, `1e10`, `4111111111111111`; `_json_number`).
_JSON_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: Numbers a comma sets apart, whitespace after it (`_json_number`).
_NUMBER_LIST = re.compile(r"[0-9]+(?:,\s*[0-9]+)+")


def _in_array(text: str, at: int) -> bool:
    """Is `text[at]` inside a JSON array: a `[` opened in the 256 characters before it, no
    `]` or `"` after that `[`?"""
    floor = max(0, at - 256)
    opened = text.rfind("[", floor, at)
    return opened != -1 and text.rfind("]", opened, at) == -1 and text.find('"', opened, at) == -1


def _shown_reversed(text: str, at: int) -> bool:
    """Does `text[at]` show in reverse order, after a right-to-left override (`_OVERRIDDEN`)?"""
    override = text.rfind(_OVERRIDE, 0, at)
    if override == -1:
        return False
    governed = _OVERRIDDEN.match(text, override)
    return governed is not None and governed.end() > at
