"""A backup of a live SQLite database holds what a plain copy of its file misses: the commits still in the WAL."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from podium.core.errors import ConfigError, InputError
from podium.core.storage.backup import backup_database


def rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        try:
            return int(db.execute("SELECT count(*) FROM scores").fetchone()[0])
        except sqlite3.OperationalError:
            return 0  # no table at all: the copy missed its creation too


def test_a_backup_holds_the_commits_a_file_copy_misses(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    writer = sqlite3.connect(live)  # the server: WAL mode, open, not checkpointed yet
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE scores (item TEXT, score INTEGER)")
    writer.executemany("INSERT INTO scores VALUES (?, ?)", [(f"i{n}", n % 4) for n in range(500)])
    writer.commit()
    shutil.copyfile(live, tmp_path / "copied.sqlite3")
    assert rows(tmp_path / "copied.sqlite3") == 0  # what an operator's cp gave: no scores

    target = tmp_path / "backups" / "wmeval.sqlite3"
    target.parent.mkdir()
    assert backup_database(f"sqlite:///{live}", target) > 0
    assert rows(target) == 500
    writer.execute("INSERT INTO scores VALUES ('late', 3)")
    writer.commit()
    backup_database(f"sqlite:///{live}", target)  # again, over the last one
    assert rows(target) == 501 and not list(target.parent.glob(".*partial"))
    writer.close()


def test_what_cannot_be_backed_up_here_says_how(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as postgres:
        backup_database("postgresql+psycopg://judge:secret@db.example/wmeval", tmp_path / "x.dump")
    assert postgres.value.fix is not None and postgres.value.fix.startswith("pg_dump --format=custom")
    with pytest.raises(InputError, match="no database file"):
        backup_database(f"sqlite:///{tmp_path / 'absent.sqlite3'}", tmp_path / "x.sqlite3")
    live = tmp_path / "live.sqlite3"
    sqlite3.connect(live).close()
    with pytest.raises(ConfigError, match="overwrite the database itself"):
        backup_database(f"sqlite:///{live}", live)
