"""SQL storage: one engine factory for SQLite (the default, a file) and PostgreSQL (by URL), and migrations.

A track owns its tables and an Alembic migrations folder; ``upgrade`` brings a database to the newest revision
with the track's own version table, so several tracks can share one database without sharing a history.

SQLite is set up for several processes at once (judge workers beside a web server): write-ahead logging, a busy
timeout instead of immediate "database is locked" errors, and foreign keys on. PostgreSQL needs the ``postgres``
extra (psycopg 3): ``postgresql+psycopg://user:password@host/db``. Any other database (MySQL, ...) is refused
by name as unsupported. ``check_reachable`` connects once, so a server that is down or a file that cannot be
opened is one line with the fix (``DatabaseUnreachable``), not a driver's traceback; PostgreSQL gives up a
connection after ``POSTGRES_CONNECT_TIMEOUT_S``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Insert, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from podium.core.errors import ConfigError, DependencyError, PodiumError

SQLITE_BUSY_TIMEOUT_MS = 30_000
POSTGRES_CONNECT_TIMEOUT_S = 10
SUPPORTED = ("sqlite", "postgresql")
URL_FORMS = "sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DB"


class DatabaseUnreachable(PodiumError):
    """The database named by a URL cannot be connected to: a server down, a wrong address, an unwritable file."""


def sqlite_url(path: Path) -> str:
    """The URL of an SQLite database file."""
    return f"sqlite:///{path.resolve()}"


def open_engine(url: str) -> Engine:
    """An engine for ``url``; errors name the fix (a malformed URL, a missing driver)."""
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise ConfigError(f"not a database URL: {url!r}", fix=f"use {URL_FORMS}") from error
    if parsed.drivername in ("postgresql", "postgres"):  # the short forms, as libpq and Heroku write them
        parsed = parsed.set(drivername="postgresql+psycopg")  # psycopg 3 is the driver we ship an extra for
    if parsed.get_backend_name() not in SUPPORTED:
        raise ConfigError(
            f"podium stores its data in SQLite or PostgreSQL; {parsed.get_backend_name()} is not supported",
            fix=f"use {URL_FORMS}",
        )
    try:
        if parsed.get_backend_name() == "sqlite":
            # sqlite3's timeout is SQLite's busy timeout (sqlite3_busy_timeout), set once per connection here
            engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
            event.listen(engine, "connect", _configure_sqlite)
            return engine
        libpq = parsed.get_driver_name() in ("psycopg", "psycopg2")  # libpq's own option; other drivers differ
        connect_args = {"connect_timeout": POSTGRES_CONNECT_TIMEOUT_S} if libpq else {}
        return create_engine(parsed, pool_pre_ping=True, connect_args=connect_args)
    except (NoSuchModuleError, ModuleNotFoundError) as error:
        raise DependencyError(
            f"no driver for {parsed.drivername}: {error}", fix="pip install 'podium[postgres]' (psycopg 3)"
        ) from error


def check_reachable(engine: Engine) -> None:
    """Connect once; raise ``DatabaseUnreachable`` with the driver's first line and the fix if that fails."""
    try:
        with engine.connect():
            pass
    except DBAPIError as error:
        shown = engine.url.render_as_string(hide_password=True)
        why = (str(error.orig).strip().splitlines() or [type(error.orig).__name__])[0]
        if engine.dialect.name == "sqlite":
            fix = "check that the file's folder exists and is writable, or give another --db sqlite:///PATH"
        else:
            fix = (
                "start PostgreSQL there, or correct the host, port, user, password and database in --db "
                "(or in PODIUM_<TRACK>_DB, else PODIUM_DB)"
            )
        raise DatabaseUnreachable(f"cannot connect to the database {shown}: {why}", fix=fix) from error


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
