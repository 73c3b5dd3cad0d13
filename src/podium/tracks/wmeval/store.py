"""The wmeval database on the core store: its migrations, its PostgreSQL lock key and its audit log.

Every write runs in ``transaction(engine)`` (the database's write lock, see ``podium.core.storage.store``); every
ingest, assignment, account, score and re-assignment is appended to the audit log inside it.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from podium.core.storage.store import AuditLog, TrackStore
from podium.tracks.wmeval.schema import VERSION_TABLE, audit_log

STORE = TrackStore(Path(__file__).parent / "migrations", VERSION_TABLE, lock_key=0x776D6576, audit=AuditLog(audit_log))
transaction = STORE.transaction
append_audit = STORE.audit.append
audit_entries = STORE.audit.entries


def open_store(url: str) -> Engine:
    """An engine for the wmeval database at ``url``, migrated to the newest schema."""
    return STORE.open(url)
