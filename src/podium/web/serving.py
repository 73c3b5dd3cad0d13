"""Which tracks ``podium serve`` serves, each on which database.

A track's database is ``--db``, else ``PODIUM_<TRACK>_DB``, else ``PODIUM_DB``, else ``podium.sqlite3`` in the
current folder: ``podium.core.storage.database_choice``, the order every command and worker follows too. Named
tracks (``--track``) are served and get their tables. Without names, a track with pages is served where its
database already holds its tables (its migration history, ``<track>_alembic_version``): they were made by the
track's own commands, so serving never creates one track's tables in another's database, and a database of one
track serves that track only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from sqlalchemy import create_engine, inspect
from sqlalchemy.exc import SQLAlchemyError

from podium.core.errors import ConfigError
from podium.core.registry import TrackLoadError, load_track, track_names
from podium.core.storage.database_choice import DatabaseChoice, choose_database


def has_tables(url: str, track: str) -> bool:
    """Whether the database at ``url`` holds ``track``'s tables (never creates a file or a table)."""
    if url.startswith("sqlite:///") and not os.path.exists(url.removeprefix("sqlite:///")):
        return False  # connecting would create an empty file
    engine = create_engine(url)
    try:
        return inspect(engine).has_table(f"{track}_alembic_version")
    except SQLAlchemyError:
        return False
    finally:
        engine.dispose()


def tracks_to_serve(names: Sequence[str], db: str | None) -> dict[str, DatabaseChoice]:
    """Each track to serve and its database."""
    with_pages = []
    for name in track_names():
        try:
            if load_track(name).web_router is not None:
                with_pages.append(name)
        except TrackLoadError:
            continue  # the app names it on stderr when it is asked for
    unknown = [name for name in names if name not in with_pages]
    if unknown:
        raise ConfigError(f"no track with pages called {', '.join(unknown)}", fix=f"serve {', '.join(with_pages)}")
    if names:
        return {name: choose_database(name, db) for name in dict.fromkeys(names)}
    chosen = {name: choose_database(name, db) for name in with_pages}
    found = {name: choice for name, choice in chosen.items() if has_tables(choice.url, name)}
    if not found:
        raise ConfigError(
            "no database here holds a track's tables, so there is nothing to serve",
            fix="name the track: podium serve --track wmeval --db sqlite:///wmeval.sqlite3 (it gets its tables), or "
            "set PODIUM_WMEVAL_DB / PODIUM_DOJO_DB to the track's database",
        )
    return found
