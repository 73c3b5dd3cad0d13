"""``podium wmeval ...``: ingest, assignment, annotator accounts, score imports, scores and reports.

The database is the one ``podium serve`` serves wmeval on (``podium.core.storage.database_choice``): ``--db URL``,
else ``PODIUM_WMEVAL_DB``, else ``PODIUM_DB``, else ``podium.sqlite3`` here. The media store folder is fixed by the
first ingest (``--media``, else ``PODIUM_WMEVAL_MEDIA``, else ``./wmeval-media``) and kept in the database, so
``podium serve`` finds it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from sqlalchemy import Engine

from podium.cli.options import db_option, format_option, workers_option
from podium.core.clock import SystemClock
from podium.core.errors import InputError
from podium.core.execution.executor import make_executor
from podium.core.reporting.tables import render_table
from podium.core.storage.audit import verify_chain
from podium.core.storage.backup import backup_database
from podium.core.storage.database_choice import masked
from podium.core.storage.files import read_bytes
from podium.tracks.wmeval.annotate import cant_judge_pending, import_scores, resolve
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments, reassign
from podium.tracks.wmeval.freeze import freeze, frozen_since, unfreeze
from podium.tracks.wmeval.ingest import STRIP_HEIGHT, IngestReport, import_gold, ingest_gt, ingest_team, media_root
from podium.tracks.wmeval.kinds import Role
from podium.tracks.wmeval.report import report_html, scores_text
from podium.tracks.wmeval.store import (
    ACCOUNTS,
    ROLES,
    add_account,
    audit_entries,
    open_store,
    reset_token,
    set_disabled,
)

DB = db_option("wmeval")
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
    click.echo(f"database ready: {masked(db)}")


@wmeval.command("ingest-gt")
@click.argument("gt_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--height",
    type=click.IntRange(16, 2160),
    default=None,
    help=f"height of the served videos (px); fixed by the first GT ingest  [default: {STRIP_HEIGHT}]",
)
@click.option(
    "--served-fps",
    type=click.IntRange(1, 120),
    default=None,
    help="frame rate of every served video; fixed by the first GT ingest  [default: the cameras', 30 at least]",
)
@MEDIA
@workers_option()
@DB
def ingest_gt_command(
    gt_dir: Path, height: int | None, served_fps: int | None, media: Path | None, workers: int | None, db: str
) -> None:
    """Compose GT_DIR/task<N>/videos/<cam>/episode_<i>.mp4 into reference strips."""
    engine = connect(db)
    root = media_root(engine, media)
    _echo_report(ingest_gt(engine, root, gt_dir, make_executor(workers), SystemClock(), height, served_fps))


@wmeval.command("ingest-team")
@click.argument("team")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@click.option("--replace", is_flag=True,
              help="re-ingest a team ingested before: changed videos are replaced, the rest kept")  # fmt: skip
@click.option("--only", multiple=True, metavar="TASK/EPISODE",
              help="with --replace: replace only this video (repeatable); every other answer stays")  # fmt: skip
@click.option("--force", is_flag=True, help="with --replace: also when answers would be dropped (audited)")
@MEDIA
@workers_option()
@DB
def ingest_team_command(
    team: str, folder: Path, replace: bool, only: tuple[str, ...], force: bool, media: Path | None,
    workers: int | None, db: str,
) -> None:  # fmt: skip
    """Match and transcode TEAM's FOLDER/evaluator_test/task<N>/episode_<i>.mp4.

    A replaced video's items go back, unanswered, to the annotators who had them.
    """
    engine = connect(db)
    root = media_root(engine, media)
    report = ingest_team(
        engine, root, team, folder, make_executor(workers), SystemClock(), replace=replace, force=force, only=only
    )
    _echo_report(report)
    if report.replaced:
        click.echo("  run `podium wmeval assign` to queue the new videos")


@wmeval.command("gold-import")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@click.option("--answers", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="CSV task,episode,expected: the score each gold video should get")  # fmt: skip
@click.option("--replace", is_flag=True, help="replace the gold set imported before")
@click.option("--force", is_flag=True, help="with --replace: also when gold items are answered")
@MEDIA
@workers_option()
@DB
def gold_import_command(
    folder: Path, answers: Path, replace: bool, force: bool, media: Path | None, workers: int | None, db: str
) -> None:
    """Import a gold set: FOLDER/evaluator_test/task<N>/episode_<i>.mp4, generated videos with known scores."""
    engine = connect(db)
    text = _csv_text(answers)
    report = import_gold(engine, media_root(engine, media), folder, text, make_executor(workers), SystemClock(),
                         replace=replace, force=force)  # fmt: skip
    _echo_report(report)
    click.echo("  run `podium wmeval assign` to give each annotator their gold items")


@wmeval.group("annotator")
def annotator() -> None:
    """Annotator and operator accounts."""


@annotator.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), default=Role.ANNOTATOR.value, show_default=True)
@DB
def annotator_add(name: str, role: str, db: str) -> None:
    """Add an annotator (or an operator); prints their token once."""
    account, token = add_account(connect(db), SystemClock(), name, role)
    click.echo(f"{account.name} ({account.role}) token: {token}")


@annotator.command("list")
@format_option()
@DB
def annotator_list(fmt: str, db: str) -> None:
    """Every account: name, role, when it was added, and whether it is disabled."""
    with connect(db).connect() as connection:
        rows = [[e.name, e.role, e.created_at, e.disabled_at or ""] for e in ACCOUNTS.entries(connection)]
    click.echo(render_table(("name", "role", "added", "disabled"), rows, fmt))


@annotator.command("disable")
@click.argument("name")
@DB
def annotator_disable(name: str, db: str) -> None:
    """Stop NAME's token and sessions at once (their answers stay; `enable` undoes it)."""
    ended = set_disabled(connect(db), SystemClock(), name, disabled=True)
    click.echo(f"{name} disabled ({ended} session(s) ended)")


