"""The chat-completions and legacy-completions adapter of the reply pipeline (proxy.pipeline),
streamed (whole completions: proxy.api_chat_whole; the shapes both read: proxy.chat_shapes).

Decodes each upstream choice (a streamed `chat.completion.chunk` or legacy `text_completion`
chunk, or a whole completion's choice) into neutral events, screens them with one
`ChoiceReply` per choice, and encodes the released items back, keeping the upstream envelope
(`id`, `created`, `model`, `system_fingerprint`, choice `index`). Text fields screened:
`content`, `refusal`, `reasoning_content`, `reasoning` (DeepSeek- and vLLM-style servers);
`text` for legacy completions. Role chunks and the usage chunk pass through; `tool_calls`
(and legacy `function_call`) deltas are held to the choice's end, then sent judged and with
their arguments screened, one delta per call (proxy.tool_calls); any other key, at the top,
of a choice, of a delta or message, is kept only if it holds no text (proxy.reply_keys). A
choice's held calls, held text and added sentences are sent in chunks of their own just
before that choice's `finish_reason` chunk. `logprobs` are dropped
wherever text is screened: they carry the raw tokens.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson

from replyguard.proxy import reply_keys
from replyguard.proxy.chat_shapes import (
    CHAT_FIELDS,
    LEGACY_FIELDS,
    TEXT_FIELDS,
    Frame,
    Kind,
    chat_frame,
    field_text,
    text_frame,
)
from replyguard.proxy.choice_reply import ChoiceReply
from replyguard.proxy.errors import ProxyError, UpstreamError, error_event
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import (
    CallDeltas,
    Calls,
    Chunk,
    Item,
    Out,
    Screen,
    Slot,
    Text,
    joined,
)
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.sse import DONE, SSEEvent

__all__ = ["ChunkShapeError", "StreamScreen"]


class StreamScreen:
    """Screens one streamed response. `make_screen()` gives a fresh ReplyScreen for a field
    of a choice; `calls` refuses tool calls (None: none is refused); `pieces` keeps each
    released text's sentences (for the output stage).

    `feed(chunk)` returns the chunks to send (possibly none); `end()`, at `[DONE]`, flushes
    choices the upstream never finished; `complete()` tells whether every choice seen (one at
    least) has finished (an upstream that stops before that dropped the stream). Raises
    ChunkShapeError, engine ScreeningError.
    """

    def __init__(self, make_screen: Callable[[], Screen], kind: Kind = "chat",
                 calls: CallFilter | None = None, pieces: bool = False) -> None:
        self._make = make_screen
        self._kind = kind
        self._fields = CHAT_FIELDS if kind == "chat" else LEGACY_FIELDS
        self._frame = chat_frame if kind == "chat" else text_frame
        self._calls = calls
        self._pieces = pieces
        self._choices: dict[int, ChoiceReply] = {}
        self._envelope: dict[str, Any] = {}
        self._raw: dict[str, Any] | None = None  # the last chunk's envelope, as it came
        self._kept: dict[str, Any] = {}  # and as it is sent on (reply_keys.envelope)
        #: About how many characters the screens hold, fed and not yet released: what the
        #: next event (a finish, `[DONE]`) may have them screen at once (proxy.relay).
        self.held = 0

    @property
    def released_any(self) -> bool:
        """Has any screened text been released yet?"""
        return any(state.released_any for state in self._choices.values())

    def event(self, event: SSEEvent) -> tuple[list[Out], bool]:
        """Screen one upstream SSE event: the chunks to send, and whether it was `[DONE]`
        (then the held text of unfinished choices and `[DONE]` come too). Raises
        UpstreamError for an error event, one that is not a JSON object, or `[DONE]` before
        any choice; ChunkShapeError, engine ScreeningError."""
        if event.data == "[DONE]":
            if not self.seen_any():
                raise UpstreamError("the upstream ended its stream without any choice",
                                    code="upstream_protocol")
            return [*self.end(), DONE], True
        try:
            chunk = orjson.loads(event.data)
        except orjson.JSONDecodeError:
            if event.event != "error":
                raise UpstreamError("the upstream sent an event that is not JSON",
                                    code="upstream_protocol") from None
            chunk = None  # an error event in plain text: `data: overloaded`
        if event.event == "error" or isinstance(chunk, dict) and chunk.get("error") is not None:
            raise UpstreamError("the upstream reported an error mid-stream: "
                                f"{_upstream_message(chunk)}", code="upstream_stream_error")
        if not isinstance(chunk, dict):
            raise UpstreamError("the upstream sent an event that is not a JSON object",
                                code="upstream_protocol")
        return list(self.feed(chunk)), False

    def close(self) -> list[Out] | None:
        """The upstream closed the stream without `[DONE]`: when every choice had finished,
        what ends it cleanly (`[DONE]`); else None (it dropped)."""
        if not self.complete():
            return None
        return [*self.end(), DONE]

    def error_event(self, error: ProxyError) -> bytes:
        """`error` as an SSE `error` event (the openai SDK raises APIError on it), then
        `[DONE]`."""
        return error_event(error) + DONE

    def feed(self, chunk: dict[str, Any]) -> list[Chunk]:
        """Screen one parsed upstream chunk; return the chunks to send on, in order."""
        choices = chunk.get("choices")
        if choices is not None and not isinstance(choices, list):
            raise ChunkShapeError("the upstream sent `choices` that is not a list")
        if choices is None and "usage" not in chunk:
            return []  # not a completion chunk (a vendor event): its fields were never screened
        raw = dict(chunk)
        raw.pop("choices", None)
        if raw == self._raw:  # the usual stream: every chunk has the same envelope
            envelope = self._kept
        else:  # every field kept but `choices`, in order
            envelope = self._kept = reply_keys.envelope(chunk)
            self._raw = raw
        if not choices:  # a usage chunk: its kept fields, in the chunk's order
            return [Chunk({k: envelope.get(k, choices) for k in chunk
                           if k in envelope or k == "choices"})]
        self._envelope = envelope
        out: list[Chunk] = []
        for choice in choices:
            if not isinstance(choice, dict):
                raise ChunkShapeError("the upstream sent a choice that is not an object")
            out.extend(self._choice(choice))
        return out

    def _choice(self, choice: dict[str, Any]) -> list[Chunk]:
        index = reply_keys.index(choice)
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = ChoiceReply(self._make, self._calls, self._pieces)
        frame = self._frame(choice)
        if "logprobs" in frame.new:
            frame.new["logprobs"] = None
        held = self._hold_calls(state, frame.target) or frame.held
        texts: list[Slot] = []
        for name in self._fields:
            # (absent or null, as OpenAI's tool-call chunks send `content` and `refusal`:
            # nothing to screen, passed on as it is)
            if name in frame.source and frame.source[name] is not None:
                held = self._text(state, frame, name, texts) or held
        finish = choice.get("finish_reason")
        if finish is not None:
            reply_keys.finish_reason(finish)
        if finish is None or state.finished:
            if held and not self._has_other(frame.target) and not any(
                    frame.target.get(name) for name in self._fields):
                return []  # nothing left to send: no text released, no other field
            return [self._wrap(frame.new, texts)]
        self.held = max(0, self.held - state.held)
        return self._finished(index, frame, state.finish(finish), texts)

    def _hold_calls(self, state: ChoiceReply, target: dict[str, Any]) -> bool:
        """With a tool refused, the call deltas are taken out of `target` and held to the
        finish (`ChoiceReply`); True when some were (a chunk left with nothing is not sent)."""
        if self._calls is None or "tool_calls" not in target and "function_call" not in target:
            return False
        tool_calls = target.get("tool_calls")
        function_call = target.get("function_call")
        tool_calls = tool_calls if isinstance(tool_calls, list) else None
        function_call = function_call if isinstance(function_call, dict) else None
        if tool_calls is None and function_call is None:
            return False
        before = state.held
        state.feed(CallDeltas(tool_calls, function_call))
        self.held += state.held - before
        if tool_calls is not None:
            del target["tool_calls"]
        if function_call is not None:
            del target["function_call"]
        return True

    def _text(self, state: ChoiceReply, frame: Frame, name: str, texts: list[Slot]) -> bool:
        """Screen field `name` of the frame into its target; True when it is held back."""
        value = field_text(frame.target, name, frame.source[name])
        if not value:
            return False
        before = state.held
        text = state.text(name, value)
        self.held += state.held - before
        frame.target[name] = text.text
        if text.text:
            texts.append((frame.target, text))
        return not text.text

    def _finished(self, index: int, frame: Frame, items: list[Item],
                  texts: list[Slot]) -> list[Chunk]:
        """A finishing choice: the held calls, the released text (this chunk's own `texts`,
        the tails and added sentences) in a chunk of its own, then the finish chunk."""
        out = []
        own = {text.field: text for _, text in texts}
        released = []
        for item in items:
            if isinstance(item, Text):
                head = own.pop(item.field, None)
                text = item if head is None else joined(head, item)
                if text.text:
                    released.append(text)
            elif isinstance(item, Calls):
                out.append(self._calls_chunk(index, item))
            elif item.reason != frame.new.get("finish_reason"):
                frame.new["finish_reason"] = item.reason
        released.extend(own.values())
        self._take_texts(frame.target)
        if released:
            out.append(self._tail_chunk(index, released))
        out.append(self._wrap(frame.new))
        return out

    def _take_texts(self, target: dict[str, Any]) -> None:
        """Take the text out of a finishing chunk (it goes in the tail chunk before it)."""
        if self._kind == "text":
            target["text"] = ""
            return
        for name in self._fields:
            target.pop(name, None)

    def _calls_chunk(self, index: int, calls: Calls) -> Chunk:
        delta = {k: v for k, v in (("tool_calls", calls.tool_calls),
                                   ("function_call", calls.function_call)) if v is not None}
        return self._wrap({"index": index, "delta": delta, "logprobs": None,
                           "finish_reason": None})

    def _tail_chunk(self, index: int, texts: list[Text]) -> Chunk:
        if self._kind == "text":
            choice: dict[str, Any] = {"text": texts[0].text, "index": index, "logprobs": None,
                                      "finish_reason": None}
            return self._wrap(choice, [(choice, texts[0])])
        delta = {t.field: t.text for t in texts}
        return self._wrap({"index": index, "delta": delta, "logprobs": None,
                           "finish_reason": None}, [(delta, t) for t in texts])

    def _has_other(self, target: dict[str, Any]) -> bool:
        """Does a held chunk carry anything besides its (now empty) text?"""
        if self._kind == "text":
            return False
        return any(k not in CHAT_FIELDS for k in target)

    def _wrap(self, choice: dict[str, Any], texts: list[Slot] | None = None) -> Chunk:
        body = {**self._envelope, "choices": [choice]}
        if not texts:
            return Chunk(body)
        return Chunk(body, texts, _text_only(body, choice))

    def seen_any(self) -> bool:
        """Has any choice come (a stream with none is not a completion)?"""
        return bool(self._choices)

    def unfinished(self) -> bool:
        """True while some choice has had no `finish_reason`."""
        return any(not c.finished for c in self._choices.values())

    def complete(self) -> bool:
        """True when some choice was seen and every choice has had its `finish_reason`."""
        return bool(self._choices) and not self.unfinished()

    def end(self) -> list[Chunk]:
        """At `[DONE]`: the held calls and text of choices the upstream never finished."""
        out = []
        for index, state in sorted(self._choices.items()):
            if state.finished:
                continue
            self.held = max(0, self.held - state.held)
            texts = []
            for item in state.end():
                if isinstance(item, Calls):
                    out.append(self._calls_chunk(index, item))
                elif isinstance(item, Text) and item.text:
                    texts.append(item)
            if texts:
                out.append(self._tail_chunk(index, texts))
        return out

    def counts(self) -> Counter[str]:
        """The counts of every choice's screens so far, and of the refused calls."""
        total: Counter[str] = Counter()
        for state in self._choices.values():
            state.add_counts_to(total)
        if self._calls is not None:
            total.update(self._calls.counts)
        return total


def _text_only(body: dict[str, Any], choice: dict[str, Any]) -> bool:
    """Does a chunk carry nothing but text (no role, tool calls, finish_reason or usage)?"""
    if choice.get("finish_reason") is not None:
        return False
    delta = choice.get("delta")
    if isinstance(delta, dict) and any(k not in TEXT_FIELDS for k in delta):
        return False
    return body.get("usage") is None


#: An error's `type` or `code` told to the client: a word (`server_error`,
#: `rate_limit_exceeded`); anything else (digits, spaces, signs) is left out unread.
_ERROR_WORD = re.compile(r"[A-Za-z_]{1,64}")


def _upstream_message(chunk: Any) -> str:
    """What the client is told of an upstream error event: its `type` and `code` only, and
    only when they are words. The upstream's message is model-side text that was never
    screened, so it is not sent on; neither is a `type` or `code` that could hold a value."""
    error = chunk.get("error") if isinstance(chunk, dict) else None
    if not isinstance(error, dict):
        return "no details"
    parts = [f"{k} {error[k]}" for k in ("type", "code")
             if isinstance(error.get(k), str) and _ERROR_WORD.fullmatch(error[k])]
    return ", ".join(parts) or "no details"
