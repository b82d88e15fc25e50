"""The PostgreSQL back end (`postgresql://...`), for a fleet: asyncpg's pool; the store's
write lock is a transaction-scoped advisory lock (`pg_advisory_xact_lock`), taken by every
replica before it adds a version or continues the records' chain. `?schema=NAME` in the URL
keeps the tables in a schema of their own (created when missing)."""

from __future__ import annotations

import re
import zlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from replyguard.proxy.store.base import Store, StoreError

_MARK = re.compile(r"\?")
#: Seconds to connect, and for any one statement.
TIMEOUT_S = 10.0


def _numbered(sql: str) -> str:
    """`?` placeholders as PostgreSQL's `$1`, `$2`, ..."""
    counter = iter(range(1, 10_000))
    return _MARK.sub(lambda _: f"${next(counter)}", sql)


class _Conn:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def fetch(self, sql: str, *args: object) -> list[dict[str, Any]]:
        return [dict(r) for r in await self.conn.fetch(_numbered(sql), *args)]

    async def execute(self, sql: str, *args: object) -> None:
        await self.conn.execute(_numbered(sql), *args)

    async def executemany(self, sql: str, rows: Sequence[tuple[object, ...]]) -> None:
        await self.conn.executemany(_numbered(sql), rows)


_FAILURES = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError)


class PostgresStore(Store):
    """A store in the PostgreSQL database at `dsn` (schema `schema` when given)."""

    def __init__(self, dsn: str, shown: str, password: str | None = None,
                 schema: str | None = None) -> None:
        self.shown, self.schema = shown, schema
        self._dsn, self._password = dsn, password
        self._pool: Any = None
        self._lock_key = zlib.crc32(f"replyguard:{schema or 'public'}".encode())

    async def connect(self) -> None:
        settings = {"search_path": self.schema} if self.schema else None
        try:
            if self.schema:
                conn = await asyncpg.connect(self._dsn, password=self._password,
                                             timeout=TIMEOUT_S)
                try:
                    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                finally:
                    await conn.close()
            self._pool = await asyncpg.create_pool(
                self._dsn, password=self._password, min_size=1, max_size=4,
                timeout=TIMEOUT_S, command_timeout=TIMEOUT_S, server_settings=settings)
        except Exception as exc:  # noqa: BLE001 - a bad DSN too; its text may hold the password
            raise StoreError(f"{self.shown}: cannot connect ({type(exc).__name__})") from None

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            try:
                await pool.close()
            except _FAILURES:
                pool.terminate()

    def _ready(self) -> Any:
        if self._pool is None:
            raise StoreError(f"{self.shown}: not open")
        return self._pool

    @asynccontextmanager
    async def locked(self) -> AsyncIterator[_Conn]:
        try:
            async with self._ready().acquire() as conn, conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", self._lock_key)
                yield _Conn(conn)
        except _FAILURES as exc:
            raise StoreError(f"{self.shown}: {type(exc).__name__}: {_safe(exc)}") from None

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[_Conn]:
        try:
            async with self._ready().acquire() as conn:
                yield _Conn(conn)
        except _FAILURES as exc:
            raise StoreError(f"{self.shown}: {type(exc).__name__}: {_safe(exc)}") from None


def _safe(exc: BaseException) -> str:
    """A driver error's message, for a log line: PostgreSQL's own messages name objects, not
    values; a connection error's text is replaced (it may hold the host's address only)."""
    if isinstance(exc, asyncpg.PostgresError):
        return str(getattr(exc, "message", "") or type(exc).__name__)[:200]
    return "connection lost"
