"""``podium dojo`` commands for operators: database, users, seasons, problems, lifecycle, judging, results.

The database is the one ``podium serve`` serves the dojo on (``podium.core.storage.database_choice``): ``--db URL``,
else ``PODIUM_DOJO_DB``, else ``PODIUM_DB``, else ``podium.sqlite3`` in the current folder.

The platform's modules (and with them SQLAlchemy, about 0.17 s to import) are imported by the commands that use
them, not here: ``podium dojo submit --server URL`` and ``podium dojo judge`` never need a database.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from podium.cli.options import db_option, format_option
from podium.core.clock import SystemClock, parse_utc
from podium.core.errors import InputError
from podium.core.execution.sandbox import BACKENDS, Sandbox, open_sandbox
from podium.core.reporting.tables import console_json, render_table
from podium.core.storage.audit import verify_chain
from podium.core.storage.database_choice import masked
from podium.core.storage.files import read_bytes, read_json
from podium.tracks.dojo.lifecycle import ProblemState
from podium.tracks.dojo.problem import load_problem
from podium.tracks.dojo.rules import ScoringRules

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo

DB = db_option("dojo")
ROLES = ("operator", "setter", "solver")  # the values of records.Role (a test keeps them equal)


JOB_STATES = ("queued", "running", "judged")  # records.JobStatus, without importing the database code


def sandbox_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--sandbox auto|forkserver|bubblewrap|rlimits``."""
    return click.option(
        "--sandbox",
        "backend",
        type=click.Choice(BACKENDS),
        default="auto",
        show_default=True,
        help="auto: the fork-server where this host supports it, else bubblewrap; rlimits is weaker and not "
        "isolated, and results judged with it say so",
    )(command)


def connect(db: str, backend: str = "auto") -> Dojo:
    """The platform on database ``db`` with the system clock; the sandbox opens only when something runs."""
    from podium.tracks.dojo.platform import Dojo
    from podium.tracks.dojo.store import open_store

    return Dojo(open_store(db), SystemClock(), lambda: sandbox_for(backend))


def sandbox_for(backend: str) -> Sandbox:
    """The chosen sandbox; choosing the weaker one is the operator's explicit opt-in."""
    return open_sandbox(backend, allow_weaker=backend == "rlimits")


def when(value: str | None) -> datetime | None:
    """An ISO-8601 time option (UTC when it names no offset)."""
    return parse_utc(value) if value else None


