"""Screening OpenAI response objects: streamed chunks one by one, or a whole completion.

Pure (no I/O): `StreamScreen.feed(chunk) -> list[chunk]` takes one parsed upstream
`chat.completion.chunk` (or legacy `text_completion` chunk) and returns the chunks to send on,
keeping the upstream envelope (`id`, `created`, `model`, `system_fingerprint`, choice `index`).
One `ReplyScreen` per choice and text field (`content`, `refusal`, `reasoning_content`,
`reasoning`; `text` for legacy completions) holds text back until whole sentences are
screened. Role chunks, `tool_calls` deltas and the usage chunk pass through; any other key,
at the top, of a choice, of a delta or message, is kept only if it holds no text
(proxy.reply_keys). A choice's held text and added sentences are
sent in a chunk of their own just before that choice's `finish_reason` chunk (DESIGN section
2). `logprobs` are dropped wherever text is screened: they carry the raw tokens.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from replyguard.engine.json_reply import JsonReplyScreen
from replyguard.engine.reply import Piece, ReplyScreen
from replyguard.proxy import reply_keys
from replyguard.proxy.counts import add_counts, new_counts
from replyguard.proxy.permissions import CallFilter, StreamCalls
from replyguard.proxy.reply_keys import ChunkShapeError

__all__ = ["TEXT_FIELDS", "ChunkShapeError", "Kind", "Released", "StreamScreen", "pieces_of",
           "screen_completion", "staged_completion"]

Screen = ReplyScreen | JsonReplyScreen

Kind = Literal["chat", "text"]
#: Text fields of a chat delta or message that a person may read, all screened:
#: `reasoning_content` / `reasoning` are sent by DeepSeek- and vLLM-style servers.
_CHAT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")
#: Every field of a screened chunk's choice (or its delta) that carries released text.
TEXT_FIELDS = (*_CHAT_FIELDS, "text")
#: The keys of a chat delta or message passed on as such: the role (shape-checked), the text
#: fields (screened) and the tool calls (for the client's code). Every other key holding
#: text is dropped (fail closed): `audio` (its `transcript`, and the spoken words in `data`)
#: cannot be screened; `reasoning_details`, `thinking_blocks` and other vendors' fields carry
#: text no screen read; `annotations` point by offset into the text as the model wrote it;
#: token logprobs carry the raw text. One holding no text (`annotations: []`) is kept.
_PASSED = frozenset({"role", *_CHAT_FIELDS, "tool_calls", "function_call"})
#: A completion-style `text`, a `message` inside a stream or a `delta` in a whole reply is
#: not a chat shape: dropped from a chat choice whatever it holds.
_ODD_CHUNK_KEYS = ("text", "message")
_ODD_WHOLE_KEYS = ("text", "delta")


class Released(str):
    """Released text that keeps its sentences (`engine.reply.Piece`s, `pieces`), for the
    proxy's output stage (rewording product sentences, moderating each one). It is the text
    itself everywhere else (orjson writes it as a plain string)."""

    pieces: tuple[Piece, ...]

    def __new__(cls, pieces: Sequence[Piece]) -> Released:
        text = super().__new__(cls, "".join(p.text for p in pieces))
        text.pieces = tuple(pieces)
        return text


def pieces_of(text: str) -> tuple[Piece, ...]:
    """The sentences of released text: its own pieces, else one model-written piece."""
    if isinstance(text, Released):
        return text.pieces
    return (Piece(text, False),) if text else ()


def _joined(*texts: str) -> str:
    """Released texts one after another, keeping their pieces when they have any."""
    for text in texts:
        if isinstance(text, Released):
            return Released([p for t in texts for p in pieces_of(t)])
    return "".join(texts)


def _text_value(value: object) -> str | None:
    """A text field as a string: a string as it is, a list of text parts joined (some
    servers send content parts); None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p["text"] for p in value
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
    return None


class _Choice:
    __slots__ = ("screens", "finished", "calls", "held")

    def __init__(self, calls: CallFilter | None) -> None:
        self.screens: dict[str, Screen] = {}
        self.finished = False
        self.held = 0  # characters fed and not yet released (about)
        self.calls = StreamCalls(calls) if calls is not None else None


