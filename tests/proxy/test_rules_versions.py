"""Reply rules in versions, against SQLite and the real PostgreSQL: the admin API (token,
ETag and If-Match, 400 listing every wrong key), a new version screening the next streamed
reply and a rollback undoing it, the version header, the rules file live (a bad edit keeps
the last good rules, one version per content), and the store unreachable at start."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest
from aiohttp.test_utils import TestClient, TestServer
from conftest import STORE_AUTH as AUTH
from conftest import streamed_text, user

from replyguard.config.rules import load_rules
from replyguard.config.settings import load_settings
from replyguard.proxy import store_app
from replyguard.proxy.app import create_app
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.live_rules import LIVE, LiveRules, version_header
from replyguard.proxy.state import METRICS
from replyguard.proxy.store import open_store

REFUND = Reply(content="It is a guaranteed refund. Thanks.")
DOWN = "postgresql://nobody:s3cr3t@127.0.0.1:1/test"


async def _reply(client, **extra) -> tuple[str, str]:
    async with client.post("/v1/chat/completions", json=user("hi", stream=True, **extra)) as r:
        assert r.status == 200
        return streamed_text(await r.read()), r.headers["X-ReplyGuard-Rules-Version"]


async def settled(live: LiveRules) -> bool:
    """The watch's two looks at an edited file: the change seen, then read once settled."""
    assert await live.sync_file() is False
    return await live.sync_file()


async def _put(client, document: object, **headers: str):
    return await client.put("/v1/reply-rules", data=orjson.dumps(document),
                            headers={**AUTH, "Content-Type": "application/json", **headers})


async def test_admin_routes_are_closed_without_a_token(proxy, store_url: str) -> None:
    client = await proxy(store_url, admin__token=None)
    resp = await client.get("/v1/reply-rules")
    assert resp.status == 403
    assert (await resp.json())["error"]["code"] == "admin_disabled"


async def test_admin_routes_need_the_token(proxy, store_url: str) -> None:
    client = await proxy(store_url)
    for method, path in (("GET", "/v1/reply-rules"), ("PUT", "/v1/reply-rules"),
                         ("GET", "/v1/reply-rules/versions"), ("GET", "/v1/records"),
                         ("POST", "/v1/reply-rules/versions/1/activate")):
        resp = await client.request(method, path, headers={"Authorization": "Bearer no"})
        assert resp.status == 401, path


async def test_a_new_version_screens_the_next_reply_and_a_rollback_undoes_it(
        proxy, store_url: str) -> None:
    client = await proxy(store_url, REFUND)
    assert await _reply(client) == ("It is a guaranteed refund. Thanks.", "builtin")
    resp = await _put(client, {"never_say": ["cheap"]})
    assert (resp.status, await resp.json()) == (201, {"version": 1})
    resp = await _put(client, {"never_say": ["guaranteed refund"]}, **{"If-Match": '"1"'})
    assert (resp.status, await resp.json()) == (201, {"version": 2})
    assert await _reply(client) == ("Thanks.", "2")
    resp = await client.post("/v1/reply-rules/versions/1/activate", headers=AUTH)
    assert (resp.status, await resp.json()) == (200, {"version": 1, "active": True})
    assert await _reply(client) == ("It is a guaranteed refund. Thanks.", "1")
    resp = await client.get("/v1/reply-rules", headers=AUTH)
    assert (resp.headers["ETag"], await resp.json()) == (
        '"1"', {"version": 1, "rules": {"never_say": ["cheap"]}})


async def test_if_match_guards_concurrent_edits(proxy, store_url: str) -> None:
    client = await proxy(store_url)
    assert (await _put(client, {"never_say": ["a"]})).status == 201
    stale = await _put(client, {"never_say": ["b"]}, **{"If-Match": '"none"'})
    assert stale.status == 412
    assert (await stale.json())["error"]["message"] == \
        "If-Match: the active version is 1, not None"
    resp = await client.get("/v1/reply-rules/versions", headers=AUTH)
    assert [v["version"] for v in (await resp.json())["data"]] == [1]


async def test_a_document_the_runtime_cannot_read_is_refused_with_every_wrong_key(
        proxy, store_url: str) -> None:
    client = await proxy(store_url)
    resp = await _put(client, {"never_say": 3, "personal_data": {"cardd": "redact"},
                               "colour": 1})
    assert resp.status == 400
    assert (await resp.json())["error"]["errors"] == [
        "never_say: expected a list of strings, got int 3",
        "personal_data.cardd: unknown class (known: api_key, aws_access_key, card, email, "
        "iban, ip_address, jwt, national_id, password, phone, private_key)",
        "colour: unknown key (known: must_accompany, never_say, offers, personal_data, "
        "reply_exactly)"]
    resp = await client.get("/v1/reply-rules/versions", headers=AUTH)
    assert (await resp.json())["data"] == []


