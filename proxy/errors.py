"""OpenAI-shaped errors: one table from internal error kinds to status, type and code.

The exception tree of the proxy package:

    ProxyError                    an error the client is told about, OpenAI-shaped
     ├── BadRequest               400: malformed JSON, invalid UTF-8, missing fields
     ├── BodyTooLarge             413: body over `limits.max_body_bytes`
     ├── NotFound                 404: a route ReplyGuard does not serve
     ├── MethodNotAllowed         405: a served route asked with another method (`Allow`)
     ├── Unauthorized             401: admin routes without the right bearer token
     ├── UpstreamError            502/504: the upstream refused, failed or timed out
     ├── Overloaded               503: no upstream connection free in time (proxy.overload)
     └── ScreeningFailed          500: screening raised; nothing unscreened was released
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from replyguard.proxy.sse import encode_event


class ProxyError(Exception):
    """An error answered as `{"error": {"message", "type", "code", "param"}}` with `status`."""

    status = 500
    type = "server_error"
    code: str | None = None
    #: Response headers the error is answered with (`Retry-After`), if any.
    headers: dict[str, str] | None = None
    #: Close the connection after answering (the request's rest cannot be read).
    close = False

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.param = param

    def __init_subclass__(cls, *, status: int | None = None, error_type: str | None = None,
                          code: str | None = None, **kwargs: Any) -> None:
        """A kind of error declared with its entry in the table:
        `class NotFound(ProxyError, status=404, error_type="invalid_request_error",
        code="unknown_route")`; what is not given is its parent's."""
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if error_type is not None:
            cls.type = error_type
        if code is not None:
            cls.code = code

    def body(self) -> dict[str, Any]:
        """The OpenAI error object."""
        return {"error": {"message": self.message, "type": self.type, "param": self.param,
                          "code": self.code}}


class BadRequest(ProxyError, status=400, error_type="invalid_request_error",
                 code="invalid_request"):
    """Malformed JSON, invalid UTF-8, missing fields."""


class BodyTooLarge(ProxyError, status=413, error_type="invalid_request_error",
                   code="body_too_large"):
    """A body over `limits.max_body_bytes`."""


class NotFound(ProxyError, status=404, error_type="invalid_request_error", code="unknown_route"):
    """A route ReplyGuard does not serve."""


class MethodNotAllowed(ProxyError, status=405, error_type="invalid_request_error",
                       code="method_not_allowed"):
    """A route ReplyGuard serves, asked with a method it does not serve there: the message
    and the `Allow` header name the methods it does serve (RFC 9110 section 15.5.6)."""

    def __init__(self, method: str, allowed: list[str]) -> None:
        asked = method if method in _METHODS else "this method"  # (never an odd token sent)
        super().__init__(f"{asked} is not allowed on this route; use {' or '.join(allowed)}")
        self.headers = {"Allow": ", ".join(allowed)}


#: The methods of HTTP (RFC 9110 section 9) and PATCH (RFC 5789): a method named in an error
#: message is one of these.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE",
                      "PATCH"})


class Unauthorized(ProxyError, status=401, error_type="invalid_request_error",
                   code="invalid_admin_token"):
    """An admin route without the right bearer token."""


#: The `replyguard_upstream_errors_total` kind of each upstream error code that has one
#: (docs/metrics.md); any other code is counted as `upstream_error`.
_FAULT_KINDS = {
    "upstream_unreachable": "connect",
    "upstream_timeout": "timeout",
    "upstream_too_large": "too_large",
    "upstream_protocol": "protocol",
    "upstream_dropped": "upstream_dropped",
    "upstream_stream_error": "upstream_error",
    "upstream_idle": "idle",
}


class UpstreamError(ProxyError):
    """`kind` is what `replyguard_upstream_errors_total` counts it as: given, else the
    code's (`_FAULT_KINDS`)."""

    status = 502
    type = "upstream_error"
    code = "upstream_error"

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None,
                 status: int | None = None, kind: str | None = None) -> None:
        super().__init__(message, code=code, param=param, status=status)
        self.kind = kind if kind is not None else _FAULT_KINDS.get(self.code or "",
                                                                   "upstream_error")


class OutputBlocked(ProxyError):
    """The output stage held the reply back: moderation flagged a reply that cannot lose a
    sentence (a JSON document), or could not check it and its `on_error` is block."""

    status = 502
    type = "server_error"
    code = "reply_blocked"


class ScreeningFailed(ProxyError, status=500, error_type="server_error", code="screening_failed"):
    """Screening raised; nothing unscreened was released."""


def error_response(error: ProxyError, headers: dict[str, str] | None = None) -> web.Response:
    """The JSON response for `error`, with `headers` and the error's own (`Retry-After`)."""
    if error.headers:
        headers = {**(headers or {}), **error.headers}
    response = web.Response(
        body=orjson.dumps(error.body()), status=error.status,
        content_type="application/json", headers=headers,
    )
    if error.close:
        response.force_close()
    return response


def error_event(error: ProxyError) -> bytes:
    """`error` as an SSE `error` event; the openai SDK raises APIError on it."""
    return encode_event(orjson.dumps(error.body()), event="error")
