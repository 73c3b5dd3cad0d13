"""Entry point of the ``podium`` command.

Tracks are mounted lazily from the registry: the top-level help reads each track's one-line summary, and a
track's command group (with its heavy dependencies: NumPy, Box2D, SQLAlchemy, ...) is imported only when that
track's command runs. A track that fails to import is reported in one line and leaves the others working. A
``PodiumError`` becomes ``error: ...`` / ``fix: ...`` on stderr and its exit code; any other exception is a bug
and keeps its traceback.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from podium import __version__
from podium.core.errors import PodiumError
from podium.core.registry import TrackLoadError, load_cli_group, load_track, track_names


class TrackGroup(click.Group):
    """The ``podium`` group: its own commands plus one sub-group per installed track, loaded on use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *track_names()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        own = super().get_command(ctx, cmd_name)
        if own is not None or cmd_name not in track_names():
            return own
        group: click.Command = load_cli_group(load_track(cmd_name))
        return group

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing a track shows its registration summary, so help never imports a track's command group.
        rows = []
        for name in self.list_commands(ctx):
            own = super().get_command(ctx, name)
            if own is not None:
                rows.append((name, own.get_short_help_str(formatter.width)))
                continue
            try:
                rows.append((name, load_track(name).summary))
            except TrackLoadError as error:
                rows.append((name, f"(unavailable) {error.message}"))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def build_cli() -> click.Group:
    """Create the ``podium`` group; track groups are mounted when named."""

    @click.group(cls=TrackGroup, context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, prog_name="podium")
    def podium() -> None:
        """Judge competitions end to end: run submissions, score them exactly, publish leaderboards."""

    @podium.command()
    @click.option("--track", "names", multiple=True, help="A track to serve (repeatable); it gets its tables.")
    @click.option("--db", default=None, help="The database of every track served (default: each track's own).")
    @click.option("--host", default="127.0.0.1", show_default=True)
    @click.option("--port", default=8000, show_default=True)
    def serve(names: tuple[str, ...], db: str | None, host: str, port: int) -> None:
        """Serve the HTTP API and pages of the tracks named, or of those whose database has their tables.

        A track's database is --db, else PODIUM_<TRACK>_DB (PODIUM_WMEVAL_DB, PODIUM_DOJO_DB), else PODIUM_DB,
        else podium.sqlite3 here: the order every command and worker of the track follows. Without --track, a
        track is served where its tables exist (made by its own commands, e.g. `podium wmeval ingest`), so serving
        never adds another track's tables to a database.
        Needs the `web` extra.
        """
        from podium.web.app import create_app
        from podium.web.serving import tracks_to_serve

        chosen = tracks_to_serve(names, db)
        settings = {name: {"db": choice.url} for name, choice in chosen.items()}
        app = create_app({}, only=set(chosen), track_settings=settings)
        for name, choice in chosen.items():
            click.echo(f"serving /{name}/ on {choice.shown} (from {choice.source})", err=True)
            if notice := choice.notice():
                click.echo(notice, err=True)
        import uvicorn

        uvicorn.run(app, host=host, port=port, log_level="warning")

    return podium


def main(argv: list[str] | None = None) -> None:
    """Run the command line, mapping podium errors to one-line messages and exit codes."""
    code: Any
    try:
        code = build_cli().main(args=argv, prog_name="podium", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except PodiumError as error:
        click.echo(f"error: {error.describe()}", err=True)
        if error.fix:
            click.echo(f"fix: {error.fix}", err=True)
        sys.exit(error.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
