"""The dojo's database: opening it, serialised write transactions, and the audit log inside them.

Every write runs in ``transaction()``, which first takes the database's write lock — ``BEGIN IMMEDIATE`` on
SQLite, a transaction-scoped advisory lock on PostgreSQL — so audit entries chain in one order even when several
web and worker processes write at once, and a claimed job is never claimed twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event, insert, select, text

from podium.core.storage.audit import GENESIS, AuditEntry, canonical_json, entry_hash
from podium.core.storage.sql import open_engine, upgrade
from podium.tracks.dojo.schema import VERSION_TABLE, audit_log

MIGRATIONS = Path(__file__).parent / "migrations"
ADVISORY_LOCK_KEY = 0x646F6A6F  # "dojo"


def open_store(url: str) -> Engine:
    """An engine for the dojo database at ``url``, migrated to the newest schema."""
    engine = open_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_manual_transactions)
        event.listen(engine, "begin", _sqlite_begin_immediate)
    upgrade(engine, MIGRATIONS, VERSION_TABLE)
    return engine


def _sqlite_manual_transactions(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite's own BEGIN is DEFERRED; take over so every transaction starts with the write lock (see below).
    dbapi_connection.isolation_level = None


def _sqlite_begin_immediate(connection: Connection) -> None:
    # A deferred transaction that reads then writes can fail at once with SQLITE_BUSY under WAL; IMMEDIATE waits
    # for the lock (busy_timeout) instead, which is what concurrent writers need.
    connection.exec_driver_sql("BEGIN IMMEDIATE")


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """A write transaction holding the database-wide write lock."""
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK_KEY})
        yield connection


def append_audit(connection: Connection, at: str, kind: str, payload: dict[str, Any]) -> str:
    """Append one entry (inside a ``transaction``) and return its hash, the new head."""
    body = canonical_json(payload)
    prev = audit_head(connection)
    digest = entry_hash(prev, at, kind, body)
    connection.execute(insert(audit_log).values(at=at, kind=kind, payload=body, prev_hash=prev, entry_hash=digest))
    return digest


def audit_head(connection: Connection) -> str:
    """The newest entry's hash (64 zeros for an empty log)."""
    head = connection.execute(select(audit_log.c.entry_hash).order_by(audit_log.c.id.desc()).limit(1)).scalar()
    return head or GENESIS


def audit_entries(connection: Connection) -> list[AuditEntry]:
    """Every entry in order."""
    rows = connection.execute(select(audit_log).order_by(audit_log.c.id)).all()
    return [AuditEntry(r.id, r.at, r.kind, r.payload, r.prev_hash, r.entry_hash) for r in rows]


def audit_payload(entry: AuditEntry) -> dict[str, Any]:
    """An entry's payload as an object."""
    payload: dict[str, Any] = json.loads(entry.payload)
    return payload
