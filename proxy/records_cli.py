"""`replyguard records list|show|verify|purge [--store URL]`: the chat logs from the command
line. The store is `--store`, else `store.url` of the settings (`--config`, REPLYGUARD_*).
`verify` exits 0 when the chain holds, 1 naming the first broken record."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from replyguard.config.settings import load_settings
from replyguard.proxy.store import VERDICTS, Store, StoreError, open_store
from replyguard.proxy.store.chain import Verdict, Verifier


def _store(args: argparse.Namespace) -> tuple[Store, int]:
    settings = load_settings(args.config)
    url = args.store or settings.store.url
    if url is None:
        raise StoreError("no store is set (store.url is none; give --store URL)")
    store = open_store(url, settings.store.password)
    from replyguard.proxy.store.sqlite import SQLiteStore  # (loaded by open_store for one)

    if isinstance(store, SQLiteStore) and not os.path.exists(store.path):
        # (opening it would create an empty one: records read from it would just be none)
        raise StoreError(f"{store.shown}: no such file in {os.getcwd()} (run the command "
                         "where `serve` ran, or give --store sqlite:////absolute/path)")
    return store, settings.records.retention_days


def _print(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n")


async def _list(store: Store, args: argparse.Namespace) -> int:
    rows = await store.records(verdict=args.verdict, check=args.check, limit=args.limit,
                               before_id=args.cursor)
    for row in rows:
        _print(row)
    return 0


async def _show(store: Store, args: argparse.Namespace) -> int:
    row = await store.record(args.id)
    if row is None:
        sys.stderr.write(f"replyguard: no record {args.id}\n")
        return 1
    _print(row)
    return 0


async def verify(store: Store, anchor: dict[str, Any] | None = None) -> Verdict:
    """Walk the whole chain from its latest checkpoint and check it against its head (and
    `anchor`, a head logged earlier outside the store)."""
    checker = Verifier(await store.checkpoints())
    async for record in store.chain_records():
        if not checker.feed(record):
            break
    return checker.end(await store.chain_head(), anchor)


async def _verify(store: Store, args: argparse.Namespace) -> int:
    anchor = json.loads(args.anchor) if args.anchor else None
    verdict = await verify(store, anchor)
    if verdict.ok:
        sys.stdout.write(f"chain holds: {verdict.checked} records\n")
        return 0
    where = f"record {verdict.broken_id}" if verdict.broken_id is not None else "chain"
    sys.stdout.write(f"broken at {where}: {verdict.why}\n")
    return 1


async def _purge(store: Store, args: argparse.Namespace, days: int) -> int:
    days = args.older_than_days if args.older_than_days is not None else days
    removed = await store.purge(time.time() - days * 86400)
    sys.stdout.write(f"purged {removed} records older than {days} days\n")
    return 0


def cmd_records(args: argparse.Namespace) -> int:
    """Run one `records` action against the store."""
    try:
        store, days = _store(args)
    except StoreError as exc:
        sys.stderr.write(f"replyguard: {exc}\n")
        return 2
    actions: dict[str, Callable[[], Awaitable[int]]] = {
        "list": lambda: _list(store, args), "show": lambda: _show(store, args),
        "verify": lambda: _verify(store, args), "purge": lambda: _purge(store, args, days)}

    async def run() -> int:
        await store.open()
        try:
            return await actions[args.action]()
        finally:
            await store.close()

    try:
        return asyncio.run(run())
    except StoreError as exc:
        sys.stderr.write(f"replyguard: {exc}\n")
        return 2


def add_records_command(sub: Any) -> None:
    """`records` and its actions, on the `replyguard` subcommands."""
    records = sub.add_parser("records", help="chat logs: list, show, verify or purge records")
    actions = records.add_subparsers(dest="action", required=True)
    for name, help_text in (("list", "the newest records"), ("show", "one record"),
                            ("verify", "check the hash chain (exit 1 when broken)"),
                            ("purge", "delete old records, leaving a checkpoint")):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("--store", help="store URL (default: the settings' store.url)")
        action.add_argument("--config", help="settings file (YAML or JSON)")
        if name == "list":
            action.add_argument("--verdict", choices=VERDICTS,
                                help="only records of this verdict")
            action.add_argument("--check", help="the guardrail check (prompt_injection, ...)")
            action.add_argument("--limit", type=int, default=50,
                                help="at most this many records (default 50)")
            action.add_argument("--cursor", type=int, help="records with ids below this")
        elif name == "show":
            action.add_argument("id", type=int, help="the record's id")
        elif name == "verify":
            action.add_argument("--anchor", help="a chain head logged earlier (the JSON of "
                                                 "a records_chain_head line)")
        else:
            action.add_argument("--older-than-days", type=int,
                                help="default: records.retention_days")
    records.set_defaults(func=cmd_records)
