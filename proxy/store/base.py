"""The store's one interface, written once in SQL both back ends run: rules versions (a rules
set per tenant, each version's source text and its SHA-256), the active version of each rules
set, and records in a hash chain (proxy.store.chain).

Every write that must see the latest state (a new version under `If-Match`, a batch of records
continuing the chain, a purge) runs in `locked()`: one transaction holding the store's write
lock (SQLite `BEGIN IMMEDIATE`, PostgreSQL `pg_advisory_xact_lock`), so workers and replicas
writing at once take turns and the chain never forks.
"""

from __future__ import annotations

import hashlib
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from replyguard.proxy.store import chain
from replyguard.proxy.store.schema import MIGRATIONS

#: `If-Match` not given: any active version may be replaced.
ANY: Any = object()
#: The most records one page of `list_records` returns.
PAGE_MAX = 500
DEFAULT_SET = "default"
#: Every verdict a record is given (`proxy.records.verdict_of`).
VERDICTS = ("forward", "withhold", "exact", "blocked", "passthrough", "error")
RECORD_COLUMNS = ("id", "created_at", "tenant", "key_id", "request_id", "api", "route",
                  "method", "model", "rules_version", "verdict", "guardrail", "stage",
                  "counts", "status", "upstream_status", "latency_ms", "text",
                  "prev_hash", "hash")


class StoreError(RuntimeError):
    """The store cannot be reached, or refused an operation (never shows credentials)."""


class VersionConflict(StoreError):
    """`If-Match` named a version that is no longer the active one (`.active`)."""

    def __init__(self, active: int | None) -> None:
        super().__init__(f"the active version is {active}")
        self.active = active


@dataclass(frozen=True, slots=True)
class RulesVersion:
    """One stored version of a rules set: its source text (JSON or YAML, as sent) and hash."""

    id: int
    rules_set: str
    created_at: float
    source: str
    content_type: str
    hash: str
    comment: str | None
    active: bool = False


