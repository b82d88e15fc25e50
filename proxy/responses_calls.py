"""A streamed Response's function calls (proxy.responses_stream): a call to a refused tool
dropped at its `output_item.added` (its name comes there), every other call's arguments held
from there to their end (`function_call_arguments.done`, else the item's `done`), screened
whole by proxy.permissions.CallFilter and released as one `delta` event and the `done`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replyguard.proxy.permissions import CallFilter
from replyguard.proxy.reply_keys import ChunkShapeError

__all__ = ["ARGUMENTS", "ResponseCalls"]

#: The family of a call's arguments events (`.delta`, `.done`).
ARGUMENTS = "response.function_call_arguments"


@dataclass(slots=True)
class _Held:
    """A call's arguments, held to their end: the tool's name, the item's id, the pieces
    given, and the screened arguments once sent (None before)."""

    name: str
    item_id: Any
    pieces: list[str] = field(default_factory=list)
    sent: str | None = None


class ResponseCalls:
    """The function calls of one streamed Response, by the upstream's `output_index`.
    `calls` judges and screens them (None: none refused, arguments sent as they came, still
    held to their end). The event bodies returned are unnumbered (the stream numbers what
    it sends). Raises ChunkShapeError, engine ScreeningError."""

    def __init__(self, calls: CallFilter | None) -> None:
        self._calls = calls
        self._held: dict[Any, _Held] = {}
        self.refused: list[str] = []  # names of the refused calls, to be said
        self.held = 0  # characters of arguments held, not yet sent (about)

    def added(self, upstream: Any, item: dict[str, Any]) -> bool:
        """A `function_call` item begins: False when its tool is refused (the item is
        dropped), else its arguments are held from here (any it already carries first)."""
        name = item.get("name")
        if self._calls is not None and self._calls.refuses(item):
            self.refused.append(str(name))
            return False
        held = self._held[upstream] = _Held(name if isinstance(name, str) else "",
                                            item.get("id"))
        if isinstance(item.get("arguments"), str) and item["arguments"]:
            held.pieces.append(item["arguments"])
            self.held += len(item["arguments"])
        return True

    def event(self, step: str, data: dict[str, Any], index: int) -> list[dict[str, Any]]:
        """An arguments event of the call at `data["output_index"]` (ours: `index`): a
        delta held, the `done` releasing them; none for arguments of no call held."""
        held = self._held.get(data.get("output_index"))
        if held is None:
            return []
        if step == "delta":
            value = data.get("delta")
            if not isinstance(value, str):
                raise ChunkShapeError(f"a `{data['type']}` event's `delta` must be a string")
            held.pieces.append(value)
            self.held += len(value)
            return []
        whole = data.get("arguments")
        if not held.pieces and isinstance(whole, str):  # no delta came: they are in `done`
            held.pieces.append(whole)
            self.held += len(whole)
        return self._release(held, index)

    def done(self, upstream: Any, index: int) -> list[dict[str, Any]]:
        """The call's item is done: its arguments released now if no `done` came for them."""
        held = self._held.get(upstream)
        return [] if held is None else self._release(held, index)

    def arguments(self, upstream: Any) -> str:
        """The screened arguments sent for the call at `upstream` ("" before they are)."""
        held = self._held.get(upstream)
        return held.sent or "" if held is not None else ""

    def _release(self, held: _Held, index: int) -> list[dict[str, Any]]:
        """The arguments screened, as one delta and the `done` (their own fields only: an
        `obfuscation` padding or a vendor's field is left out); none once sent."""
        if held.sent is not None:
            return []
        given = "".join(held.pieces)
        self.held = max(0, self.held - len(given))
        held.sent = self._calls.arguments(held.name, given) if self._calls is not None \
            else given
        head = {"item_id": held.item_id, "output_index": index}
        out = [{"type": f"{ARGUMENTS}.delta", **head, "delta": held.sent}] if held.sent \
            else []
        out.append({"type": f"{ARGUMENTS}.done", **head, "arguments": held.sent})
        return out
