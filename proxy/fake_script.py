"""The fake upstream's model: a script from a conversation's messages to the `Reply` it
answers (text, tool calls, reasoning), with the faults to inject for tests (error status,
delays, dropped streams); the shop's script the demo and the tests answer from."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SHOP_SCRIPT", "Reply", "Script", "last_user_turn", "message_text", "scripted_model"]


@dataclass(frozen=True)
class Reply:
    """What the fake model answers to one request, plus the faults to inject for tests.

    `tool_calls`: each {"name": str, "arguments": dict | str}; a dict is sent as compact JSON and
    ids are generated "call_<n>". `finish_reason` defaults to "tool_calls" when there are tool
    calls, else "stop". `status` != 200 answers an OpenAI-style error with that status.
    `delay_s` waits before answering; `chunk_delay_s` waits between stream chunks; `drop_after`
    aborts a stream's connection once that many content chunks were written (no [DONE]);
    `chunk_chars` overrides the upstream's content chunk size (in characters). `reasoning`:
    the model's reasoning, sent by the Responses API as a reasoning item's summary and by
    the Messages API as a (signed) thinking block, not by chat.
    """

    content: str = ""
    tool_calls: tuple[dict, ...] = ()
    finish_reason: str | None = None
    status: int = 200
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    drop_after: int | None = None
    chunk_chars: int | None = None
    reasoning: str = ""

    @property
    def finish(self) -> str:
        """The finish_reason sent: the explicit one, else "tool_calls" or "stop"."""
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


Script = Callable[[list[dict]], Reply]
"""The fake model: the request's messages in, the Reply out."""

SHOP_SCRIPT: dict[str, tuple[dict | None, str]] = {
    "zork": (None, ""),
    "my card is **** 1111, is it on file?": (
        None,
        "Your card 4111 1111 1111 1111 is on file; the card 4111 1111 1111 1112 is not.",
    ),
    "the parcel for 4412 vanished": (
        {"name": "refund_card", "arguments": {"order_id": "4412", "amount": 12.50}},
        "I've refunded 12.50 pounds for order 4412. It is a guaranteed refund.",
    ),
    "charge my card on file for order 4412": (
        {"name": "charge_card", "arguments": {"order_id": "4412",
                                              "card": "4111 1111 1111 1111"}},
        "Done: order 4412 is charged.",
    ),
}
"""The shop's script: last user turn -> (tool call or None, reply text)."""


def message_text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def last_user_turn(messages: list[dict]) -> str:
    """The text of the conversation's last user message ("" when there is none)."""
    users = [m for m in messages if m.get("role") == "user"]
    return message_text(users[-1].get("content")) if users else ""


def scripted_model(script: Mapping[str, tuple[dict | None, str]], *, echo: bool = False
                ) -> Script:
    """The scripted model: keyed by the last user message's content; if the conversation ends with
    the user message and a call is given, answer with that tool call; else the reply text.
    Unknown turn -> Reply(content=""), or with `echo` the turn said back (`You said: ...`):
    what the proxy then releases shows its reply screen at work."""

    def model(messages: list[dict]) -> Reply:
        said = last_user_turn(messages)
        entry = script.get(said)
        if entry is None:
            return Reply(content=f"You said: {said}") if echo and said else Reply()
        call, reply = entry
        if messages[-1].get("role") == "user" and call:
            return Reply(tool_calls=(call,))
        return Reply(content=reply)

    return model
