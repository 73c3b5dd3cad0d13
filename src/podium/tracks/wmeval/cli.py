"""``podium wmeval ...``: ingest, assignment, annotator accounts, score imports, scores and reports.

The database is the server's one database: ``--db URL``, else ``PODIUM_DB``, else ``PODIUM_WMEVAL_DB``, else
``podium.sqlite3`` here. The media store folder is fixed by the first ingest (``--media``, else
``PODIUM_WMEVAL_MEDIA``, else ``./wmeval-media``) and kept in the database, so ``podium serve`` finds it.
"""

from __future__ import annotations

from pathlib import Path

import click
from sqlalchemy import Engine

from podium.cli.options import db_option, workers_option
from podium.core.clock import SystemClock
from podium.core.execution.executor import make_executor
from podium.tracks.wmeval.ingest import STRIP_HEIGHT, IngestReport, ingest_gt, ingest_team, media_root
from podium.tracks.wmeval.store import open_store

DB = db_option("PODIUM_WMEVAL_DB")
MEDIA = click.option(
    "--media",
    type=click.Path(path_type=Path, file_okay=False),
    envvar="PODIUM_WMEVAL_MEDIA",
    help="media store folder (fixed at the first ingest; default ./wmeval-media)",
)


def connect(db: str) -> Engine:
    """The migrated database."""
    return open_store(db)


def _echo_report(report: IngestReport) -> None:
    for line in report.lines():
        click.echo(line)


@click.group()
def wmeval() -> None:
    """World Model track: human 0-3 scoring of generated robot videos against the reference."""


@wmeval.command("init")
@DB
def init(db: str) -> None:
    """Create or upgrade the database."""
    connect(db)
    click.echo(f"database ready: {db}")


@wmeval.command("ingest-gt")
@click.argument("gt_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--height", default=STRIP_HEIGHT, show_default=True, help="height of each view in the strip (px)")
@MEDIA
@workers_option()
@DB
def ingest_gt_command(gt_dir: Path, height: int, media: Path | None, workers: int | None, db: str) -> None:
    """Compose GT_DIR/task<N>/videos/<cam>/episode_<i>.mp4 into reference strips."""
    engine = connect(db)
    _echo_report(ingest_gt(engine, media_root(engine, media), gt_dir, make_executor(workers), SystemClock(), height))


@wmeval.command("ingest-team")
@click.argument("team")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@MEDIA
@workers_option()
@DB
def ingest_team_command(team: str, folder: Path, media: Path | None, workers: int | None, db: str) -> None:
    """Match and transcode TEAM's FOLDER/evaluator_test/task<N>/episode_<i>.mp4."""
    engine = connect(db)
    _echo_report(ingest_team(engine, media_root(engine, media), team, folder, make_executor(workers), SystemClock()))