def source_hash(source: str) -> str:
    """The SHA-256 (hex) a version's source is known by: the same text, the same version."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


class Conn(Protocol):
    """What a back end gives inside a transaction: SQL with `?` placeholders."""

    async def fetch(self, sql: str, *args: object) -> list[dict[str, Any]]: ...

    async def execute(self, sql: str, *args: object) -> None: ...

    async def executemany(self, sql: str, rows: Sequence[tuple[object, ...]]) -> None: ...


class Store(ABC):
    """Rules versions and records. `open()` connects and applies the schema migrations;
    `close()` lets go. Raises StoreError when the store cannot be reached."""

    #: The URL as it may be shown (credentials masked).
    shown: str = ""

    @abstractmethod
    async def connect(self) -> None:
        """Connect (without migrating)."""

    @abstractmethod
    async def close(self) -> None:
        """Close every connection."""

    @abstractmethod
    def locked(self) -> AbstractAsyncContextManager[Conn]:
        """A transaction holding the store's write lock."""

    @abstractmethod
    def reading(self) -> AbstractAsyncContextManager[Conn]:
        """A connection for reads."""

    async def open(self) -> None:
        """Connect and bring the schema to the newest version (under the write lock, so
        several processes starting at once migrate once)."""
        await self.connect()
        async with self.locked() as conn:
            await conn.execute("CREATE TABLE IF NOT EXISTS replyguard_schema "
                               "(version INTEGER NOT NULL)")
            rows = await conn.fetch("SELECT MAX(version) AS v FROM replyguard_schema")
            current = rows[0]["v"] or 0
            for version, statements in MIGRATIONS:
                if version > current:
                    for sql in statements:
                        await conn.execute(sql)
                    await conn.execute("INSERT INTO replyguard_schema (version) VALUES (?)",
                                       version)

    # -- rules versions ------------------------------------------------------------------

    async def active_version(self, rules_set: str = DEFAULT_SET) -> int | None:
        """The active version's id of `rules_set`, None when it has none."""
        async with self.reading() as conn:
            rows = await conn.fetch("SELECT version FROM rules_active WHERE rules_set = ?",
                                    rules_set)
        return int(rows[0]["version"]) if rows else None

    async def version(self, version_id: int, rules_set: str = DEFAULT_SET
                      ) -> RulesVersion | None:
        """One version of `rules_set`, None when there is no such version."""
        async with self.reading() as conn:
            rows = await conn.fetch(_VERSION_SQL + " WHERE v.rules_set = ? AND v.id = ?",
                                    rules_set, version_id)
        return _version(rows[0]) if rows else None

    async def versions(self, rules_set: str = DEFAULT_SET, limit: int = 100
                       ) -> list[RulesVersion]:
        """The versions of `rules_set`, newest first."""
        async with self.reading() as conn:
            rows = await conn.fetch(_VERSION_SQL + " WHERE v.rules_set = ? ORDER BY v.id DESC "
                                    "LIMIT ?", rules_set, limit)
        return [_version(r) for r in rows]

    async def add_version(self, source: str, content_type: str, *, comment: str | None = None,
                          rules_set: str = DEFAULT_SET, if_match: Any = ANY,
                          only_new: bool = False, activate: bool = True) -> tuple[int, bool]:
        """Store `source` as a new version and make it active: (its id, True). With
        `only_new`, a source whose hash a version of the set already has adds nothing and
        activates nothing: (that version's id, False). Raises VersionConflict when
        `if_match` is not the active version."""
        digest = source_hash(source)
        async with self.locked() as conn:
            if only_new:
                rows = await conn.fetch("SELECT MIN(id) AS id FROM rules_versions WHERE "
                                        "rules_set = ? AND hash = ?", rules_set, digest)
                if rows[0]["id"] is not None:
                    return int(rows[0]["id"]), False
            active = await conn.fetch("SELECT version FROM rules_active WHERE rules_set = ?",
                                      rules_set)
            current = int(active[0]["version"]) if active else None
            if if_match is not ANY and if_match != current:
                raise VersionConflict(current)
            rows = await conn.fetch("SELECT MAX(id) AS id FROM rules_versions")
            new_id = int(rows[0]["id"] or 0) + 1
            await conn.execute("INSERT INTO rules_versions (id, rules_set, created_at, source, "
                               "content_type, hash, comment) VALUES (?, ?, ?, ?, ?, ?, ?)",
                               new_id, rules_set, time.time(), source, content_type, digest,
                               comment)
            if activate or current is None:
                await _set_active(conn, rules_set, new_id, current is not None)
        return new_id, True

    async def activate(self, version_id: int, rules_set: str = DEFAULT_SET) -> bool:
        """Make a stored version of `rules_set` the active one; False when there is none."""
        async with self.locked() as conn:
            rows = await conn.fetch("SELECT id FROM rules_versions WHERE rules_set = ? AND "
                                    "id = ?", rules_set, version_id)
            if not rows:
                return False
            active = await conn.fetch("SELECT version FROM rules_active WHERE rules_set = ?",
                                      rules_set)
            await _set_active(conn, rules_set, version_id, bool(active))
        return True

    # -- records -------------------------------------------------------------------------

    async def append_records(self, records: Iterable[Mapping[str, Any]]) -> list[int]:
        """Write `records` (column -> value, no id or hashes) at the end of the chain, in
        order: each gets the next id, the hash of the record before it and its own. Returns
        the ids given."""
        async with self.locked() as conn:
            head = await _head(conn)
            last_id, last_hash = head["last_id"], head["last_hash"]
            rows = []
            for record in records:
                last_id += 1
                row = {name: record.get(name) for name in RECORD_COLUMNS}
                row["id"], row["prev_hash"] = last_id, last_hash
                row["hash"] = last_hash = chain.record_hash(last_hash, row)
                rows.append(tuple(row[name] for name in RECORD_COLUMNS))
            if not rows:
                return []
            await conn.executemany(_INSERT_RECORD, rows)
            await conn.execute("UPDATE records_chain SET last_id = ?, last_hash = ?, "
                               "count = count + ? WHERE id = 1", last_id, last_hash, len(rows))
        return list(range(last_id - len(rows) + 1, last_id + 1))

    async def records(self, *, verdict: str | None = None, check: str | None = None,
                      since: float | None = None, until: float | None = None,
                      before_id: int | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Records newest first, filtered (each filter None: any), ids below `before_id`."""
        where, args = [], []
        for sql, value in (("verdict = ?", verdict), ("guardrail = ?", check),
                           ("created_at >= ?", since), ("created_at < ?", until),
                           ("id < ?", before_id)):
            if value is not None:
                where.append(sql)
                args.append(value)
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        async with self.reading() as conn:
            rows = await conn.fetch(f"SELECT * FROM records{clause} ORDER BY id DESC LIMIT ?",
                                    *args, min(limit, PAGE_MAX))
        return [_record(r) for r in rows]

    async def record(self, record_id: int) -> dict[str, Any] | None:
        """One record by id, None when there is none."""
        async with self.reading() as conn:
            rows = await conn.fetch("SELECT * FROM records WHERE id = ?", record_id)
        return _record(rows[0]) if rows else None

    async def chain_head(self) -> dict[str, Any]:
        """The chain's head: `last_id`, `last_hash`, `count` (every record ever written)."""
        async with self.reading() as conn:
            rows = await conn.fetch("SELECT last_id, last_hash, count FROM records_chain "
                                    "WHERE id = 1")
        return dict(rows[0]) if rows else {"last_id": 0, "last_hash": chain.GENESIS,
                                           "count": 0}

    async def checkpoints(self) -> list[dict[str, Any]]:
        """The purges' checkpoints, oldest first (`through_id`, `hash`, `removed`)."""
        async with self.reading() as conn:
            return await conn.fetch("SELECT id, created_at, through_id, hash, removed FROM "
                                    "records_checkpoints ORDER BY id")

    async def chain_records(self, page: int = 5000) -> AsyncIterator[dict[str, Any]]:
        """Every record in id order (for `verify`), read a page at a time."""
        after = -1
        while True:
            async with self.reading() as conn:
                rows = await conn.fetch("SELECT * FROM records WHERE id > ? ORDER BY id "
                                        "LIMIT ?", after, page)
            for row in rows:
                yield dict(row)
            if len(rows) < page:
                return
            after = rows[-1]["id"]

    async def purge(self, before: float) -> int:
        """Delete the oldest records, up to the first made at or after `before` (epoch
        seconds), and write a checkpoint the chain continues from. Returns how many."""
        async with self.locked() as conn:
            rows = await conn.fetch("SELECT MIN(id) AS id FROM records WHERE created_at >= ?",
                                    before)
            keep_from = rows[0]["id"]
            if keep_from is None:
                rows = await conn.fetch("SELECT MAX(id) AS id FROM records")
                if rows[0]["id"] is None:
                    return 0
                through = int(rows[0]["id"])
            else:
                through = int(keep_from) - 1
            gone = await conn.fetch("SELECT COUNT(*) AS n FROM records WHERE id <= ?", through)
            removed = int(gone[0]["n"])
            if removed == 0:
                return 0
            last = await conn.fetch("SELECT hash FROM records WHERE id = ?", through)
            await conn.execute("DELETE FROM records WHERE id <= ?", through)
            rows = await conn.fetch("SELECT MAX(id) AS id FROM records_checkpoints")
            await conn.execute("INSERT INTO records_checkpoints (id, created_at, through_id, "
                               "hash, removed) VALUES (?, ?, ?, ?, ?)",
                               int(rows[0]["id"] or 0) + 1, time.time(), through,
                               last[0]["hash"], removed)
        return removed


_VERSION_SQL = ("SELECT v.id, v.rules_set, v.created_at, v.source, v.content_type, v.hash, "
                "v.comment, CASE WHEN a.version = v.id THEN 1 ELSE 0 END AS active "
                "FROM rules_versions v LEFT JOIN rules_active a ON a.rules_set = v.rules_set")
_INSERT_RECORD = (f"INSERT INTO records ({', '.join(RECORD_COLUMNS)}) VALUES "
                  f"({', '.join('?' * len(RECORD_COLUMNS))})")


async def _set_active(conn: Conn, rules_set: str, version_id: int, exists: bool) -> None:
    if exists:
        await conn.execute("UPDATE rules_active SET version = ?, changed_at = ? WHERE "
                           "rules_set = ?", version_id, time.time(), rules_set)
    else:
        await conn.execute("INSERT INTO rules_active (rules_set, version, changed_at) VALUES "
                           "(?, ?, ?)", rules_set, version_id, time.time())


async def _head(conn: Conn) -> dict[str, Any]:
    rows = await conn.fetch("SELECT last_id, last_hash, count FROM records_chain WHERE id = 1")
    if rows:
        return dict(rows[0])
    await conn.execute("INSERT INTO records_chain (id, last_id, last_hash, count) VALUES "
                       "(1, 0, ?, 0)", chain.GENESIS)
    return {"last_id": 0, "last_hash": chain.GENESIS, "count": 0}


def _version(row: Mapping[str, Any]) -> RulesVersion:
    return RulesVersion(id=int(row["id"]), rules_set=row["rules_set"],
                        created_at=float(row["created_at"]), source=row["source"],
                        content_type=row["content_type"], hash=row["hash"],
                        comment=row["comment"], active=bool(row["active"]))


def _record(row: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["counts"] = orjson.loads(out["counts"]) if out.get("counts") else {}
    return out
