"""Accounts: named users with a role and an API token, in a track's own table.

A token is drawn once (``secrets.token_urlsafe``), shown to its user once, and stored only as its SHA-256: a
leaked database gives no working token. Roles are the track's own words (dojo: setter, solver, operator; an
annotation track: annotator, operator); the core stores them as text and checks them against the track's list.

Each track keeps its own table (``accounts_table(metadata, "dojo_users")``) and migration, so tracks sharing a
database share no users. Every method takes a connection: ``add`` runs inside the track's write transaction
(``podium.core.storage.store``) so the track audits the new account in the same transaction::

    ACCOUNTS = Accounts(accounts_table(metadata, "mytrack_users"), roles=("annotator", "operator"))
    with STORE.transaction(engine) as db:
        account, token = ACCOUNTS.add(db, "ann", "annotator", now)
        STORE.audit.append(db, now, "user_added", {"user": "ann", "role": "annotator"})
    with engine.connect() as db:
        assert ACCOUNTS.authenticate(db, token) == account
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Column, Connection, Integer, MetaData, String, Table, insert, select, update

from podium.core.errors import AuthError, ConfigError, NotFoundError
from podium.core.storage.sql import inserted_id

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # safe in a URL path segment and a file name
TOKEN_BYTES = 32


def accounts_table(metadata: MetaData, name: str) -> Table:
    """An accounts table called ``name`` (its migration must create the same columns)."""
    return Table(
        name,
        metadata,
        Column("id", Integer, primary_key=True),
        Column("name", String(64), nullable=False, unique=True),
        Column("role", String(16), nullable=False),
        Column("token_sha256", String(64), nullable=False, unique=True),
        Column("created_at", String(32), nullable=False),
        Column("disabled_at", String(32)),  # set: the account signs in nowhere (its history stays)
    )


@dataclass(frozen=True, slots=True)
class AccountEntry:
    """An account as its operator lists it."""

    name: str
    role: str
    created_at: str
    disabled_at: str | None


@dataclass(frozen=True, slots=True)
class Account:
    """A user as the core knows them: the role is the track's word for it."""

    id: int
    name: str
    role: str


def check_name(kind: str, name: str) -> str:
    """``name`` if it is a valid name of a ``kind`` (a user; a track may use the rule for its own URL names)."""
    if not NAME.fullmatch(name):
        raise ConfigError(f"invalid {kind} name {name!r}", fix="use 1-64 letters, digits, '_', '.' or '-'")
    return name


def token_hash(token: str) -> str:
    """What is stored of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Accounts:
    """Users, roles and tokens in one track's accounts table."""

    def __init__(self, table: Table, roles: Iterable[str], *, add_fix: str | None = None) -> None:
        self.table = table
        self.roles = tuple(roles)
        self._add_fix = add_fix  # how this track's operator adds a user (for "no user ...")

    def add(self, db: Connection, name: str, role: str, created_at: str) -> tuple[Account, str]:
        """Create an account; returns it and its token, which is never stored and cannot be shown again."""
        check_name("user", name)
        if role not in self.roles:
            raise ConfigError(f"unknown role {role!r}", fix=f"use one of {', '.join(self.roles)}")
        if db.execute(select(self.table.c.id).where(self.table.c.name == name)).first():
            raise ConfigError(f"user {name!r} exists already")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        row = insert(self.table).values(name=name, role=role, token_sha256=token_hash(token), created_at=created_at)
        return Account(inserted_id(db, row), name, role), token

    def authenticate(self, db: Connection, token: str) -> Account:
        """The account ``token`` belongs to; ``AuthError`` for an empty or unknown token."""
        row = db.execute(select(self.table).where(self.table.c.token_sha256 == token_hash(token))).first()
        if not token or row is None:
            raise AuthError("unknown or missing API token", fix="pass the token printed when the user was added")
        if row.disabled_at is not None:
            raise AuthError("this account is disabled", fix="ask the organisers")
        return Account(row.id, row.name, row.role)

    def by_name(self, db: Connection, name: str) -> Account:
        """The account called ``name``."""
        row = db.execute(select(self.table).where(self.table.c.name == name)).first()
        if row is None:
            raise NotFoundError(f"no user {name!r}", fix=self._add_fix)
        return Account(row.id, row.name, row.role)

    def by_id(self, db: Connection, account_id: int) -> Account:
        """The account with id ``account_id`` (``AuthError`` when it is gone: whoever held it is nobody now)."""
        row = db.execute(select(self.table).where(self.table.c.id == account_id)).first()
        if row is None or row.disabled_at is not None:
            raise AuthError("the account is gone or disabled", fix="ask the organisers")
        return Account(row.id, row.name, row.role)

    def entries(self, db: Connection) -> list[AccountEntry]:
        """Every account, by name."""
        table = self.table
        query = select(table.c.name, table.c.role, table.c.created_at, table.c.disabled_at).order_by(table.c.name)
        return [AccountEntry(r.name, r.role, r.created_at, r.disabled_at) for r in db.execute(query)]

    def set_disabled(self, db: Connection, name: str, at: str | None) -> Account:
        """Disable the account called ``name`` from ``at`` (None: enable it again); the caller ends its sessions."""
        account = self.by_name(db, name)
        db.execute(update(self.table).where(self.table.c.id == account.id).values(disabled_at=at))
        return account

    def reset_token(self, db: Connection, name: str) -> tuple[Account, str]:
        """A new token for ``name``; the old one stops working at once (the caller ends its sessions)."""
        account = self.by_name(db, name)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        db.execute(update(self.table).where(self.table.c.id == account.id).values(token_sha256=token_hash(token)))
        return account, token

    def names(self, db: Connection) -> dict[int, str]:
        """Every account's name by id."""
        return {row.id: row.name for row in db.execute(select(self.table.c.id, self.table.c.name))}