async def test_yaml_with_a_yaml_content_type(proxy, store_url: str) -> None:
    client = await proxy(store_url, REFUND)
    source = "never_say:\n  - guaranteed refund\n"
    resp = await client.put("/v1/reply-rules", data=source,
                            headers={**AUTH, "Content-Type": "application/yaml",
                                     "X-ReplyGuard-Comment": "from the form"})
    assert (resp.status, await resp.json()) == (201, {"version": 1})
    resp = await client.get("/v1/reply-rules/versions/1", headers=AUTH)
    got = await resp.json()
    assert {k: got[k] for k in ("version", "active", "source", "content_type", "comment")} \
        == {"version": 1, "active": True, "source": source,
            "content_type": "application/yaml", "comment": "from the form"}
    assert (await client.get("/v1/reply-rules/versions/7", headers=AUTH)).status == 404
    assert await _reply(client) == ("Thanks.", "1")


YAML_SOURCE = "never_say:\n  - guaranteed refund\n"
JSON_SOURCE = '{"never_say": ["guaranteed refund"]}'


#: (the Content-Type sent, None for none; the body; the type it is stored as): YAML or JSON
#: sent as neither (curl's default form type, none, `text/plain`) is read as what it is.
DOCUMENT_TYPES = [
    ("application/x-www-form-urlencoded", YAML_SOURCE, "application/yaml"),
    (None, YAML_SOURCE, "application/yaml"),
    ("text/plain", YAML_SOURCE, "application/yaml"),
    ("application/x-www-form-urlencoded", JSON_SOURCE, "application/json"),
    ("text/yaml", YAML_SOURCE, "application/yaml"),
    ("application/json", JSON_SOURCE, "application/json"),
]


@pytest.mark.parametrize(("content_type", "source", "stored_as"), DOCUMENT_TYPES)
async def test_a_rules_document_without_its_type_is_read_as_what_it_is(
        proxy, store_url: str, content_type: str | None, source: str, stored_as: str) -> None:
    client = await proxy(store_url, REFUND)
    headers = {**AUTH, **({"Content-Type": content_type} if content_type else {})}
    resp = await client.put("/v1/reply-rules", data=source.encode(), headers=headers)
    assert (resp.status, await resp.json()) == (201, {"version": 1})
    got = await (await client.get("/v1/reply-rules/versions/1", headers=AUTH)).json()
    assert (got["source"], got["content_type"]) == (source, stored_as)
    assert await _reply(client) == ("Thanks.", "1")


async def test_yaml_sent_as_json_is_told_to_say_it_is_yaml(proxy, store_url: str) -> None:
    client = await proxy(store_url)
    resp = await client.put("/v1/reply-rules", data=YAML_SOURCE,
                            headers={**AUTH, "Content-Type": "application/json"})
    error = "rules.json:1: Expecting value (read as JSON, as its Content-Type says; send YAML " \
            "as Content-Type: application/yaml)"
    assert (resp.status, await resp.json()) == (400, {"error": {
        "message": f"the rules document cannot be used: {error}",
        "type": "invalid_request_error", "param": None, "code": "invalid_rules",
        "errors": [error]}})


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/v1/reply-rules/versions/99/activate"),
    ("POST", "/v1/reply-rules/versions/abc/activate"),
    ("GET", "/v1/reply-rules/versions/7"),
    ("GET", "/v1/reply-rules/versions/1234567890123456789"),
])
async def test_an_unknown_version_is_a_404_unknown_version(
        proxy, store_url: str, method: str, path: str) -> None:
    client = await proxy(store_url)
    assert (await _put(client, {"never_say": ["a"]})).status == 201
    resp = await client.request(method, path, headers=AUTH)
    assert (resp.status, await resp.json()) == (404, {"error": {
        "message": "no rules version has that id (GET /v1/reply-rules/versions lists them)",
        "type": "invalid_request_error", "param": None, "code": "unknown_version"}})


async def test_every_response_carries_the_rules_version(proxy, store_url: str) -> None:
    client = await proxy(store_url)
    await _put(client, {"never_say": ["a"]})
    for method, path in (("GET", "/v1/models"), ("GET", "/healthz"), ("GET", "/metrics"),
                         ("GET", "/v1/nothing-here")):
        resp = await client.request(method, path)
        assert resp.headers["X-ReplyGuard-Rules-Version"] == "1", path


