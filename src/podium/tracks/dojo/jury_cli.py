"""``podium dojo`` commands for the jury: one submission whole, copies, exports, account history.

The same data as ``jury_web.py``'s API (``jury.py`` builds it), printed as JSON (``--format json``) or for a person.
"""

from __future__ import annotations

import click

from podium.cli.options import format_option
from podium.core.reporting.tables import console_json, render_table
from podium.tracks.dojo.operator_cli import DB, connect


@click.command("submission")
@click.argument("submission_id", type=int)
@format_option(("text", "json"))
@DB
def submission_command(submission_id: int, fmt: str, db: str) -> None:
    """One submission whole: facts, run figures, source, diff with the author's previous, stderr, audit entries."""
    from podium.tracks.dojo.jury import submission_detail

    detail = submission_detail(connect(db), submission_id)
    if fmt == "json":
        click.echo(console_json(detail))
        return
    skipped = {"source", "stderr", "previous", "audit", "run", "same_hash_other_users"}
    for key, value in detail.items():
        if key not in skipped:
            click.echo(f"{key}: {'' if value is None else value}")
    click.echo("run: " + ", ".join(f"{k} {v}" for k, v in detail["run"].items() if v is not None))
    for other in detail["same_hash_other_users"]:
        click.echo(f"the same source sent by {other['user']} as #{other['id']}")
    click.echo("--- source\n" + detail["source"].rstrip("\n"))
    previous = detail["previous"]
    if previous:
        click.echo(f"--- changes since #{previous['id']}\n" + (previous["diff"].rstrip("\n") or "(the same source)"))
    click.echo("--- stderr\n" + (detail["stderr"] or "(none)").rstrip("\n"))
    click.echo("--- audit\n" + "\n".join(f"{e['id']} {e['at']} {e['kind']}" for e in detail["audit"]))


@click.command("copies")
@click.argument("slug")
@click.option("--season")
@click.option("--near", type=click.FloatRange(0, 1), default=0.8, show_default=True, help="similarity to list")
@format_option(("text", "json"))
@DB
def copies_command(slug: str, season: str | None, near: float, fmt: str, db: str) -> None:
    """Submissions of SLUG that look copied across users (equal, equal once normalised, or near).

    A flag, not a verdict: short solutions converge; disqualify with `podium dojo disqualify`.
    """
    from podium.tracks.dojo.jury import copies

    dojo = connect(db)
    found = copies(dojo, dojo.problem(slug, season), near)
    if fmt == "json":
        click.echo(console_json(found))
        return
    for title, key in (("the same source", "same_source"), ("the same once normalised", "same_normalised")):
        for group in found[key]:
            listed = ", ".join(f"#{s['id']} {s['user']} ({s['verdict']})" for s in group["submissions"])
            click.echo(f"{title}: {listed}")
    for pair in found["near"]:
        click.echo(f"near ({pair['similarity']:.2f}): #{pair['a']['id']} {pair['a']['user']} and "
                   f"#{pair['b']['id']} {pair['b']['user']}")  # fmt: skip
    if not (found["same_source"] or found["same_normalised"] or found["near"]):
        click.echo(f"no copies across users in {slug}")


@click.command("clock")
@click.option("--season")
@DB
def clock_command(season: str | None, db: str) -> None:
    """The contest clock: now, and each published problem's next step and the time left."""
    from podium.tracks.dojo.contest_clock import contest_clock
    from podium.web.layout import time_left

    shown = contest_clock(connect(db), season)
    click.echo(f"now: {shown['now'][:19].replace('T', ' ')} UTC")
    for row in shown["problems"]:
        step = row["next"]
        ahead = f"{step['step']} {time_left(step['seconds_left'])}" if step else "no step scheduled"
        click.echo(f"{row['problem']}: {row['state']}, {ahead}")


@click.command("stats")
@click.argument("slug")
@click.option("--season")
@DB
def stats_command(slug: str, season: str | None, db: str) -> None:
    """SLUG's statistics as the jury sees them: counts, Stage Pass, Reward Correct, first solve, verdicts."""
    from podium.tracks.dojo.problem_stats import problem_stats

    dojo = connect(db)
    click.echo(console_json(problem_stats(dojo, dojo.problem(slug, season), for_jury=True)))


