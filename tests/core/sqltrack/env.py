"""Alembic environment: run online against the engine ``podium.core.storage.sql.upgrade`` passes."""

from __future__ import annotations

from alembic import context

config = context.config
with config.attributes["engine"].begin() as connection:
    context.configure(connection=connection, version_table=config.attributes["version_table"])
    context.run_migrations()
