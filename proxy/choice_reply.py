"""The per-choice translator of the reply pipeline (proxy.pipeline): one choice's neutral
events in, its screened text fields, judged tool calls and finish out, streamed or whole."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from replyguard.engine.reply import Piece, ReplyScreen
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import (
    CallDeltas,
    Calls,
    Event,
    Finish,
    Item,
    Screen,
    Text,
    TextDelta,
    WholeCalls,
    joined_texts,
)
from replyguard.proxy.tool_calls import StreamCalls

__all__ = ["ChoiceReply"]

_CALL_REASONS = ("tool_calls", "function_call")


class ChoiceReply:
    """One choice of a reply, screened: one screen per text field (`make_screen()` makes
    each), the tool calls judged and their arguments screened by `calls` (None: the API has
    no tool calls, as legacy completions; calls would pass as sent).

    `feed(event) -> list[Item]`: a `TextDelta` gives its released `Text` (possibly empty);
    `CallDeltas` are held (nothing out); `WholeCalls` give the kept `Calls`; `Finish` gives
    the held calls, each field's tail (with the sentence saying a refused call cannot be
    done, on `content`) and the `Finish` to send. Text after a finish is dropped (an empty
    `Text`). `pieces`: keep each release's sentences (for the output stage). Raises engine
    ScreeningError.
    """

    __slots__ = ("_make", "_pieces", "screens", "finished", "held", "calls", "_filter",
                 "_refused", "_kept", "_ends_word", "released_any")

    def __init__(self, make_screen: Callable[[], Screen], calls: CallFilter | None = None,
                 pieces: bool = False) -> None:
        self._make = make_screen
        self._pieces = pieces
        self.screens: dict[str, Screen] = {}
        self.finished = False
        self.held = 0  # characters fed and not yet released (about; calls' arguments too)
        self._filter = calls
        self.calls: StreamCalls | None = None  # made at the first call delta
        self._refused: list[str] = []  # names of the refused calls of a whole message
        self._kept = False
        self._ends_word = False  # the `content` released so far ends in a non-space
        self.released_any = False

    def feed(self, event: Event) -> list[Item]:
        """Screen one event of this choice; the items to send, in order."""
        if isinstance(event, TextDelta):
            return [self.text(event.field, event.text)]
        if isinstance(event, CallDeltas):
            self.call_deltas(event)
            return []
        if isinstance(event, WholeCalls):
            return [self.whole_calls(event)]
        return self.finish(event.reason)

    def text(self, field: str, value: str) -> Text:
        """The screened text of `field` now releasable, `value` fed (after the finish: none)."""
        if self.finished or not value:
            return Text(field, "")
        screen = self.screens.get(field)
        if screen is None:
            screen = self.screens[field] = self._make()
        # (`_release`, inlined: this runs on every delta.)
        if self._pieces and isinstance(screen, ReplyScreen):
            pieces = tuple(screen.feed_pieces(value))
            out = Text(field, "".join([p.text for p in pieces]), pieces)
        else:
            out = Text(field, screen.feed(value))
        released = out.text
        if released:
            self.released_any = True
            if field == "content":
                self._ends_word = not released[-1].isspace()
        self.held += len(value) - len(released)
        return out

    def call_deltas(self, event: CallDeltas) -> None:
        """Hold streamed call deltas (nothing is sent before the finish); without a call
        filter, calls are not held (the adapter passes them on as they come)."""
        if self._filter is None:
            return
        if self.calls is None:
            self.calls = StreamCalls(self._filter)
        if event.tool_calls is not None:
            self.held += self.calls.delta(event.tool_calls)
        if event.function_call is not None:
            self.held += self.calls.function_call(event.function_call)

    def whole_calls(self, event: WholeCalls) -> Calls:
        """A whole message's calls with the refused ones taken out (noted for the finish)
        and the others' arguments screened; a list or call left as it came is the same
        object."""
        if self._filter is None:
            return Calls(event.tool_calls, event.function_call, whole=True)
        function_call = event.function_call
        if function_call is not None:
            kept, refused = self._filter.message([{"function": function_call}])
            if refused:
                self._refused += refused
                function_call = None
            else:
                self._kept = True
                function_call = kept[0]["function"]
        tool_calls = event.tool_calls
        if tool_calls is not None:
            kept, refused = self._filter.message(tool_calls)
            self._refused += refused
            self._kept = self._kept or bool(kept)
            tool_calls = kept if kept or not refused else None
        return Calls(tool_calls, function_call, whole=True)

    def finish(self, reason: str | None) -> list[Item]:
        """End the choice: the held calls, every field's tail (and the sentence saying a
        refused call cannot be done), then the `Finish` to send."""
        if self.finished:
            return [Finish(reason)]
        out = self._close()
        if self._refused:
            reason = self._refusals(out, reason)
        out.append(Finish(reason))
        return out

    def end(self) -> list[Item]:
        """The upstream ended without finishing the choice: the held calls and every field's
        tail, nothing added for refused calls."""
        return [] if self.finished else self._close()

    def _close(self) -> list[Item]:
        self.finished = True
        out: list[Item] = []
        if self.calls is not None:
            pending = self.calls.flush()
            if pending:
                out.append(Calls(pending.get("tool_calls"), pending.get("function_call")))
            self._refused += self.calls.refused
            self._kept = self._kept or self.calls.kept
        self.held = 0
        for field_name, screen in self.screens.items():
            out.append(self._tail(field_name, screen))
        return out

    def _refusals(self, out: list[Item], reason: str | None) -> str | None:
        """Put the sentence saying the refused calls cannot be done after the `content` tail
        in `out`; the finish reason to send (`stop` when no call is left)."""
        at = next((i for i, item in enumerate(out)
                   if isinstance(item, Text) and item.field == "content"), None)
        tail = out[at] if at is not None else None
        said = self._said(tail if isinstance(tail, Text) else None)
        if at is None:
            out.append(said)
        else:
            out[at] = said
        if reason in _CALL_REASONS and not self._kept:
            return "stop"
        return reason

    def counts(self) -> Counter[str]:
        """The counts of this choice's screens so far (the calls are counted by the filter)."""
        total: Counter[str] = Counter()
        self.add_counts_to(total)
        return total

    def add_counts_to(self, total: Counter[str]) -> None:
        """Add the counts of this choice's screens so far to `total`."""
        for screen in self.screens.values():
            total.update(screen.counts)

    def _tail(self, field: str, screen: Screen) -> Text:
        """Finish `screen`, giving the released Text (its tail and added sentences)."""
        if self._pieces and isinstance(screen, ReplyScreen):
            pieces = tuple(screen.finish_pieces())
            out = Text(field, "".join([p.text for p in pieces]), pieces)
        else:
            out = Text(field, screen.finish())
        if out.text:
            self.released_any = True
            if field == "content":
                self._ends_word = not out.text[-1].isspace()
        return out

    def _said(self, tail: Text | None) -> Text:
        """`tail` then the plain sentence for each refused call (a product piece), after a
        space when the content released so far ends in a word."""
        assert self._filter is not None
        said = self._filter.sentences(self._refused, "")
        parts = [tail] if tail is not None else []
        if said:
            said = (" " if self._ends_word else "") + said
            parts.append(Text("content", said, (Piece(said, True),) if self._pieces else None))
        return joined_texts("content", parts) if parts else Text("content", "")
