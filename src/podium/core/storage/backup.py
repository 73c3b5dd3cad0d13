"""A consistent copy of a track's database while it is in use: SQLite's online backup; PostgreSQL's own tools.

A SQLite database in WAL mode (podium's: ``storage/sql.py``) keeps recent commits in ``<file>-wal`` until a
checkpoint, so copying the main file alone can miss every score of the day (a copy made that way held none). The
online backup API copies the database as one transaction sees it, WAL included, while the server keeps
writing. The copy is written beside the target and renamed into place, so a target is a whole backup or the
previous one, and it is checked (``PRAGMA integrity_check``) before it is kept. PostgreSQL is backed up with
``pg_dump``, which does the same for it; podium says so instead of guessing at credentials.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url

from podium.core.errors import ConfigError, InputError


def backup_database(url: str, target: Path) -> int:
    """Copy the database at ``url`` to the SQLite file ``target``; the number of pages copied."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        raise ConfigError(
            f"{parsed.drivername} databases are backed up with their own tools",
            fix=f"pg_dump --format=custom --file {target} '{parsed.set(drivername='postgresql').render_as_string()}' "
            "(restore with pg_restore)",
        )
    source = parsed.database
    if not source or source == ":memory:" or not Path(source).is_file():
        raise InputError("no database file to back up", path=source or url, fix="give the --db of the running track")
    target = target.resolve()
    if target == Path(source).resolve():
        raise ConfigError("the backup would overwrite the database itself", fix="name another file")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    writer = sqlite3.connect(partial)
    try:
        reader.backup(writer)
        pages = int(writer.execute("PRAGMA page_count").fetchone()[0])
        verdict = writer.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        writer.close()
        reader.close()
    if verdict != "ok":
        partial.unlink(missing_ok=True)
        raise InputError(f"the copy failed its integrity check: {verdict}", path=source, fix="check the disk")
    os.replace(partial, target)
    return pages
