"""The reply screen: a reply fed in deltas comes out as whole, screened sentences.

Per sentence, in order (docs/screening.md, docs/rules.md): personal data (redact -> mask, withhold
-> the sentence is removed, allow; a value a write of this turn was sent or returned is masked
instead, `reply_pd_masked`), `never_say`, `offers`. At the end: `must_accompany` sentences, added
once and not if already said; `reply_exactly.when_cited` replaces the whole reply. Only screened
text is ever returned: the release-only-screened-text rule that lets the proxy stream.
With `tools` (docs/actions.md), each sentence first goes through `engine.actions.ActionCheck`
(claims and values need the raw sentence), then personal data as above; a product sentence
(a phrasing) skips the wording rules, which judge what the model wrote. At the end, the
outcome sentences of unmentioned writes come first, then the `must_accompany` sentences.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

from replyguard.engine.actions import ActionCheck
from replyguard.engine.canon import canonical
from replyguard.engine.context import TurnContext, compact
from replyguard.engine.detectors import DETECTORS
from replyguard.engine.find import Finding, apply_masks, find
from replyguard.engine.internals import internal_spans
from replyguard.engine.key_block import KEY_BEGIN, KEY_BODY, KEY_BODY_START, KEY_END
from replyguard.engine.layout import open_layout, row_spans
from replyguard.engine.lists import READ_BACK
from replyguard.engine.password_pairs import named_in, runs_on
from replyguard.engine.rules import Action, CompiledRules
from replyguard.engine.screen import MASKED, REDACTED, WITHHELD, detected
from replyguard.engine.segment import (
    ANY,
    CJK_CLASS,
    CLOSER_CLASS,
    HOLDBACK,
    NON_SPACE,
    TERMINAL_CLASS,
    SentenceSegmenter,
    split_sentences,
)
from replyguard.engine.text import INVISIBLE
from replyguard.engine.tools import CompiledTools

WORDING_REMOVED = "reply_wording_removed"
OFFER_REMOVED = "reply_offer_removed"
WORDING_ADDED = "reply_wording_added"
EXACT_REPLY = "reply_exact_reply"
INTERNALS_REDACTED = "replyguard_internals_redacted"
INTERNALS_WITHHELD = "replyguard_internals_withheld"
INTERNAL_MASK = "[internal]"
#: What continues a value a piece's end cut (`ReplyScreen._rest`): a key block's lines up to
#: its END line, a token's characters (`Detector.rest`). Sources: RFC 7468 section 2 (PEM),
#: RFC 4880 section 6.2 (OpenPGP armor), RFC 7519 (JWT).
_RESTS = {d.id: d.rest for d in DETECTORS if d.rest is not None}
_KEY_END = re.compile(KEY_END)
#: A key block's END line that ends what a rest matched (the block ends there).
_KEY_END_LAST = re.compile("(?:" + KEY_END + r")\Z")
#: The rest of a key block whose BEGIN line alone ended a piece: the next pieces hold its body
#: only if they start as a body does (a BEGIN line named in prose is followed by prose).
_BODY_REST = re.compile(
    "(?:(?:" + KEY_BODY_START + r"|(?=\s*\Z))" + KEY_BODY + "*(?:" + KEY_END + ")?)?")
#: The rests of a key block (which read its punctuation as its body does).
_KEY_RESTS = (_BODY_REST, _RESTS["private_key"])
#: A key block's BEGIN line and nothing of a body (a line's prefix at most).
_KEY_BEGIN = re.compile(KEY_BEGIN + "[^A-Za-z0-9+/=]*")

# The delta gate (`ReplyScreen._holds`): text that cannot let a piece be released is held back
# from the segmenter, so a stream of small deltas costs about one segmenter call per sentence
# rather than one per delta (the pieces are the same however the text is cut): 5.32M instructions
# per KB of 4-character deltas with it, 8.88M without (docs/performance.md).
_T, _C, _Q = TERMINAL_CLASS, CJK_CLASS, CLOSER_CLASS
_EVENT_CHARS = re.compile(rf"[{_T}\n]")
_EVENT_SEARCH = _EVENT_CHARS.search
#: An event (sentence ends and closers, then whitespace; a CJK sentence end and closers; or a
#: newline, as `engine.segment` reads them) with a non-space character after it: a delta that
#: may decide a boundary by itself.
_DECIDES = re.compile(rf"[{_T}]+[{_Q}]*\s+\S|[{_C}][{_Q}]*[^\s{_T}{_Q}]|\n\s*\S").search
#: An event at the end of a delta, its next non-space character not yet seen.
_PENDING = re.compile(rf"(?:[{_T}]+[{_Q}]*|\n)\s*\Z").search
_HOLD_MAX = 256  # held characters at most (a line's kind is read at most this far ahead)


class ScreeningError(RuntimeError):
    """Screening failed; nothing of the affected reply may be released (fail closed)."""


class Piece(NamedTuple):
    """One released sentence, with its whitespace. `product`: written by the product (a
    phrasing, an added sentence, an exact reply), not the model; the proxy may reword it
    (reply_temperature) and checks every piece with its moderation endpoint. `exact`: part of
    a `reply_exactly` reply, which is said word for word (never reworded)."""

    text: str
    product: bool
    exact: bool = False


def _joined(pieces: list[Piece]) -> str:
    return "".join([p.text for p in pieces]) if pieces else ""


def _unsplittable(rules: CompiledRules, text: str) -> list[tuple[int, int]]:
    """Where a forced split must not fall: inside a value a detector finds, or inside a
    `never_say` phrase (a cut there would let each half through)."""
    # A value is found only with what a detector reads around it: a password with its label
    # before it (`password: `, `postgres://user:` of a user name up to 64 characters), any
    # value with what its look-aheads read after it (a closing quote, a URL's host, `,12/`).
    # A table's or a CSV's rows: a split falls between two rows, the header read with the rows
    # after it (`ReplyScreen._values`), never inside one (a cell's value needs no label).
    spans = [(f.start, f.end) if f.detector == "password_column"
             else (_label_start(text, f.start) if f.cls == "password" else f.start,
                   f.end + _AFTER_VALUE) for f in find(text, rules.detectors)]
    spans += [(start, end + 1) for start, end in row_spans(text)]
    spans += rules.never_say_spans(text)
    return spans


#: How much of a piece's end is read before the next piece when it names a password.
_LABEL_REACH = 96


#: The detectors whose values a password read after its label takes the place of, where the
#: two overlap: those of a higher priority number than a password's, as on the request side
#: (`engine.find` settles overlaps by priority: `Password:` then `(jane.doe@example.com)` on
#: the next line is a password).
_PASSWORD_PRIORITY = min(d.priority for d in DETECTORS if d.category == "password")
_OUTRANKED = frozenset(d.id for d in DETECTORS if d.priority > _PASSWORD_PRIORITY)


def _merged_findings(found: list[Finding], more: list[Finding]) -> list[Finding]:
    """`found` and the passwords `more` read after a label: each of `more` that overlaps
    none of `found` but those a password outranks (`_OUTRANKED`), which it replaces; in order
    of position."""
    extra = [f for f in more
             if not any(f.start < g.end and g.start < f.end and g.detector not in _OUTRANKED
                        for g in found)]
    if not extra:
        return found
    kept = [g for g in found
            if not any(f.start < g.end and g.start < f.end for f in extra)]
    return sorted(kept + extra, key=lambda f: f.start)


def _label_start(text: str, start: int) -> int:
    """Where the label of the password value at `start` begins: the last name a password
    detector reads (`pass`, `pwd`, `senha`, `identified`, a URL's scheme) in the
    `_BEFORE_PASSWORD` characters before it, from the start of its clause (back to a line
    break, `;`, `,` or a brace: `WITH LOGIN PASSWORD`, `<add key="Password" value=`); that far
    back when none is there."""
    low = max(0, start - _BEFORE_PASSWORD)
    before = text[low:start].lower()
    at = max(before.rfind(name) for name in _LABELS)
    if at < 0:
        return low
    at += low
    if text.startswith("://", at):  # a URL's password: from its scheme
        while at > low and (text[at - 1].isalnum() or text[at - 1] in "+.-"):
            at -= 1
        return at
    while at > low and text[at - 1] not in "\n;,{}":
        at -= 1
    return at


_INVISIBLE = frozenset(INVISIBLE)
#: A table's rule line, under its header (`|---|:--:|`).
_RULE_ROW = re.compile(r"[ \t|:+-]*-[ \t|:+-]*")


def _listed_after(label: str, piece: str) -> bool:
    """Is `piece` an item of a list of users' passwords whose heading `label` ends in
    (`Passwords:`, then `- bob: Qz7xK2mP9w`: `engine.password_pairs`), read with its lines
    apart as the request side reads it? The heading is then kept for the items after it."""
    return (named_in(label) and not named_in(piece)
            and runs_on(canonical(label + piece, join=False).text))


def _content_end(piece: str) -> int:
    """Where the run of whitespace and invisible characters that ends `piece` starts
    (`len(piece)` when it ends in neither, 0 for a blank piece)."""
    end = len(piece)
    while end and (piece[end - 1].isspace() or piece[end - 1] in _INVISIBLE):
        end -= 1
    return end


def _table_row(piece: str) -> bool:
    """Is `piece` a line of a table (`| bob | Qz7xK2mP9w |`)?"""
    return piece.lstrip(" \t>").startswith("|")


#: The names of a password in other scripts (Russian, Japanese, Chinese, Korean), as a piece's
#: end is read for one.
_NON_ASCII_LABEL = re.compile("\u043f\u0430\u0440\u043e\u043b\u044c|\u30d1\u30b9\u30ef"
                              "|\u5bc6[\u7801\u78bc]|\ube44\ubc00")

#: How far before a password's value, and after any value, a forced split may not fall.
_BEFORE_PASSWORD = 96
_AFTER_VALUE = 4
#: The names a password's label holds (lower case), as the password detectors read them.
_LABELS = ("pass", "pw", "senha", "identified", "://", "<password>", "--pass", "secret", "token",
           "api", "contrase", "login", "credential", "\u043f\u0430\u0440\u043e\u043b\u044c",
           "\u30d1\u30b9\u30ef", "\u5bc6\u7801")


class ReplyScreen:
    """Screens one reply (one choice) incrementally.

    `feed(delta) -> str` returns the screened whole sentences released so far (often "");
    `finish() -> str` returns the rest and any added sentence. The concatenation of every
    returned string is the same whatever the deltas were (property-tested). `feed_pieces` /
    `finish_pieces` return the same text as a list of `Piece`s, one sentence each. `counts`
    holds the counts this reply reports. `tools` (compiled for the rules' language)
    turns on the action check; `now` (epoch seconds) is when result staleness is judged.
    Raises ScreeningError if a check fails; after that, or after `finish()`, the screen
    refuses further input. Raises ValueError when `tools` is compiled for another language.
    """

    def __init__(
        self, rules: CompiledRules, context: TurnContext | None = None, max_chars: int = 2000,
        additions: bool = True, internals: Action = "allow", *,
        tools: CompiledTools | None = None, now: float | None = None,
    ) -> None:
        if tools is not None and tools.language != rules.language:
            raise ValueError(f"tools: compiled for {tools.language!r}, the rules for "
                             f"{rules.language!r}")
        self.rules = rules
        self._adds = additions
        self._internals = internals
        self.context = context if context is not None else TurnContext()
        self.counts: Counter[str] = Counter()
        self._product = False  # the last sentence `screen_sentence` returned is a phrasing
        self._actions = None if tools is None else ActionCheck(
            tools, self.context, now=now, counts=self.counts)
        # A partial, not the bound method: the segmenter holding a method of this screen
        # would make a reference cycle, left to the garbage collector, for every reply.
        self._segmenter = SentenceSegmenter(rules.language, max_chars=max_chars,
                                            no_cut=partial(_unsplittable, rules))
        tags = self.context.tags() if self.context.passages else frozenset()
        self._buffer_whole = any(e.when_cited in tags for e in rules.rules.reply_exactly
                                 if e.when_cited)
        self._held: list[Piece] = []
        # What was released, kept only as far as the "already said" check needs (bounded):
        # the last characters of it as phrase lists read them, and the adds seen in it; only
        # for the adds that can come due in this turn (a write it ran, a tag it declared).
        adds = [_said(rules.words(e.add)) for e in rules.rules.must_accompany
                if (e.when_done is not None and self.context.done(e.when_done))
                or (e.when_cited is not None and e.when_cited in tags)]
        self._add_keys = tuple(dict.fromkeys(adds))
        self._window_max = 2 * max(map(len, adds), default=0) + 64 if adds else 0
        self._window = ""
        self._said_adds: set[str] = set()
        self._words: tuple[str, str] = ("", "")  # the last sentence and its `rules.words`
        self._last_char = ""
        self._cited: set[str] = set()
        self._closed = False
        #: The rest of a value the last piece's end cut (a key block, a token), to drop from
        #: the next pieces: what matches it there is not released.
        self._rest: re.Pattern[str] | None = None
        self._label = ""  # the end of the last piece, when it names a password (`_values`)
        self._blank = ""  # the whitespace after a value `_rest` goes on from, not yet released
        # The end of what the pieces before read (`lists.READ_BACK` characters), where a name
        # of a value's class is read when a list sets its groups apart (`_values`).
        self._read = ""
        self._hold: list[str] = []  # deltas not yet given to the segmenter (the delta gate)
        # More of the reply follows the piece being screened (`_emit`): its last line goes
        # on past it unless it ends in a line break (`_line_goes_on`).
        self._goes_on = False
        # How many more characters may be held: what keeps the held text under `_HOLD_MAX` and
        # the unreleased text under the cap (a forced split is the segmenter's); 0 while a
        # decision may be open, before the first delta and once the screen is closed.
        self._room = 0
        self._pending = False  # held text ends in an event waiting for a non-space character
        self._unreleased = 0  # characters the segmenter holds (a forced split at `_max`)
        self._max = max_chars

    def feed(self, delta: str) -> str:
        """Take the next piece of the reply; return what is now screened and releasable."""
        try:
            if self._holds(delta):
                return ""
        except Exception as exc:  # (a delta that is not a string: fail closed, as `_feed`)
            raise self._failed(exc) from exc
        return _joined(self._feed(delta))

    def feed_pieces(self, delta: str) -> list[Piece]:
        """`feed`, as the released sentences one by one (`"".join` of their texts is what
        `feed` returns)."""
        try:
            if self._holds(delta):
                return []
        except Exception as exc:
            raise self._failed(exc) from exc
        return self._feed(delta)

    def _holds(self, delta: str) -> bool:
        """The delta gate: hold `delta` back from the segmenter when it cannot let a piece be
        released. While the segmenter waits for any character (`SentenceSegmenter.waiting`:
        a line whose kind the rest of it decides, openers after a sentence end), every delta
        goes to it (`_room` is 0). Otherwise only an event can decide a piece (sentence ends
        and closers, then whitespace, then a non-space character; a CJK sentence end, closers
        and a non-space character; or a newline and a non-space character), so a delta
        without one is held, and while an event waits for a non-space character (the
        segmenter's, or one at the end of a held delta) the gate is `_pending`: whitespace
        is held, anything else goes. The pieces are the same however the text is cut, so
        holding changes when text reaches the segmenter, never what comes out; a piece is
        released on the delta that makes it decidable (property-tested)."""
        room = self._room - len(delta)
        if room <= 0:
            return False
        if self._pending:
            if delta and not delta.isspace():
                return False
        elif _EVENT_SEARCH(delta) is not None:
            if _DECIDES(delta) is not None:
                return False
            self._pending = _PENDING(delta) is not None
        self._room = room
        self._hold.append(delta)
        return True

    def _feed(self, delta: str) -> list[Piece]:
        if self._closed:
            raise ScreeningError("the reply screen is closed")
        try:
            return self._emit(self._pieces(self._take(delta)))
        except Exception as exc:
            raise self._failed(exc) from exc

    def _failed(self, exc: Exception) -> ScreeningError:
        """Close the screen after `exc`; the error to raise (it names the exception's type,
        never the text)."""
        self._close()
        return ScreeningError(f"screening a reply sentence failed: {type(exc).__name__}")

    def _close(self) -> None:
        self._closed = True
        self._room = 0

    def finish(self) -> str:
        """End of the reply: screen the rest and add what the rules require."""
        return _joined(self.finish_pieces())

    def finish_pieces(self) -> list[Piece]:
        """`finish`, as sentences: the rest of the reply, then the added sentences (outcome
        sentences of unmentioned writes, then `must_accompany`), each its own product piece;
        an exact reply (`reply_exactly.when_cited`) is cut into its sentences."""
        if self._closed:
            raise ScreeningError("the reply screen is closed")
        try:
            out = self._emit(self._pieces(self._take("")))
            out += self._emit(self._segmenter.flush(), last=True)
            if self._blank:  # (what a value was cut before is the reply's end: it ended)
                out += self._emit([""])
            self._close()
            if self._buffer_whole:
                exact = self._exact_cited()
                if exact is not None:
                    self.counts[EXACT_REPLY] += 1
                    return [Piece(p, True, True)
                            for p in split_sentences(exact, self.rules.language)]
                out = self._held
                return out + self._additions(out) if self._adds else out
            return out + self._additions(None) if self._adds else out
        except ScreeningError:
            self._close()
            raise
        except Exception as exc:
            self._close()
            raise ScreeningError(f"finishing a reply failed: {type(exc).__name__}") from exc

    def _take(self, delta: str) -> str:
        """The held text and `delta`, to give the segmenter now."""
        if self._hold:
            self._hold.append(delta)
            delta = "".join(self._hold)
            self._hold.clear()
        return delta

    def _pieces(self, text: str) -> list[str]:
        segmenter = self._segmenter
        pieces = segmenter.feed(text)
        self._unreleased += len(text) - sum(map(len, pieces))
        waiting = segmenter.waiting
        self._room = 0 if waiting == ANY else min(_HOLD_MAX, self._max - self._unreleased)
        self._pending = waiting == NON_SPACE
        return pieces

    def _emit(self, sentences: Sequence[str], last: bool = False) -> list[Piece]:
        """Screen `sentences`, each followed by more of the reply but the last of them when
        `last` (the reply's end)."""
        out = []
        final = len(sentences) - 1 if last else -1
        for i, sentence in enumerate(sentences):
            self._goes_on = i != final
            screened = self.screen_sentence(sentence)
            if screened:
                out.append(Piece(screened, self._product))
                if not self._buffer_whole:
                    self._note_said(screened)  # right away: it reuses the sentence's words
        if self._buffer_whole:
            self._held += out
            return []
        return out

    def _note_said(self, piece: str) -> None:
        """Remember of one released piece what the `must_accompany` check needs: an add said
        inside it, or across its start (the window keeps enough of what came before)."""
        self._last_char = piece[-1]
        if not self._window_max:
            return
        known, folded = self._words
        words = folded if known is piece else self.rules.words(piece)
        window = self._window + _one_space(words)
        for key in self._add_keys:
            if key not in self._said_adds and _says(window, key):
                self._said_adds.add(key)
        window = window[-self._window_max:]
        # Start the kept window at a word start (there is 64 characters' slack for it), so that
        # a word cut by the window never reads as a whole word.
        space = window.find(" ", 0, 64)
        self._window = window[space:] if space > 0 else window

    def screen_sentence(self, sentence: str) -> str:
        """One whole sentence through the per-sentence checks; "" when it is removed.
        Notes in `_product` whether the product wrote what it returns (a phrasing)."""
        piece = self._screen(sentence)
        if piece is None:
            return ""
        self._product = piece.product
        return piece.text

    def _screen(self, sentence: str) -> Piece | None:
        if self._rest is not None:
            sentence = self._past_rest(sentence)
            if not sentence:
                return None
        product = False
        if self._actions is not None:
            sentence, product = self._actions.sentence(sentence)
            if not sentence:
                return None
        if self.context.passages:
            self._cited |= self.context.cited_tags(sentence)
        findings = self._values(sentence)
        if findings:
            sentence = self._values_screened(sentence, findings)
            if not sentence:
                return None
        if self._internals != "allow":
            sentence = self._platform_internals(sentence)
            if not sentence:
                return None
        if product:
            return Piece(sentence, True)
        if self._wording_removes(sentence):
            return None
        return Piece(sentence, False)

    def _values(self, sentence: str) -> list[Finding]:
        """The values the detectors find in `sentence` (after the pieces before it, where a
        name of a value's class is read when a list sets its groups apart: `Card number:`,
        then one group a line); after a piece whose end names a
        password (`Here is your new password:`, `| Password |`, `WITH PASSWORD`, then a
        blank line, a list item, a table row or a code block), also the password it begins
        with, read after the end of that piece as the request side reads the two together."""
        detectors = self.rules.detectors
        findings = find(sentence, detectors, self._read)
        if self._goes_on and _line_goes_on(sentence, findings):
            detectors = [d for d in detectors if d.id not in _LINE_LAYOUTS]
            findings = find(sentence, detectors, self._read)
        self._read = (self._read + sentence)[-READ_BACK:]
        before = self._label
        body = _content_end(sentence)
        if not body:
            return findings  # (the label is carried past a blank piece)
        # (the label's reach is counted back from the piece's last visible character: blank
        # lines, spaces and invisible characters between a name and its value do not count)
        tail = sentence[max(0, body - _LABEL_REACH):]
        low = tail.lower()
        if before and _table_row(sentence) and _table_row(before):
            # (a table's header naming a password is kept for all its rows, with the rule
            # line under it: a row read right under the header line would read as its
            # continuation, `| password |` then `| bob |` as a name and its value)
            if _RULE_ROW.fullmatch(sentence.strip()) and "\n" not in before.rstrip():
                self._label = before + sentence
        elif before and _listed_after(before, sentence):
            pass  # (an item of a list under a plural name of passwords: the next may be one)
        elif ("pass" in low or "pw" in low or "senha" in low or "identified" in low
                or "secret" in low or "token" in low or "api" in low or "contrase" in low
                or (not low.isascii() and _NON_ASCII_LABEL.search(low) is not None)):
            # (names a password; a table's header whole, as its rows' cells are read by it)
            self._label = sentence if _table_row(sentence) and len(sentence) <= 1024 else tail
        else:
            self._label = ""
        if ("\n" in sentence or "<" in sentence) and not _table_row(sentence):
            # (the rows of a CSV or an HTML table run on into the next piece: its header
            # governs them too)
            header = open_layout(before + sentence if before else sentence)
            if header:
                self._label = header
        if not before:
            return findings
        shift = len(before)
        labelled = [Finding(f.cls, f.start - shift, f.end - shift, f.detector)
                    for f in find(before + sentence, detectors)
                    if f.cls == "password" and f.start >= shift]
        return _merged_findings(findings, labelled) if labelled else findings

    def _values_screened(self, sentence: str, findings: list[Finding]) -> str:
        """`_personal_data`; when the piece's last value goes on in the next pieces (a key
        block's body after its BEGIN line), without the whitespace after its mask, held
        (`_blank`) until they show whether it is more of the value, as the whole text reads
        it: released before what is not (`_past_rest`) or at the reply's end."""
        fresh = self._rest is None
        sentence = self._personal_data(sentence, findings)
        if fresh and self._rest is not None and sentence:
            end = len(sentence.rstrip())
            self._blank = sentence[end:]
            sentence = sentence[:end]
        return sentence

    def _forced(self, piece: str) -> bool:
        """May a forced split have ended `piece`: is it as long as a split inside a value
        makes one (the cap less the segmenter's `HOLDBACK`, or longer)?"""
        return len(piece) >= self._max - HOLDBACK

    def _past_rest(self, sentence: str) -> str:
        """`sentence` without the rest of a value a forced split cut (`_rest`)."""
        assert self._rest is not None
        rest = self._rest.match(sentence)
        assert rest is not None  # a rest matches the empty string
        end = rest.end()
        blank, self._blank = self._blank, ""
        if not end:  # (the value ended with the piece before)
            self._rest = None
            return blank + sentence
        if (self._rest not in _KEY_RESTS and end < len(sentence) and self._forced(sentence)
                and _CUT_AFTER_VALUE.fullmatch(sentence, end) is not None):
            end = len(sentence)  # (punctuation up to the next cut: more of the value)
        if end < len(sentence) or _KEY_END_LAST.search(sentence, max(0, end - 90)):
            self._rest = None  # (the value ends in this piece)
        elif self._rest is _BODY_REST and not rest.group().isspace():
            self._rest = _RESTS["private_key"]  # (the body has started: all of it goes)
        return sentence[end:]

    def _wording_removes(self, sentence: str) -> bool:
        """Does the model's `sentence` go for its wording: a `never_say` phrase, or an offer
        (`offers` markers) not allowed? Counted."""
        rules = self.rules
        if rules.never_say is None and rules.offers_markers is None:
            return False
        folded = rules.words(sentence)
        self._words = (sentence, folded)  # `_note_said` reads the same piece next
        if rules.never_say is not None and rules.never_say.search(folded):
            self.counts[WORDING_REMOVED] += 1
            return True
        if rules.offers_markers is not None and rules.offers_markers.search(folded) and not (
            rules.offers_allowed is not None and rules.offers_allowed.search(folded)
        ):
            self.counts[OFFER_REMOVED] += 1
            return True
        return False

    def _platform_internals(self, sentence: str) -> str:
        """The opt-in `internals` class (the staff-draft check's REPLY_RULES: pod and host names,
        stack traces, ...): each stretch replaced by `[internal]` (redact), or the sentence removed
        (withhold). Counted as `replyguard_internals_redacted` / `_withheld`."""
        spans = internal_spans(sentence)
        if not spans:
            return sentence
        if self._internals == "withhold":
            self.counts[INTERNALS_WITHHELD] += 1
            return ""
        self.counts[INTERNALS_REDACTED] += len(spans)
        out, pos = [], 0
        for start, end, _ in spans:
            out += [sentence[pos:start], INTERNAL_MASK]
            pos = end
        out.append(sentence[pos:])
        return "".join(out)

    def _personal_data(self, sentence: str, findings: list[Finding]) -> str:
        """Mask, remove or keep `sentence` by its findings' classes. Counts every value found;
        redacted and masked values only when the sentence is kept (a removed sentence masks
        nothing)."""
        actions = self.rules.actions
        write_values = self.context.write_values
        counts = self.counts
        last = findings[-1]
        cut = actions[last.cls] != "allow" and _cut_short(sentence, last, self._forced(sentence))
        if cut and _CUT_AFTER_VALUE.fullmatch(sentence, last.end) is not None:
            # (the punctuation between a password's value and the cut is more of it)
            last = Finding(last.cls, last.start, len(sentence), last.detector)
            findings = [*findings[:-1], last]
        to_mask: list[Finding] = []
        masked = 0
        withhold = False
        for f in findings:
            counts[detected(f.cls)] += 1
            action = actions[f.cls]
            if action == "allow":
                continue
            if write_values and compact(sentence[f.start : f.end]) in write_values:
                masked += 1  # the outcome exception: a write's own value is masked, not withheld
            elif action == "withhold":
                withhold = True
                continue
            to_mask.append(f)
        if cut:
            self._rest = (_BODY_REST if _KEY_BEGIN.fullmatch(sentence, last.start, last.end)
                          else _RESTS[last.detector])  # drop the value's rest from the next pieces
        if withhold:
            counts[WITHHELD] += 1
            return ""
        if not to_mask:
            return sentence
        if masked:
            counts[MASKED] += masked
        if len(to_mask) > masked:
            counts[REDACTED] += len(to_mask) - masked
        return apply_masks(sentence, to_mask, {f.cls: True for f in to_mask})

    def _exact_cited(self) -> str | None:
        for entry in self.rules.rules.reply_exactly:
            if entry.when_cited and entry.when_cited in self._cited:
                return entry.say
        return None

    def _additions(self, prior: list[Piece] | None) -> list[Piece]:
        """The sentences added after the released reply (`prior` when it is held whole, else
        what `_note_said` kept of it): the outcome sentences of this turn's unmentioned writes
        (`ActionCheck.finish`, masked like any sentence), then the `must_accompany` sentences
        due and not yet said. The first starts with a space unless the reply ends in one."""
        added: list[str] = []
        if self._actions is not None:
            for sentence in self._actions.finish():
                findings = find(sentence, self.rules.detectors)
                sentence = self._personal_data(sentence, findings) if findings else sentence
                if sentence:
                    added.append(sentence)
        prior_text = "".join([p.text for p in prior]) if prior is not None else None
        said = _said(self.rules.words(prior_text)) if prior_text is not None else None
        accompany: list[str] = []
        for entry in self.rules.rules.must_accompany:
            due = (entry.when_done is not None and self.context.done(entry.when_done)) or (
                entry.when_cited is not None and entry.when_cited in self._cited
            )
            if not due or entry.add in accompany:
                continue
            key = _said(self.rules.words(entry.add))
            if _says(said, key) if said is not None else (key in self._said_adds):
                continue
            accompany.append(entry.add)
            self.counts[WORDING_ADDED] += 1
        added += accompany
        if not added:
            return []
        last = prior_text[-1:] if prior_text is not None else self._last_char
        lead = " " if last and not last.isspace() else ""
        return [Piece((lead if i == 0 else " ") + a, True) for i, a in enumerate(added)]


#: The detectors that read a value alone to its line's end (`[ \t]*$`): the end of a piece
#: the reply goes on after on the same line is none.
_LINE_LAYOUTS = frozenset({"password_layout", "password_layout_wide"})


def _line_goes_on(sentence: str, findings: list[Finding]) -> bool:
    """Did a detector of `_LINE_LAYOUTS` read a value to the end of `sentence`, a piece
    the reply goes on after on the same line (no line break ends it)? Its value is no
    value alone on a line in the whole reply (`password: [S3cr3t-value]! M`), which the
    piece read alone would take it for; the piece is read again without those detectors."""
    return any(f.detector in _LINE_LAYOUTS and "\n" not in sentence[f.end:]
               for f in findings)


def _cut_short(sentence: str, last: Finding, forced: bool) -> bool:
    """Does the value of `last` (a sentence's last finding) go on past the sentence's end:
    a key block without its END line and nothing after it but whitespace (its lines may be
    pieces of their own), or a token or a password running to the very end (the sentence
    cap's split), in a piece a forced split ended (`forced`) but for punctuation a value
    does not end with or an escape's backslash (`…Qz7x.` then `Qz7x…`: `_CUT_AFTER_VALUE`)?"""
    if last.detector == "private_key":
        return not (sentence[last.end :].strip() or _KEY_END.search(sentence, last.start))
    return last.detector in _RESTS and (last.end == len(sentence) or (
        forced and _CUT_AFTER_VALUE.fullmatch(sentence, last.end) is not None))


#: What may stand between a password's value cut by a forced split and the cut: punctuation
#: a value does not end with, or an escape's backslash.
_CUT_AFTER_VALUE = re.compile(r"[.,;:]{1,4}|\\")


def _said(text: str) -> str:
    """Text as "already said" compares it: whitespace runs as one space, no end punctuation."""
    return " ".join(text.split()).rstrip(".!?…")


def _says(text: str, key: str) -> bool:
    """Does `key` occur in `text` as whole words (no word character right before or after it)?
    "Coffees apply" does not say "fees apply"."""
    start = text.find(key)
    while start >= 0:
        end = start + len(key)
        if (start == 0 or _WORD_AT(text, start - 1) is None) and _WORD_AT(text, end) is None:
            return True
        start = text.find(key, start + 1)
    return False


_WORD_AT = re.compile(r"\w").match


def _one_space(text: str) -> str:
    """`text` with each run of whitespace as one space (what `re.sub(r"\\s+", " ", text)` gives,
    without trying a pattern at every position)."""
    inner = " ".join(text.split())
    if not inner:
        return " " if text else ""
    return (" " if text[0].isspace() else "") + inner + (" " if text[-1].isspace() else "")


def screen_reply(
    text: str,
    rules: CompiledRules,
    context: TurnContext | None = None,
    *,
    chunks: int = 0,
    seed: int | None = None,
    max_chars: int = 2000,
    tools: CompiledTools | None = None,
    now: float | None = None,
) -> tuple[str, dict[str, int]]:
    """Screen a whole reply; returns (released text, counts).

    With `chunks` > 1 the reply is fed in that many random pieces (as a stream would arrive),
    which gives the same text: `replyguard screen --side reply --chunks N` shows it. `tools`
    and `now` are `ReplyScreen`'s.
    """
    screen = ReplyScreen(rules, context, max_chars=max_chars, tools=tools, now=now)
    out: list[str] = []
    if chunks > 1 and len(text) > 1:
        rng = random.Random(seed)
        cuts = sorted(rng.sample(range(1, len(text)), min(chunks - 1, len(text) - 1)))
        for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
            out.append(screen.feed(text[start:end]))
    else:
        out.append(screen.feed(text))
    out.append(screen.finish())
    return "".join(out), dict(screen.counts)