class StreamScreen:
    """Screens one streamed response. `make_screen()` gives a fresh ReplyScreen for a choice.

    `feed(chunk)` returns the chunks to send (possibly none); `end()`, at `[DONE]`, flushes
    choices the upstream never finished; `complete()` tells whether every choice seen (one at
    least) has finished (an upstream that stops before that dropped the stream). Raises
    engine ScreeningError.
    """

    def __init__(self, make_screen: Callable[[], Screen], kind: Kind = "chat",
                 calls: CallFilter | None = None, pieces: bool = False) -> None:
        self._make = make_screen
        self._kind = kind
        self._calls = calls
        self._pieces = pieces
        self._choices: dict[int, _Choice] = {}
        self._envelope: dict[str, Any] = {}
        self._raw: dict[str, Any] | None = None  # the last chunk's envelope, as it came
        self._kept: dict[str, Any] = {}  # and as it is sent on (reply_keys.envelope)
        self.released_any = False
        #: About how many characters the screens hold, fed and not yet released: what the
        #: next event (a finish, `[DONE]`) may have them screen at once (proxy.relay).
        self.held = 0

    def feed(self, chunk: dict[str, Any]) -> list[dict[str, Any]]:
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
            return [{k: envelope.get(k, choices) for k in chunk
                     if k in envelope or k == "choices"}]
        self._envelope = envelope
        out: list[dict[str, Any]] = []
        for choice in choices:
            if not isinstance(choice, dict):
                raise ChunkShapeError("the upstream sent a choice that is not an object")
            out.extend(self._choice(choice))
        return out

    def _choice(self, choice: dict[str, Any]) -> list[dict[str, Any]]:
        index = reply_keys.index(choice)
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = _Choice(self._calls)
        fields: tuple[str, ...]
        held = False
        if self._kind == "chat":
            if choice.keys() <= reply_keys.STREAM_CHOICE_KEYS:
                new = dict(choice)
            else:
                new = {k: v for k, v in choice.items() if k not in _ODD_CHUNK_KEYS}
                reply_keys.others(new, reply_keys.STREAM_CHOICE_KEYS)
            delta = choice.get("delta")
            if delta is not None and not isinstance(delta, dict):
                raise ChunkShapeError("a choice's `delta` must be an object")
            source = delta or {}
            if source.keys() <= _PASSED:
                target = dict(source)
            else:  # a chunk left with nothing once they are dropped is not sent
                target = reply_keys.kept_others(source, _PASSED)
                held = True
            if "role" in target:
                reply_keys.role(target["role"])
            if "tool_calls" in target or "function_call" in target:
                reply_keys.calls(target)
            new["delta"] = target
            fields = _CHAT_FIELDS
        else:
            new = dict(choice)
            if not choice.keys() <= reply_keys.TEXT_CHOICE_KEYS:
                reply_keys.others(new, reply_keys.TEXT_CHOICE_KEYS)
            source, target = choice, new
            fields = ("text",)
        if "logprobs" in new:
            new["logprobs"] = None
        calls = state.calls
        if calls is not None and isinstance(target.get("tool_calls"), list):
            target["tool_calls"] = calls.delta(target["tool_calls"])
            if not target["tool_calls"]:
                del target["tool_calls"]
                held = True  # a chunk left with nothing is not sent
        if calls is not None and isinstance(target.get("function_call"), dict):
            if not calls.function_call(target["function_call"]):
                del target["function_call"]
                held = True
        for name in fields:
            if name not in source:  # nothing to screen, nothing to pass on
                continue
            given = source[name]
            value = given if isinstance(given, str) else _text_value(given)
            if value is None and given is not None:
                raise ChunkShapeError(f"the upstream sent a `{name}` that is not text")
            if not value and isinstance(given, list):
                target[name] = ""  # parts with no text of their own: never passed on as sent
            if value:
                if state.finished:
                    target[name] = ""
                    held = True
                    continue
                screen = state.screens.get(name)
                if screen is None:
                    screen = state.screens[name] = self._make()
                target[name] = released = _feed(screen, value, self._pieces)
                grown = len(value) - len(released)
                state.held += grown
                self.held += grown
                held = held or not released
                self.released_any = self.released_any or bool(released)
        finish = choice.get("finish_reason")
        if finish is not None:
            reply_keys.finish_reason(finish)
        if finish is None or state.finished:
            if held and not self._has_other(new, target) and not any(
                    target.get(name) for name in fields):
                return []  # nothing left to send: no text released, no other field
            return [self._wrap(new)]
        state.finished = True
        out = []
        if state.calls is not None and (pending := state.calls.flush()):
            out.append(self._wrap({"index": index, "delta": pending, "logprobs": None,
                                   "finish_reason": None}))
        tails = self._tails(state)
        if state.calls is not None and state.calls.refused:
            tails["content"] = _said(state.calls.filter, state.calls.refused,
                                     tails.get("content", ""))
            if finish in ("tool_calls", "function_call") and not state.calls.kept:
                new["finish_reason"] = "stop"
        for name in fields:
            value = target.get(name)
            tails[name] = _joined(value if isinstance(value, str) else "", tails.get(name, ""))
        text = {name: t for name, t in tails.items() if t}
        for name in fields:
            if name in target and self._kind == "chat":
                del target[name]
        if self._kind == "text":
            target["text"] = ""
        if text:
            out.append(self._wrap(self._tail_choice(index, text)))
        out.append(self._wrap(new))
        return out

    def _has_other(self, choice: dict[str, Any], target: dict[str, Any]) -> bool:
        """Does a held chunk carry anything besides its (now empty) text?"""
        if self._kind == "text":
            return False
        return any(k not in _CHAT_FIELDS for k in target)

    def _tails(self, state: _Choice) -> dict[str, str]:
        self.held, state.held = max(0, self.held - state.held), 0
        tails = {name: _finish(screen, self._pieces) for name, screen in state.screens.items()}
        self.released_any = self.released_any or any(tails.values())
        return tails

    def _tail_choice(self, index: int, text: dict[str, str]) -> dict[str, Any]:
        if self._kind == "text":
            return {"text": text.get("text", ""), "index": index, "logprobs": None,
                    "finish_reason": None}
        return {"index": index, "delta": dict(text), "logprobs": None, "finish_reason": None}

    def _wrap(self, choice: dict[str, Any]) -> dict[str, Any]:
        return {**self._envelope, "choices": [choice]}

    def seen_any(self) -> bool:
        """Has any choice come (a stream with none is not a completion)?"""
        return bool(self._choices)

    def unfinished(self) -> bool:
        """True while some choice has had no `finish_reason`."""
        return any(not c.finished for c in self._choices.values())

    def complete(self) -> bool:
        """True when some choice was seen and every choice has had its `finish_reason`."""
        return bool(self._choices) and not self.unfinished()

    def end(self) -> list[dict[str, Any]]:
        """At `[DONE]`: the held text of choices the upstream never finished."""
        out = []
        for index, state in sorted(self._choices.items()):
            if state.finished:
                continue
            state.finished = True
            if state.calls is not None and (pending := state.calls.flush()):
                out.append(self._wrap({"index": index, "delta": pending, "logprobs": None,
                                       "finish_reason": None}))
            text = {name: t for name, t in self._tails(state).items() if t}
            if text:
                out.append(self._wrap(self._tail_choice(index, text)))
        return out

    def counts(self) -> Counter[str]:
        """The seed 000 counts of every choice's screens so far."""
        total = new_counts()
        for state in self._choices.values():
            for screen in state.screens.values():
                add_counts(total, screen.counts)
        if self._calls is not None:
            add_counts(total, self._calls.counts)
        return total


