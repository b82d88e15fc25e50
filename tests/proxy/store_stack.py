"""ReplyGuard with a store, in front of a scripted upstream, for the store's proxy tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from replyguard.config.rules import load_rules
from replyguard.config.settings import load_settings
from replyguard.proxy.app import create_app
from replyguard.proxy.fake_upstream import Reply, ScriptedUpstream
from replyguard.proxy.store import open_store

TOKEN = "admin-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
Start = Callable[..., Awaitable[TestClient]]


@pytest.fixture
async def proxy() -> AsyncIterator[Start]:
    """`await proxy(store_url, reply=Reply(...), **settings) -> TestClient`: ReplyGuard with
    the store at `store_url` (None: no store), the admin token TOKEN, and a scripted upstream
    answering `reply` (or `script`) to everything. Settings overrides use "__" for "."."""
    closers: list[Callable[[], Awaitable[None]]] = []

    async def start(store_url: str | None, reply: Reply | None = None, script: Any = None,
                    upstream_url: str | None = None, **overrides: Any) -> TestClient:
        if upstream_url is None:
            up = ScriptedUpstream(script or (lambda _m: reply or Reply(content="Ok.")),
                                  created=1)
            upstream_url = await up.start()
            closers.append(up.close)
        settings = load_settings(None, env={}, overrides={
            "upstream.base_url": upstream_url, "log.access": False, "admin.token": TOKEN,
            "store.url": store_url or "none",
            **{k.replace("__", "."): v for k, v in overrides.items()}})
        store = open_store(store_url) if store_url else None
        rules = load_rules(settings.replies.rules) if settings.replies.rules else None
        app = create_app(settings, rules, store=store)  # as `replyguard serve` makes it
        client = TestClient(TestServer(app, host="127.0.0.1"))
        await client.start_server()
        closers.append(client.close)
        return client

    yield start
    for close in reversed(closers):
        await close()
