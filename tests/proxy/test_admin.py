"""`POST /v1/check-reply` (the check of a staff draft) and the admin token."""

from __future__ import annotations

import pytest
from conftest import RawUpstream

DRAFT = "There is no account with that address. Pod api-7d9f8b6c5-x2x7k logged KeyError."
FINDINGS = [
    {"rule": "pod_name", "text": "api-7d9f8b6c5-x2x7k",
     "why": "Pod names describe how the platform is deployed."},
    {"rule": "exception_name", "text": "KeyError",
     "why": "Exception names show the platform's code."},
    {"rule": "account_enumeration", "text": "There is no account with that address",
     "why": "Telling whether an address has an account lets anyone find out who uses the "
            "platform."},
]


async def test_check_reply_without_token_set_is_open(stack) -> None:
    s = await stack(RawUpstream([]))
    async with s.client.post("/v1/check-reply", json={"reply": DRAFT}) as resp:
        assert resp.status == 200
        assert await resp.json() == {"findings": FINDINGS}


async def test_check_reply_allows_the_requesters_own_email(stack) -> None:
    s = await stack(RawUpstream([]))
    body = {"reply": "We wrote to Jane@Example.com and to bob@example.com.",
            "requester_email": "jane@example.com"}
    async with s.client.post("/v1/check-reply", json=body) as resp:
        found = (await resp.json())["findings"]
    assert [(f["rule"], f["text"]) for f in found] == [("email", "bob@example.com")]


@pytest.mark.parametrize(("overrides", "found"), [
    ({}, [("phone_number", "020 7946 0123")]),
    ({"language": "pt-BR"}, [("phone_number", "(11) 98765-4321")]),
    ({"replies__phone_regions": ["BR", "GB"]},
     [("phone_number", "(11) 98765-4321"), ("phone_number", "020 7946 0123")]),
])
async def test_check_reply_reads_phones_in_the_settings_regions(
        stack, overrides: dict[str, object], found: list[tuple[str, str]]) -> None:
    s = await stack(RawUpstream([]), **overrides)
    body = {"reply": "Ligue (11) 98765-4321 or call 020 7946 0123."}
    async with s.client.post("/v1/check-reply", json=body) as resp:
        assert [(f["rule"], f["text"]) for f in (await resp.json())["findings"]] == found


async def test_check_reply_honours_max_findings(stack) -> None:
    s = await stack(RawUpstream([]))
    async with s.client.post("/v1/check-reply", json={"reply": DRAFT, "max_findings": 1}) as r:
        assert (await r.json())["findings"] == FINDINGS[:1]


@pytest.mark.parametrize(("header", "status"), [
    (None, 401), ("Bearer wrong", 401), ("Basic s3cret", 401), ("Bearer s3cret", 200),
    ("bearer s3cret", 200),
])
async def test_check_reply_behind_the_admin_token(stack, header: str | None, status: int) -> None:
    s = await stack(RawUpstream([]), admin__token="s3cret")
    headers = {"Authorization": header} if header else {}
    async with s.client.post("/v1/check-reply", json={"reply": DRAFT}, headers=headers) as resp:
        assert resp.status == status
        if status == 401:
            assert (await resp.json())["error"]["code"] == "invalid_admin_token"


@pytest.mark.parametrize(("body", "param"), [
    ({}, "reply"), ({"reply": 3}, "reply"), ({"reply": "x", "requester_email": 5},
                                              "requester_email"),
    ({"reply": "x", "max_findings": -1}, "max_findings"),
    ({"reply": "x", "max_findings": True}, "max_findings"),
])
async def test_check_reply_bad_bodies(stack, body: dict, param: str) -> None:
    s = await stack(RawUpstream([]))
    async with s.client.post("/v1/check-reply", json=body) as resp:
        assert resp.status == 400
        assert (await resp.json())["error"]["param"] == param


async def test_upstream_request_id_kept_and_ours_added(stack) -> None:
    upstream = RawUpstream([b'{"id": "x", "object": "list", "data": []}'],
                           content_type="application/json", headers={"x-request-id": "req_up"})
    s = await stack(upstream)
    async with s.client.get("/v1/models", headers={"X-Request-Id": "mine"}) as resp:
        assert resp.headers["X-Request-Id"] == "req_up"
        assert resp.headers["X-ReplyGuard-Request-Id"] == "mine"