def screen_completion(
    body: dict[str, Any], make_screen: Callable[[], Screen], kind: Kind = "chat",
    calls: CallFilter | None = None, pieces: bool = False,
) -> Counter[str]:
    """Screen a whole (non-streamed) completion in place; returns the counts.

    Chat: each choice's `message` text fields (`content`, `refusal`, `reasoning_content`,
    `reasoning`); legacy: each `text`. With `calls`, refused tool calls are removed and the
    content says it cannot do them. Keys outside those (top-level, choice, message) are kept
    only if they hold no text (proxy.reply_keys), as in a stream. Raises ChunkShapeError,
    engine ScreeningError.
    """
    total = new_counts()
    top = reply_keys.envelope(body)
    for key in [key for key in body if key != "choices"]:  # in place, in the body's order
        if key in top:
            body[key] = top[key]
        else:
            del body[key]
    choices = body.get("choices")
    if choices is None:
        return total
    if not isinstance(choices, list):
        raise ChunkShapeError("the upstream sent `choices` that is not a list")
    for choice in choices:
        if not isinstance(choice, dict):
            raise ChunkShapeError("the upstream sent a choice that is not an object")
        reply_keys.index(choice)
        reply_keys.finish_reason(choice.get("finish_reason"))
        if "logprobs" in choice:
            choice["logprobs"] = None
        if kind == "chat":
            for key in _ODD_WHOLE_KEYS:
                choice.pop(key, None)
            reply_keys.others(choice, reply_keys.WHOLE_CHOICE_KEYS)
        else:
            reply_keys.others(choice, reply_keys.TEXT_CHOICE_KEYS)
        holder = choice if kind == "text" else choice.get("message")
        if not isinstance(holder, dict):
            if holder is not None:
                raise ChunkShapeError("the upstream sent a `message` that is not an object")
            continue
        if kind == "chat":
            reply_keys.others(holder, _PASSED)
            reply_keys.role(holder.get("role"))
            reply_keys.calls(holder)
        for name in ("text",) if kind == "text" else _CHAT_FIELDS:
            given = holder.get(name)
            if given is None:
                continue
            value = _text_value(given)
            if value is None:
                raise ChunkShapeError(f"the upstream sent a `{name}` that is not text")
            if not value and isinstance(given, list):
                holder[name] = ""  # parts with no text of their own: never passed on as sent
            if value:
                screen = make_screen()
                holder[name] = _joined(_feed(screen, value, pieces), _finish(screen, pieces))
                add_counts(total, screen.counts)
        if calls is not None and kind == "chat" and isinstance(holder.get("function_call"), dict):
            _, refused = calls.message([{"function": holder["function_call"]}])
            if refused:
                del holder["function_call"]
                holder["content"] = _said(calls, refused, holder.get("content") or "")
                if choice.get("finish_reason") == "function_call":
                    choice["finish_reason"] = "stop"
        if calls is not None and kind == "chat" and isinstance(holder.get("tool_calls"), list):
            kept, refused = calls.message(holder["tool_calls"])
            if refused:
                holder["content"] = _said(calls, refused, holder.get("content") or "")
                if kept:
                    holder["tool_calls"] = kept
                else:
                    del holder["tool_calls"]
                    if choice.get("finish_reason") == "tool_calls":
                        choice["finish_reason"] = "stop"
    if calls is not None:
        add_counts(total, calls.counts)
    return total


