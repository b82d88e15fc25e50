"""Chat logs: `GET /v1/records?verdict=&check=&since=&until=&limit=&cursor=` ->
`{"data": [...], "next": CURSOR|null}` newest first, and `GET /v1/records/{id}`. Behind the
admin token, as the rules admin API."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from aiohttp import web

from replyguard.proxy.errors import BadRequest, NotFound
from replyguard.proxy.rules_admin import StoreUnavailable, admin_store, stored
from replyguard.proxy.store import PAGE_MAX, Store, StoreError


def _store(request: web.Request) -> Store:
    return admin_store(request, "no store is set (store.url): no records are kept",
                       "the store cannot be reached now")[1]


def _time(name: str, value: str | None) -> float | None:
    """Epoch seconds, or an ISO 8601 time (UTC when it names no offset)."""
    if value is None or value == "":
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise BadRequest(f"{name}: neither epoch seconds nor an ISO 8601 time",
                         param=name) from None
    if when.tzinfo is None:
        from datetime import UTC

        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def _whole(name: str, value: str | None, default: int | None, lo: int, hi: int) -> int | None:
    if value is None or value == "":
        return default
    if not value.isdigit() or not lo <= int(value) <= hi:
        raise BadRequest(f"{name}: not a whole number from {lo} to {hi}", param=name)
    return int(value)


async def list_records(request: web.Request) -> web.Response:
    """The records, newest first, a page at a time (`next`: the cursor of the next page)."""
    store = _store(request)
    q = request.query
    limit = _whole("limit", q.get("limit"), 50, 1, PAGE_MAX) or 50
    before = _whole("cursor", q.get("cursor"), None, 1, 2**62)
    try:
        rows = await store.records(verdict=q.get("verdict") or None,
                                   check=q.get("check") or None,
                                   since=_time("since", q.get("since")),
                                   until=_time("until", q.get("until")),
                                   before_id=before, limit=limit + 1)
    except StoreError:
        raise StoreUnavailable("the store cannot be read now") from None
    page: list[dict[str, Any]] = rows[:limit]
    more = len(rows) > limit
    return web.json_response({"data": page, "next": str(page[-1]["id"]) if more else None})


async def get_record(request: web.Request) -> web.Response:
    """One record by id."""
    store = _store(request)
    text = request.match_info["id"]
    if not text.isdigit() or len(text) > 18:
        raise NotFound("no record with that id")
    return web.json_response(await stored(store.record(int(text)), "no record with that id"))


def add_routes(app: web.Application) -> None:
    """The chat log routes on `app`."""
    app.router.add_get("/v1/records", list_records)
    app.router.add_get("/v1/records/{id}", get_record)
