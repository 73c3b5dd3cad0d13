"""The submissions' part of the platform: submit (with the season's rate limit), list, skip, rejudge.

``SubmissionDesk`` is a part of ``platform.Dojo`` (which it is mixed into): it uses the platform's engine, clock
and problems. A source the judge would not admit and a malformed ``solution.json`` are refused before anything is
stored, so no row ever holds a truncated source or lacks the length the judge measures.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, bindparam, insert, select, update

from podium.core.clock import Clock, parse_utc, utc_text
from podium.core.errors import ConflictError, InputError, NotFoundError, PermissionDenied, RateLimited
from podium.core.records import StageFailure
from podium.core.storage.sql import inserted_id
from podium.core.storage.text import unstorable
from podium.tracks.dojo.admit import admit
from podium.tracks.dojo.bonus import TagClaim, method_tag
from podium.tracks.dojo.lifecycle import PUBLISHED, LifecycleError, ProblemState
from podium.tracks.dojo.queueing import judge_queue
from podium.tracks.dojo.records import JobStatus, Problem, Role, Season, Submission, User
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import problems, submissions
from podium.tracks.dojo.store import append_audit, transaction
from podium.tracks.dojo.verdicts import RunVerdict

MAX_NOTES_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Receipt:
    """What a submitter is told at once: the id, the hash and length we measured, and whether it counts."""

    submission_id: int
    solver_hash: str | None
    length: int | None
    created_at: str
    practice: bool
    method_tag: str  # the tag it counts as
    warning: str = ""  # set when that is not the tag the submitter wrote (an unknown name counts as "other")
    # submissions left in the season's window after this one (None: no limit, or a repeat); not part of the receipt
    # proper, so that a repeated post's receipt equals the first
    remaining: int | None = dataclasses.field(default=None, compare=False)


def unknown_submission(submission_id: int) -> NotFoundError:
    """The error for a submission that does not exist, also given for another user's."""
    return NotFoundError(f"no submission {submission_id}")