async def staged_completion(body: dict[str, Any], kind: Kind,
                            stage: Callable[[str], Awaitable[str]]) -> None:
    """Run each screened text field of a whole completion through the output stage, in
    place (concurrently across fields and choices)."""
    holders = []
    for choice in body.get("choices") or ():
        holder = choice if kind == "text" else choice.get("message")
        if isinstance(holder, dict):
            holders += [(holder, name) for name in TEXT_FIELDS
                        if isinstance(holder.get(name), str) and holder[name]]
    texts = await asyncio.gather(*(stage(holder[name]) for holder, name in holders))
    for (holder, name), text in zip(holders, texts, strict=True):
        holder[name] = text


def _feed(screen: Screen, text: str, pieces: bool) -> str:
    if pieces and isinstance(screen, ReplyScreen):
        return Released(screen.feed_pieces(text))
    return screen.feed(text)


def _finish(screen: Screen, pieces: bool) -> str:
    if pieces and isinstance(screen, ReplyScreen):
        return Released(screen.finish_pieces())
    return screen.finish()


def _said(calls: CallFilter, refused: list[str], text: str) -> str:
    """`text` then the plain sentence for each refused call (a product piece)."""
    said = calls.sentences(refused, text)[len(text):]
    return _joined(text, Released([Piece(said, True)])) if said else text