def register(dojo: click.Group) -> None:
    """Add the operator commands to the ``dojo`` group."""

    @dojo.command("init")
    @DB
    def init(db: str) -> None:
        """Create or upgrade the database."""
        from podium.tracks.dojo.store import open_store

        open_store(db)
        click.echo(f"database ready: {masked(db)}")

    @dojo.group("user")
    def user() -> None:
        """Users and their API tokens."""

    @user.command("add")
    @click.argument("name")
    @click.option("--role", type=click.Choice(ROLES), required=True)
    @DB
    def user_add(name: str, role: str, db: str) -> None:
        """Add a user; prints their API token once."""
        from podium.tracks.dojo.records import Role

        added, token = connect(db).add_user(name, Role(role))
        click.echo(f"{added.name} ({added.role.value}) token: {token}")

    @user.command("list")
    @format_option(("table", "csv", "json"))
    @DB
    def user_list(fmt: str, db: str) -> None:
        """Every user: name, role, when added, and since when disabled."""
        rows = [[e.name, e.role, e.created_at, e.disabled_at] for e in connect(db).users.entries()]
        click.echo(render_table(("name", "role", "added", "disabled"), rows, fmt))

    @user.command("disable")
    @click.argument("name")
    @click.option("--reason", required=True, help="Why (audited).")
    @DB
    def user_disable(name: str, reason: str, db: str) -> None:
        """Refuse NAME's token and sessions everywhere and leave their submissions out of boards not yet revealed.

        A revealed board is a record: to take NAME off one, `podium dojo disqualify NAME --problem P --reason ...`.
        """
        ended = connect(db).users.disable(name, reason)
        click.echo(
            f"{name} disabled ({ended} session(s) ended); their submissions leave the boards not revealed yet "
            f"(revealed boards change only by `podium dojo disqualify {name} --problem P --reason ...`)"
        )

    @user.command("enable")
    @click.argument("name")
    @DB
    def user_enable(name: str, db: str) -> None:
        """Let NAME in again."""
        connect(db).users.enable(name)
        click.echo(f"{name} enabled")

    @user.command("rotate-token")
    @click.argument("name")
    @DB
    def user_rotate_token(name: str, db: str) -> None:
        """Give NAME a new token (printed once); the old one stops working at once."""
        click.echo(f"{name} token: {connect(db).users.rotate_token(name)}")

    @dojo.command("submissions")
    @click.option("--problem", help="Only this problem's (its slug).")
    @click.option("--user", "user_name", help="Only this user's.")
    @click.option("--status", type=click.Choice(JOB_STATES), help="Only those in this state.")
    @format_option(("table", "csv", "json"))
    @DB
    def list_submissions(problem: str | None, user_name: str | None, status: str | None, fmt: str, db: str) -> None:
        """Submissions by problem, user and status (id, verdict, L, practice, attempts, time)."""
        from podium.tracks.dojo.listing import SUBMISSION_COLUMNS, submission_rows
        from podium.tracks.dojo.records import JobStatus

        rows = submission_rows(connect(db), problem=problem, user=user_name,
                               status=(JobStatus(status),) if status else None)  # fmt: skip
        click.echo(_records(SUBMISSION_COLUMNS, rows, fmt))

    @dojo.command("queue")
    @format_option(("table", "csv", "json"))
    @DB
    def show_queue(fmt: str, db: str) -> None:
        """The submissions waiting for or under judgment, in claim order, with how long each has waited."""
        from podium.tracks.dojo.listing import QUEUE_COLUMNS, queue_rows

        click.echo(_records(QUEUE_COLUMNS, queue_rows(connect(db)), fmt))

    @dojo.group("season")
    def season() -> None:
        """Seasons and their scoring rules."""

    @season.command("create")
    @click.argument("name")
    @click.option("--rules", "rules_file", type=click.Path(path_type=Path, dir_okay=False),
                  help="JSON object overriding the scoring rules v0.1 defaults "
                       "(docs/rules/dojo-scoring.md)")  # fmt: skip
    @DB
    def season_create(name: str, rules_file: Path | None, db: str) -> None:
        """Create a season."""
        rules = ScoringRules.for_new_season(read_json(rules_file) if rules_file else None)
        created = connect(db).create_season(name, rules)
        click.echo(f"season {created.name} created ({rules.version})")

    @dojo.group("problem")
    def problem() -> None:
        """Problems: add, list."""

    @problem.command("add")
    @click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
    @click.option("--season", required=True)
    @click.option("--slug", help="short name (default: the folder's name)")
    @click.option("--setter", required=True, help="the setter's user name")
    @click.option("--open-at", help="ISO-8601 time")
    @click.option("--freeze-at", help="ISO-8601 time")
    @click.option("--reveal-at", help="ISO-8601 time")
    @DB
    def problem_add(
        folder: Path, season: str, slug: str | None, setter: str, open_at: str | None, freeze_at: str | None,
        reveal_at: str | None, db: str,
    ) -> None:  # fmt: skip
        """Add the problem in FOLDER (setter.py, problem.json) as a DRAFT."""
        added = connect(db).add_problem(
            season, slug or folder.name, setter, load_problem(folder),
            open_at=when(open_at), freeze_at=when(freeze_at), reveal_at=when(reveal_at),
        )  # fmt: skip
        click.echo(f"problem {added.slug} added ({added.state.value})")

    @problem.command("redraft")
    @click.argument("slug")
    @click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
    @click.option("--season")
    @DB
    def problem_redraft(slug: str, folder: Path, season: str | None, db: str) -> None:
        """Give a REJECTED problem the corrected setter in FOLDER; it is a DRAFT again, to validate anew."""
        redrafted = connect(db).redraft(slug, load_problem(folder), season)
        click.echo(f"problem {redrafted.slug} redrafted ({redrafted.state.value}); validate it again")

    @dojo.command("problems")
    @click.option("--season")
    @DB
    def problems_list(season: str | None, db: str) -> None:
        """List problems with their state and times."""
        rows = [
            [p.slug, p.title, p.state.value, p.open_at, p.freeze_at, p.reveal_at, p.seq_commit]
            for p in connect(db).problems(season)
        ]
        click.echo(render_table(("slug", "title", "state", "open_at", "freeze_at", "reveal_at", "seq_commit"), rows))

    @dojo.command("validate")
    @click.argument("slug")
    @click.option("--season")
    @sandbox_option
    @DB
    def validate(slug: str, season: str | None, backend: str, db: str) -> None:
        """Run the setter checks; DRAFT -> VALIDATING (or REJECTED)."""
        result = connect(db, backend).validate(slug, season)
        for line in result.problems:
            click.echo(f"problem: {line}")
        for line in result.warnings:
            click.echo(f"warning: {line}")
        click.echo(f"{slug}: {'accepted' if result.accepted else 'REJECTED'} ({len(result.terms)} terms)")

    helps = {
        "open": "Open a validated problem: publish its commitments.",
        "freeze": "Freeze a problem now; prints the audit head hash to publish.",
        "reveal": "Reveal a frozen problem: salt, setter, terms, final leaderboard; prints the audit head.",
        "archive": "Archive a revealed problem.",
        "withdraw": "Withdraw a problem before it opens.",
        "void": "Annul a problem.",
    }

    def lifecycle_command(name: str, action: Callable[[Dojo, str, str | None], str]) -> None:
        @dojo.command(name, help=helps[name])
        @click.argument("slug")
        @click.option("--season")
        @DB
        def command(slug: str, season: str | None, db: str) -> None:
            click.echo(action(connect(db), slug, season))

    lifecycle_command("open", lambda d, s, season: f"{s}: OPEN, seq_commit {d.open(s, season).seq_commit}")
    lifecycle_command("freeze", lambda d, s, season: f"{s}: FROZEN, audit head {d.freeze(s, season)}")
    lifecycle_command("reveal", lambda d, s, season: f"{s}: REVEALED, audit head {d.reveal(s, season)}")
    for verb, target in (
        ("archive", ProblemState.ARCHIVED),
        ("withdraw", ProblemState.WITHDRAWN),
        ("void", ProblemState.VOID),
    ):
        lifecycle_command(verb, _set_state_action(target))

    @dojo.command("tick")
    @DB
    def tick(db: str) -> None:
        """Make the scheduled moves that are due (open, freeze, reveal)."""
        for line in connect(db).tick() or ["nothing due"]:
            click.echo(line)

    @dojo.command("submit")
    @click.argument("solver", type=click.Path(path_type=Path, dir_okay=False))
    @click.option("--problem", "slug", required=True)
    @click.option("--token", envvar="PODIUM_DOJO_TOKEN", required=True, help="your API token (or PODIUM_DOJO_TOKEN)")
    @click.option("--solution", type=click.Path(path_type=Path, dir_okay=False), help="solution.json with method_tag")
    @click.option(
        "--server", envvar="PODIUM_DOJO_SERVER",
        help="the dojo server's address (http://HOST:PORT, or PODIUM_DOJO_SERVER): submit through its API, as "
        "contestants do; without it the submission goes straight into --db",
    )  # fmt: skip
    @DB
    def submit(solver: Path, slug: str, token: str, solution: Path | None, server: str | None, db: str) -> None:
        """Submit SOLVER to a problem: to a server with --server, else straight into the database."""
        if server:
            from podium.tracks.dojo.client import submit_over_http

            raw = read_bytes(solver)
            try:
                source = raw.decode("utf-8")
            except UnicodeDecodeError as error:  # said here, as the judge would say it, not as the API's 422
                raise InputError(f"the solver is not UTF-8 (byte {error.start}: {error.reason})", path=solver,
                                 fix="save it as UTF-8: the judge reads nothing else") from error  # fmt: skip
            claims = read_json(solution) if solution else None
            click.echo(console_json(submit_over_http(server, token, slug, source, claims)))
            return
        platform = connect(db)
        receipt = platform.submit(
            platform.authenticate(token), slug, read_bytes(solver), read_bytes(solution) if solution else None
        )
        click.echo(console_json(dataclasses.asdict(receipt)))

    @dojo.command("worker")
    @click.option("--threads", default=4, show_default=True, help="judging threads in this process")
    @click.option("--forever", is_flag=True, help="keep polling instead of stopping when the queue is empty")
    @sandbox_option
    @DB
    def worker(threads: int, forever: bool, backend: str, db: str) -> None:
        """Judge queued submissions."""
        from podium.tracks.dojo.worker import work_in_threads

        click.echo(f"worker: judging the queue of {masked(db)}", err=True)
        platform = connect(db, backend)
        done = work_in_threads(platform, sandbox_for(backend), threads, until_idle=not forever)
        click.echo(f"judged {done} submission(s)")

    @dojo.command("skip")
    @click.argument("submission_id", type=int)
    @click.option("--reason", required=True, help="why it cannot be judged (kept in its row and the audit log)")
    @DB
    def skip(submission_id: int, reason: str, db: str) -> None:
        """End a submission that cannot be judged as an internal error, so its problem can be revealed."""
        skipped = connect(db).skip(submission_id, reason)
        click.echo(f"submission {skipped.id}: {skipped.verdict}: {skipped.reason}")

    @dojo.command("rejudge")
    @click.argument("slug")
    @click.option("--season")
    @click.option("--submission", type=int, help="only this submission")
    @click.option("--preview", is_flag=True, help="judge them again now and list what would change; store nothing")
    @sandbox_option
    @DB
    def rejudge(slug: str, season: str | None, submission: int | None, preview: bool, backend: str, db: str) -> None:
        """Queue a problem's submissions for judging again (before reveal)."""
        if preview:
            from podium.tracks.dojo.jury import rejudge_preview

            dojo = connect(db, backend)
            found = rejudge_preview(dojo, sandbox_for(backend), dojo.problem(slug, season), submission)
            click.echo(console_json(found))
            return
        click.echo(f"queued {connect(db).rejudge(slug, season, submission)} submission(s)")

    @dojo.command("leaderboard")
    @click.option("--problem", "slug", help="one problem's leaderboard")
    @click.option("--season", help="the season's leaderboard (revealed problems only, unless --preview)")
    @click.option("--preview", is_flag=True, help="operators: include problems not revealed yet")
    @format_option()
    @DB
    def leaderboard(slug: str | None, season: str | None, preview: bool, fmt: str, db: str) -> None:
        """Print a problem's or a season's leaderboard."""
        from podium.tracks.dojo.results import problem_leaderboard_text, season_leaderboard_text

        platform = connect(db)
        if slug:
            click.echo(problem_leaderboard_text(platform, platform.problem(slug, season), fmt))
        elif season:
            click.echo(season_leaderboard_text(platform, season, fmt, final_only=not preview))
        else:
            raise click.UsageError("name --problem or --season")

    @dojo.command("scoreboard")
    @click.option("--season", required=True)
    @click.option("--live", is_flag=True, help="operators: every problem scored now, not what the public sees")
    @format_option(("table", "csv", "json"))
    @DB
    def show_scoreboard(season: str, live: bool, fmt: str, db: str) -> None:
        """The season's public board: revealed scores, and Stage Pass and counts of open problems (as of freeze)."""
        from podium.tracks.dojo.scoreboard import SCOREBOARD_COLUMNS, scoreboard, scoreboard_records

        click.echo(_records(SCOREBOARD_COLUMNS, scoreboard_records(scoreboard(connect(db), season, live=live)), fmt))

    @dojo.command("verify-audit")
    @DB
    def verify_audit(db: str) -> None:
        """Check the audit log's hash chain and every published board against the rows; prints the head hash."""
        from podium.tracks.dojo.replay import check_published_boards
        from podium.tracks.dojo.store import audit_entries

        platform = connect(db)
        with platform.engine.connect() as connection:
            check = verify_chain(audit_entries(connection))
        if not check.ok:
            raise click.ClickException(f"audit log broken at entry {check.broken_at}: {check.problem}")
        found = check_published_boards(platform)
        if found:
            raise click.ClickException(
                "the rows disagree with the published boards:\n"
                + "\n".join(found)
                + "\n(a row was edited after reveal, or a board was not published from these rows)"
            )
        click.echo(f"audit log intact: {check.entries} entries, head {check.head}; published boards match the rows")

    @dojo.command("disqualify")
    @click.argument("target")
    @click.option("--problem", "slug", required=True, help="the revealed problem whose board is amended")
    @click.option("--season", default=None, help="the problem's season, when several seasons use the slug")
    @click.option("--reason", required=True, help="why (published with the new version of the board)")
    @DB
    def disqualify(target: str, slug: str, season: str | None, reason: str, db: str) -> None:
        """Take USER's row, or SUBMISSION's (an id), off a revealed problem's board: a new, audited version.

        No other score is recomputed; the earlier versions stay published beside it. Before reveal, disable the
        user instead (their submissions then leave the board revealed later).
        """
        from podium.tracks.dojo.published import Amendment

        amendment = Amendment(reason, submission=int(target)) if target.isdigit() else Amendment(reason, user=target)
        version = connect(db).disqualify(slug, amendment, season)
        gone = ", ".join(f"{row['user']} (submission {row['submission']})" for row in version.removed)
        click.echo(f"{slug}: version {version.version} of the board published without {gone}: {reason}")

    @dojo.command("verify")
    @click.argument("slug")
    @click.option("--season", default=None, help="the problem's season, when several seasons use the slug")
    @sandbox_option
    @DB
    def verify(slug: str, season: str | None, backend: str, db: str) -> None:
        """Judge each Reward Correct row of a frozen or revealed board again alone, on a cold page cache (audited).

        Unverified rows are withdrawn by an amendment: at once on a revealed board, at reveal on a frozen one.
        Borderline rows stay for you to decide. Reveal runs this itself when a problem was not verified since its
        freeze.
        """
        from podium.tracks.dojo.verification import verification_report

        verification, version = connect(db, backend).verify(slug, season)
        click.echo(verification_report(verification, version))

    @dojo.command("backup")
    @click.argument("target", type=click.Path(path_type=Path, dir_okay=False))
    @DB
    def backup(target: Path, db: str) -> None:
        """Copy the live database to TARGET consistently (SQLite's online backup; PostgreSQL: pg_dump)."""
        from podium.core.storage.backup import backup_database  # SQLAlchemy: only where a database is used

        pages = backup_database(db, target)
        click.echo(f"backed up {masked(db)} to {target} ({pages} pages, integrity ok)")

    @dojo.command("replay")
    @click.option("--season", required=True)
    @click.option("--rejudge/--no-rejudge", default=True, show_default=True, help="rerun every counted submission")
    @sandbox_option
    @DB
    def replay(season: str, rejudge: bool, backend: str, db: str) -> None:
        """Replay a season from the database and audit log; exit 1 on any discrepancy."""
        from podium.tracks.dojo.replay import replay_season

        report = replay_season(connect(db, backend), season, sandbox_for(backend) if rejudge else None)
        click.echo(
            f"audit entries {report.audit_entries}, head {report.audit_head}; problems {report.problems_checked}; "
            f"rejudged {report.submissions_rejudged}"
        )
        for line in report.judge_changes:
            click.echo(f"judge changed since: {line}")
        for line in report.discrepancies:
            click.echo(f"discrepancy: {line}")
        if not report.ok:
            raise click.ClickException(f"{len(report.discrepancies)} discrepancies")
        click.echo("replay matches the published results")


def _records(columns: tuple[str, ...], rows: list[dict[str, Any]], fmt: str) -> str:
    """Rows as JSON with JSON's types, or as a table for people."""
    if fmt == "json":
        return console_json(rows)
    return render_table(columns, [[row[c] for c in columns] for row in rows], fmt)


def _set_state_action(target: ProblemState) -> Callable[[Dojo, str, str | None], str]:
    def action(platform: Dojo, slug: str, season: str | None) -> str:
        return f"{slug}: {platform.set_state(slug, target, season).state.value}"

    return action