async def test_the_rules_file_live(proxy, store_url: str, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("never_say: [cheap]\n")
    client = await proxy(store_url, REFUND, replies__rules=str(rules))
    live = client.app[LIVE]
    assert live.version == 1
    assert await _reply(client) == ("It is a guaranteed refund. Thanks.", "1")
    rules.write_text("never_say: [guaranteed refund]\n")
    assert await settled(live) is True
    assert await _reply(client) == ("Thanks.", "2")
    rules.write_text("never_say: 3\n")  # a bad edit: the last good rules stay
    assert await settled(live) is False
    assert await _reply(client) == ("Thanks.", "2")
    reloads = client.app[METRICS].rules_reloads
    assert reloads.labels("error")._value.get() == 1.0
    await client.post("/v1/reply-rules/versions/1/activate", headers=AUTH)  # a rollback
    assert await _reply(client) == ("It is a guaranteed refund. Thanks.", "1")
    rules.write_text("never_say: [guaranteed refund]\n")  # version 2's content: in force again
    assert await settled(live) is True
    assert await _reply(client) == ("Thanks.", "2")
    rules.write_text("never_say: [cheap]\n")  # the file put back as it was: version 1
    assert await settled(live) is True
    assert await _reply(client) == ("It is a guaranteed refund. Thanks.", "1")
    resp = await client.get("/v1/reply-rules/versions", headers=AUTH)
    assert [(v["version"], v["active"], v["comment"]) for v in (await resp.json())["data"]] \
        == [(2, False, "file rules.yaml"), (1, True, "file rules.yaml")]


async def test_a_bad_edit_names_the_rules_file(proxy, store_url: str, tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    rules = tmp_path / "shop-rules.yaml"
    rules.write_text("never_say: [cheap]\n")
    client = await proxy(store_url, REFUND, replies__rules=str(rules))
    rules.write_text("never_say: [cheap\n")
    with caplog.at_level("ERROR", logger="replyguard"):
        assert await client.app[LIVE].reload() is False
    failed = [orjson.loads(r.getMessage()) for r in caplog.records
              if "rules_reload_failed" in r.getMessage()]
    assert [e["errors"][0].split(":")[0] for e in failed] == ["shop-rules.yaml"]
    assert [e["kept_version"] for e in failed] == [1]


async def test_at_start_a_file_of_another_version_is_logged_and_sighup_puts_it_in_force(
    proxy, store_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("never_say: [cheap]\n")
    first = await proxy(store_url, REFUND, replies__rules=str(rules))
    rules.write_text("never_say: [guaranteed refund]\n")
    assert await settled(first.app[LIVE]) is True  # version 2 active
    await first.close()  # its watch would log the store's next version too
    rules.write_text("never_say: [cheap]\n")  # put back while no process watches it
    with caplog.at_level("INFO", logger="replyguard"):
        client = await proxy(store_url, REFUND, replies__rules=str(rules))
        assert await _reply(client) == ("Thanks.", "2")  # the fleet's active version stays
        assert await client.app[LIVE].reload() is True  # SIGHUP: the file's rules
        assert await _reply(client) == ("It is a guaranteed refund. Thanks.", "1")
        assert await client.app[LIVE].reload() is False  # again: in force already
    events = [orjson.loads(r.getMessage()) for r in caplog.records
              if r.getMessage().startswith("{")]
    assert [(e["event"], e.get("file_version", e.get("version"))) for e in events
            if e["event"].startswith("rules_")] == [
        ("rules_file_not_in_force", 1), ("rules_reloaded", 2), ("rules_version_activated", 1),
        ("rules_reloaded", 1), ("rules_file_in_force", 1)]


async def test_without_a_store_the_rules_file_at_start_is_no_reload(proxy,
                                                                     tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("never_say: [guaranteed refund]\n")
    client = await proxy(None, REFUND, replies__rules=str(rules))
    live, reloads = client.app[LIVE], client.app[METRICS].rules_reloads
    assert await settled(live) is False  # the watch's first two looks: nothing changed
    assert reloads.labels("ok")._value.get() == 0.0
    assert (await _reply(client))[0] == "Thanks."
    rules.write_text("never_say: [thanks]\n")
    assert await settled(live) is True
    assert reloads.labels("ok")._value.get() == 1.0
    assert (await _reply(client))[0] == "It is a guaranteed refund. "


async def test_a_restart_makes_no_version(proxy, store_url: str, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("never_say: [cheap]\n")
    await proxy(store_url, replies__rules=str(rules))
    client = await proxy(store_url, replies__rules=str(rules))
    resp = await client.get("/v1/reply-rules/versions", headers=AUTH)
    assert [v["version"] for v in (await resp.json())["data"]] == [1]
    assert client.app[METRICS].rules_reloads.labels("ok")._value.get() == 0.0


async def test_no_store_no_file_at_start_means_not_ready(proxy) -> None:
    client = await proxy(DOWN, store__poll_s=30)
    resp = await client.get("/readyz")
    assert (resp.status, (await resp.json())["status"]) == (503, "starting")
    resp = await client.post("/v1/chat/completions", json=user("hi"))
    assert resp.status == 503
    assert (await resp.json())["error"]["code"] == "rules_unavailable"


async def test_the_rules_file_stands_in_for_an_unreachable_store(
        proxy, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("never_say: [guaranteed refund]\n")
    client = await proxy(DOWN, REFUND, replies__rules=str(rules), store__poll_s=30)
    assert (await client.get("/readyz")).status == 200
    assert await _reply(client) == ("Thanks.", "file")
    assert "s3cr3t" not in caplog.text
    assert "postgresql://***@127.0.0.1:1/test" in caplog.text


async def test_without_a_store_the_admin_api_says_so(proxy) -> None:
    client = await proxy(None)
    resp = await client.get("/v1/reply-rules/versions", headers=AUTH)
    assert resp.status == 404
    resp = await client.get("/v1/reply-rules", headers=AUTH)
    assert (resp.status, await resp.json()) == (200, {"version": None, "rules": {}})


async def test_a_request_in_flight_finishes_on_its_version(proxy, store_url: str) -> None:
    slow = Reply(content="It is a guaranteed refund. Thanks.", chunk_delay_s=0.05)
    client = await proxy(store_url, slow)
    first = asyncio.ensure_future(_reply(client))
    await asyncio.sleep(0.15)  # the first reply is streaming on the built-in rules
    assert (await _put(client, {"never_say": ["guaranteed refund"]})).status == 201
    assert not first.done()
    assert await first == ("It is a guaranteed refund. Thanks.", "builtin")
    assert await _reply(client) == ("Thanks.", "1")


async def test_rules_given_at_start_that_the_file_no_longer_holds_are_replaced(
        store_url: str, tmp_path: Path) -> None:
    """A worker forked with the rules read before an edit (its SIGHUP came while it started):
    the file's version is put in force, not taken for the rules it was given."""
    rules = tmp_path / "rules.yaml"
    rules.write_text("never_say: [guaranteed refund]\n")
    given = load_rules(rules)
    rules.write_text("never_say: [cheap]\n")
    up = ScriptedUpstream(lambda _m: REFUND, created=1)
    settings = load_settings(None, env={}, overrides={
        "upstream.base_url": await up.start(), "log.access": False, "store.url": store_url,
        "replies.rules": str(rules)})
    client = TestClient(TestServer(create_app(settings, given, store=open_store(store_url)),
                                   host="127.0.0.1"))
    await client.start_server()
    try:
        assert await _reply(client) == ("It is a guaranteed refund. Thanks.", "1")
    finally:
        await client.close()
        await up.close()


async def test_the_version_header_names_the_rules_the_request_is_screened_by(
        proxy, store_url: str, monkeypatch) -> None:
    """A version put in force after a request arrived, before its body was read: the request
    is screened by the rules its header names (the ones in force when it arrived)."""
    client = await proxy(store_url, REFUND)
    arrived = asyncio.Event()

    def seen(live: LiveRules | None) -> str:
        arrived.set()
        return version_header(live)

    monkeypatch.setattr(store_app, "version_header", seen)
    body = orjson.dumps(user("hi", stream=True))

    async def trickled():
        yield body[:5]
        await arrived.wait()  # the chat request's head was read: its rules are taken
        monkeypatch.setattr(store_app, "version_header", version_header)
        assert (await _put(client, {"never_say": ["guaranteed refund"]})).status == 201
        yield body[5:]

    async with client.post("/v1/chat/completions", data=trickled(),
                           headers={"Content-Type": "application/json"}) as r:
        got = streamed_text(await r.read()), r.headers["X-ReplyGuard-Rules-Version"]
    assert got == ("It is a guaranteed refund. Thanks.", "builtin")
    assert await _reply(client) == ("Thanks.", "1")


async def test_the_file_read_before_the_store_opened_is_one_reload(store_url: str,
                                                                   tmp_path: Path) -> None:
    """A SIGHUP while the store cannot be opened puts the file in force (one reload); once the
    store opens and holds the same rules, they are adopted, not counted or compiled again."""
    from replyguard.proxy.metrics import Metrics
    from replyguard.proxy.state import ActiveRules

    rules = tmp_path / "rules.yaml"
    rules.write_text("never_say: [cheap]\n")
    settings = load_settings(None, env={}, overrides={"replies.rules": str(rules)})
    metrics = Metrics()
    live = LiveRules(ActiveRules(load_rules(rules)), settings, metrics, open_store(store_url))
    rules.write_text("never_say: [guaranteed refund]\n")
    assert await live.reload() is True  # the store not opened yet: the file alone
    assert await live._try_open() is True
    try:
        assert (live.version, metrics.rules_reloads.labels("ok")._value.get()) == (1, 1.0)
        assert live.active.rules == load_rules(rules)
    finally:
        await live.stop()
