"""Fixtures for the proxy's tests: ReplyGuard (TestServer, handler cancellation on, as
`replyguard serve` runs it) in front of a scripted upstream, or of a raw upstream that writes
exact bytes in separate network writes, so a test controls where the stream is cut."""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from replyguard.config.rules import load_rules
from replyguard.config.settings import load_settings
from replyguard.engine.rules import ReplyRules
from replyguard.proxy.app import create_app
from replyguard.proxy.fake_script import SHOP_SCRIPT, Reply, scripted_model
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.ops_thread import Heartbeat
from replyguard.proxy.server import Server
from replyguard.proxy.sse import SSEDecoder
from replyguard.proxy.state import BEAT, METRICS
from replyguard.proxy.store import open_store

SHOP_RULES_PATH = Path(__file__).resolve().parents[2] / "config" / "reply-rules.example.yaml"
SHOP_RULES = load_rules(SHOP_RULES_PATH)

#: The envelope the scripted upstream puts on every chunk (created fixed at 1).
HEAD = ('"object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",'
        '"system_fingerprint":"fp_fake"')
DONE = b"data: [DONE]\n\n"


def user(text: str, **extra: Any) -> dict[str, Any]:
    """A chat request body with one user message."""
    return {"model": "m", "messages": [{"role": "user", "content": text}], **extra}


