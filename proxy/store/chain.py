"""The records' SHA-256 hash chain: each record holds the hash of the one before it
(`prev_hash`) and its own, SHA-256 over the previous hash and the record's canonical form
(its columns as JSON, keys sorted, without the two hashes). Altering a record breaks its own
hash; removing or reordering one breaks the next one's `prev_hash` or the ids' sequence; a
purge leaves a checkpoint (the hash of the last record removed) the chain continues from; a
removed last record is caught against the head anchored outside the records table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

#: The `prev_hash` of the very first record.
GENESIS = "0" * 64
_UNHASHED = frozenset({"prev_hash", "hash"})


def canonical(record: Mapping[str, Any]) -> bytes:
    """The bytes a record's hash covers: its columns but the hashes, as sorted JSON."""
    return orjson.dumps({k: v for k, v in record.items() if k not in _UNHASHED},
                        option=orjson.OPT_SORT_KEYS)


def record_hash(prev_hash: str, record: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of `prev_hash`, a newline and the record's canonical form."""
    return hashlib.sha256(prev_hash.encode() + b"\n" + canonical(record)).hexdigest()


@dataclass(frozen=True, slots=True)
class Verdict:
    """What `verify` found: `ok`, the records read, and the first broken record's id with
    why (None when the chain holds)."""

    ok: bool
    checked: int
    broken_id: int | None = None
    why: str = ""


def _start(checkpoints: Iterable[Mapping[str, Any]]) -> tuple[int, str, int]:
    """(last id removed, its hash, records removed in all) from the purges' checkpoints."""
    through, digest, removed = 0, GENESIS, 0
    for cp in checkpoints:
        through, digest = int(cp["through_id"]), str(cp["hash"])
        removed += int(cp["removed"])
    return through, digest, removed


class Verifier:
    """Walks records in id order (`feed`), then checks the end against the head (`end`)."""

    def __init__(self, checkpoints: Iterable[Mapping[str, Any]]) -> None:
        self.last_id, self.last_hash, self.removed = _start(checkpoints)
        self.checked = 0
        self.broken: Verdict | None = None

    def feed(self, record: Mapping[str, Any]) -> bool:
        """Check one record; False (and `broken` set) at the first one that breaks."""
        if self.broken is not None:
            return False
        rid = int(record["id"])
        why = ""
        if rid != self.last_id + 1:
            why = (f"record {self.last_id + 1} is missing (the next is {rid})"
                   if rid > self.last_id + 1 else f"record {rid} is out of order")
            rid = self.last_id + 1 if rid > self.last_id else rid
        elif record["prev_hash"] != self.last_hash:
            why = f"record {rid} does not follow record {self.last_id} (prev_hash differs)"
        elif record_hash(self.last_hash, record) != record["hash"]:
            why = f"record {rid} was altered (its hash differs)"
        if why:
            self.broken = Verdict(False, self.checked, rid, why)
            return False
        self.last_id, self.last_hash = rid, str(record["hash"])
        self.checked += 1
        return True

    def end(self, head: Mapping[str, Any], anchor: Mapping[str, Any] | None = None) -> Verdict:
        """The verdict, once every record was fed: the last record and the count must be
        the head's (and the anchor's, the head as logged outside the store, when given)."""
        if self.broken is not None:
            return self.broken
        for name, mark in (("head", head), ("anchor", anchor)):
            if mark is None:
                continue
            last_id = int(mark.get("last_id", self.last_id))
            if last_id > self.last_id:
                return Verdict(False, self.checked, self.last_id + 1,
                               f"record {self.last_id + 1} is missing (the {name} ends at "
                               f"record {last_id})")
            if last_id == self.last_id and mark.get("last_hash", self.last_hash) != \
                    self.last_hash:
                return Verdict(False, self.checked, last_id,
                               f"record {last_id} is not the {name}'s last record")
            count = mark.get("count")
            if count is not None and last_id == self.last_id and \
                    int(count) != self.removed + self.checked:
                return Verdict(False, self.checked, None,
                               f"{int(count)} records written, {self.removed} purged and "
                               f"{self.checked} stored")
        return Verdict(True, self.checked)