@click.command("clarifications")
@click.option("--unanswered", is_flag=True, help="only the questions waiting for an answer")
@format_option(("text", "json"))
@DB
def clarifications_command(unanswered: bool, fmt: str, db: str) -> None:
    """Every question, answer and announcement (the jury's view), oldest first."""
    from podium.tracks.dojo.clarifications import MessageKind, messages_for

    said = [m for m in messages_for(connect(db), None, jury=True)  # the command line is the jury's
            if not unanswered or (m.kind is MessageKind.QUESTION and not m.answered)]  # fmt: skip
    if fmt == "json":
        click.echo(console_json([m.json() for m in said]))
        return
    for m in said:
        about = f" about {m.problem}" if m.problem else ""
        state = " (waiting)" if m.kind is MessageKind.QUESTION and not m.answered else ""
        click.echo(f"#{m.id} {m.at[:16]} {m.kind.value}{state} {m.author} -> {m.to or 'everyone'}{about}: {m.text}")
    if not said:
        click.echo("no messages")


@click.command("answer")
@click.argument("question_id", type=int)
@click.option("--text", required=True)
@click.option("--to-all", is_flag=True, help="answer everyone (publishes the question with the answer)")
@click.option("--as", "operator", required=True, help="the operator who answers (audited)")
@DB
def answer_command(question_id: int, text: str, to_all: bool, operator: str, db: str) -> None:
    """Answer question QUESTION_ID, to its asker or to everyone."""
    from podium.tracks.dojo.clarifications import answer

    dojo = connect(db)
    done = answer(dojo, dojo.user(operator), question_id, text, to_all=to_all)
    click.echo(f"answer #{done.id} to {done.to or 'everyone'}")


@click.command("announce")
@click.option("--text", required=True)
@click.option("--to", help="one user (default: everyone)")
@click.option("--problem", help="about this problem (default: the whole contest)")
@click.option("--as", "operator", required=True, help="the operator who announces (audited)")
@DB
def announce_command(text: str, to: str | None, problem: str | None, operator: str, db: str) -> None:
    """Announce TEXT to everyone, or to one user."""
    from podium.tracks.dojo.clarifications import announce

    dojo = connect(db)
    done = announce(dojo, dojo.user(operator), text, to=to, problem=problem)
    click.echo(f"announcement #{done.id} to {done.to or 'everyone'}")


@click.group("export")
def export() -> None:
    """Write results or the audit log to stdout, for archives and other tools."""


@export.command("results")
@click.argument("season")
@format_option(("tsv", "json"))
@DB
def export_results(season: str, fmt: str, db: str) -> None:
    """Every submission of SEASON, one row each (yes/no for booleans in TSV)."""
    from podium.tracks.dojo.jury import results, results_tsv

    dojo = connect(db)
    dojo.season(season)
    rows = results(dojo, season)
    click.echo(results_tsv(rows) if fmt == "tsv" else console_json(rows), nl=fmt != "tsv")


@export.command("audit")
@DB
def export_audit(db: str) -> None:
    """The whole audit log as JSON, with each entry's chain hashes (`podium dojo verify-audit` checks them)."""
    from podium.tracks.dojo.jury import audit_export

    click.echo(console_json(audit_export(connect(db))))


@click.command("history")
@click.argument("name", required=False)
@format_option(("table", "csv", "json"))
@DB
def user_history(name: str | None, fmt: str, db: str) -> None:
    """When each account (or NAME) was disabled and enabled, and why; `user list` shows only the present."""
    from podium.tracks.dojo.jury import account_history

    dojo = connect(db)
    if name is not None:
        dojo.user(name)  # an unknown name is an error, not an empty history
    history = account_history(dojo)
    rows = [[who, e["at"], e["event"], e.get("reason", "")] for who, events in sorted(history.items())
            for e in events if name in (None, who)]  # fmt: skip
    click.echo(render_table(("user", "at", "event", "reason"), rows, fmt))


def register_jury(dojo: click.Group, user: click.Group) -> None:
    """Add the jury's commands to the ``dojo`` group (and ``history`` to its ``user`` group)."""
    for command in (submission_command, copies_command, stats_command, clock_command, clarifications_command,
                    answer_command, announce_command, export):  # fmt: skip
        dojo.add_command(command)
    user.add_command(user_history)
