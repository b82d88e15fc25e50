"""Reading a client's request body: size limit, time limit, strict UTF-8, JSON object."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import orjson
from aiohttp import web

from replyguard.proxy.errors import BadRequest, BodyTooLarge, ProxyError
from replyguard.proxy.state import METRICS, SETTINGS

T = TypeVar("T")


class BodyTimeout(ProxyError):
    """408: the body did not come within `limits.body_timeout_s`; the connection is closed
    (the rest of the body would be read as the next request)."""

    status = 408
    type = "invalid_request_error"
    code = "body_timeout"
    close = True


async def in_time(request: web.Request, read: Awaitable[T]) -> T:
    """Await `read` (reading the request's body) within `limits.body_timeout_s`; raises
    BodyTimeout (counted in `replyguard_client_timeouts_total{phase="body"}`)."""
    settings = request.app.get(SETTINGS)
    if settings is None:
        return await read
    try:
        async with asyncio.timeout(settings.limits.body_timeout_s):
            return await read
    except TimeoutError:
        request.app[METRICS].client_timeouts_by("body").inc()
        raise BodyTimeout(f"the request body did not come within "
                          f"{settings.limits.body_timeout_s:g} s") from None


async def read_json(request: web.Request, max_bytes: int) -> dict[str, Any]:
    """The request body as a JSON object.

    Raises BodyTooLarge (413) past `max_bytes` bytes, BadRequest (400) for an empty body,
    invalid UTF-8 (with the byte offset), malformed JSON, or a JSON value that is not an object.
    """
    length = request.content_length
    if length is not None and length > max_bytes:
        raise BodyTooLarge(f"request body of {length} bytes is over the limit "
                           f"of {max_bytes} bytes")
    try:
        raw = await in_time(request, request.read())  # aiohttp refuses over client_max_size
    except web.HTTPRequestEntityTooLarge:
        raise BodyTooLarge(f"request body is over the limit of {max_bytes} bytes") from None
    try:
        body = orjson.loads(raw)  # orjson checks UTF-8 itself
    except orjson.JSONDecodeError as exc:
        if not raw.strip():  # orjson refuses an empty body: told apart only here
            raise BadRequest("request body is empty; expected a JSON object",
                             code="invalid_json") from None
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise BadRequest(f"request body is not valid UTF-8 (byte {bad.start})",
                             code="invalid_utf8") from None
        raise BadRequest(f"request body is not valid JSON: {exc}", code="invalid_json") from None
    if not isinstance(body, dict):
        raise BadRequest(f"request body must be a JSON object, not {type(body).__name__}",
                         code="invalid_json")
    return body
