"""The store's schema, as numbered migrations applied in order at start (`Store.open`); the
table `replyguard_schema` holds the versions applied. SQL both back ends run: no
autoincrement (ids are given under the store's write lock), times in epoch seconds.

A new migration is a new entry at the end; an applied one is never edited.
"""

from __future__ import annotations

MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        # Reply rules: each version's source as sent (diffs, download) and its SHA-256; a
        # rules set per tenant ("default" until tenants exist).
        "CREATE TABLE rules_versions (id BIGINT PRIMARY KEY, rules_set TEXT NOT NULL, "
        "created_at DOUBLE PRECISION NOT NULL, source TEXT NOT NULL, "
        "content_type TEXT NOT NULL, hash TEXT NOT NULL, comment TEXT)",
        "CREATE INDEX rules_versions_by_hash ON rules_versions (rules_set, hash)",
        "CREATE TABLE rules_active (rules_set TEXT PRIMARY KEY, version BIGINT NOT NULL, "
        "changed_at DOUBLE PRECISION NOT NULL)",
        # Records: one per model request; verdict is open text (new verdicts need no
        # migration); prev_hash and hash make the chain.
        "CREATE TABLE records (id BIGINT PRIMARY KEY, created_at DOUBLE PRECISION NOT NULL, "
        "tenant TEXT, key_id TEXT, request_id TEXT, api TEXT, route TEXT, method TEXT, "
        "model TEXT, rules_version BIGINT, verdict TEXT, guardrail TEXT, stage TEXT, "
        "counts TEXT, status INTEGER, upstream_status INTEGER, "
        "latency_ms DOUBLE PRECISION, text TEXT, prev_hash TEXT NOT NULL, "
        "hash TEXT NOT NULL)",
        "CREATE INDEX records_by_time ON records (created_at)",
        "CREATE INDEX records_by_verdict ON records (verdict, id)",
        "CREATE INDEX records_by_guardrail ON records (guardrail, id)",
        # The chain's head (one row) and the purges' checkpoints.
        "CREATE TABLE records_chain (id INTEGER PRIMARY KEY, last_id BIGINT NOT NULL, "
        "last_hash TEXT NOT NULL, count BIGINT NOT NULL)",
        "CREATE TABLE records_checkpoints (id BIGINT PRIMARY KEY, "
        "created_at DOUBLE PRECISION NOT NULL, through_id BIGINT NOT NULL, "
        "hash TEXT NOT NULL, removed BIGINT NOT NULL)",
    )),
)
