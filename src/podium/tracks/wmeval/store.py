"""The wmeval database on the core store: its migrations, its PostgreSQL lock key and its audit log.

Every write runs in ``transaction(engine)`` (the database's write lock, see ``podium.core.storage.store``); every
ingest, assignment, account, score and re-assignment is appended to the audit log inside it.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from podium.core.accounts import Account, Accounts
from podium.core.clock import Clock, utc_text
from podium.core.sessions import Sessions
from podium.core.storage.store import AuditLog, TrackStore
from podium.tracks.wmeval.kinds import Role
from podium.tracks.wmeval.schema import VERSION_TABLE, audit_log, users
from podium.tracks.wmeval.schema import sessions as session_rows

ROLES = tuple(role.value for role in Role)
ACCOUNTS = Accounts(users, ROLES, add_fix="add them: podium wmeval annotator add NAME")
SESSIONS = Sessions(session_rows, ACCOUNTS)

STORE = TrackStore(Path(__file__).parent / "migrations", VERSION_TABLE, lock_key=0x776D6576, audit=AuditLog(audit_log))
transaction = STORE.transaction
append_audit = STORE.audit.append
audit_entries = STORE.audit.entries


def open_store(url: str) -> Engine:
    """An engine for the wmeval database at ``url``, migrated to the newest schema."""
    return STORE.open(url)


def add_account(engine: Engine, clock: Clock, name: str, role: str) -> tuple[Account, str]:
    """A new annotator or operator and their token (shown once, stored only as its hash), audited."""
    at = utc_text(clock.now())
    with transaction(engine) as db:
        account, token = ACCOUNTS.add(db, name, role, at)
        append_audit(db, at, "user_added", {"user": name, "role": role})
    return account, token


def set_disabled(engine: Engine, clock: Clock, name: str, disabled: bool) -> int:
    """Disable an account (its token and sessions stop working; its answers stay) or enable it again; audited.

    Returns how many signed-in sessions were ended.
    """
    at = utc_text(clock.now())
    with transaction(engine) as db:
        if disabled:
            ended = SESSIONS.disable(db, name, at)
        else:
            ACCOUNTS.set_disabled(db, name, None)
            ended = 0
        append_audit(db, at, "user_disabled" if disabled else "user_enabled", {"user": name, "sessions_ended": ended})
    return ended


def reset_token(engine: Engine, clock: Clock, name: str) -> tuple[str, int]:
    """A new token for ``name`` (shown once); the old token and every session end at once. Audited."""
    at = utc_text(clock.now())
    with transaction(engine) as db:
        token, ended = SESSIONS.new_token(db, name)
        append_audit(db, at, "token_reset", {"user": name, "sessions_ended": ended})
    return token, ended


def authenticate(engine: Engine, token: str) -> Account:
    """The account a token belongs to (``AuthError`` for none)."""
    with engine.connect() as db:
        return ACCOUNTS.authenticate(db, token)
