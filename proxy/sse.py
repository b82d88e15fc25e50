"""Server-Sent Events for the OpenAI streaming format: an incremental decoder (bytes in, events
out) and an encoder. Parsing follows the WHATWG HTML standard, section 9.2 "Server-sent events"
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).

    SSEDecodeError(ValueError)   the byte stream is not valid UTF-8
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

__all__ = ["DONE", "SSEDecodeError", "SSEDecoder", "SSEEvent", "encode_event"]

DONE: bytes = b"data: [DONE]\n\n"
"""The sentinel event that ends an OpenAI stream."""

_EOL = re.compile(r"\r\n|\r|\n")
_EOL_BYTES = re.compile(rb"\r\n|\r|\n")
_BOM = "\ufeff"


class SSEDecodeError(ValueError):
    """The event stream holds bytes that are not UTF-8 (the standard requires UTF-8)."""


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event.

    `data` is the event's `data:` lines joined with "\\n" (no trailing newline). `event` is the
    `event:` field, None when absent or empty (the standard's default type "message"). `id` is
    the last event ID seen so far in the stream (an `id:` field persists across events, as the
    standard's "last event ID buffer" does), None if no `id:` field has been seen.
    """

    data: str
    event: str | None = None
    id: str | None = None


class SSEDecoder:
    """Incremental SSE parser: `feed(chunk)` returns the events completed by that chunk, in
    order; `flush()` ends the stream.

    Lines may end in "\\n", "\\r\\n" or "\\r", and a "\\r\\n" pair may be cut between chunks (a
    trailing "\\r" ends its line at once and a "\\n" opening the next chunk is skipped, as httpx's
    `LineDecoder` does). A UTF-8 character may be cut between chunks; a byte order mark at the
    start of the stream is dropped. Comment lines (starting with ":") and unknown fields
    (`retry:` included) are ignored; a blank line dispatches the pending event unless it has no
    `data:` line. Only the unfinished line is kept between calls, never the whole stream.

    `max_event_chars` bounds the unfinished line and the pending event's data (characters):
    an upstream that never ends a line cannot grow the proxy's memory without limit.

    Raises SSEDecodeError on bytes that are not UTF-8 or an event over the limit; the decoder
    is unusable afterwards.
    """

    __slots__ = (
        "_bytes_in",
        "_data_len",
        "_held",
        "_max",
        "_data",
        "_event",
        "_last_id",
        "_partial",
        "_skip_lf",
        "_start",
        "_utf8",
    )

    def __init__(self, max_event_chars: int = 1 << 24) -> None:
        self._max = max_event_chars
        self._reset()

    def _reset(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._bytes_in = 0  # bytes fed so far, to say where invalid UTF-8 is
        self._start = True  # no text decoded yet: a BOM may still come
        self._skip_lf = False  # the last chunk ended in "\r": drop a "\n" opening the next
        self._partial: list[str] = []  # pieces of the unfinished line
        self._held = 0  # characters in the unfinished line
        self._data_len = 0  # characters in the pending event's data
        self._data: list[str] = []
        self._event: str | None = None
        self._last_id: str | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Decode `chunk` (any slice of the stream's bytes) and return the events it completes."""
        return self._lines(self._decode(chunk, final=False))

    def flush(self) -> list[SSEEvent]:
        """End of stream: return the last event even if its blank line never came. Raises
        SSEDecodeError if the stream stops inside a UTF-8 character. The decoder is then reset
        to a fresh stream."""
        out = self._lines(self._decode(b"", final=True))
        if self._partial:
            line = "".join(self._partial)
            self._partial.clear()
            self._held = 0
            self._line(line, out)
        self._line("", out)
        self._reset()
        return out

    def _decode(self, chunk: bytes, *, final: bool) -> str:
        held = len(self._utf8.getstate()[0])
        try:
            text = self._utf8.decode(chunk, final)
        except UnicodeDecodeError as exc:
            at = self._bytes_in - held + exc.start
            raise SSEDecodeError(f"event stream is not UTF-8: {exc.reason} at byte {at}") from None
        self._bytes_in += len(chunk)
        if self._start and text:
            self._start = False
            if text[0] == _BOM:
                text = text[1:]
        return text

    def _lines(self, text: str) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        if not text:
            return out
        if self._skip_lf:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
                if not text:
                    return out
        # One split per chunk; most streams end lines in "\n" alone. The last piece is the
        # unfinished line ("" when the chunk ends a line).
        lines = _EOL.split(text) if "\r" in text else text.split("\n")
        rest = lines.pop()
        if lines:
            if self._partial:
                self._partial.append(lines[0])
                lines[0] = "".join(self._partial)
                self._partial.clear()
                self._held = 0
            self._whole_lines(lines, out)
        if rest:
            self._partial.append(rest)
            self._held += len(rest)
            if self._held + self._data_len > self._max:
                raise SSEDecodeError(f"an event of the stream is over {self._max} characters")
        elif text[-1] == "\r":
            self._skip_lf = True
        return out

    def _whole_lines(self, lines: list[str], out: list[SSEEvent]) -> None:
        """Read whole lines, appending the events they complete to `out`."""
        for line in lines:
            self._line(line, out)

    def _line(self, line: str, out: list[SSEEvent]) -> None:
        if not line:
            self._data_len = 0
            if self._data:
                out.append(SSEEvent("\n".join(self._data), self._event or None, self._last_id))
            self._data.clear()
            self._event = None
            return
        name, colon, value = line.partition(":")
        if not name:
            return  # comment line
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_len += len(value) + 1
            if self._data_len > self._max:
                raise SSEDecodeError(f"an event of the stream is over {self._max} characters")
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value


def encode_event(data: bytes | str, event: str | None = None) -> bytes:
    """Encode one event: b"data: ...\\n\\n", or b"event: x\\ndata: ...\\n\\n".

    `data` holding line breaks ("\\n", "\\r\\n" or "\\r") is written as several `data:` lines,
    which a reader joins back with "\\n". Raises ValueError if `event` holds a line break.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    parts = [b"data: " + line for line in _EOL_BYTES.split(raw)]
    if event is not None:
        if _EOL.search(event):
            raise ValueError(f"event name {event!r} holds a line break")
        parts.insert(0, b"event: " + event.encode("utf-8"))
    parts.append(b"\n")
    return b"\n".join(parts)