@annotator.command("enable")
@click.argument("name")
@DB
def annotator_enable(name: str, db: str) -> None:
    """Let NAME sign in again with their token."""
    set_disabled(connect(db), SystemClock(), name, disabled=False)
    click.echo(f"{name} enabled")


@annotator.command("reset-token")
@click.argument("name")
@DB
def annotator_reset_token(name: str, db: str) -> None:
    """Give NAME a new token (printed once); the old one and every session stop working at once."""
    token, ended = reset_token(connect(db), SystemClock(), name)
    click.echo(f"{name} token: {token} ({ended} session(s) ended)")


@wmeval.command("assign")
@click.option("--annotators-per-task", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--cap", default=10, show_default=True, type=click.IntRange(min=1), help="videos per team-task each")
@click.option("--overlap", default=0, show_default=True, type=click.IntRange(min=0),
              help="episodes per task also scored by every annotator of the task (agreement only)")  # fmt: skip
@click.option("--gold", default=1, show_default=True, type=click.IntRange(min=0), help="gold items per annotator")
@click.option("--seed", type=int, help="random seed (default: drawn and printed)")
@DB
def assign_command(annotators_per_task: int, cap: int, overlap: int, gold: int, seed: int | None, db: str) -> None:
    """Map episodes to annotators (same for every team) and fill each annotator's shuffled queue."""
    import secrets

    chosen = secrets.randbits(31) if seed is None else seed
    summary = assign(connect(db), SystemClock(), AssignOptions(annotators_per_task, cap, overlap, gold, chosen))
    click.echo(
        f"seed {summary.seed}: {summary.episodes_mapped} episode(s) mapped, {summary.episodes_left_out} left out "
        f"by the cap, {summary.items_added} item(s) added"
    )
    if gold and not summary.gold_videos:
        click.echo("no gold set imported, so no gold items: see `podium wmeval gold-import`")
    for name, count in summary.withheld.items():
        click.echo(f"  not given: {count} item(s) of episodes mapped to {name}, who is disabled: reassign their "
                   f"episodes (`podium wmeval reassign TASK EPISODE ANNOTATOR`), then assign again")  # fmt: skip


@wmeval.command("assignments")
@format_option(("table", "csv", "json"))
@DB
def assignments_command(fmt: str, db: str) -> None:
    """Every item and its answer, for operators: the export of every score (--format csv or json).

    Columns: annotator, item, team, task, episode, kind, score, cant_judge (the flag, so a flagged item is not
    read as a 0), resolution, note, answered_at (UTC) and revision.
    """
    header = ("annotator", "item", "team", "task", "episode", "kind", "score", "cant_judge", "resolution", "note",
              "answered_at", "revision")  # fmt: skip
    rows = [[r.annotator, r.item, r.team, r.task, r.episode, r.kind, r.score, r.cant_judge, r.resolution, r.note,
             r.answered_at, r.revision] for r in assignments(connect(db))]  # fmt: skip
    click.echo(render_table(header, rows, fmt))


@wmeval.command("reassign")
@click.argument("task")
@click.argument("episode")
@click.argument("annotator_name", metavar="ANNOTATOR")
@DB
def reassign_command(task: str, episode: str, annotator_name: str, db: str) -> None:
    """Give TASK's EPISODE, with its unscored items for every team, to ANNOTATOR; scored items stay put."""
    done = reassign(connect(db), SystemClock(), task, episode, annotator_name)
    click.echo(f"{task}/{episode} -> {annotator_name}: {done.moved} unscored item(s) moved")
    for name, count in sorted(done.kept_scored.items()):
        click.echo(f"  kept: {count} item(s) {name} scored already (scores are never moved)")
    if done.kept_held:
        click.echo(f"  kept: {done.kept_held} item(s) {annotator_name} already scores as overlap (never twice)")


@wmeval.command("handover")
@click.argument("annotator_name", metavar="ANNOTATOR")
@click.option("--to", "to", default="", help="comma-separated annotators to prefer as receivers")
@click.option("--cap", default=10, show_default=True, type=click.IntRange(min=1), help="episodes per task each")
@click.option("--annotators-per-task", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--allow-fewer", is_flag=True, help="move what can move and list what stays, instead of refusing")
@DB
def handover_command(
    annotator_name: str, to: str, cap: int, annotators_per_task: int, allow_fewer: bool, db: str
) -> None:
    """Move every unscored item of ANNOTATOR (primary, overlap, gold) to others; scored items stay."""
    from podium.tracks.wmeval.handover import handover

    receivers = [name.strip() for name in to.split(",") if name.strip()]
    done = handover(connect(db), SystemClock(), annotator_name, receivers, cap=cap,
                    annotators_per_task=annotators_per_task, allow_fewer=allow_fewer)  # fmt: skip
    click.echo(f"{annotator_name}: {sum(done.moved.values())} unscored item(s) handed over")
    for name, count in done.moved.items():
        click.echo(f"  to {name}: {count}")
    for line in done.stayed:
        click.echo(f"  stayed: {line}")


@wmeval.command("cant-judge")
@format_option(("table", "csv", "json"))
@DB
def cant_judge_command(fmt: str, db: str) -> None:
    """The can't-judge answers waiting for an operator (resolve each with `podium wmeval resolve`)."""
    header = ("item", "annotator", "team", "task", "episode", "kind", "why", "note")
    rows = [
        [w.item, w.annotator, w.team, w.task, w.episode, w.kind, w.reason, w.note]
        for w in cant_judge_pending(connect(db))
    ]
    click.echo(render_table(header, rows, fmt))


@wmeval.command("resolve")
@click.argument("item")
@click.option("--broken", is_flag=True, help="the video is broken: it counts 0, as the rubric scores a broken video")
@click.option("--rescore", "rescore_by", metavar="ANNOTATOR", help="hand the item to another annotator to score")
@DB
def resolve_command(item: str, broken: bool, rescore_by: str | None, db: str) -> None:
    """Resolve ITEM's can't-judge answer: --broken (counts 0) or --rescore ANNOTATOR."""
    click.echo(resolve(connect(db), SystemClock(), item, broken=broken, rescore_by=rescore_by))


@wmeval.command("import-scores")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--replace", is_flag=True, help="Overwrite answers already given (in the page or by an import).")
@DB
def import_scores_command(file: Path, replace: bool, db: str) -> None:
    """Apply FILE.csv (annotator,item,score[,note][,cant_judge]); one bad row and nothing is applied.

    An item already answered otherwise is a bad row unless --replace; a row equal to the stored answer is left.
    """
    done = import_scores(connect(db), SystemClock(), _csv_text(file), source=file, replace=replace)
    click.echo(f"{done.applied} answer(s) applied, {done.unchanged} unchanged")


def _csv_text(file: Path) -> str:
    try:
        return read_bytes(file).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error})", path=file, fix="save the CSV as UTF-8") from error