class SubmissionDesk:
    """Submitting, listing, skipping and rejudging, on the platform's database."""

    engine: Engine
    clock: Clock

    if TYPE_CHECKING:  # the platform's, which this part uses

        def now(self) -> str: ...

        def problem(self, slug: str, season: str | None = None) -> Problem: ...

        def season_of(self, problem: Problem) -> Season: ...

    def submit(
        self,
        user: User,
        slug: str,
        source: bytes,
        solution_json: bytes | None = None,
        idempotency_key: str | None = None,
    ) -> Receipt:
        """Queue a submission; it counts only while the problem is open and before its freeze time.

        Only solvers compete (operators and setters never do). A source the judge would not admit (too large, not
        UTF-8) and a malformed ``solution.json`` are refused here with the judge's reason (InputError): nothing is
        stored, so no row ever holds a truncated source or lacks the length the judge measures.

        ``idempotency_key`` (the client's): a post repeated with the same key, after a failure the client could not
        tell from success, gets the first receipt back and stores nothing, nor spends the rate limit again; the same
        key with another source is refused (ConflictError).
        """
        key = check_idempotency_key(idempotency_key)
        if user.role is not Role.SOLVER:
            raise PermissionDenied(
                f"user {user.name!r} has the role {user.role.value}; only solvers submit (operators and setters do "
                "not compete)"
            )
        problem = self.problem(slug)
        if problem.state not in PUBLISHED:
            raise LifecycleError(f"problem {slug!r} is {problem.state.value}; it takes no submissions")
        rules = self.season_of(problem).rules
        claim, notes = solution_claims(solution_json, rules)
        tag = claim.tag
        admitted = admit(source, max_bytes=rules.max_source_bytes)
        if isinstance(admitted, StageFailure):
            raise InputError(
                f"submission refused ({admitted.verdict.value}): {admitted.reason}",
                fix="`podium dojo judge` gives the same verdict locally",
            )
        stored, digest, length = admitted.canonical, admitted.sha256, admitted.length
        with transaction(self.engine) as db:
            if key is not None and (first := _keyed(db, user, key)) is not None:
                if (first.problem_id, first.solver_hash) != (problem.id, digest):
                    raise ConflictError(
                        f"idempotency key {key!r} was used for submission {first.id}, another source or problem",
                        fix="send a new key with each new submission",
                    )
                return Receipt(first.id, first.solver_hash, first.length, first.created_at, first.practice,
                               first.method_tag, claim.warning)  # fmt: skip
            now = self.clock.now()
            created_at = utc_text(now)
            remaining = _check_rate(db, user, problem.season_id, rules, now)
            current = Problem.from_row(db.execute(select(problems).where(problems.c.id == problem.id)).one())
            practice = current.state is not ProblemState.OPEN or (
                current.freeze_at is not None and parse_utc(current.freeze_at) <= now
            )
            sid = inserted_id(
                db,
                insert(submissions).values(
                    problem_id=problem.id,
                    user_id=user.id,
                    source=stored,
                    solver_hash=digest,
                    length=length,
                    method_tag=tag,
                    notes=notes,
                    created_at=created_at,
                    practice=practice,
                    status=JobStatus.QUEUED.value,
                    attempts=0,
                    turn=judge_queue(self).turns(db, [user.id])[0],
                    idempotency_key=key,
                ),
            )
            append_audit(
                db,
                created_at,
                "submission",
                {
                    "submission": sid,
                    "problem": slug,
                    "user": user.name,
                    "solver_hash": digest,
                    "length": length,
                    "method_tag": tag,
                    "practice": practice,
                },
            )
        return Receipt(sid, digest, length, created_at, practice, tag, claim.warning, remaining)

    def submission(self, submission_id: int) -> Submission:
        """One submission by id."""
        with self.engine.connect() as db:
            row = db.execute(select(submissions).where(submissions.c.id == submission_id)).first()
        if row is None:
            raise unknown_submission(submission_id)
        return Submission.from_row(row)

    def submissions(
        self, problem_id: int | None = None, user_id: int | None = None, *, statuses: Iterable[JobStatus] | None = None
    ) -> list[Submission]:
        """Submissions (of a problem, of a user, in any of ``statuses``) in id order."""
        query = select(submissions).order_by(submissions.c.id)
        if statuses is not None:
            query = query.where(submissions.c.status.in_([status.value for status in statuses]))
        if problem_id is not None:
            query = query.where(submissions.c.problem_id == problem_id)
        if user_id is not None:
            query = query.where(submissions.c.user_id == user_id)
        with self.engine.connect() as db:
            return [Submission.from_row(row) for row in db.execute(query)]

    def submissions_by_problem(self, problem_ids: Iterable[int]) -> dict[int, list[Submission]]:
        """The submissions of these problems, in one query, by problem (each list in id order)."""
        wanted = set(problem_ids)
        found: dict[int, list[Submission]] = {problem_id: [] for problem_id in wanted}
        if wanted:
            query = select(submissions).where(submissions.c.problem_id.in_(wanted)).order_by(submissions.c.id)
            with self.engine.connect() as db:
                for row in db.execute(query):
                    found[row.problem_id].append(Submission.from_row(row))
        return found

    def pending(self, problem_id: int) -> list[int]:
        """The ids of a problem's submissions still queued or being judged, oldest first."""
        with self.engine.connect() as db:
            query = (
                select(submissions.c.id)
                .where(submissions.c.problem_id == problem_id, submissions.c.status != JobStatus.JUDGED.value)
                .order_by(submissions.c.id)
            )
            return list(db.execute(query).scalars())

    def skip(self, submission_id: int, reason: str) -> Submission:
        """End a submission still queued or being judged as ``INTERNAL_ERROR``, by the operator's decision (audited).

        For the one that cannot be judged and would keep its problem from being revealed; a worker still holding it
        finds its claim gone and stores nothing. ``rejudge`` queues it again while its problem is open or frozen.
        """
        if not reason.strip():
            raise InputError("say why the submission is skipped", fix="e.g. --reason 'crashes every worker'")
        if problem := unstorable(reason):
            raise InputError(f"the reason holds {problem}", fix="remove it")
        with transaction(self.engine) as db:
            status = db.execute(select(submissions.c.status).where(submissions.c.id == submission_id)).scalar()
            if status is None:
                raise unknown_submission(submission_id)
            if status == JobStatus.JUDGED.value:
                raise LifecycleError(
                    f"submission {submission_id} is judged already", fix="rejudge it with `podium dojo rejudge`"
                )
            now, verdict = self.now(), RunVerdict.INTERNAL_ERROR.value
            db.execute(
                update(submissions)
                .where(submissions.c.id == submission_id)
                .values(
                    status=JobStatus.JUDGED.value,
                    verdict=verdict,
                    reason=f"skipped by the operator: {reason}",
                    stage_pass=False,
                    reward_correct=False,
                    judged_at=now,
                )
            )
            append_audit(db, now, "skipped", {"submission": submission_id, "verdict": verdict, "reason": reason})
        return self.submission(submission_id)

    def rejudge(self, slug: str, season: str | None = None, submission_id: int | None = None) -> int:
        """Queue a problem's submissions (or one) for judging again; not after reveal, whose results are final."""
        problem = self.problem(slug, season)
        if problem.state not in (ProblemState.OPEN, ProblemState.FROZEN):
            raise LifecycleError(
                f"problem {slug!r} is {problem.state.value}: only OPEN or FROZEN problems are rejudged"
            )
        chosen = select(submissions.c.id, submissions.c.user_id).where(submissions.c.problem_id == problem.id)
        if submission_id is not None:
            chosen = chosen.where(submissions.c.id == submission_id)
        with transaction(self.engine) as db:
            rows = db.execute(chosen.order_by(submissions.c.id)).all()
            if rows:
                turns = judge_queue(self).turns(db, [row.user_id for row in rows])
                db.execute(_REQUEUE, [{"p_id": row.id, "turn": turn} for row, turn in zip(rows, turns, strict=True)])
            append_audit(db, self.now(), "rejudge", {"problem": slug, "submission": submission_id, "queued": len(rows)})
        return len(rows)


