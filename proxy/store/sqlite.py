"""The SQLite back end (`sqlite:///path`): one file, aiosqlite's connection (a thread of its
own), WAL journal so readers never wait for the writer. Every process has its own
connection; `BEGIN IMMEDIATE` takes the file's write lock (waiting up to BUSY_TIMEOUT_MS for
another process), so the workers of one machine write in turns."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite

from replyguard.proxy.store.base import Store, StoreError

BUSY_TIMEOUT_MS = 10_000


class _Conn:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def fetch(self, sql: str, *args: object) -> list[dict[str, Any]]:
        async with self.db.execute(sql, args) as cursor:
            return [dict(row) for row in await cursor.fetchall()]

    async def execute(self, sql: str, *args: object) -> None:
        await self.db.execute(sql, args)

    async def executemany(self, sql: str, rows: Sequence[tuple[object, ...]]) -> None:
        await self.db.executemany(sql, rows)


class SQLiteStore(Store):
    """A store in the SQLite file at `path`."""

    def __init__(self, path: str, shown: str) -> None:
        self.path, self.shown = path, shown
        self._db: aiosqlite.Connection | None = None
        self._turn = asyncio.Lock()  # one connection: one statement sequence at a time

    async def connect(self) -> None:
        try:
            db = await aiosqlite.connect(self.path, isolation_level=None)
            db.row_factory = sqlite3.Row
            await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute("PRAGMA synchronous = NORMAL")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.shown}: cannot open ({exc})") from None
        self._db = db

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StoreError(f"{self.shown}: not open")
        return self._db

    @asynccontextmanager
    async def locked(self) -> AsyncIterator[_Conn]:
        async with self._turn:
            db = self._conn()
            try:
                await db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"{self.shown}: {exc}") from None
            try:
                yield _Conn(db)
            except sqlite3.Error as exc:
                await db.execute("ROLLBACK")
                raise StoreError(f"{self.shown}: {exc}") from None
            except BaseException:
                await db.execute("ROLLBACK")
                raise
            try:
                await db.execute("COMMIT")
            except sqlite3.Error as exc:
                await db.execute("ROLLBACK")
                raise StoreError(f"{self.shown}: {exc}") from None

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[_Conn]:
        async with self._turn:
            try:
                yield _Conn(self._conn())
            except sqlite3.Error as exc:
                raise StoreError(f"{self.shown}: {exc}") from None
