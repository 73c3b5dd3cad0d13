"""The dojo's users: accounts, tokens, disabling, and the pages' sessions (split out of ``platform.py``).

A disabled user's token and sessions stop working everywhere (the API, the pages, ``podium dojo submit``), and
their submissions leave every leaderboard computed from then on (``disabled_ids``); their rows stay, and the reason
is in the audit log. A rotated token replaces the old one at once and ends the user's sessions.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, select

from podium.core.accounts import AccountEntry, Accounts
from podium.core.clock import Clock, utc_text
from podium.core.errors import ConfigError
from podium.core.sessions import Sessions
from podium.tracks.dojo.records import Role, User
from podium.tracks.dojo.schema import sessions, users
from podium.tracks.dojo.store import append_audit, transaction

ACCOUNTS = Accounts(users, [role.value for role in Role], add_fix="add it with `podium dojo user add`")
SESSIONS = Sessions(sessions, ACCOUNTS)
REASON_MAX_CHARS = 500


@dataclass(frozen=True, slots=True)
class Users:
    """The users of one dojo database."""

    engine: Engine
    clock: Clock

    def add(self, name: str, role: Role) -> tuple[User, str]:
        """Create a user; returns the user and their API token (shown once, stored only as a hash)."""
        with transaction(self.engine) as db:
            now = utc_text(self.clock.now())
            account, token = ACCOUNTS.add(db, name, role.value, now)
            append_audit(db, now, "user_added", {"user": name, "role": role.value})
        return User.from_account(account), token

    def authenticate(self, token: str) -> User:
        """The user a token belongs to (a disabled user's token is refused)."""
        with self.engine.connect() as db:
            return User.from_account(ACCOUNTS.authenticate(db, token))

    def by_name(self, name: str) -> User:
        """A user by name."""
        with self.engine.connect() as db:
            return User.from_account(ACCOUNTS.by_name(db, name))

    def names(self) -> dict[int, str]:
        """Every user's name by id."""
        with self.engine.connect() as db:
            return ACCOUNTS.names(db)

    def entries(self) -> list[AccountEntry]:
        """Every user as an operator lists them: name, role, added, disabled."""
        with self.engine.connect() as db:
            return ACCOUNTS.entries(db)

    def disabled_ids(self) -> frozenset[int]:
        """The ids of the disabled users, whose submissions leave the leaderboards."""
        with self.engine.connect() as db:
            return frozenset(db.execute(select(users.c.id).where(users.c.disabled_at.is_not(None))).scalars())

    def disable(self, name: str, reason: str) -> int:
        """Disable ``name`` for ``reason`` (audited); how many signed-in sessions were ended."""
        reason = reason.strip()
        if not reason or len(reason) > REASON_MAX_CHARS:
            raise ConfigError("say why the user is disabled", fix=f"--reason TEXT (1 to {REASON_MAX_CHARS} characters)")
        with transaction(self.engine) as db:
            now = utc_text(self.clock.now())
            ended = SESSIONS.disable(db, name, now)
            append_audit(db, now, "user_disabled", {"user": name, "reason": reason, "sessions_ended": ended})
        return ended

    def enable(self, name: str) -> None:
        """Let ``name`` in again (audited)."""
        with transaction(self.engine) as db:
            now = utc_text(self.clock.now())
            ACCOUNTS.set_disabled(db, name, None)
            append_audit(db, now, "user_enabled", {"user": name})

    def rotate_token(self, name: str) -> str:
        """A new token for ``name`` (shown once); the old one and every session stop working at once. Audited."""
        with transaction(self.engine) as db:
            now = utc_text(self.clock.now())
            token, ended = SESSIONS.new_token(db, name)
            append_audit(db, now, "token_rotated", {"user": name, "sessions_ended": ended})
        return token
