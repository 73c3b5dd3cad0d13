"""Options that several commands share, declared once: ``--db``, ``--format``, ``--json`` and ``--workers``.

One database serves the whole server: ``--db URL``, else ``PODIUM_DB``, else a track's older variable
(``PODIUM_DOJO_DB`` for the dojo, kept as an alias), else ``podium.sqlite3`` in the current folder. Each track
keeps its own tables and migration history in that database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

DB_ENV = "PODIUM_DB"
DEFAULT_DB_URL = "sqlite:///./podium.sqlite3"
TABLE_FORMATS = ("table", "markdown", "csv", "json")


def db_option(*aliases: str) -> Callable[[F], F]:
    """``--db URL``, read from ``PODIUM_DB`` and then from each alias variable when the option is not given."""
    return click.option(
        "--db",
        envvar=[DB_ENV, *aliases],
        default=DEFAULT_DB_URL,
        show_default=True,
        help=f"database URL (or {' / '.join((DB_ENV, *aliases))}): "
        "sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DB",
    )


def format_option(choices: Sequence[str] = TABLE_FORMATS, help: str = "How to print the table.") -> Callable[[F], F]:
    """``--format`` among ``choices`` (the first is the default), passed to the command as ``fmt``."""
    return click.option(
        "--format", "fmt", type=click.Choice(list(choices)), default=choices[0], show_default=True, help=help
    )


def json_option(help: str = "Print one machine-readable JSON object instead of text.") -> Callable[[F], F]:
    """``--json``, passed to the command as ``as_json``."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def workers_option(help: str = "Worker processes (default: one per core; 1 = serial).") -> Callable[[F], F]:
    """``--workers N`` (N >= 1, default None: the executor decides)."""
    return click.option("--workers", type=click.IntRange(min=1), default=None, help=help)
