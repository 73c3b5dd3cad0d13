"""The dojo's judging queue: the core's ``JobQueue`` over the submissions table, fair across solvers.

Submitting and rejudging queue submissions (with their fair-share turns), the workers claim them, the operator's
listing shows them in claim order: all three use the one queue made here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, Row

from podium.core.clock import Clock
from podium.core.job_queue import MAX_ATTEMPTS, STALE_AFTER_S, JobQueue
from podium.tracks.dojo.records import JobStatus
from podium.tracks.dojo.schema import submissions
from podium.tracks.dojo.store import append_audit, transaction
from podium.tracks.dojo.verdicts import RunVerdict

if TYPE_CHECKING:
    from typing import Protocol

    class _Platform(Protocol):
        engine: Engine
        clock: Clock

        def now(self) -> str: ...


def judge_queue(dojo: _Platform, *, stale_after_s: float = STALE_AFTER_S, max_attempts: int = MAX_ATTEMPTS) -> JobQueue:
    """The queue of submissions to judge."""

    def given_up(db: Connection, row: Row[Any], reason: str) -> dict[str, Any]:
        # every attempt to judge it ended without a judgment: perhaps it is what kills the workers, so it stops here
        now = dojo.now()
        verdict = RunVerdict.INTERNAL_ERROR.value
        append_audit(db, now, "judged", {"submission": row.id, "verdict": verdict, "reason": reason})
        return {"verdict": verdict, "reason": reason, "stage_pass": False, "reward_correct": False, "judged_at": now}

    return JobQueue(
        dojo.engine,
        submissions,
        transaction,
        dojo.clock,
        queued=JobStatus.QUEUED.value,
        running=JobStatus.RUNNING.value,
        done=JobStatus.JUDGED.value,
        stale_after_s=stale_after_s,
        max_attempts=max_attempts,
        fair_by="user_id",  # round-robin across solvers: one burst does not hold back the others
        exhausted=given_up,
    )
