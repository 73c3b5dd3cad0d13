"""Which database a track's commands, workers and server use: one order, resolved in this one place.

``--db URL`` > ``PODIUM_<TRACK>_DB`` > ``PODIUM_DB`` > ``sqlite:///./podium.sqlite3`` (in the current folder). The
specific beats the general: a host that serves several tracks sets ``PODIUM_DB`` for all of them and a track's own
variable for the one that lives elsewhere. Every entry point (each command's ``--db``, ``podium serve``, the dojo's
worker) asks ``choose_database``, so a command, a worker and the server of one track always open the same
database. An empty variable counts as unset.

When a setting that loses is set to another database, the choice says so (``notice``), with any password masked, so
a deployment with both variables set learns which one was used instead of judging in one database and serving
another.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

DB_ENV = "PODIUM_DB"
DEFAULT_DB_URL = "sqlite:///./podium.sqlite3"
OPTION = "--db"
DEFAULT = "the default"
_PASSWORD = re.compile(r"^(?P<head>[^:/?#]+://[^:/@?#]*:)(?P<password>[^@/?#]*)(?P<tail>@)")


def track_variable(track: str) -> str:
    """The environment variable that names ``track``'s own database: ``PODIUM_<TRACK>_DB``."""
    return f"PODIUM_{track.upper()}_DB"


def masked(url: str) -> str:
    """``url`` with its password, if it has one, shown as ``***`` (as SQLAlchemy prints it)."""
    return _PASSWORD.sub(r"\g<head>***\g<tail>", url, count=1)


@dataclass(frozen=True, slots=True)
class DatabaseChoice:
    """The database a track uses, where that came from, and the settings that named another one and lost."""

    track: str
    url: str
    source: str  # "--db", the variable's name, or "the default"
    passed_over: tuple[tuple[str, str], ...]  # (setting, url) pairs that were set to another database

    @property
    def shown(self) -> str:
        """The URL as it may be printed: password masked."""
        return masked(self.url)

    def notice(self) -> str | None:
        """One line naming the database used and each setting passed over, or None when nothing disagreed."""
        if not self.passed_over:
            return None
        others = ", ".join(f"{name}={masked(url)}" for name, url in self.passed_over)
        return (
            f"note: {self.track} uses the database {self.shown} from {self.source}; not used: {others} "
            f"(the order is {OPTION}, then {track_variable(self.track)}, then {DB_ENV})"
        )


def choose_database(track: str, given: str | None = None, environ: Mapping[str, str] | None = None) -> DatabaseChoice:
    """The database ``track`` uses: ``given`` (the ``--db`` option), else its variable, else ``PODIUM_DB``."""
    environ = os.environ if environ is None else environ
    settings = [
        (OPTION, given or ""),
        (track_variable(track), environ.get(track_variable(track), "")),
        (DB_ENV, environ.get(DB_ENV, "")),
    ]
    present = [(name, value) for name, value in settings if value]
    source, url = present[0] if present else (DEFAULT, DEFAULT_DB_URL)
    passed_over = tuple((name, value) for name, value in present[1:] if value != url)
    return DatabaseChoice(track, url, source, passed_over)
