"""What an operator looks at during a season: the judging queue and the submissions, by problem, user and status.

Rows are JSON objects with JSON's types (the CLI's ``--format json`` and the operator page use the same rows); the
table formats print them for people. The queue is the submissions not judged yet, in the order the workers claim
them, with how long each has waited by the platform's clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from podium.core.clock import parse_utc
from podium.tracks.dojo.records import JobStatus

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo

SUBMISSION_COLUMNS = ("id", "problem", "user", "status", "verdict", "L", "practice", "attempts", "submitted_at")
QUEUE_COLUMNS = ("id", "problem", "user", "status", "attempts", "submitted_at", "waiting_s")


def submission_rows(
    dojo: Dojo, *, problem: str | None = None, user: str | None = None, status: JobStatus | None = None
) -> list[dict[str, Any]]:
    """Every submission matching the filters, in id order."""
    problem_id = dojo.problem(problem).id if problem is not None else None
    user_id = dojo.user(user).id if user is not None else None
    chosen = [s for s in dojo.submissions(problem_id, user_id) if status is None or s.status is status]
    slugs = {p.id: p.slug for p in dojo.problems_by_id(s.problem_id for s in chosen).values()}
    names = dojo.user_names()
    return [
        {
            "id": s.id, "problem": slugs[s.problem_id], "user": names[s.user_id], "status": s.status.value,
            "verdict": s.verdict, "L": s.length, "practice": s.practice, "attempts": s.attempts,
            "submitted_at": s.created_at,
        }
        for s in chosen
    ]  # fmt: skip


def queue_rows(dojo: Dojo) -> list[dict[str, Any]]:
    """The submissions waiting for or under judgment, in claim order, with their wait so far in seconds."""
    now = dojo.clock.now()
    waiting = [r for r in submission_rows(dojo) if r["status"] != JobStatus.JUDGED.value]
    return [
        {key: row[key] for key in QUEUE_COLUMNS if key in row}
        | {"waiting_s": round((now - parse_utc(row["submitted_at"])).total_seconds(), 1)}
        for row in waiting
    ]