@wmeval.command("scores")
@format_option()
@click.option("--seed", default=0, show_default=True, help="bootstrap seed")
@DB
def scores_command(fmt: str, seed: int, db: str) -> None:
    """The leaderboard: exact per-task and final scores (JSON and CSV as fractions), with 95% intervals."""
    engine = connect(db)
    click.echo(scores_text(engine, fmt, seed))
    with engine.connect() as connection:
        if fmt == "table" and frozen_since(connection) is None:  # said to people; csv and json stay data
            sys.stdout.flush()  # the table first, whole: a buffered tail ran into the note
            click.echo("note: scoring is open, so these scores can still change (podium wmeval freeze)", err=True)


@wmeval.command("metrics")
@click.option("--frames", default=8, show_default=True, type=click.IntRange(min=1),
              help="evenly spaced frames averaged (the final frame is measured too)")  # fmt: skip
@MEDIA
@DB
def metrics_command(frames: int, media: Path | None, db: str) -> None:
    """SSIM and PSNR of every team video against its reference, for operators (never part of the score).

    Written to metrics.json in the media store; the report then shows how they rank the teams against the human
    scores and which ratings are far from them.
    """
    from podium.tracks.wmeval.metrics import METRICS_FILE, measure_all, write_metrics

    engine = connect(db)
    root = media_root(engine, media)
    found = measure_all(engine, root, frames)
    write_metrics(root / METRICS_FILE, found)
    click.echo(f"{len(found)} video(s) measured: {root / METRICS_FILE} (outside the rubric: never a score)")


