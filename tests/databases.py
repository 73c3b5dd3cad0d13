"""Databases for the tests: a fresh database on the session's PostgreSQL server, a store at an older revision."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text

from podium.core.storage.sql import open_engine, sqlite_url
from podium.core.storage.store import TrackStore


def new_postgres_database(server: str, prefix: str) -> str:
    """The URL of a new, empty database on the PostgreSQL server at ``server`` (a name nobody used before)."""
    name = f"{prefix}_{datetime.now(UTC).strftime('%H%M%S%f')}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as db:
        db.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return server.rsplit("/", 1)[0] + f"/{name}"


def new_database(kind: str, name: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a new, empty database: an SQLite file in ``tmp_path``, or one on the session's PostgreSQL server."""
    if kind == "sqlite":
        return sqlite_url(tmp_path / f"{name}.sqlite3")
    return new_postgres_database(str(request.getfixturevalue("postgres_url")), name)


def upgrade_to(store: TrackStore, url: str, revision: str) -> Engine:
    """An engine on ``url`` with ``store``'s migrations applied up to ``revision`` only (an older release's schema)."""
    from alembic import command
    from alembic.config import Config

    engine = open_engine(url)
    config = Config()
    config.set_main_option("script_location", str(store.migrations))
    config.attributes["engine"] = engine
    config.attributes["version_table"] = store.version_table
    command.upgrade(config, revision)
    return engine
