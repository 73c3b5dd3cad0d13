"""A track's SQL store: write transactions that hold the database's write lock, and the audit log inside them.

Every write runs in ``TrackStore.transaction(engine)``, which first takes the write lock — ``BEGIN IMMEDIATE``
on SQLite (every transaction of an engine from ``TrackStore.open``), a transaction-scoped advisory lock keyed by
the track on PostgreSQL — so the track's audit entries chain in one order even when several web and worker
processes write at once. ``AuditLog.append`` adds an entry (hashing in ``podium.core.storage.audit``) in the same
transaction as the change it records: both are stored, or neither.

A track owns its tables (``audit_table`` makes its audit log's), its migrations and its lock key; several tracks
can share one database without sharing a chain or waiting on each other's PostgreSQL lock::

    STORE = TrackStore(MIGRATIONS, "mytrack_alembic_version", lock_key=0x6D797472, audit=AuditLog(audit_log))
    engine = STORE.open(url)
    with STORE.transaction(engine) as db:
        db.execute(...)
        STORE.audit.append(db, utc_text(clock.now()), "score_changed", {"item": 7, "score": 3})
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Connection, Engine, Integer, MetaData, String, Table, Text, event, insert, select, text
from sqlalchemy.exc import DBAPIError

from podium.core.storage.audit import GENESIS, AuditEntry, canonical_json, entry_hash
from podium.core.storage.sql import check_reachable, open_engine, upgrade


def audit_table(metadata: MetaData, name: str) -> Table:
    """An audit log table called ``name`` (its migration must create the same columns)."""
    return Table(
        name,
        metadata,
        Column("id", Integer, primary_key=True),
        Column("at", String(32), nullable=False),
        Column("kind", String(32), nullable=False),
        Column("payload", Text, nullable=False),  # canonical JSON
        Column("prev_hash", String(64), nullable=False),
        Column("entry_hash", String(64), nullable=False, unique=True),
    )


class AuditLog:
    """The hash-chained log in one track's audit table; append only inside a write-locked transaction."""

    def __init__(self, table: Table) -> None:
        self.table = table
        # built once: a judge appends an entry per judgment, and building these per call cost ~0.3 ms each time
        self._newest = select(table.c.entry_hash).order_by(table.c.id.desc()).limit(1)
        self._insert = insert(table)

    def append(self, connection: Connection, at: str, kind: str, payload: dict[str, Any]) -> str:
        """Append one entry and return its hash, the new head."""
        body = canonical_json(payload)
        prev = self.head(connection)
        digest = entry_hash(prev, at, kind, body)
        entry = {"at": at, "kind": kind, "payload": body, "prev_hash": prev, "entry_hash": digest}
        connection.execute(self._insert, entry)
        return digest

    def head(self, connection: Connection) -> str:
        """The newest entry's hash (64 zeros for an empty log)."""
        return connection.execute(self._newest).scalar() or GENESIS

    def entries(self, connection: Connection, kinds: tuple[str, ...] | None = None) -> list[AuditEntry]:
        """Every entry in order, or those of ``kinds`` only."""
        query = select(self.table).order_by(self.table.c.id)
        if kinds is not None:
            query = query.where(self.table.c.kind.in_(kinds))
        rows = connection.execute(query).all()
        return [AuditEntry(r.id, r.at, r.kind, r.payload, r.prev_hash, r.entry_hash) for r in rows]


_REVISION = re.compile(r"^(down_revision|revision)\s*=\s*['\"]?([\w-]+|None)['\"]?\s*$", re.MULTILINE)


def head_revision(migrations: Path) -> str | None:
    """The one revision no other revision of ``migrations`` builds on, from the scripts' assignments.

    None when there is not exactly one (a merge's tuple of parents is not read): Alembic then decides.
    """
    revisions, parents = set(), set()
    for script in (migrations / "versions").glob("*.py"):
        found = dict((name, value) for name, value in _REVISION.findall(script.read_text(encoding="utf-8")))
        if "revision" in found:
            revisions.add(found["revision"])
            parents.add(found.get("down_revision"))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


@dataclass(frozen=True, slots=True)
class TrackStore:
    """Where a track's database lives: its migrations, version table, PostgreSQL lock key and audit log."""

    migrations: Path
    version_table: str
    lock_key: int  # pg_advisory_xact_lock key: one per track, so tracks sharing a database do not serialise
    audit: AuditLog

    def open(self, url: str) -> Engine:
        """An engine for ``url``, migrated to the track's newest schema, every transaction write-locked."""
        engine = open_engine(url)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_manual_transactions)
            event.listen(engine, "begin", _sqlite_begin_immediate)
        # After the listeners: the pool keeps this first connection, which must be set up like every other.
        check_reachable(engine)  # one line with the fix, before Alembic would fail with a traceback
        if not self.at_head(engine):
            upgrade(engine, self.migrations, self.version_table)
        return engine

    def at_head(self, engine: Engine) -> bool:
        """Whether the database already stands at the newest migration, read without Alembic.

        Importing Alembic costs about 0.15 s, a third of a CLI command like ``podium dojo submit``; a database
        already migrated (nearly every open) needs none of it. Anything unexpected (no version table yet, two
        heads) answers no, and Alembic decides.
        """
        try:
            with engine.connect() as connection:
                stored = connection.execute(text(f"SELECT version_num FROM {self.version_table}")).scalars().all()
        except DBAPIError:
            return False  # a new database: no version table yet
        return len(stored) == 1 and stored[0] == head_revision(self.migrations)

    @contextmanager
    def transaction(self, engine: Engine) -> Iterator[Connection]:
        """A transaction holding the write lock; commits when the block ends, rolls back on an exception.

        On SQLite the threads of one process also queue on an in-process lock first: SQLite's busy handler waits
        for the file lock by sleeping in growing steps (up to 100 ms each), so fifty web threads contending for it
        waited seconds for what takes a millisecond; a thread lock hands over at once. Other processes still meet
        at the file lock, as before.
        """
        if engine.dialect.name == "sqlite":
            with _process_writer_lock(engine), engine.begin() as connection:
                yield connection
            return
        with engine.begin() as connection:
            if engine.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": self.lock_key})
            yield connection


_WRITER_LOCKS: weakref.WeakKeyDictionary[Engine, threading.RLock] = weakref.WeakKeyDictionary()
_WRITER_LOCKS_GUARD = threading.Lock()


def _process_writer_lock(engine: Engine) -> threading.RLock:
    # re-entrant: a nested transaction behaves as it did without this lock (it meets SQLite's own lock)
    with _WRITER_LOCKS_GUARD:
        return _WRITER_LOCKS.setdefault(engine, threading.RLock())


def _sqlite_manual_transactions(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite's own BEGIN is DEFERRED; take over so every transaction starts with the write lock (see below).
    dbapi_connection.isolation_level = None


def _sqlite_begin_immediate(connection: Connection) -> None:
    # A deferred transaction that reads then writes can fail at once with SQLITE_BUSY under WAL; IMMEDIATE waits
    # for the lock (busy_timeout) instead, which is what concurrent writers need.
    connection.exec_driver_sql("BEGIN IMMEDIATE")
