"""`/metrics` after seed 000's shop conversation: exact counter values, requests by route and
status, the active-streams gauge, the histograms; `/healthz` and `/readyz`."""

from __future__ import annotations

import json
from typing import Any

from conftest import events, streamed_text, user

from replyguard.proxy.metrics import REPLY_COUNTS

TURNS = (
    "my card is 4111 1111 1111 1111, is it on file?",
    "my social security number is 123-45-6789",
    "the parcel for 4412 vanished",
)


def samples(text: str) -> dict[str, float]:
    """The exposition's samples: `name{labels}` -> value (comments skipped)."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


async def ask(s: Any, messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """One streamed turn: (text, tool calls as the assistant message carries them)."""
    async with s.client.post("/v1/chat/completions",
                             json={"model": "m", "messages": messages, "stream": True}) as resp:
        assert resp.status == 200
        raw = await resp.read()
    calls: dict[int, dict[str, Any]] = {}
    for e in events(raw):
        for c in e["choices"] if isinstance(e, dict) else ():
            for call in c["delta"].get("tool_calls") or ():
                slot = calls.setdefault(call["index"], {"id": "", "type": "function",
                                                        "function": {"name": "",
                                                                     "arguments": ""}})
                slot["id"] = call.get("id") or slot["id"]
                fn = call.get("function") or {}
                slot["function"]["name"] += fn.get("name") or ""
                slot["function"]["arguments"] += fn.get("arguments") or ""
    return streamed_text(raw), [calls[k] for k in sorted(calls)]


async def shop(s: Any) -> list[str]:
    history: list[dict[str, Any]] = []
    replies = []
    for text in TURNS:
        history.append({"role": "user", "content": text})
        reply, calls = await ask(s, history)
        if calls:
            history.append({"role": "assistant", "content": None, "tool_calls": calls})
            history.append({"role": "tool", "tool_call_id": calls[0]["id"],
                            "content": json.dumps({"status": "refunded"})})
            reply, calls = await ask(s, history)
        history.append({"role": "assistant", "content": reply})
        replies.append(reply)
    return replies


SHOP_COUNTS = {
    "reply_pd_detected_card_total": 2.0,
    "reply_pd_detected_national_id_total": 1.0,
    "reply_pd_withheld_total": 1.0,
    "reply_pd_redacted_total": 2.0,
    "reply_wording_removed_total": 1.0,
    "reply_wording_added_total": 1.0,
}


async def test_seed_counts_after_the_shop_conversation(stack) -> None:
    s = await stack()
    replies = await shop(s)
    assert replies[2] == ("I've refunded 12.50 pounds for order 4412. Refunds reach the card "
                          "in three to five working days.")
    got = samples(await s.metrics_text())
    seed = {f"{name}_total": got[f"{name}_total"] for name in REPLY_COUNTS}
    assert seed == {f"{name}_total": SHOP_COUNTS.get(f"{name}_total", 0.0)
                    for name in REPLY_COUNTS}


async def test_requests_streams_and_histograms(stack) -> None:
    s = await stack()
    await shop(s)
    async with s.client.get("/v1/nope") as resp:
        assert resp.status == 404
    async with s.client.post("/v1/chat/completions", data=b"{") as resp:
        assert resp.status == 400
    got = samples(await s.metrics_text())
    route = '{api="chat",route="/v1/chat/completions"'
    assert {k: v for k, v in got.items() if k.startswith("replyguard_requests_total")} == {
        f'replyguard_requests_total{route},status="200"}}': 4.0,
        f'replyguard_requests_total{route},status="400"}}': 1.0,
        'replyguard_requests_total{api="other",route="unmatched",status="404"}': 1.0,
    }  # fmt: skip
    assert got["replyguard_active_streams"] == 0.0
    assert got['replyguard_turns_total{api="chat",verdict="forward"}'] == 3.0
    assert got['replyguard_turns_total{api="chat",verdict="withhold"}'] == 1.0
    assert got[f"replyguard_request_seconds_count{route}}}"] == 5.0
    assert got[f"replyguard_upstream_seconds_count{route}}}"] == 3.0
    assert got[f"replyguard_added_seconds_count{route}}}"] == 3.0
    # The tool-call stream released no text: two streams had a first token.
    assert got[f"replyguard_first_token_seconds_count{route}}}"] == 2.0
    inf = 'replyguard_request_seconds_bucket{api="chat",le="+Inf",route="/v1/chat/completions"}'
    assert got[inf] == 5.0
    assert "replyguard_screening_errors_total" not in "".join(
        k for k, v in got.items() if v)


async def test_metrics_content_type_and_no_text(stack) -> None:
    s = await stack()
    await shop(s)
    async with s.client.get("/metrics") as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=")
        text = await resp.text()
    for secret in ("4111", "123-45-6789", "parcel", "refund"):
        assert secret not in text.replace("reply_pd_", "")
    assert "replyguard_requests_total{route=\"/metrics\"" not in text


async def test_upstream_fault_counted(stack) -> None:
    from replyguard.proxy.fake_script import Reply

    s = await stack(Reply(status=500))
    async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
        assert resp.status == 502
    got = samples(await s.metrics_text())
    assert got['replyguard_upstream_errors_total{api="chat",kind="http_5xx"}'] == 1.0
    assert got['replyguard_requests_total{api="chat",route="/v1/chat/completions",'
               'status="502"}'] == 1.0


async def test_health_and_readiness(stack) -> None:
    s = await stack()
    async with s.client.get("/healthz") as resp:
        got = await resp.json()
        assert (resp.status, got["status"], got["upstream"]["reachable"]) == (200, "ok", None)
    async with s.client.get("/readyz") as resp:
        got = await resp.json()
        assert (resp.status, got["status"], got["upstream"]["reachable"]) == (200, "ready", None)


def cache_samples(text: str) -> dict[str, float]:
    got = samples(text)
    return {k: got[k] for k in ("replyguard_screen_cache_hits_total",
                                "replyguard_screen_cache_misses_total",
                                "replyguard_screen_cache_entries")}


async def test_screen_cache_hits_misses_and_entries(stack) -> None:
    from replyguard.proxy.fake_script import Reply

    s = await stack(Reply(content="Noted."))
    system = {"role": "system", "content": "You are the shop's assistant."}
    first = [system, {"role": "user", "content": "my card is 4111 1111 1111 1111"}]
    second = first + [{"role": "assistant", "content": "Noted."},
                      {"role": "user", "content": "thanks"}]
    want = [  # (hits, misses, entries) after each request
        (0.0, 1.0, 2.0),  # the system prompt looked up and missed; it and the turn stored
        (1.0, 1.0, 2.0),  # the same request again: the system prompt hit (the turn, the new
                          # part, is never looked up)
        (3.0, 2.0, 4.0),  # the system prompt and the first turn hit, the reply missed
    ]
    for messages, (hits, misses, entries) in zip((first, first, second), want, strict=True):
        async with s.client.post("/v1/chat/completions",
                                 json={"model": "m", "messages": messages}) as resp:
            assert resp.status == 200
        assert cache_samples(await s.metrics_text()) == {
            "replyguard_screen_cache_hits_total": hits,
            "replyguard_screen_cache_misses_total": misses,
            "replyguard_screen_cache_entries": entries}


async def test_screen_cache_metrics_start_at_zero(stack) -> None:
    s = await stack()
    assert cache_samples(await s.metrics_text()) == {
        "replyguard_screen_cache_hits_total": 0.0,
        "replyguard_screen_cache_misses_total": 0.0,
        "replyguard_screen_cache_entries": 0.0}
