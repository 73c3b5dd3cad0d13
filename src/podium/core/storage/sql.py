"""SQL storage: one engine factory for SQLite (the default, a file) and PostgreSQL (by URL), and migrations.

A track owns its tables and an Alembic migrations folder; ``upgrade`` brings a database to the newest revision
with the track's own version table, so several tracks can share one database without sharing a history.

SQLite is set up for several processes at once (judge workers beside a web server): write-ahead logging, a busy
timeout instead of immediate "database is locked" errors, and foreign keys on. PostgreSQL needs the ``postgres``
extra (psycopg 3): ``postgresql+psycopg://user:password@host/db``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Insert, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from podium.core.errors import ConfigError, DependencyError

SQLITE_BUSY_TIMEOUT_MS = 30_000


def sqlite_url(path: Path) -> str:
    """The URL of an SQLite database file."""
    return f"sqlite:///{path.resolve()}"


def open_engine(url: str) -> Engine:
    """An engine for ``url``; errors name the fix (a malformed URL, a missing driver)."""
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise ConfigError(
            f"not a database URL: {url!r}", fix="use sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DB"
        ) from error
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")  # psycopg 3 is the driver we ship an extra for
    try:
        if parsed.get_backend_name() == "sqlite":
            # sqlite3's timeout is SQLite's busy timeout (sqlite3_busy_timeout), set once per connection here
            engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
            event.listen(engine, "connect", _configure_sqlite)
            return engine
        return create_engine(parsed, pool_pre_ping=True)
    except (NoSuchModuleError, ModuleNotFoundError) as error:
        raise DependencyError(
            f"no driver for {parsed.drivername}: {error}", fix="pip install 'podium[postgres]' (psycopg 3)"
        ) from error


def inserted_id(connection: Connection, statement: Insert) -> int:
    """Run an INSERT into a table with an integer primary key and return the new row's id."""
    key = connection.execute(statement).inserted_primary_key
    assert key is not None  # an INSERT of one row into a table with a primary key always has one
    return int(key[0])


def _configure_sqlite(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def upgrade(engine: Engine, migrations: Path, version_table: str) -> None:
    """Apply every Alembic migration in ``migrations`` that ``engine``'s database lacks."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations))
    config.attributes["engine"] = engine
    config.attributes["version_table"] = version_table
    command.upgrade(config, "head")