def whole_completion(content: str) -> dict[str, Any]:
    """The whole chat completion the scripted upstream answers the shop's card turn with
    (one choice, `content`), as the client gets it."""
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
        "system_fingerprint": "fp_fake",
        "choices": [{
            "index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
            "logprobs": None, "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 9, "completion_tokens": 17, "total_tokens": 26},
    }  # fmt: skip


def events(raw: bytes) -> list[Any]:
    """A stream's events: parsed JSON chunks, "[DONE]" as a string, and ("error", body) for an
    `event: error` event."""
    dec = SSEDecoder()
    out: list[Any] = []
    for e in dec.feed(raw) + dec.flush():
        if e.data == "[DONE]":
            out.append("[DONE]")
        elif e.event == "error":
            out.append(("error", orjson.loads(e.data)))
        else:
            out.append(orjson.loads(e.data))
    return out


def streamed_text(raw: bytes, index: int = 0, field_name: str = "content") -> str:
    """The concatenated delta text of choice `index` in a chat stream."""
    text = []
    for e in events(raw):
        if isinstance(e, dict):
            for c in e.get("choices") or ():
                if c.get("index") == index:
                    text.append((c.get("delta") or {}).get(field_name) or "")
    return "".join(text)


def sse(obj: Any) -> bytes:
    """One SSE event holding `obj` as compact JSON, the way ReplyGuard writes it."""
    return b"data: " + orjson.dumps(obj) + b"\n\n"


@dataclass
class RawUpstream:
    """An upstream that answers every request with `parts`, each its own `write()` followed by
    a drain and a short sleep, so the proxy reads them as separate network reads.

    Records `seen` (request bodies, None when empty), `paths` (path and query of each),
    `methods` and `cancelled` (responses whose client went away)."""

    parts: Sequence[bytes]
    content_type: str = "text/event-stream"
    status: int = 200
    pause_s: float = 0.005
    hang: bool = False  # after the parts, wait (until cancelled) instead of ending
    abort: bool = False  # after the parts, abort the connection instead of ending
    delay_s: float = 0.0  # wait this long before answering (the status and headers)
    headers: dict[str, str] = field(default_factory=dict)
    seen: list[Any] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    cancelled: int = 0

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        return app

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        self.seen.append(orjson.loads(raw) if raw else None)
        self.paths.append(request.path_qs)
        self.methods.append(request.method)
        resp = web.StreamResponse(status=self.status, headers=self.headers)
        resp.content_type = self.content_type
        try:
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            await resp.prepare(request)
            for part in self.parts if request.method != "HEAD" else ():
                await resp.write(part)
                await asyncio.sleep(self.pause_s)
            if self.hang:
                await asyncio.sleep(30)
            if self.abort and request.transport is not None:
                request.transport.abort()
                return resp
            await resp.write_eof()
        except (asyncio.CancelledError, ConnectionResetError):
            self.cancelled += 1
            raise
        return resp


@dataclass
class Stack:
    """ReplyGuard in front of an upstream: `client` talks to the proxy; `base_url` is the
    proxy's `/v1` URL (for the openai SDK); `upstream` is the ScriptedUpstream or RawUpstream."""

    client: TestClient
    app: web.Application
    upstream: Any
    upstream_url: str

    @property
    def base_url(self) -> str:
        return str(self.client.make_url("/v1"))

    @property
    def metrics(self) -> Any:
        return self.app[METRICS]

    async def metrics_text(self) -> str:
        async with self.client.get("/metrics") as resp:
            assert resp.status == 200
            return await resp.text()


StartUpstream = Callable[..., Awaitable[Stack]]


@pytest.fixture
async def stack() -> AsyncIterator[StartUpstream]:
    """`await stack(upstream, rules=..., **settings overrides)`: start `upstream` (a
    ScriptedUpstream, a RawUpstream, a Reply answered to everything, or a URL string) and
    ReplyGuard in front of it; everything is closed afterwards. Settings overrides use "__"
    for "." (`limits__max_body_bytes=10`)."""
    closers: list[Callable[[], Awaitable[None]]] = []

    async def start(upstream: Any = None, rules: ReplyRules | None = SHOP_RULES,
                    heartbeat: bool = False, **overrides: Any) -> Stack:
        if upstream is None:
            upstream = ScriptedUpstream(scripted_model(SHOP_SCRIPT), created=1)
        elif isinstance(upstream, Reply):
            upstream = ScriptedUpstream(lambda _messages, r=upstream: r, created=1)
        if isinstance(upstream, str):
            url = upstream
        elif isinstance(upstream, ScriptedUpstream):
            url = await upstream.start()
            closers.append(upstream.close)
        else:
            server = TestServer(upstream.app(), host="127.0.0.1")
            await server.start_server()
            closers.append(server.close)
            url = str(server.make_url("/v1"))
        settings = load_settings(None, env={}, overrides={
            "upstream.base_url": url, "log.access": False,
            "upstream.anthropic_base_url": url.removesuffix("/v1"),
            **{k.replace("__", "."): v for k, v in overrides.items()}})
        app = create_app(settings, rules)
        if heartbeat:  # the main loop's heartbeat, as `replyguard serve` stamps it
            app[BEAT] = Heartbeat()
        # TestServer.start_server runs the app with handler_cancellation=True, as
        # `replyguard serve` does: a client going away cancels the handler.
        client = TestClient(TestServer(app, host="127.0.0.1"))
        await client.start_server()
        closers.append(client.close)
        if heartbeat:
            app[BEAT].start()
            closers.append(_async(app[BEAT].stop))
        return Stack(client, app, upstream, url)

    yield start
    for close in reversed(closers):
        await close()


@pytest.fixture
async def closers() -> AsyncIterator[list[Callable[[], Awaitable[None]]]]:
    """What a test started, each as its async close, closed after the test in reverse order."""
    started: list[Callable[[], Awaitable[None]]] = []
    yield started
    for close in reversed(started):
        await close()


async def on_server(app: web.Application, closers: list[Callable[[], Awaitable[None]]],
                    main: Any, admin: Any = None) -> None:
    """Serve `app` on the server `replyguard serve` runs (proxy.server), on the bound socket
    `main` and the admin listener's `admin` (None: none); closed with `closers`."""
    server = Server(app)
    await server.start(main, admin)
    closers.append(server.close)


async def answering_ok(closers: list[Callable[[], Awaitable[None]]], **overrides: Any
                       ) -> web.Application:
    """ReplyGuard's app (settings overrides with "__" for ".") in front of a scripted
    upstream that answers "Ok." to everything; the upstream's close is added to `closers`."""
    up = ScriptedUpstream(lambda _m: Reply(content="Ok."), created=1)
    url = await up.start()
    closers.append(up.close)
    return create_app(load_settings(None, env={}, overrides={
        "upstream.base_url": url, "log.access": False,
        **{k.replace("__", "."): v for k, v in overrides.items()}}))


def _async(stop: Callable[[], None]) -> Callable[[], Awaitable[None]]:
    async def call() -> None:
        stop()
    return call


async def wait_for(predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Poll `predicate` every 5 ms until it holds (fails the test after `timeout_s`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.005)


# -- the store: SQLite in a temporary folder, PostgreSQL in a schema of its own -------------

#: The admin token of the `proxy` fixture's ReplyGuard.
STORE_TOKEN = "admin-test-token"
STORE_AUTH = {"Authorization": f"Bearer {STORE_TOKEN}"}
#: The project machines' PostgreSQL (trust auth); each test gets a schema of its own.
POSTGRES = "postgresql://{user}@127.0.0.1:5432/test"


async def _postgres_user() -> str | None:
    """The first user PostgreSQL at 127.0.0.1:5432 lets in, or None when it is unreachable."""
    import asyncpg

    for name in ("postgres", "root"):
        try:
            conn = await asyncpg.connect(POSTGRES.format(user=name), timeout=3)
        except (OSError, asyncpg.PostgresError, TimeoutError):
            continue
        await conn.close()
        return name
    return None


def need(what: str) -> None:
    """Skip, saying why, when a service the test uses is missing; under REPLYGUARD_CI=1
    (.ci/run) fail instead: CI must run every test."""
    if os.environ.get("REPLYGUARD_CI") == "1":
        pytest.fail(f"{what} (required under REPLYGUARD_CI=1)")
    pytest.skip(what)


def _in_thread(make: Callable[[], Awaitable[Any]]) -> Any:
    """Run a coroutine on a loop of its own in another thread (from a sync fixture, whatever
    loop the test runs on)."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(asyncio.run(make())))
    thread.start()
    thread.join()
    return out[0] if out else None


async def _drop_schemas(user_name: str, schemas: list[str]) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES.format(user=user_name), timeout=5)
    try:
        for schema in schemas:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


#: (user, schema) of every PostgreSQL schema the tests made, dropped once they all ran (an
#: app a test started may hold its connections until the test's last fixture is done).
_SCHEMAS: list[tuple[str, str]] = []
_POSTGRES: dict[str, str | None] = {}


@pytest.fixture(scope="session", autouse=True)
def _drop_test_schemas() -> Iterator[None]:
    yield
    for name in {user_name for user_name, _ in _SCHEMAS}:
        _in_thread(lambda n=name: _drop_schemas(n, [s for u, s in _SCHEMAS if u == n]))


@pytest.fixture
def pg_url() -> str:
    """A PostgreSQL store URL with a schema of its own (dropped at the end of the run)."""
    if "user" not in _POSTGRES:  # asked once per run
        _POSTGRES["user"] = _in_thread(_postgres_user)
    name = _POSTGRES["user"]
    if name is None:
        need("PostgreSQL is not reachable at 127.0.0.1:5432 (database test, trust auth)")
    schema = f"rg_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    _SCHEMAS.append((name, schema))
    return POSTGRES.format(user=name) + f"?schema={schema}"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each back end in turn: a fresh SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/replyguard.db"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
async def proxy() -> AsyncIterator[Callable[..., Awaitable[TestClient]]]:
    """`await proxy(store_url, reply=Reply(...), **settings) -> TestClient`: ReplyGuard with
    the store at `store_url` (None: no store), the admin token STORE_TOKEN, and a scripted upstream
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
            "upstream.base_url": upstream_url, "log.access": False, "admin.token": STORE_TOKEN,
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
