"""What an operator looks at during a season: the judging queue and the submissions, by problem, user and status.

Rows are JSON objects with JSON's types (the CLI's ``--format json`` and the operator page use the same rows); the
table formats print them for people. The queue is the submissions not judged yet, in the order the workers take
them (``JobQueue.waiting``: fair share included), with how long each has waited by the platform's clock.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from podium.core.clock import parse_utc
from podium.tracks.dojo.queueing import judge_queue
from podium.tracks.dojo.records import JobStatus

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo

SUBMISSION_COLUMNS = ("id", "problem", "user", "status", "verdict", "L", "practice", "attempts", "submitted_at")
QUEUE_COLUMNS = ("id", "problem", "user", "status", "attempts", "submitted_at", "waiting_s")


def submission_rows(
    dojo: Dojo,
    *,
    problem: str | None = None,
    user: str | None = None,
    status: Iterable[JobStatus] | None = None,
) -> list[dict[str, Any]]:
    """Every submission matching the filters (``status``: any of these), in id order."""
    problem_id = dojo.problem(problem).id if problem is not None else None
    user_id = dojo.user(user).id if user is not None else None
    chosen = dojo.submissions(problem_id, user_id, statuses=status)
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
    """The submissions waiting for or under judgment, in the workers' order, with their wait so far in seconds.

    The running ones come first, then the queued ones in the order claims take them (fair share included).
    """
    order = judge_queue(dojo).waiting()
    position = {submission_id: index for index, submission_id in enumerate(order)}
    rows = submission_rows(dojo, status=(JobStatus.QUEUED, JobStatus.RUNNING))
    now = dojo.clock.now()
    return [
        {key: row[key] for key in QUEUE_COLUMNS if key in row}
        | {"waiting_s": round((now - parse_utc(row["submitted_at"])).total_seconds(), 1)}
        for row in sorted(rows, key=lambda row: position.get(row["id"], len(order)))
    ]
