"""The store against both back ends for real (a SQLite file; PostgreSQL at 127.0.0.1:5432 in
a schema of its own): rules versions, records in their hash chain, purge checkpoints, and
`replyguard records verify` catching a record altered, removed or reordered."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from replyguard.proxy.cli import main
from replyguard.proxy.store import ANY, Store, StoreError, VersionConflict, open_store
from replyguard.proxy.store.chain import GENESIS, record_hash


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    opened = open_store(store_url)
    await opened.open()
    yield opened
    await opened.close()


def _record(n: int, **extra: Any) -> dict[str, Any]:
    return {"created_at": 1000.0 + n, "request_id": f"req{n}", "api": "openai",
            "route": "/v1/chat/completions", "method": "POST", "model": "m",
            "rules_version": 1, "verdict": "forward", "counts": "{}", "status": 200,
            "latency_ms": 1.5, **extra}


async def _sql(url: str, statement: str) -> None:
    """Run statements on the store's tables behind its back (a tamperer)."""
    if url.startswith("sqlite"):
        db = sqlite3.connect(url.removeprefix("sqlite:///"))
        db.executescript(statement)
        db.commit()
        db.close()
        return
    base, _, schema = url.partition("?schema=")
    conn = await asyncpg.connect(base, server_settings={"search_path": schema})
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def cli(*args: str) -> int:
    """`replyguard ARGS` (it runs a loop of its own: in a thread)."""
    return await asyncio.to_thread(main, list(args))


async def verify(url: str, capsys: pytest.CaptureFixture[str], *extra: str
                 ) -> tuple[int, str]:
    code = await cli("records", "verify", "--store", url, *extra)
    return code, capsys.readouterr().out


async def test_versions_added_listed_activated(store: Store) -> None:
    assert await store.active_version() is None
    assert await store.add_version("never_say: [a]\n", "application/yaml") == (1, True)
    assert await store.add_version('{"never_say": ["b"]}', "application/json",
                                   comment="second") == (2, True)
    assert await store.active_version() == 2
    listed = await store.versions()
    assert [(v.id, v.active, v.comment, v.content_type) for v in listed] == [
        (2, True, "second", "application/json"), (1, False, None, "application/yaml")]
    assert listed[1].source == "never_say: [a]\n"
    assert await store.activate(1) is True
    assert await store.active_version() == 1
    assert await store.activate(9) is False
    assert await store.version(9) is None


async def test_a_known_content_makes_no_version(store: Store) -> None:
    assert await store.add_version("never_say: [a]\n", "application/yaml") == (1, True)
    assert await store.add_version("never_say: [b]\n", "application/yaml") == (2, True)
    assert await store.add_version("never_say: [a]\n", "application/yaml",
                                   only_new=True) == (1, False)
    assert await store.active_version() == 2  # nothing activated


async def test_if_match_guards_concurrent_edits(store: Store) -> None:
    await store.add_version("never_say: [a]\n", "application/yaml", if_match=None)
    with pytest.raises(VersionConflict) as caught:
        await store.add_version("never_say: [b]\n", "application/yaml", if_match=None)
    assert caught.value.active == 1
    assert await store.add_version("never_say: [b]\n", "application/yaml",
                                   if_match=1) == (2, True)
    assert await store.add_version("never_say: [c]\n", "application/yaml",
                                   if_match=ANY) == (3, True)


