"""The reply rules, live: the store's active version applied in every process within
`store.poll_s` of its activation, and the rules file watched (mtime, size, then SHA-256) and
reloaded on SIGHUP, each distinct content made a version once.

A new version is compiled off the event loop, then put in force in one step on it: a request
keeps the compiled rules it started with. A document that cannot be used keeps the rules in
force (logged with every error, counted in `replyguard_rules_reloads_total{result="error"}`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from aiohttp import web

from replyguard.config.errors import ConfigError
from replyguard.config.files import parse_document, read_document
from replyguard.config.rules import parse_rules
from replyguard.config.settings import Settings
from replyguard.engine.rules import ReplyRules
from replyguard.proxy.metrics import Metrics
from replyguard.proxy.state import ActiveRules
from replyguard.proxy.store import Store, StoreError

log = logging.getLogger("replyguard")
#: How many times a worker starting tries a store another worker holds (`LiveRules.start`).
_BUSY_TRIES = 5


def _busy(error: BaseException | None) -> bool:
    """Is `error` a store held by another writer (SQLite `database is locked` / busy)?"""
    text = str(error).lower()
    return "locked" in text or "busy" in text
#: What a SIGHUP does not change: the settings are read once, at start.
NOT_LIVE = ("the settings (file and REPLYGUARD_* variables) are read at start only: a "
            "change to them needs a restart")


def read_rules(source: str, content_type: str, name: str | None = None
               ) -> tuple[ReplyRules, object]:
    """(rules, parsed document) of a rules document: JSON for a JSON content type, else YAML.
    Raises ConfigError listing every problem (`personal_data.cardd: unknown class ...`),
    each starting with `name` (the file's; `rules.yaml` or `rules.json` by default)."""
    name = name or ("rules.json" if "json" in content_type else "rules.yaml")
    document = parse_document(source, name)
    return parse_rules(document, name), document if document is not None else {}


def content_type_of(path: Path) -> str:
    """The content type a rules file is stored with (by its name: `.json` or YAML)."""
    return "application/json" if path.suffix.lower() == ".json" else "application/yaml"


class LiveRules:
    """The rules in force (`version`: the stored version's id, None before one is loaded or
    without a store), kept current from the store and the rules file. `ready` is False only
    while the store could not be read at start and no rules file stands in for it."""

    def __init__(self, active: ActiveRules, settings: Settings, metrics: Metrics,
                 store: Store | None, document: object = None) -> None:
        self.active, self.settings, self.metrics, self.store = active, settings, metrics, store
        self.file = settings.replies.rules
        self.version: int | None = None
        self.document: object = document if document is not None else _file_document(
            self.file)
        self.opened = store is None
        self.ready = store is None or self.file is not None
        self._seen: tuple[int, int] | None = None  # the file's (mtime_ns, size) last read
        self._moving: tuple[int, int] | None = None  # a change seen, not yet settled
        self._file_hash: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._polling = asyncio.Lock()
        self._store_failing = False
        self._error: BaseException | None = None  # the last failure to open the store

    # -- start and stop ------------------------------------------------------------------


    async def start(self) -> None:
        """Open the store (a first try; the loop keeps trying) and start watching. A store
        busy with another worker's opening (SQLite's `database is locked` while the first
        worker applies the migrations) is tried again up to `_BUSY_TRIES` times first, so that a
        worker does not start answering 503 while its neighbour holds the file."""
        if self.store is not None:
            for _ in range(_BUSY_TRIES):
                if await self._try_open() or not _busy(self._error):
                    break
                await asyncio.sleep(0.2)
        else:  # the file as given at start is the one in force: only a change is a reload
            await self.sync_file(startup=True)
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        """Stop watching and close the store."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.store is not None and self.opened:
            await self.store.close()

    async def _try_open(self) -> bool:
        assert self.store is not None
        try:
            await asyncio.wait_for(self.store.open(), timeout=15.0)
            self.opened = True
            await self.sync_file(startup=True)
            await self.poll()
            self.ready = True  # the active version, or the built-in rules when none is
        except (StoreError, TimeoutError, OSError) as exc:
            self._error = exc
            self._failing(exc)
            if self.opened:
                return True
            with contextlib.suppress(StoreError, OSError):
                await self.store.close()
            return False
        self._recovered()
        return True

    def _failing(self, exc: BaseException) -> None:
        if not self._store_failing:
            self._store_failing = True
            log.error(json.dumps({"event": "store_unreachable", "store": self.store.shown
                                  if self.store else None, "error": str(exc)[:300],
                                  "rules": "kept" if self.ready else "none yet (503)"}))

    def _recovered(self) -> None:
        if self._store_failing:
            self._store_failing = False
            log.info(json.dumps({"event": "store_reachable", "version": self.version}))

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.store.poll_s)
            try:
                if not self.opened:
                    await self._try_open()
                    continue
                await self.sync_file()
                await self.poll()
                self._recovered()
            except (StoreError, OSError) as exc:
                self._failing(exc)
            except Exception:  # noqa: BLE001 - the watch must outlive any one round
                log.exception("rules watch failed; the rules in force stay")

    # -- the store's active version --------------------------------------------------------

    async def poll(self) -> bool:
        """Put the store's active version in force if it is not yet; True when it changed.
        One at a time (the watch and an admin route may ask at once)."""
        async with self._polling:
            return await self._poll()

    async def _poll(self) -> bool:
        if self.store is None or not self.opened:
            return False
        active = await self.store.active_version()
        if active is None or active == self.version:
            return False
        stored = await self.store.version(active)
        if stored is None:
            return False
        if self.version is None:  # the rules given at start, or read from the file while
            # the store could not be opened: the same rules stored need no reload
            if await self._in_force_already(stored.source, stored.content_type):
                self.version = active  # the rules given at start, compiled already
                self.metrics.rules_version.set(active)
                return False
        return await self._apply(stored.source, stored.content_type, active)

    async def _in_force_already(self, source: str, content_type: str) -> bool:
        """Are these the rules in force (those given at start)? Then nothing is compiled."""
        try:
            rules, document = await asyncio.to_thread(read_rules, source, content_type)
        except ConfigError:
            return False
        if rules != self.active.rules:
            return False
        self.document = document
        return True

    async def _apply(self, source: str, content_type: str, version: int | None) -> bool:
        try:
            rules, document = await asyncio.to_thread(read_rules, source, content_type)
            fresh = await asyncio.to_thread(ActiveRules, rules,
                                            phone_regions=self.active.phone_regions)
        except ConfigError as exc:
            self.metrics.rules_reloads.labels("error").inc()
            log.error(json.dumps({"event": "rules_reload_failed", "version": version,
                                  "errors": exc.errors}))
            return False
        self.put_in_force(fresh, document, version)
        return True

    def put_in_force(self, fresh: ActiveRules, document: object, version: int | None) -> None:
        """Make `fresh` (compiled) the rules in force, in one step on the event loop."""
        active = self.active
        active.rules, active.compiled, active.version = (fresh.rules, fresh.compiled,
                                                         active.version + 1)
        self.version, self.document, self.ready = version, document, True
        self.metrics.rules_reloads.labels("ok").inc()
        self.metrics.rules_version.set(version or 0)
        log.info(json.dumps({"event": "rules_reloaded", "version": version}))

    # -- the rules file ------------------------------------------------------------------

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.file) if self.file is not None else None
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size) if st is not None else None

    async def sync_file(self, *, startup: bool = False, force: bool = False) -> bool:
        """Read the rules file when it changed and then stayed as it was for one look (at
        once with `force`, SIGHUP): its content is put in force, as a new version when no
        version has it, else as the version that has it (a file put back as it was brings
        back its rules); without a store, as the rules in force. At start, a file whose
        content is not the active version's changes nothing (the fleet's active version
        stays) and says so in the log. True when the rules changed.
        """
        if self.file is None:
            return False
        stat = self._stat()
        if not (startup or force):
            if stat == self._seen:
                self._moving = None
                return False
            if stat != self._moving:  # changed since the last look: read it once it settles
                self._moving = stat  # (a file being written is never read half-way)
                return False
        self._seen, self._moving = stat, None
        try:
            source = await asyncio.to_thread(self.file.read_bytes)
            text = source.decode("utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            self.metrics.rules_reloads.labels("error").inc()
            log.error(json.dumps({"event": "rules_reload_failed", "file": str(self.file),
                                  "errors": [f"{self.file.name}: cannot read "
                                             f"({type(exc).__name__})"]}))
            return False
        from replyguard.proxy.store.base import source_hash

        digest = source_hash(text)
        if digest == self._file_hash and not (startup or force):
            return False
        self._file_hash = digest
        return await self._file_changed(text, startup)

    async def _file_changed(self, text: str, startup: bool) -> bool:
        assert self.file is not None
        kind = content_type_of(self.file)
        try:
            await asyncio.to_thread(read_rules, text, kind, self.file.name)
        except ConfigError as exc:
            self.metrics.rules_reloads.labels("error").inc()
            log.error(json.dumps({"event": "rules_reload_failed", "file": str(self.file),
                                  "errors": exc.errors, "kept_version": self.version}))
            return False
        if self.store is None or not self.opened:
            if startup:
                return False  # the rules given at start are this file's already
            return await self._apply(text, kind, None)
        version, created = await self.store.add_version(
            text, kind, comment=f"file {self.file.name}", only_new=True)
        if created:
            log.info(json.dumps({"event": "rules_version_added", "version": version,
                                 "source": "file", "file": str(self.file)}))
        elif not await self._stored_file_in_force(version, startup):
            return False
        return await self.poll()

    async def _stored_file_in_force(self, version: int, startup: bool) -> bool:
        """The file's content is stored as `version` already: make it the active version (a
        change of the file, SIGHUP), or at start only say where it stands. True when the
        active version changed."""
        assert self.store is not None and self.file is not None
        active = await self.store.active_version()
        if active == version:
            if not startup:
                log.info(json.dumps({"event": "rules_file_in_force", "version": version,
                                     "file": str(self.file)}))
            return False
        if startup:
            log.warning(json.dumps({"event": "rules_file_not_in_force", "file": str(self.file),
                                    "file_version": version, "active_version": active,
                                    "hint": "SIGHUP puts the file's rules in force"}))
            return False
        await self.store.activate(version)
        log.info(json.dumps({"event": "rules_version_activated", "version": version,
                             "source": "file", "file": str(self.file)}))
        return True

    async def reload(self) -> bool:
        """SIGHUP: read the rules file now (and the store's active version)."""
        log.info(json.dumps({"event": "reload", "file": str(self.file) if self.file else None,
                             "not_live": NOT_LIVE}))
        changed = await self.sync_file(force=True)
        try:
            changed = await self.poll() or changed
        except StoreError as exc:
            self._failing(exc)
        return changed


LIVE = web.AppKey("live_rules", LiveRules)


def _file_document(path: Path | None) -> object:
    """The rules file's document (for `GET /v1/reply-rules`), {} without one."""
    if path is None:
        return {}
    try:
        return read_document(path) or {}
    except ConfigError:
        return {}


def version_header(live: LiveRules | None) -> str:
    """`X-ReplyGuard-Rules-Version`: the stored version's id, `file` (the rules file, no
    store version yet) or `builtin` (the built-in rules)."""
    if live is not None and live.version is not None:
        return str(live.version)
    settings_file: Any = live.file if live is not None else None
    return "file" if settings_file is not None else "builtin"