@wmeval.command("report")
@click.argument("output", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--seed", default=0, show_default=True, help="bootstrap seed")
@DB
def report_command(output: Path, seed: int, db: str) -> None:
    """Write the HTML report: leaderboard, intervals, agreement, annotator severity and gold accuracy."""
    output.write_text(report_html(connect(db), seed), encoding="utf-8")
    click.echo(f"report written: {output}")


@wmeval.command("freeze")
@DB
def freeze_command(db: str) -> None:
    """Close scoring before publishing: no answer is stored, changed or resolved until `unfreeze`."""
    click.echo(f"scoring frozen since {freeze(connect(db), SystemClock())}")


@wmeval.command("unfreeze")
@DB
def unfreeze_command(db: str) -> None:
    """Reopen scoring."""
    click.echo("scoring reopened" if unfreeze(connect(db), SystemClock()) else "scoring was open")


@wmeval.command("backup")
@click.argument("target", type=click.Path(path_type=Path, dir_okay=False))
@DB
def backup_command(target: Path, db: str) -> None:
    """Copy the live database to TARGET consistently, scores of a moment ago included.

    SQLite's online backup (a plain copy of the file misses what is still in its -wal file); PostgreSQL: pg_dump,
    as the error says.
    """
    pages = backup_database(db, target)
    click.echo(f"backed up {masked(db)} to {target} ({pages} pages, integrity ok)")


@wmeval.command("verify-audit")
@DB
def verify_audit_command(db: str) -> None:
    """Check the audit log's hash chain (every ingest, assignment, account and score change); prints its head."""
    with connect(db).connect() as connection:
        check = verify_chain(audit_entries(connection))
    if not check.ok:
        raise click.ClickException(f"audit log broken at entry {check.broken_at}: {check.problem}")
    click.echo(f"audit log intact: {check.entries} entries, head {check.head}")