# back to the queue as if never claimed, in its new fair-share turn (an executemany over the chosen rows)
_REQUEUE = (
    update(submissions)
    .where(submissions.c.id == bindparam("p_id"))
    .values(status=JobStatus.QUEUED.value, attempts=0, claimed_by=None, claimed_at=None)
)


def _check_rate(db: Connection, user: User, season_id: int, rules: ScoringRules, now: datetime) -> int | None:
    """How many more submissions ``user``'s window allows after this one (None: no limit); ``RateLimited`` if none.

    Checked in the write transaction, so two requests at once cannot both slip under the limit.
    """
    limit, window = rules.max_submissions_per_window, timedelta(seconds=rules.submission_window_s)
    if limit == 0:
        return None
    season_problems = select(problems.c.id).where(problems.c.season_id == season_id)
    recent = sorted(
        db.execute(
            select(submissions.c.created_at).where(
                submissions.c.user_id == user.id,
                submissions.c.problem_id.in_(season_problems),
                submissions.c.created_at > utc_text(now - window),
            )
        ).scalars()
    )
    if len(recent) >= limit:
        wait = max(1, math.ceil((parse_utc(recent[-limit]) + window - now).total_seconds()))
        raise RateLimited(
            f"{user.name} made {len(recent)} submissions in the last {rules.submission_window_s} s; the season allows "
            f"{limit}",
            retry_after_s=wait,
            fix=f"submit again in {wait} s",
        )
    return limit - len(recent) - 1


IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,64}")
"""What an idempotency key may be: 1 to 64 printable ASCII characters (a UUID's 36 fit)."""


def check_idempotency_key(key: str | None) -> str | None:
    """``key`` as given, or InputError when it is not 1 to 64 printable ASCII characters; None stays None."""
    if key is not None and not IDEMPOTENCY_KEY.fullmatch(key):
        raise InputError(
            "an idempotency key is 1 to 64 printable ASCII characters, without spaces",
            fix="send a UUID, e.g. from uuid.uuid4()",
        )
    return key


def _keyed(db: Connection, user: User, key: str) -> Any:
    """The submission ``user`` made with idempotency ``key``, or None."""
    query = select(submissions).where(submissions.c.user_id == user.id, submissions.c.idempotency_key == key)
    return db.execute(query).first()


def solution_claims(solution_json: bytes | None, rules: ScoringRules) -> tuple[TagClaim, str]:
    """The method tag and notes a ``solution.json`` claims (InputError, with the reason, when it is malformed).

    A file that is not UTF-8 JSON holding an object is refused: silently counting it as ``unspecified`` would cost
    the solver a bonus they meant to claim. Inside a well-formed object, a missing or invalid ``method_tag`` is
    ``unspecified``, and a name outside the six of docs/rules/dojo-scoring.md §6.1 is ``other``, with a warning.
    """
    if not solution_json:
        return method_tag(None, rules), ""
    fix = 'write it as a JSON object, e.g. {"method_tag": "closed_form", "notes": "..."}'
    try:
        text = solution_json.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"solution.json is not UTF-8 (byte {error.start}: {error.reason})", fix=fix) from error
    try:
        data = json.loads(text)
    except ValueError as error:
        raise InputError(f"solution.json is not JSON: {error}", fix=fix) from error
    if not isinstance(data, dict):
        raise InputError(f"solution.json must be a JSON object, not {type(data).__name__}", fix=fix)
    for field in ("method_tag", "notes"):
        value = data.get(field)
        if isinstance(value, str) and (problem := unstorable(value)):
            raise InputError(f"solution.json: {field} holds {problem}", fix="remove it")
    notes = data.get("notes")
    return method_tag(data.get("method_tag"), rules), notes[:MAX_NOTES_CHARS] if isinstance(notes, str) else ""
