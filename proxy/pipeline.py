"""The reply pipeline every API shares: neutral events in, typed released items out.

An API adapter (proxy.api_chat: chat and legacy completions) decodes the upstream's events
into neutral ones (`TextDelta` of a field of a choice, `CallDeltas`, `WholeCalls`, `Finish`;
usage and errors stay with the adapter, which has nothing to screen in them), one
`ChoiceReply` per choice (proxy.choice_reply) screens them, and the adapter encodes what it
returns (`Text`, `Calls`, `Finish`) back in its own format. A whole reply is one delta per
field and a finish, so streamed and whole replies take the same path through `ChoiceReply`.
Pure (no I/O).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from replyguard.engine.json_reply import JsonReplyScreen
from replyguard.engine.reply import Piece, ReplyScreen
from replyguard.proxy.errors import ProxyError
from replyguard.proxy.sse import SSEEvent

__all__ = ["CallDeltas", "Calls", "Chunk", "Event", "Finish", "Item", "Out",
           "Screen", "Slot", "StreamAdapter", "Text", "TextDelta", "WholeCalls", "joined",
           "joined_texts"]

Screen = ReplyScreen | JsonReplyScreen


# ---------------------------------------------------------------- events in (from an adapter)
# (Events and items are plain slotted dataclasses, not frozen ones, and are never changed
# once made: a frozen one's `__init__` costs several times more, on every delta.)

@dataclass(slots=True)
class TextDelta:
    """The next piece of a text field (`content`, `refusal`, `reasoning`, `text`, ...) of a
    choice, as the model wrote it."""

    field: str
    text: str


@dataclass(slots=True)
class CallDeltas:
    """Streamed tool-call deltas of a choice (`tool_calls` items, or a legacy
    `function_call`): held until the choice finishes, then judged and screened whole."""

    tool_calls: list[Any] | None = None
    function_call: dict[str, Any] | None = None


@dataclass(slots=True)
class WholeCalls:
    """A whole message's tool calls (not streamed), judged and screened at once."""

    tool_calls: list[Any] | None = None
    function_call: dict[str, Any] | None = None


@dataclass(slots=True)
class Finish:
    """The end of a choice, with the upstream's reason (`stop`, `length`, `tool_calls`, ...);
    out of `ChoiceReply`, the reason the client is told (a refused call's `tool_calls`
    becomes `stop` when no call is left)."""

    reason: str | None


Event = TextDelta | CallDeltas | WholeCalls | Finish


# ---------------------------------------------------------------- items out (to an adapter)

@dataclass(slots=True)
class Text:
    """Screened text of a field released to the client. `pieces`: its sentences (who wrote
    each: the model or the product), when the output stage needs them; else None."""

    field: str
    text: str
    pieces: tuple[Piece, ...] | None = None

    def sentences(self) -> tuple[Piece, ...]:
        """The released sentences: its own pieces, else one model-written piece."""
        if self.pieces is not None:
            return self.pieces
        return (Piece(self.text, False),) if self.text else ()


@dataclass(slots=True)
class Calls:
    """Tool calls released, their arguments screened: streamed calls held to the finish,
    or a whole message's kept calls. `tool_calls` / `function_call`: None when there are
    none (or none is left)."""

    tool_calls: list[Any] | None = None
    function_call: dict[str, Any] | None = None
    whole: bool = False


Item = Text | Calls | Finish
#: Where an adapter put a released Text: the object holding its field (a delta, a message).
Slot = tuple[dict[str, Any], Text]


@dataclass(slots=True)
class Chunk:
    """One event to send, encoded by an adapter (`body`, plain JSON, written as the `data` of
    an SSE event named `event`), with the released texts it carries (`texts`, for the output
    stage) and whether it carries nothing but text (`text_only`: one the output stage
    empties is then not sent). `keep` (when given) is asked when the chunk's turn to be
    written comes, every chunk before it through the output stage: False, it is not sent
    (a thinking block's signature, once the stage changed its text)."""

    body: dict[str, Any]
    texts: list[Slot] = field(default_factory=list)
    text_only: bool = False
    event: str | None = None
    keep: Callable[[], bool] | None = None


#: What a stream adapter gives the relay to write: chunks, or bytes written as they are.
Out = Chunk | bytes


class StreamAdapter(Protocol):
    """What the relay (proxy.relay) needs of an API's stream adapter: one per streamed
    reply, `ChoiceReply`s inside. Chat and legacy completions: proxy.api_chat.StreamScreen.

    `event(e)` screens one upstream SSE event: the items to send, and whether the stream has
    ended (its end marker came). Raises ChunkShapeError (proxy.reply_keys) for a field of a
    shape that cannot be screened, an
    UpstreamError for an upstream error event, engine ScreeningError. `close()`: the
    upstream closed its stream without the end marker: what ends it cleanly when every
    choice had finished, else None (the stream dropped). `error_event(error)`: the API's own
    error event, then its end. `held`: about how many characters the screens hold (a long
    text is screened off the loop); `released_any`: whether screened text went out.
    """

    held: int

    @property
    def released_any(self) -> bool: ...

    def event(self, event: SSEEvent) -> tuple[list[Out], bool]: ...

    def close(self) -> list[Out] | None: ...

    def error_event(self, error: ProxyError) -> bytes: ...

    def counts(self) -> Counter[str]: ...


def joined(first: Text, then: Text) -> Text:
    """Two texts of one field one after the other, as one Text (their pieces kept)."""
    if not then.text:
        return first
    if not first.text:
        return then
    if first.pieces is None and then.pieces is None:
        return Text(first.field, first.text + then.text)
    return Text(first.field, first.text + then.text, first.sentences() + then.sentences())


def joined_texts(field: str, texts: Sequence[Text]) -> Text:
    """Texts of one field one after another, as one Text (their pieces kept)."""
    if len(texts) == 1:
        return texts[0]
    text = "".join(t.text for t in texts)
    if any(t.pieces is not None for t in texts):
        return Text(field, text, tuple(p for t in texts for p in t.sentences()))
    return Text(field, text)