async def test_several_writers_keep_one_chain(store_url: str, store: Store,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    others = [open_store(store_url) for _ in range(3)]
    for other in others:
        await other.open()
    try:
        batches = [s.append_records([_record(i * 10 + j) for j in range(10)])
                   for i, s in enumerate([store, *others] * 5)]
        ids = await asyncio.gather(*batches)
    finally:
        for other in others:
            await other.close()
    assert sorted(i for batch in ids for i in batch) == list(range(1, 201))
    assert (await store.chain_head())["count"] == 200
    assert await verify(store_url, capsys) == (0, "chain holds: 200 records\n")


async def test_records_filtered_and_paged_newest_first(store: Store) -> None:
    await store.append_records([_record(1), _record(2, verdict="blocked",
                                                    guardrail="prompt_injection",
                                                    stage="input"),
                                _record(3), _record(4, verdict="blocked",
                                                    guardrail="topic", stage="input")])
    assert [r["id"] for r in await store.records()] == [4, 3, 2, 1]
    assert [r["id"] for r in await store.records(verdict="blocked")] == [4, 2]
    assert [r["id"] for r in await store.records(check="prompt_injection")] == [2]
    assert [r["id"] for r in await store.records(since=1002.0, until=1004.0)] == [3, 2]
    assert [r["id"] for r in await store.records(limit=2, before_id=4)] == [3, 2]
    one = await store.record(2)
    assert one is not None and one["request_id"] == "req2" and one["counts"] == {}
    assert one["prev_hash"] == (await store.record(1) or {})["hash"]
    assert await store.record(99) is None


async def test_the_first_record_follows_the_genesis_hash(store: Store) -> None:
    await store.append_records([_record(1)])
    row = await store.record(1)
    assert row is not None and row["prev_hash"] == GENESIS
    stored = dict(row, counts="{}")
    assert row["hash"] == record_hash(GENESIS, stored)


@pytest.mark.parametrize(("tamper", "broken"), [
    ("UPDATE records SET verdict = 'forward' WHERE id = 3",
     "broken at record 3: record 3 was altered (its hash differs)\n"),
    ("DELETE FROM records WHERE id = 3",
     "broken at record 3: record 3 is missing (the next is 4)\n"),
    ("UPDATE records SET id = -2 WHERE id = 2; UPDATE records SET id = 2 WHERE id = 3; "
     "UPDATE records SET id = 3 WHERE id = -2",
     "broken at record 2: record 2 does not follow record 1 (prev_hash differs)\n"),
    ("DELETE FROM records WHERE id = 5",
     "broken at record 5: record 5 is missing (the head ends at record 5)\n"),
])
async def test_verify_catches_tampering(store_url: str, store: Store, tamper: str,
                                        broken: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    await store.append_records([_record(i, verdict="blocked" if i == 3 else "forward")
                                for i in range(1, 6)])
    assert await verify(store_url, capsys) == (0, "chain holds: 5 records\n")
    await _sql(store_url, tamper)
    assert await verify(store_url, capsys) == (1, broken)


async def test_a_removed_last_record_is_caught_by_the_anchor(
        store_url: str, store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    await store.append_records([_record(i) for i in range(1, 4)])
    head = await store.chain_head()
    anchor = json.dumps(head)
    # The tamperer deletes the last record and rewinds the head too.
    await _sql(store_url, "DELETE FROM records WHERE id = 3")
    row = await store.record(2)
    assert row is not None
    await _sql(store_url, f"UPDATE records_chain SET last_id = 2, last_hash = '{row['hash']}', "
                          "count = 2")
    assert await verify(store_url, capsys) == (0, "chain holds: 2 records\n")
    assert await verify(store_url, capsys, "--anchor", anchor) == (
        1, "broken at record 3: record 3 is missing (the anchor ends at record 3)\n")


async def test_purge_leaves_a_checkpoint_the_chain_continues_from(
        store_url: str, store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    await store.append_records([_record(i) for i in range(1, 7)])
    assert await store.purge(before=1004.0) == 3
    assert [r["id"] for r in await store.records()] == [6, 5, 4]
    assert await verify(store_url, capsys) == (0, "chain holds: 3 records\n")
    await store.append_records([_record(7)])
    assert await verify(store_url, capsys) == (0, "chain holds: 4 records\n")
    assert await store.purge(before=1000.0) == 0
    await _sql(store_url, "DELETE FROM records WHERE id = 4")  # not a purge: no checkpoint
    assert await verify(store_url, capsys) == (
        1, "broken at record 4: record 4 is missing (the next is 5)\n")


async def test_records_cli_lists_and_shows(store_url: str, store: Store,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    await store.append_records([_record(1), _record(2, verdict="blocked")])
    assert await cli("records", "list", "--store", store_url, "--verdict", "blocked") == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and '"request_id": "req2"' in out[0]
    assert await cli("records", "show", "--store", store_url, "9") == 1
    assert capsys.readouterr().err == "replyguard: no record 9\n"


async def test_records_of_a_sqlite_file_that_is_not_there_are_refused_and_none_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for action in ("list", "verify", "purge"):
        assert await cli("records", action, "--store", "sqlite:///replyguard.db") == 2
        assert capsys.readouterr().err == (
            f"replyguard: sqlite:///replyguard.db: no such file in {tmp_path} (run the command "
            "where `serve` ran, or give --store sqlite:////absolute/path)\n")
    assert list(tmp_path.iterdir()) == []


async def test_an_unreachable_store_is_named_without_its_password(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = await cli("records", "list", "--store",
                 "postgresql://rg:s3cr3t-pw@127.0.0.1:1/test")
    err = capsys.readouterr().err
    assert (code, err) == (2, "replyguard: postgresql://***@127.0.0.1:1/test: cannot "
                              "connect (ConnectionRefusedError)\n")


async def test_an_unknown_scheme_is_refused() -> None:
    with pytest.raises(StoreError, match=r"^mysql://\*\*\*@h/db: unknown store"):
        open_store("mysql://u:pw@h/db")
