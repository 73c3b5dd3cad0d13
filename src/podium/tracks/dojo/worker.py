"""Judge workers: processes that pull queued submissions from the database and judge them.

The queue itself is the core's (``podium.core.job_queue``: claims under the write lock, stale claims taken over,
results stored only while the claim stands). What is the dojo's is here: a claimed submission becomes a ``Job``
with its problem's terms and rules, it is judged once per claim, and the judgment fills the submission's result
columns with a ``judged`` audit entry in the same transaction. An ``INTERNAL_ERROR`` (the sandbox failed, not
the program) sends the submission back to the queue; it is stored as final only on the ``max_attempts``-th claim.

No submission stops the judging of the others: an exception while judging one (a bug, or hostile input nobody
foresaw) is that submission's ``INTERNAL_ERROR``, retried like a sandbox failure, with the exception as its reason
in the worker's log, the row and the audit log; a failure around the judging (storing the result) is the queue's
to handle the same way (``podium.core.job_queue``). ``podium dojo skip`` ends a stuck submission by hand.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, select

from podium.core.execution.sandbox import Sandbox
from podium.core.job_queue import MAX_ATTEMPTS, MAX_REASON_CHARS, Claim, default_worker_id
from podium.core.job_queue import work_in_threads as run_in_threads
from podium.core.storage.text import one_line
from podium.tracks.dojo.judge import JUDGE_VERSION, Judgment, failed_judgment, judge_submission
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.queueing import judge_queue
from podium.tracks.dojo.records import Problem, Season
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import problems, seasons
from podium.tracks.dojo.store import append_audit
from podium.tracks.dojo.verdicts import RunVerdict

__all__ = ["MAX_ATTEMPTS", "Job", "judge_queue", "record", "work", "work_in_threads"]

LOG = logging.getLogger("podium.dojo.worker")


@dataclass(frozen=True, slots=True)
class Job:
    """One claimed submission with everything needed to judge it."""

    claim: Claim
    source: bytes
    truth: tuple[str, ...]
    rules: ScoringRules
    method_tag: str

    @property
    def submission_id(self) -> int:
        """The submission's id."""
        return self.claim.id


# the problem and its season's rules in one query, built once (a statement built per judgment costs ~0.2 ms of CPU)
_PROBLEM_AND_RULES = (
    select(problems, seasons.c.rules_json)
    .join(seasons, seasons.c.id == problems.c.season_id)
    .where(problems.c.id == bindparam("p_problem"))
)


def job_of(dojo: Dojo, claimed: Claim) -> Job:
    """A claimed submission with its problem's terms and its season's rules."""
    with dojo.engine.connect() as db:
        found = db.execute(_PROBLEM_AND_RULES, {"p_problem": claimed.row.problem_id}).one()
    problem = Problem.from_row(found)
    row = claimed.row
    return Job(claimed, bytes(row.source), problem.terms or (), Season.rules_from_row(found), row.method_tag)


def record(dojo: Dojo, job: Job, judgment: Judgment, *, max_attempts: int = MAX_ATTEMPTS) -> bool:
    """Store a judgment if ``job``'s claim still stands; an internal error goes back to the queue.

    True when the judgment was stored as final; False when it went back to the queue or the claim was lost.
    """
    now = dojo.now()
    audited = {
        "submission": job.submission_id,
        "verdict": judgment.verdict.value,
        "stage_pass": judgment.stage_pass,
        "reward_correct": judgment.reward_correct,
        "isolated": judgment.isolated,
        "length": judgment.length,
        "solver_hash": judgment.solver_hash,
        "judge_version": JUDGE_VERSION,
    }
    if judgment.tag_override:
        audited["tag_override"] = judgment.tag_override
    if judgment.verdict is RunVerdict.INTERNAL_ERROR:
        audited["reason"] = judgment.reason  # never the contestant's fault: the audit says what went wrong

    def audit(db: Connection) -> str:
        return append_audit(db, now, "judged", audited)

    return judge_queue(dojo, max_attempts=max_attempts).finish(
        job.claim,
        {
            "verdict": judgment.verdict.value,
            "reason": judgment.reason,
            "stage_pass": judgment.stage_pass,
            "reward_correct": judgment.reward_correct,
            "backend": judgment.backend,
            "isolated": judgment.isolated,
            "judged_at": now,
            "tag_override": judgment.tag_override,
            # the length and hash the judge measured: a row on a leaderboard never has an L nobody judged
            "length": judgment.length,
            "solver_hash": judgment.solver_hash,
            # what the run cost, for the jury and disputes (never published), and which judge judged it
            "stderr": judgment.stderr,
            "wall_time_s": judgment.wall_time_s,
            "cpu_time_s": judgment.cpu_time_s,
            "cpu_counted_by": judgment.cpu_counted_by,
            "peak_memory_mib": judgment.peak_memory_mib,
            "waited_s": judgment.waited_s,
            "judge_version": JUDGE_VERSION,
        },
        retry=judgment.verdict is RunVerdict.INTERNAL_ERROR,
        then=audit,
    )


def work(
    dojo: Dojo, sandbox: Sandbox, *, worker_id: str | None = None, until_idle: bool = True, poll_s: float = 0.5
) -> int:
    """Claim, judge and record until the queue is empty (or forever); returns how many were judged."""

    def judge(claimed: Claim) -> bool:
        job = job_of(dojo, claimed)
        try:
            # one run per claim: an internal error goes back to the queue, which is the retry (3 claims, not 3 × 3)
            judgment = judge_submission(
                job.source, job.truth, sandbox, job.rules, method_tag=job.method_tag, internal_error_attempts=1
            )
        except Exception as error:  # noqa: BLE001 -- this submission's INTERNAL_ERROR, never the worker's end
            LOG.exception("judging submission %s failed (attempt %s)", job.submission_id, claimed.attempt)
            row = claimed.row
            reason = one_line(f"the judge failed: {type(error).__name__}: {error}", MAX_REASON_CHARS)
            judgment = failed_judgment(reason, length=row.length, solver_hash=row.solver_hash)
        return record(dojo, job, judgment)

    return judge_queue(dojo).work(worker_id or default_worker_id(), judge, until_idle=until_idle, poll_s=poll_s)


def work_in_threads(dojo: Dojo, sandbox: Sandbox, threads: int, *, until_idle: bool = True) -> int:
    """``threads`` workers in this process (the runs wait on sandboxes, not on Python)."""
    return run_in_threads(threads, lambda worker_id: work(dojo, sandbox, worker_id=worker_id, until_idle=until_idle))
