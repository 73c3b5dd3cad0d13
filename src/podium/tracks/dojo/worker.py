"""Judge workers: processes that pull queued submissions from the database and judge them.

Several workers, on one machine or many (against PostgreSQL), share the queue. A claim marks a submission
``running`` under the worker's id inside the database's write lock, so no two workers claim the same one; a
result is stored only while that claim still stands. A claim older than ``stale_after_s`` (its worker died) is
given to the next worker that asks. An ``INTERNAL_ERROR`` result sends the submission back to the queue; it is
stored as final only on the ``max_attempts``-th claim.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import or_, select, update

from podium.core.clock import utc_text
from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.judge import Judgment, judge_submission
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.records import JobStatus, Problem, Season
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import problems, seasons, submissions
from podium.tracks.dojo.store import append_audit, transaction
from podium.tracks.dojo.verdicts import RunVerdict

STALE_AFTER_S = 600.0
MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class Job:
    """One claimed submission with everything needed to judge it."""

    submission_id: int
    source: bytes
    truth: tuple[str, ...]
    rules: ScoringRules
    worker_id: str
    attempt: int
    method_tag: str


def default_worker_id() -> str:
    """``host:pid:thread``: unique among the workers sharing a queue."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def claim(dojo: Dojo, worker_id: str, *, stale_after_s: float = STALE_AFTER_S) -> Job | None:
    """Claim the oldest queued (or stale) submission, or None when there is nothing to do."""
    now = dojo.clock.now()
    stale = utc_text(now - timedelta(seconds=stale_after_s))
    with transaction(dojo.engine) as db:
        row = db.execute(
            select(
                submissions.c.id,
                submissions.c.source,
                submissions.c.attempts,
                submissions.c.problem_id,
                submissions.c.method_tag,
            )
            .where(
                or_(
                    submissions.c.status == JobStatus.QUEUED.value,
                    (submissions.c.status == JobStatus.RUNNING.value) & (submissions.c.claimed_at < stale),
                )
            )
            .order_by(submissions.c.id)
            .limit(1)
        ).first()
        if row is None:
            return None
        db.execute(
            update(submissions)
            .where(submissions.c.id == row.id)
            .values(
                status=JobStatus.RUNNING.value,
                claimed_by=worker_id,
                claimed_at=utc_text(now),
                attempts=row.attempts + 1,
            )
        )
        found = db.execute(  # the problem and its season's rules in one query
            select(problems, seasons.c.rules_json)
            .join(seasons, seasons.c.id == problems.c.season_id)
            .where(problems.c.id == row.problem_id)
        ).one()
    problem = Problem.from_row(found)
    rules = Season.rules_from_row(found)
    return Job(row.id, bytes(row.source), problem.terms or (), rules, worker_id, row.attempts + 1, row.method_tag)


def record(dojo: Dojo, job: Job, judgment: Judgment, *, max_attempts: int = MAX_ATTEMPTS) -> bool:
    """Store a judgment if ``job``'s claim still stands; an internal error goes back to the queue.

    True when the judgment was stored as final; False when it went back to the queue or the claim was lost.
    """
    retry = judgment.verdict is RunVerdict.INTERNAL_ERROR and job.attempt < max_attempts
    with transaction(dojo.engine) as db:
        mine = (
            (submissions.c.id == job.submission_id)
            & (submissions.c.status == JobStatus.RUNNING.value)
            & (submissions.c.claimed_by == job.worker_id)
        )
        if retry:
            db.execute(update(submissions).where(mine).values(status=JobStatus.QUEUED.value))
            return False
        now = dojo.now()
        stored = db.execute(
            update(submissions)
            .where(mine)
            .values(
                status=JobStatus.JUDGED.value,
                verdict=judgment.verdict.value,
                reason=judgment.reason,
                stage_pass=judgment.stage_pass,
                reward_correct=judgment.reward_correct,
                backend=judgment.backend,
                isolated=judgment.isolated,
                judged_at=now,
                tag_override=judgment.tag_override,
            )
        ).rowcount
        if stored:
            append_audit(
                db,
                now,
                "judged",
                {
                    "submission": job.submission_id,
                    "verdict": judgment.verdict.value,
                    "stage_pass": judgment.stage_pass,
                    "reward_correct": judgment.reward_correct,
                    "isolated": judgment.isolated,
                }
                | ({"tag_override": judgment.tag_override} if judgment.tag_override else {}),
            )
        return bool(stored)


def work(
    dojo: Dojo, sandbox: Sandbox, *, worker_id: str | None = None, until_idle: bool = True, poll_s: float = 0.5
) -> int:
    """Claim, judge and record until the queue is empty (or forever); returns how many were judged."""
    worker_id = worker_id or default_worker_id()
    done = 0
    while True:
        job = claim(dojo, worker_id)
        if job is None:
            if until_idle:
                return done
            time.sleep(poll_s)
            continue
        # one run per claim: an internal error goes back to the queue, which is the retry (3 claims, not 3 × 3 runs)
        judgment = judge_submission(
            job.source, job.truth, sandbox, job.rules, method_tag=job.method_tag, internal_error_attempts=1
        )
        if record(dojo, job, judgment):
            done += 1


def work_in_threads(dojo: Dojo, sandbox: Sandbox, threads: int, *, until_idle: bool = True) -> int:
    """``threads`` workers in this process (the runs wait on sandboxes, not on Python)."""
    counts = [0] * threads

    def run(index: int) -> None:
        counts[index] = work(dojo, sandbox, worker_id=f"{default_worker_id()}:{index}", until_idle=until_idle)

    pool = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return sum(counts)
