"""Web sessions: what a signed-in browser holds instead of the user's permanent API token.

Signing in with a token starts a session: a fresh random id (``secrets.token_urlsafe``) goes into the browser's
HTTP-only cookie and only its SHA-256 into the track's sessions table, with the account and an expiry. A request
from the pages names its session, never the token; signing out deletes the session, so a copied cookie stops
working at once, and resetting a user's token ends all their sessions. A leaked cookie is worth one session's
lifetime, not the account.

Each track keeps its own table beside its accounts (``sessions_table(metadata, "wmeval_sessions",
"wmeval_users")``) and creates it in its own migration, as with accounts.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import Column, Connection, ForeignKey, Integer, MetaData, String, Table, delete, insert, select

from podium.core.accounts import Account, Accounts
from podium.core.clock import utc_text
from podium.core.errors import AuthError

SESSION_BYTES = 32
LIFETIME = timedelta(days=7)
EXPIRED_FIX = "sign in again with your token"


def sessions_table(metadata: MetaData, name: str, users: str) -> Table:
    """A sessions table called ``name`` over the accounts table ``users`` (its migration creates the same)."""
    return Table(
        name,
        metadata,
        Column("id_sha256", String(64), primary_key=True),
        Column("account_id", Integer, ForeignKey(f"{users}.id"), nullable=False, index=True),
        Column("created_at", String(32), nullable=False),
        Column("expires_at", String(32), nullable=False),
    )


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


class Sessions:
    """The sessions of one track's accounts."""

    def __init__(self, table: Table, accounts: Accounts, lifetime: timedelta = LIFETIME) -> None:
        self.table = table
        self.accounts = accounts
        self.lifetime = lifetime

    def start(self, db: Connection, account: Account, now: datetime) -> str:
        """A new session of ``account``; its id, which is stored only as a hash."""
        session_id = secrets.token_urlsafe(SESSION_BYTES)
        db.execute(
            insert(self.table).values(
                id_sha256=_digest(session_id),
                account_id=account.id,
                created_at=utc_text(now),
                expires_at=utc_text(now + self.lifetime),
            )
        )
        return session_id

    def account(self, db: Connection, session_id: str, now: datetime) -> Account:
        """The account of a live session; ``AuthError`` for an unknown, ended or expired one."""
        row = db.execute(select(self.table).where(self.table.c.id_sha256 == _digest(session_id))).first()
        if not session_id or row is None or row.expires_at <= utc_text(now):
            raise AuthError("not signed in, or the session has ended", fix=EXPIRED_FIX)
        return self.accounts.by_id(db, row.account_id)

    def end(self, db: Connection, session_id: str) -> None:
        """End one session (signing out); nothing happens for an unknown one."""
        db.execute(delete(self.table).where(self.table.c.id_sha256 == _digest(session_id)))

    def end_all(self, db: Connection, account_id: int) -> int:
        """End every session of an account (its token was reset, or it was disabled); how many there were."""
        return int(db.execute(delete(self.table).where(self.table.c.account_id == account_id)).rowcount or 0)

    def disable(self, db: Connection, name: str, at: str) -> int:
        """Disable the account ``name`` from ``at`` and end its sessions; how many there were (the track audits)."""
        return self.end_all(db, self.accounts.set_disabled(db, name, at).id)

    def new_token(self, db: Connection, name: str) -> tuple[str, int]:
        """A new token for ``name`` (the old one stops) and its sessions ended: the token and how many ended."""
        account, token = self.accounts.reset_token(db, name)
        return token, self.end_all(db, account.id)

    def prune(self, db: Connection, now: datetime) -> int:
        """Delete the expired sessions; how many."""
        return int(db.execute(delete(self.table).where(self.table.c.expires_at <= utc_text(now))).rowcount or 0)
