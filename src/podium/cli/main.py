"""Entry point of the ``podium`` command.

Tracks are mounted from the registry. A ``PodiumError`` becomes ``error: ...`` / ``fix: ...`` on stderr and its
exit code; any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys

import click

from podium import __version__
from podium.cli.options import db_option
from podium.core.errors import PodiumError
from podium.core.registry import discover_tracks


def build_cli() -> click.Group:
    """Create the ``podium`` group with every installed track mounted."""

    @click.group(context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, prog_name="podium")
    def podium() -> None:
        """Judge competitions end to end: run submissions, score them exactly, publish leaderboards."""

    @podium.command()
    @db_option("PODIUM_DOJO_DB")
    @click.option("--host", default="127.0.0.1", show_default=True)
    @click.option("--port", default=8000, show_default=True)
    def serve(db: str, host: str, port: int) -> None:
        """Serve the HTTP API and pages of every track that has them (needs the `web` extra)."""
        from podium.web.app import create_app

        app = create_app({"db": db})
        import uvicorn

        uvicorn.run(app, host=host, port=port, log_level="warning")

    for track in discover_tracks().values():
        podium.add_command(track.cli_group(), name=track.name)
    return podium


def main(argv: list[str] | None = None) -> None:
    """Run the command line, mapping podium errors to one-line messages and exit codes."""
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
