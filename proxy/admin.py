"""Staff and admin routes: `POST /v1/check-reply` (the check of a staff draft).

Behind the admin bearer token when `admin.token` is set (compared in constant time).
"""

from __future__ import annotations

import dataclasses
import hmac

from aiohttp import web

from replyguard.engine.check_reply import MAX_FINDINGS, check_reply
from replyguard.proxy.body import read_json
from replyguard.proxy.errors import BadRequest, Unauthorized
from replyguard.proxy.state import RULES, SETTINGS


def require_admin(request: web.Request) -> None:
    """Raise Unauthorized unless the request carries `Authorization: Bearer <admin.token>`
    (when a token is set)."""
    token = request.app[SETTINGS].admin.token
    if token is None:
        return
    given = request.headers.get("Authorization", "")
    scheme, _, value = given.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(),
                                                              token.encode()):
        raise Unauthorized("this route needs the admin bearer token")


async def check_reply_route(request: web.Request) -> web.Response:
    """`POST /v1/check-reply` `{"reply": str, "requester_email": str | null, "max_findings":
    int}` -> `{"findings": [{"rule", "text", "why"}]}`. The draft is the staff member's own
    text, so findings carry it as written; nothing of it is logged or counted."""
    require_admin(request)
    body = await read_json(request, request.app[SETTINGS].limits.max_body_bytes)
    reply = body.get("reply")
    if not isinstance(reply, str):
        raise BadRequest("'reply' must be a string (the draft to check)", param="reply")
    requester = body.get("requester_email")
    if requester is not None and not isinstance(requester, str):
        raise BadRequest("'requester_email' must be a string or null", param="requester_email")
    limit = body.get("max_findings", MAX_FINDINGS)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 0 <= limit <= 1000:
        raise BadRequest("'max_findings' must be an integer from 0 to 1000",
                         param="max_findings")
    detectors = request.app[RULES].for_language(request.app[SETTINGS].language).detectors
    findings = check_reply(reply, requester, limit, detectors)
    return web.json_response({"findings": [dataclasses.asdict(f) for f in findings]})
