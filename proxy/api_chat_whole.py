"""The chat-completions and legacy-completions adapter of the reply pipeline (proxy.pipeline),
whole completions: each choice goes through a `ChoiceReply` as one delta per text field and
a finish, as a streamed one does (proxy.api_chat), and the result is put back in place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from replyguard.proxy import reply_keys
from replyguard.proxy.chat_shapes import (
    CHAT_FIELDS,
    LEGACY_FIELDS,
    ODD_WHOLE_KEYS,
    PASSED,
    Kind,
    field_text,
)
from replyguard.proxy.choice_reply import ChoiceReply
from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.pipeline import Calls, Finish, Screen, Slot, Text, WholeCalls, joined
from replyguard.proxy.reply_keys import ChunkShapeError

__all__ = ["screen_completion"]


def screen_completion(
    body: dict[str, Any], make_screen: Callable[[], Screen], kind: Kind = "chat",
    calls: CallFilter | None = None, pieces: bool = False, texts: list[Slot] | None = None,
) -> Counter[str]:
    """Screen a whole (non-streamed) completion in place; returns the counts.

    Each choice goes through a `ChoiceReply` as one delta per text field and a finish, as a
    streamed one does. With `calls`, refused tool calls are removed (the content says it
    cannot do them) and the others' arguments screened. Keys outside those (top-level,
    choice, message) are kept only if they hold no text (proxy.reply_keys), as in a stream.
    `texts` (when given) gets each released text and where it was put (for the output
    stage). Raises ChunkShapeError, engine ScreeningError.
    """
    total: Counter[str] = Counter()
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
        holder = _whole_holder(choice, kind)
        if holder is None:
            continue
        state = ChoiceReply(make_screen, calls if kind == "chat" else None, pieces)
        _screen_whole(state, choice, holder, kind, texts)
        for screen in state.screens.values():
            total.update(screen.counts)
    if calls is not None:
        total.update(calls.counts)
    return total


def _whole_holder(choice: dict[str, Any], kind: Kind) -> dict[str, Any] | None:
    """A whole choice shape-checked (its other keys holding text dropped): the object holding
    its text fields (the choice itself for legacy, its `message` for chat), None when there
    is no message."""
    reply_keys.index(choice)
    reply_keys.finish_reason(choice.get("finish_reason"))
    if "logprobs" in choice:
        choice["logprobs"] = None
    if kind == "text":
        reply_keys.others(choice, reply_keys.TEXT_CHOICE_KEYS)
        return choice
    for key in ODD_WHOLE_KEYS:
        choice.pop(key, None)
    reply_keys.others(choice, reply_keys.WHOLE_CHOICE_KEYS)
    holder = choice.get("message")
    if not isinstance(holder, dict):
        if holder is not None:
            raise ChunkShapeError("the upstream sent a `message` that is not an object")
        return None
    reply_keys.others(holder, PASSED)
    reply_keys.role(holder.get("role"))
    reply_keys.calls(holder)
    return holder


def _screen_whole(state: ChoiceReply, choice: dict[str, Any], holder: dict[str, Any],
                  kind: Kind, texts: list[Slot] | None) -> None:
    """One whole choice through `state`: each text field as one delta, the calls, the finish;
    the results put back in `holder` (and `choice`'s finish reason)."""
    released: dict[str, Text] = {}
    for name in LEGACY_FIELDS if kind == "text" else CHAT_FIELDS:
        given = holder.get(name)
        if given is None:
            continue
        value = given if type(given) is str else field_text(holder, name, given)
        if value:
            released[name] = state.text(name, value)
    if kind == "chat" and ("tool_calls" in holder or "function_call" in holder):
        tool_calls, function_call = holder.get("tool_calls"), holder.get("function_call")
        given_calls = WholeCalls(tool_calls if isinstance(tool_calls, list) else None,
                                 function_call if isinstance(function_call, dict) else None)
        _put_calls(holder, given_calls, state.whole_calls(given_calls))
    reason = choice.get("finish_reason")
    for item in state.finish(reason):
        if isinstance(item, Text):
            head = released.get(item.field)
            released[item.field] = item if head is None else joined(head, item)
        elif isinstance(item, Finish) and item.reason != reason:
            choice["finish_reason"] = item.reason
    for name, text in released.items():
        holder[name] = text.text
        if texts is not None and text.text:
            texts.append((holder, text))


def _put_calls(holder: dict[str, Any], given: WholeCalls, kept: Calls) -> None:
    """The refused calls of a whole message taken out of `holder`, the screened ones put in
    place of those sent."""
    if given.function_call is not None and kept.function_call is not given.function_call:
        if kept.function_call is None:
            del holder["function_call"]
        else:
            holder["function_call"] = kept.function_call
    if given.tool_calls is not None and kept.tool_calls is not given.tool_calls:
        if kept.tool_calls:
            holder["tool_calls"] = kept.tool_calls
        else:
            del holder["tool_calls"]
