"""The request id a response and the access log carry: the client's own `X-Request-Id` when
it is safe to log and to send back, else a fresh one.

Safe means: 1 to 64 characters of `A-Z a-z 0-9 . _ : -` (no spaces, quotes or separators a
log or header parser could read as something else) and nothing the personal-data and secret
detectors find in it, read as it is and with its separators read as spaces
(`req-4111-1111-1111-1111` holds a card number, `trace_123-45-6789` a US SSN, which the
detectors' word boundaries do not see glued to `req-`). A refused id is never
logged, echoed or counted by its value: the request just gets a generated one.
"""

from __future__ import annotations

import re

from replyguard.engine.find import find

#: What a kept client id may look like: the characters of common id schemes (UUIDs, ULIDs,
#: W3C trace ids, `req_...`, `host:1234`), at most 64 of them.
SAFE_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_SEPARATORS = re.compile(r"[._:-]")


def client_request_id(given: str | None) -> str | None:
    """`given` (an `X-Request-Id` header) when it is safe to log and to send back, else None.
    `find` runs only on an id of the safe shape (64 characters at most: microseconds)."""
    if not given or SAFE_ID.fullmatch(given) is None:
        return None
    if find(given) or find(_SEPARATORS.sub(" ", given)):
        return None
    return given
