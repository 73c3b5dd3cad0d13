r"""A hash-chained, append-only log: each entry carries the SHA-256 of the one before it.

``entry_hash = sha256(prev_hash "\n" at "\n" kind "\n" payload)`` with ``payload`` canonical JSON (sorted keys,
no spaces, UTF-8). The first entry's ``prev_hash`` is 64 zeros. Publishing the head hash (at a freeze, at a reveal)
commits to everything before it: changing, inserting or removing any earlier entry changes every later hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64


def canonical_json(payload: Any) -> str:
    """The one JSON text of ``payload`` that is hashed."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(prev_hash: str, at: str, kind: str, payload: str) -> str:
    """The hash of one entry given its predecessor's."""
    return hashlib.sha256("\n".join((prev_hash, at, kind, payload)).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One stored entry."""

    id: int
    at: str
    kind: str
    payload: str
    prev_hash: str
    entry_hash: str


def audit_payload(entry: AuditEntry) -> dict[str, Any]:
    """An entry's payload as an object."""
    payload: dict[str, Any] = json.loads(entry.payload)
    return payload


@dataclass(frozen=True, slots=True)
class ChainCheck:
    """The result of verifying a chain: its head, or the first entry that breaks it."""

    entries: int
    head: str
    broken_at: int | None = None  # id of the first bad entry
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """Whether every entry links to its predecessor and hashes to what it claims."""
        return self.broken_at is None


def verify_chain(entries: Iterable[AuditEntry]) -> ChainCheck:
    """Check every link and hash, in id order."""
    prev = GENESIS
    count = 0
    for entry in entries:
        if entry.prev_hash != prev:
            return ChainCheck(count, prev, entry.id, "its prev_hash is not the hash of the entry before it")
        if entry_hash(entry.prev_hash, entry.at, entry.kind, entry.payload) != entry.entry_hash:
            return ChainCheck(count, prev, entry.id, "its content does not hash to its entry_hash")
        prev = entry.entry_hash
        count += 1
    return ChainCheck(count, prev)
