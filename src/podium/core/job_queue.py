"""A job queue in a database table, shared by worker threads and processes on one machine or many.

The queue is a track's own table with four bookkeeping columns (``queue_columns()``: ``status``, ``attempts``,
``claimed_by``, ``claimed_at``) beside the job's input and result columns. The track names its three status
words (queued, running, done) and keeps everything else: what a job is, how it is done, what is stored.

- ``claim`` takes the oldest running job whose claim is older than ``stale_after_s`` (its worker died), else the
  next queued one (oldest first, or by fair-share turn), marks it running under the worker's id and counts the
  attempt. On PostgreSQL the row is taken ``FOR UPDATE SKIP LOCKED``, so workers claiming at once take different
  rows without waiting on each other; on SQLite the engine's ``BEGIN IMMEDIATE`` (``TrackStore.open``) serialises
  claims.
- While a job runs, ``work`` renews its claim from the process's heartbeat thread every ``heartbeat_s`` (3 s:
  ``claimed_at`` := now, only while the claim stands), so a claim goes stale ``stale_after_s`` (15 s) after its
  worker stopped beating, and a dead worker's job is taken over within seconds however long jobs may run.
- ``finish`` stores a result only while the claim still stands (same worker, still running): a worker that was
  presumed dead and replaced cannot overwrite its successor. It runs in the track's write transaction, and
  ``then`` lets the track append its audit entry in it. A retryable failure goes back to the queue instead, until
  the ``max_attempts``-th claim, whose result is stored as final.
- **Fair share** (``fair_by``: the column naming a job's owner, plus ``queue_columns(fair=True)``'s ``turn``):
  a job's turn is the round it is claimed in, stored when it is queued (``turns``): the round the queue has
  reached (the lowest turn still queued), or the round after its owner's last queued job. Claims take the lowest
  turn, oldest first among equals, so owners alternate and a burst, early or late, waits behind the rounds the
  others already hold. A claim reads one index entry; counting each candidate's earlier jobs at claim time cost
  a claim ~0.4 ms of CPU per few hundred queued.
- ``work`` claims and handles until the queue is empty (or forever); ``work_in_threads`` runs several workers in
  one process, for jobs that wait on something else (a sandbox, a transcoder) rather than on Python.
- **No poison pill.** Every claim counts an attempt, whether the claim went stale (its worker died), was released
  (its handler raised) or was sent back (a retryable failure). A job that raises in ``handle`` is logged and
  released and the worker goes on to the next; on its ``max_attempts``-th attempt, or when it is found stale or
  released with that many attempts, it is finished with the track's ``exhausted`` values and the reason. Only a
  database that cannot be reached (``OperationalError``) stops a worker: that is no job's fault, and the job waits
  for a worker that can reach it.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Integer,
    Row,
    String,
    Table,
    Update,
    bindparam,
    case,
    func,
    select,
    update,
)
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.sql import Select

from podium.core.clock import Clock, utc_text
from podium.core.storage.text import one_line

STALE_AFTER_S = 15.0
HEARTBEAT_S = 3.0
MAX_ATTEMPTS = 3
MAX_REASON_CHARS = 500

LOG = logging.getLogger("podium.queue")
# the database itself cannot be reached: no job's fault, so the worker stops instead of failing job after job
UNREACHABLE = (OperationalError, InterfaceError)

Exhausted = Callable[[Connection, Row[Any], str], Mapping[str, Any]]
"""``exhausted(db, row, reason)``: the values a job ends with after ``max_attempts`` failed attempts, in the
transaction that ends it (the track appends its audit entry there); ``reason`` says what each attempt met."""


def queue_columns(*, fair: bool = False) -> list[Column[Any]]:
    """The bookkeeping columns a queue table needs (new objects each call: a Column belongs to one table).

    ``fair`` adds ``turn``, the fair-share round a job is claimed in (``JobQueue.turns``); such a table wants an
    index on ``(status, turn, id)`` for claims and one on ``(owner, status, turn)`` for queueing.
    """
    columns: list[Column[Any]] = [
        Column("status", String(16), nullable=False, index=True),
        Column("attempts", Integer, nullable=False),
        Column("claimed_by", String(128)),
        Column("claimed_at", String(32)),  # UTC ISO-8601 text, as podium.core.clock.utc_text writes it
    ]
    if fair:
        columns.append(Column("turn", Integer, nullable=False, server_default="0"))
    return columns


@dataclass(frozen=True, slots=True)
class Claim:
    """A job a worker holds: its row as claimed, and which attempt this is (1 for the first claim)."""

    id: int
    worker_id: str
    attempt: int
    row: Row[Any]


@dataclass(frozen=True, slots=True)
class JobQueue:
    """The queue over ``table`` (an integer ``id`` primary key plus ``queue_columns()``)."""

    engine: Engine
    table: Table
    transaction: Callable[[Engine], AbstractContextManager[Connection]]  # the track's write-locked transaction
    clock: Clock
    queued: str = "queued"
    running: str = "running"
    done: str = "done"
    stale_after_s: float = STALE_AFTER_S
    max_attempts: int = MAX_ATTEMPTS
    heartbeat_s: float = HEARTBEAT_S  # well under stale_after_s: a few beats may be late before a claim goes stale
    # Fair share: the column naming a job's owner (the table has queue_columns(fair=True)'s turn, which whoever
    # queues a job sets from ``turns``). Claims then go round-robin across owners. None: oldest first.
    fair_by: str | None = None
    # A job already claimed max_attempts times (its workers died on it, or its handler raised, each time: it may be
    # what kills them) is not handed out again: ``exhausted`` gives the values it is finished with (the track's
    # final verdict and its audit entry). Without it such a job is claimed again.
    exhausted: Exhausted | None = None

    def claim(self, worker_id: str) -> Claim | None:
        """Claim a stale job, else the next queued one (lowest turn, then oldest); None when there is nothing to do."""
        jobs, sql = self.table.c, self._sql
        now = self.clock.now()
        stale = utc_text(now - timedelta(seconds=self.stale_after_s))
        with self.engine.begin() as db:
            while True:
                # a stale job first: it has waited longest (and it is rare: a few running rows to look at)
                row = db.execute(sql.next_stale, {"p_stale": stale}).first() or db.execute(sql.next_queued).first()
                if row is None:
                    return None
                # stale (its worker died) or released (its handler raised) as often as it may be tried
                if row.attempts < self.max_attempts or self.exhausted is None:
                    break
                how = "its worker stopped" if row.status == self.running else "the worker failed"
                reason = f"{how} during each of its {row.attempts} attempts; not tried again"
                values = self.exhausted(db, row, reason)
                db.execute(update(self.table).where(jobs.id == row.id).values(status=self.done, **values))
            taken = {"p_job": row.id, "p_worker": worker_id, "p_now": utc_text(now), "p_attempts": row.attempts + 1}
            db.execute(sql.take, taken)
        return Claim(row.id, worker_id, row.attempts + 1, row)

    def turns(self, db: Connection, owners: Sequence[Any]) -> list[int]:
        """The fair-share turns of new jobs of ``owners`` queued in this order, in the write transaction queueing them.

        A job's turn is the round the queue has reached (the lowest turn still queued, 0 when none is), or the
        round after its owner's last job still queued, whichever is later.
        """
        if self.fair_by is None:
            raise ValueError(f"{self.table.name}'s queue has no fair share: its jobs have no turn")
        lowest_turn, owners_last_turn = _turn_statements(self.table, self.queued, self.fair_by)
        reached = db.execute(lowest_turn).scalar() or 0
        last: dict[Any, int | None] = {}
        turns = []
        for owner in owners:
            if owner not in last:
                last[owner] = db.execute(owners_last_turn, {"p_owner": owner}).scalar()
            previous = last[owner]
            turn = reached if previous is None else max(reached, previous + 1)
            last[owner] = turn
            turns.append(turn)
        return turns

    def heartbeat(self, claim: Claim) -> bool:
        """Renew ``claim`` (``claimed_at`` := now) if it still stands; False when another worker holds the job now."""
        renew = {**self._mine(claim), "claimed_at": utc_text(self.clock.now())}
        with self.engine.begin() as db:
            return bool(db.execute(self._sql.update_mine, renew).rowcount)

    @contextlib.contextmanager
    def kept_alive(self, claim: Claim) -> Iterator[None]:
        """Renew ``claim`` every ``heartbeat_s`` while the block runs (until the claim is lost).

        The process's one heartbeat thread does it (``_Heartbeats``): a thread started and joined per job cost
        ~0.2 ms of CPU a job, a twentieth of a dojo judgment's share in the judge.
        """
        key = _HEARTBEATS.hold(self, claim)
        try:
            yield
        finally:
            _HEARTBEATS.drop(key)

    def finish(
        self,
        claim: Claim,
        values: Mapping[str, Any],
        *,
        retry: bool = False,
        then: Callable[[Connection], object] | None = None,
    ) -> bool:
        """Store ``values`` and mark the job done if ``claim`` still stands; ``then(db)`` runs in the same transaction.

        With ``retry`` (a failure that is not the job's fault) the job goes back to the queue instead, unless this
        was its last allowed attempt. True when the result was stored; False when it was queued again or the claim
        was lost (then ``then`` is not called).
        """
        unknown = set(values) - set(self.table.c.keys())
        if unknown:  # a statement without .values() would drop them silently
            raise ValueError(f"{self.table.name} has no column {', '.join(sorted(unknown))}")
        mine = self._mine(claim)
        with self.transaction(self.engine) as db:
            if retry and claim.attempt < self.max_attempts:
                db.execute(self._sql.update_mine, {**mine, "status": self.queued})
                return False
            stored = db.execute(self._sql.update_mine, {**mine, **values, "status": self.done}).rowcount
            if stored and then is not None:
                then(db)
            return bool(stored)

    def release(self, claim: Claim) -> bool:
        """Put a claimed job back in the queue untouched, if ``claim`` still stands (its handler failed).

        The attempt stays counted: a job released ``max_attempts`` times is given up at its next claim.
        """
        with self.transaction(self.engine) as db:
            return bool(db.execute(self._sql.update_mine, {**self._mine(claim), "status": self.queued}).rowcount)

    def fail(self, claim: Claim, reason: str) -> bool:
        """The handler raised ``reason``: release the job, or on its last attempt finish it as ``exhausted``.

        True when the job was finished here (then it is done, with the reason); False when it went back to the
        queue or the claim was lost.
        """
        if claim.attempt < self.max_attempts or self.exhausted is None:
            self.release(claim)
            return False
        mine = self._mine(claim)
        with self.transaction(self.engine) as db:
            # still ours? (renewing the claim answers that, and holds the row for the rest of this transaction)
            if not db.execute(self._sql.update_mine, {**mine, "claimed_at": utc_text(self.clock.now())}).rowcount:
                return False
            summary = f"failed on each of its {claim.attempt} attempts; the last: {reason}"
            values = self.exhausted(db, claim.row, summary[:MAX_REASON_CHARS])
            return bool(db.execute(self._sql.update_mine, {**mine, **values, "status": self.done}).rowcount)

    def waiting(self) -> list[int]:
        """The ids of the jobs not done, as the workers see them.

        Running ones first, by when they were claimed; then the queued ones in the order claims will take them
        (fair share included).
        """
        with self.engine.connect() as db:
            return list(db.execute(self._sql.waiting).scalars())

    @property
    def _sql(self) -> _Statements:
        return _statements(self.table, self.queued, self.running, self.fair_by)

    @staticmethod
    def _mine(claim: Claim) -> dict[str, Any]:
        """The parameters of ``update_mine``: this job, still running under this worker."""
        return {"p_job": claim.id, "p_worker": claim.worker_id}

    def work(
        self, worker_id: str, handle: Callable[[Claim], bool], *, until_idle: bool = True, poll_s: float = 0.5
    ) -> int:
        """Claim and ``handle`` jobs until the queue is empty (or forever); how many ``handle`` reported done.

        An exception from ``handle`` concerns that job alone: it is logged with its traceback, the job goes back
        to the queue at once (or, on its last attempt, ends as ``exhausted`` with the exception as its reason) and
        the worker goes on. A database it cannot reach, and an interrupt, stop the worker; the job is released.
        """
        done = 0
        while True:
            claim = self.claim(worker_id)
            if claim is None:
                if until_idle:
                    return done
                time.sleep(poll_s)
                continue
            try:
                with self.kept_alive(claim):
                    handled = handle(claim)
            except UNREACHABLE:
                self.release(claim)
                raise
            except Exception as error:  # noqa: BLE001 -- this job's failure, not the worker's: logged, then on
                LOG.exception("job %s of %s failed on attempt %s", claim.id, self.table.name, claim.attempt)
                handled = self.fail(claim, one_line(f"{type(error).__name__}: {error}", MAX_REASON_CHARS))
            except BaseException:
                self.release(claim)
                raise
            if handled:
                done += 1


@dataclass(frozen=True, slots=True)
class _Statements:
    """The statements every claim and result runs, built once per queue table.

    A statement built anew per call costs SQLAlchemy its construction and cache key each time, ~1 ms of a judge's
    CPU per job; these are built once, with bound parameters, and their cache keys are memoised.
    """

    next_stale: Select[Any]  # p_stale: the oldest running job claimed before p_stale
    next_queued: Select[Any]  # the queued job to claim next: lowest turn (fair share) or oldest first
    waiting: Select[Any]  # the ids of the jobs not done: running ones by claim time, then queued ones in turn
    take: Update  # p_job, p_worker, p_now, p_attempts: mark it running under this worker
    update_mine: Update  # p_job, p_worker, then the columns to set: only while this worker's claim stands


@functools.lru_cache(maxsize=32)
def _statements(table: Table, queued: str, running: str, fair_by: str | None = None) -> _Statements:
    jobs = table.c
    stale = (jobs.status == running) & (jobs.claimed_at < bindparam("p_stale"))
    mine = (jobs.id == bindparam("p_job")) & (jobs.status == running) & (jobs.claimed_by == bindparam("p_worker"))
    order = [jobs.id] if fair_by is None else [jobs.turn, jobs.id]
    is_queued = jobs.status == queued
    running_first = case((jobs.status == running, 0), else_=1)
    return _Statements(
        # FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite compiles none (its BEGIN IMMEDIATE serialises claims)
        next_stale=select(table).where(stale).order_by(jobs.id).limit(1).with_for_update(skip_locked=True),
        next_queued=select(table).where(is_queued).order_by(*order).limit(1).with_for_update(skip_locked=True),
        waiting=select(jobs.id)
        .where(jobs.status.in_((queued, running)))
        .order_by(running_first, jobs.claimed_at, *order),
        take=update(table)
        .where(jobs.id == bindparam("p_job"))
        .values(
            status=running,
            claimed_by=bindparam("p_worker"),
            claimed_at=bindparam("p_now"),
            attempts=bindparam("p_attempts"),
        ),
        update_mine=update(table).where(mine),  # the SET clause comes from the parameters' names
    )


@functools.lru_cache(maxsize=32)
def _turn_statements(table: Table, queued: str, owner: str) -> tuple[Select[Any], Select[Any]]:
    """The turn the queue has reached (the lowest still queued), and p_owner's highest still queued; NULL: none."""
    jobs = table.c
    is_queued = jobs.status == queued
    return (
        select(func.min(jobs.turn)).where(is_queued),
        select(func.max(jobs.turn)).where(is_queued, jobs[owner] == bindparam("p_owner")),
    )


class _Heartbeats:
    """The process's heartbeat thread: it renews each held claim every its queue's ``heartbeat_s``.

    A renewal after the block ended is harmless: it only touches a claim that still stands, and ``finish`` ended
    it. A forked child starts with none held and a thread of its own (``os.register_at_fork``).
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held: dict[object, tuple[float, JobQueue, Claim]] = {}  # key: (when it is due, queue, claim)
        self._thread: threading.Thread | None = None

    def hold(self, queue: JobQueue, claim: Claim) -> object:
        """Start renewing ``claim``; the key to ``drop`` it with."""
        key = object()
        with self._changed:
            self._held[key] = (time.monotonic() + queue.heartbeat_s, queue, claim)
            if self._thread is None:
                self._thread = threading.Thread(target=self._beat, name="queue-heartbeats", daemon=True)
                self._thread.start()
            self._changed.notify()
        return key

    def drop(self, key: object) -> None:
        """Stop renewing the claim held under ``key``."""
        with self._changed:
            self._held.pop(key, None)

    def _beat(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = [(key, queue, claim) for key, (at, queue, claim) in self._held.items() if at <= now]
                if not due:
                    soonest = min((at for at, _, _ in self._held.values()), default=None)
                    self._changed.wait(None if soonest is None else soonest - now)
                    continue
                for key, queue, claim in due:
                    self._held[key] = (now + queue.heartbeat_s, queue, claim)
            for key, queue, claim in due:  # outside the lock: a slow database holds up no hold() or drop()
                try:
                    if not queue.heartbeat(claim):
                        self.drop(key)  # taken over: finish() will not store this worker's result either
                except Exception:  # noqa: BLE001 -- a database hiccup: try again at the next beat
                    continue


_HEARTBEATS = _Heartbeats()


def _new_heartbeats_in_child() -> None:
    global _HEARTBEATS
    _HEARTBEATS = _Heartbeats()  # the parent's thread is not in the child, and its lock may be held there


os.register_at_fork(after_in_child=_new_heartbeats_in_child)


def default_worker_id() -> str:
    """``host:pid:thread``: unique among the workers sharing a queue."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def work_in_threads(threads: int, work: Callable[[str], int]) -> int:
    """Run ``work(worker_id)`` in ``threads`` threads, each with its own worker id; the sum of what they return.

    The first exception a thread raised is raised here once every thread has ended, so a worker command whose
    threads crashed exits non-zero instead of reporting what the others did.
    """
    counts = [0] * threads
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            counts[index] = work(f"{default_worker_id()}:{index}")
        except BaseException as error:
            errors.append(error)

    pool = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if errors:
        raise errors[0]
    return sum(counts)
