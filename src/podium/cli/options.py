"""Options that several commands share, declared once: ``--db``, ``--format``, ``--json`` and ``--workers``.

A track's database is ``--db URL``, else ``PODIUM_<TRACK>_DB``, else ``PODIUM_DB``, else ``podium.sqlite3`` in the
current folder: the one order of ``podium.core.storage.database_choice``, which ``podium serve`` follows too. Each
track keeps its own tables and migration history in that database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from podium.core.storage.database_choice import DB_ENV, choose_database, track_variable

F = TypeVar("F", bound=Callable[..., Any])

TABLE_FORMATS = ("table", "markdown", "csv", "json")


def db_option(track: str) -> Callable[[F], F]:
    """``--db URL`` for ``track``'s commands: the command gets the URL ``choose_database`` resolves.

    When a setting that loses names another database, the command says on stderr which one it uses.
    """

    def resolve(_ctx: click.Context, _param: click.Parameter, given: str | None) -> str:
        choice = choose_database(track, given)
        if notice := choice.notice():
            click.echo(notice, err=True)
        return choice.url

    return click.option(
        "--db",
        default=None,
        callback=resolve,
        help=f"database URL, else {track_variable(track)}, else {DB_ENV}, else sqlite:///./podium.sqlite3: "
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
