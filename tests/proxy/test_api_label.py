"""Metrics, the access log and the counts are the same whatever API a client speaks: the same
reply through chat completions, the Responses API and Anthropic's Messages API (whole and
streamed, from the fake upstream) gives the same series, labelled `api` with the API, the
same counts, and access log lines naming it; an upstream dropping a stream is counted on
each API."""

from __future__ import annotations

import logging
import re
from typing import Any

import orjson
import pytest

from replyguard.proxy.fake_script import Reply
from replyguard.proxy.record import APIS, ROUTE_APIS

CARD = "4111 1111 1111 1111"
REPLY = Reply(content=f"Your card {CARD} is on file. Thanks for asking.")
ROUTES = {"chat": "/v1/chat/completions", "responses": "/v1/responses",
          "messages": "/v1/messages"}


def body(api: str, text: str, stream: bool) -> dict[str, Any]:
    if api == "chat":
        return {"model": "m", "messages": [{"role": "user", "content": text}],
                "stream": stream}
    if api == "responses":
        return {"model": "m", "input": text, "stream": stream}
    return {"model": "m", "max_tokens": 50, "messages": [{"role": "user", "content": text}],
            "stream": stream}


def series(text: str) -> dict[str, float]:
    """The request's series: every sample but latency values, with `api` and `route`
    read as placeholders (buckets and sums vary with timing; counts do not)."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or "_created" in line or line.startswith("process_"):
            continue
        name, _, value = line.rpartition(" ")
        if "_bucket{" in name or name.split("{")[0].endswith("_sum"):
            continue
        name = re.sub(r'api="[a-z]+"', 'api="*"', name)
        out[re.sub(r'route="[^"]+"', 'route="*"', name)] = float(value)
    return out


async def run(stack: Any, api: str) -> tuple[Any, str]:
    s = await stack(REPLY, log__access=True)
    for stream in (False, True):
        async with s.client.post(ROUTES[api], json=body(api, f"card {CARD}", stream)) as resp:
            assert resp.status == 200
            assert CARD.encode() not in await resp.read()
    return s, await s.metrics_text()


async def test_the_same_reply_gives_the_same_series_on_every_api(stack, caplog) -> None:
    caplog.set_level(logging.INFO, logger="replyguard.access")
    got = {}
    for api in ROUTES:
        _, text = await run(stack, api)
        assert f'replyguard_requests_total{{api="{api}",route="{ROUTES[api]}",status="200"}} ' \
               '2.0' in text
        got[api] = series(text)
    assert got["responses"] == got["chat"]
    assert got["messages"] == got["chat"]
    chat = got["chat"]
    assert {k: v for k, v in chat.items() if v and ("api=" in k or k.startswith("reply_"))} == {
        "reply_pd_detected_card_total": 4.0, "reply_pd_redacted_total": 4.0,
        'replyguard_requests_total{api="*",route="*",status="200"}': 2.0,
        'replyguard_request_seconds_count{api="*",route="*"}': 2.0,
        'replyguard_upstream_seconds_count{api="*",route="*"}': 2.0,
        'replyguard_added_seconds_count{api="*",route="*"}': 2.0,
        'replyguard_first_token_seconds_count{api="*",route="*"}': 1.0,
        'replyguard_turns_total{api="*",verdict="forward"}': 2.0,
    }
    lines = [orjson.loads(r.getMessage()) for r in caplog.records
             if r.name == "replyguard.access"]
    assert [(line["api"], line["route"], line["verdict"], line["counts"]) for line in lines] \
        == [(api, ROUTES[api], "forward", {"reply_pd_detected_card": 2,
                                           "reply_pd_redacted": 2})
            for api in ROUTES for _ in range(2)]


@pytest.mark.parametrize("api", list(ROUTES))
async def test_an_upstream_dropping_the_stream_is_counted_on_every_api(stack, api) -> None:
    s = await stack(Reply(content="One sentence here. And another one here.", drop_after=3))
    async with s.client.post(ROUTES[api], json=body(api, "hi", True)) as resp:
        assert resp.status == 200
        await resp.read()
    text = await s.metrics_text()
    assert f'replyguard_upstream_errors_total{{api="{api}",kind="upstream_dropped"}} 1.0' in text
    assert [line for line in text.splitlines()
            if line.startswith("replyguard_upstream_errors_total{")] == [
        f'replyguard_upstream_errors_total{{api="{api}",kind="upstream_dropped"}} 1.0']


def test_every_route_api_is_one_of_the_fixed_set() -> None:
    assert set(ROUTE_APIS.values()) | {"passthrough", "other"} == set(APIS)
    assert len(APIS) == 8
