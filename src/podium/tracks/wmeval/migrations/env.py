"""Alembic environment for the wmeval tables: run online against the engine ``podium.core.storage.sql`` passes."""

from __future__ import annotations

from alembic import context

config = context.config
engine = config.attributes["engine"]
with engine.begin() as connection:
    context.configure(connection=connection, version_table=config.attributes["version_table"])
    context.run_migrations()
