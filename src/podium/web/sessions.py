"""A track's pages' sessions over its database, as ``TokenAuth`` takes them (``SessionStore``).

``podium.core.sessions`` bound to the track's engine, write transaction, clock and its own user type.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Generic, Protocol, TypeVar

from sqlalchemy import Connection, Engine

from podium.core.accounts import Account
from podium.core.clock import Clock
from podium.core.sessions import Sessions


class HasId(Protocol):
    """A user with an account id."""

    @property
    def id(self) -> int:
        """The account's id."""
        ...


U = TypeVar("U", bound=HasId)


class SqlSessionStore(Generic[U]):
    """Sessions in the track's table: started and ended in the track's write transaction, read on a connection."""

    def __init__(
        self,
        engine: Engine,
        sessions: Sessions,
        clock: Clock,
        transaction: Callable[[Engine], AbstractContextManager[Connection]],
        to_user: Callable[[Account], U],
    ) -> None:
        self.engine = engine
        self.table = sessions
        self.clock = clock
        self.transaction = transaction
        self.to_user = to_user
        self.lifetime: timedelta = sessions.lifetime

    def start(self, user: U) -> str:
        """A new session of ``user`` (expired ones are pruned on the way)."""
        now = self.clock.now()
        with self.transaction(self.engine) as db:
            self.table.prune(db, now)
            account = self.table.accounts.by_id(db, user.id)
            return self.table.start(db, account, now)

    def user(self, session_id: str) -> U:
        """The user of a live session."""
        with self.engine.connect() as db:
            return self.to_user(self.table.account(db, session_id, self.clock.now()))

    def end(self, session_id: str) -> None:
        """End one session."""
        with self.transaction(self.engine) as db:
            self.table.end(db, session_id)
