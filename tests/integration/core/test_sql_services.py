"""The core's SQL services as a new track uses them: accounts, the audited write transaction and the job queue.

A small track (``tests/core/sqltrack``: users, an audit log, a queue of transcoding jobs) on a real SQLite file,
with its own migrations, so nothing here depends on the dojo.
"""

from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Column, Engine, Integer, MetaData, String, Table, func, insert, select

from podium.core.accounts import Accounts, accounts_table
from podium.core.clock import ManualClock, utc_text
from podium.core.errors import AuthError, ConfigError, NotFoundError
from podium.core.job_queue import Claim, JobQueue, queue_columns
from podium.core.storage.audit import audit_payload, verify_chain
from podium.core.storage.sql import sqlite_url
from podium.core.storage.store import AuditLog, TrackStore, audit_table

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
metadata = MetaData()
users = accounts_table(metadata, "demo_users")
audit_log = audit_table(metadata, "demo_audit_log")
jobs = Table(
    "demo_jobs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("video", String(64), nullable=False),
    *queue_columns(),
    Column("output", String(64)),
)
SQLTRACK = Path(__file__).parents[2] / "core" / "sqltrack"  # tests/core/sqltrack: the demo track's migrations
STORE = TrackStore(SQLTRACK, "demo_alembic_version", lock_key=0x64656D6F, audit=AuditLog(audit_log))
ACCOUNTS = Accounts(users, ("annotator", "operator"), add_fix="add them first")


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return STORE.open(sqlite_url(tmp_path / "demo.sqlite3"))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


def test_a_token_is_shown_once_and_stored_only_as_its_hash(engine: Engine) -> None:
    with STORE.transaction(engine) as db:
        ann, token = ACCOUNTS.add(db, "ann", "annotator", utc_text(T0))
    with engine.connect() as db:
        stored = db.execute(select(users.c.token_sha256)).scalar_one()
        assert stored == hashlib.sha256(token.encode()).hexdigest() and token not in stored
        assert ACCOUNTS.authenticate(db, token) == ann and ann.role == "annotator"
        assert ACCOUNTS.by_name(db, "ann") == ann and ACCOUNTS.names(db) == {ann.id: "ann"}
        for wrong in ("", "not a token", stored):
            with pytest.raises(AuthError):
                ACCOUNTS.authenticate(db, wrong)
        with pytest.raises(NotFoundError, match="no user 'bob'"):
            ACCOUNTS.by_name(db, "bob")
    with STORE.transaction(engine) as db:
        for name, role, problem in (("ann", "operator", "exists already"), ("bob", "setter", "unknown role"),
                                    ("b b", "operator", "invalid user name")):  # fmt: skip
            with pytest.raises(ConfigError, match=problem):
                ACCOUNTS.add(db, name, role, utc_text(T0))


def test_the_audit_entry_is_stored_with_its_change_or_not_at_all(engine: Engine) -> None:
    with STORE.transaction(engine) as db:
        ACCOUNTS.add(db, "ann", "annotator", utc_text(T0))
        head = STORE.audit.append(db, utc_text(T0), "user_added", {"user": "ann"})
    with pytest.raises(RuntimeError), STORE.transaction(engine) as db:
        ACCOUNTS.add(db, "bob", "annotator", utc_text(T0))
        STORE.audit.append(db, utc_text(T0), "user_added", {"user": "bob"})
        raise RuntimeError("the request failed after writing")
    with engine.connect() as db:
        entries = STORE.audit.entries(db)
        assert [audit_payload(e) for e in entries] == [{"user": "ann"}] and STORE.audit.head(db) == head
        assert ACCOUNTS.names(db) == {1: "ann"}
    with STORE.transaction(engine) as db:
        STORE.audit.append(db, utc_text(T0), "score_changed", {"item": 7, "score": 3})
        entries = STORE.audit.entries(db)
    check = verify_chain(entries)
    assert check.ok and check.entries == 2 and entries[1].prev_hash == head


def queue(engine: Engine, clock: ManualClock) -> JobQueue:
    return JobQueue(engine, jobs, STORE.transaction, clock, stale_after_s=60, max_attempts=2)


def add_jobs(engine: Engine, *videos: str) -> None:
    with STORE.transaction(engine) as db:
        db.execute(insert(jobs), [{"video": v, "status": "queued", "attempts": 0} for v in videos])


def test_claims_take_the_oldest_job_once_and_results_need_the_claim(engine: Engine, clock: ManualClock) -> None:
    add_jobs(engine, "a.mp4", "b.mp4")
    work = queue(engine, clock)
    first, second = work.claim("w1"), work.claim("w2")
    assert first is not None and second is not None and work.claim("w3") is None
    assert (first.row.video, first.attempt, second.row.video) == ("a.mp4", 1, "b.mp4")

    clock.set(T0 + timedelta(seconds=61))  # w1 looks dead: its job goes to the next worker that asks
    taken = work.claim("w3")
    assert taken is not None and (taken.id, taken.attempt) == (first.id, 2)
    audited: list[int] = []

    def audit(db: object) -> None:
        audited.append(first.id)

    assert not work.finish(first, {"output": "from w1"}, then=audit)  # the claim was lost: nothing is stored
    assert work.finish(taken, {"output": "a.webm"}, then=audit) and audited == [first.id]
    with engine.connect() as db:
        row = db.execute(select(jobs).where(jobs.c.id == first.id)).one()
    assert (row.status, row.output, row.claimed_by, row.attempts) == ("done", "a.webm", "w3", 2)


def test_a_result_naming_a_column_the_table_lacks_is_refused_not_dropped(engine: Engine, clock: ManualClock) -> None:
    add_jobs(engine, "a.mp4")
    work = queue(engine, clock)
    claim = work.claim("w1")
    assert claim is not None
    with pytest.raises(ValueError, match="has no column outptu"):
        work.finish(claim, {"outptu": "a.webm"})
    assert work.finish(claim, {"output": "a.webm"})  # nothing was stored by the refused call


def test_a_retryable_failure_is_queued_again_until_the_last_attempt(engine: Engine, clock: ManualClock) -> None:
    add_jobs(engine, "a.mp4")
    work = queue(engine, clock)
    outcomes = []

    def fail(claim):  # type: ignore[no-untyped-def]
        stored = work.finish(claim, {"output": f"failed {claim.attempt}"}, retry=True)
        outcomes.append(stored)
        return stored

    assert work.work("w1", fail) == 1  # attempt 1 goes back to the queue, attempt 2 (max_attempts) is final
    assert outcomes == [False, True]
    with engine.connect() as db:
        assert db.execute(select(jobs.c.output, jobs.c.attempts)).one() == ("failed 2", 2)
        assert db.execute(select(func.count()).select_from(jobs).where(jobs.c.status != "done")).scalar_one() == 0


def test_a_heartbeat_keeps_a_long_job_claimed_and_stops_once_the_claim_is_lost(
    engine: Engine, clock: ManualClock
) -> None:
    add_jobs(engine, "a.mp4")
    work = JobQueue(engine, jobs, STORE.transaction, clock, stale_after_s=15, heartbeat_s=0.05)
    seen: list[bool] = []

    def slow(claim):  # type: ignore[no-untyped-def]
        for step in range(1, 4):  # 3 x 10 s of (manual) time, beats in between: never 15 s without one
            clock.set(T0 + timedelta(seconds=10 * step))
            time.sleep(0.3)
            seen.append(work.claim("w2") is None)  # a second worker finds nothing stale to take over
        return work.finish(claim, {"output": "a.webm"})

    assert work.work("w1", slow) == 1 and seen == [True, True, True]
    add_jobs(engine, "b.mp4")
    claim = work.claim("w1")
    assert claim is not None and work.heartbeat(claim)
    clock.set(T0 + timedelta(seconds=60))  # w1 stopped beating 30 s ago (in manual time): w3 takes over
    taken = work.claim("w3")
    assert taken is not None and taken.id == claim.id
    assert not work.heartbeat(claim)  # the old claim cannot renew itself back
    assert work.heartbeat(taken)


def test_many_threads_writing_at_once_all_commit_in_one_chain(engine: Engine) -> None:
    import threading
    import time

    def write(n: int) -> None:
        for i in range(10):
            with STORE.transaction(engine) as db:
                STORE.audit.append(db, utc_text(T0), "write", {"thread": n, "i": i})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(20)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.perf_counter() - began
    with engine.connect() as db:
        entries = STORE.audit.entries(db)
    assert len(entries) == 200 and verify_chain(entries).ok
    assert took < 20  # with SQLite's sleeping busy handler alone, 20 writers took seconds; the thread lock hands over

    with pytest.raises(RuntimeError), STORE.transaction(engine) as db:  # a failed write releases the lock
        STORE.audit.append(db, utc_text(T0), "lost", {})
        raise RuntimeError("boom")
    with STORE.transaction(engine) as db:
        assert STORE.audit.entries(db)[-1].kind == "write"


def test_a_handler_that_raises_fails_its_job_alone_and_the_worker_goes_on(
    engine: Engine, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    from podium.core.job_queue import work_in_threads

    add_jobs(engine, "poison.mp4", "next.mp4")
    reasons: list[str] = []

    def exhausted(db: object, row: object, reason: str) -> dict[str, str]:
        reasons.append(reason)
        return {"output": "given up"}

    jobs_queue = JobQueue(engine, jobs, STORE.transaction, clock, max_attempts=3, exhausted=exhausted)
    attempts: list[int] = []

    def handle(claim: Claim) -> bool:
        if claim.row.video == "poison.mp4":
            attempts.append(claim.attempt)
            raise RuntimeError("a bug \x00 in the handler")
        return jobs_queue.finish(claim, {"output": "next.webm"})

    # two workers: every release is counted, so the poison job is tried three times in all, never a fourth
    assert work_in_threads(2, lambda worker_id: jobs_queue.work(worker_id, handle)) == 2
    assert sorted(attempts) == [1, 2, 3]
    assert reasons == ["failed on each of its 3 attempts; the last: RuntimeError: a bug   in the handler"]
    with engine.connect() as db:
        rows = {row.video: (row.status, row.output) for row in db.execute(select(jobs))}
    assert rows == {"poison.mp4": ("done", "given up"), "next.mp4": ("done", "next.webm")}
    assert sum("failed on attempt" in record.getMessage() for record in caplog.records) == 3  # each with its trace


def test_a_job_released_by_an_interrupt_counts_its_attempts_too(engine: Engine, clock: ManualClock) -> None:
    add_jobs(engine, "poison.mp4")
    work = JobQueue(
        engine, jobs, STORE.transaction, clock, max_attempts=2, exhausted=lambda db, row, why: {"output": why}
    )
    for _ in range(2):
        claim = work.claim("w1")
        assert claim is not None and work.release(claim)  # as after a KeyboardInterrupt in its handler
    assert work.claim("w2") is None
    with engine.connect() as db:
        assert db.execute(select(jobs.c.output)).scalar_one() == (
            "the worker failed during each of its 2 attempts; not tried again"
        )


def test_a_database_that_cannot_be_reached_stops_the_worker(engine: Engine, clock: ManualClock) -> None:
    from sqlalchemy.exc import OperationalError

    add_jobs(engine, "a.mp4")
    jobs_queue = queue(engine, clock)

    def unreachable(claim: object) -> bool:
        raise OperationalError("SELECT 1", {}, Exception("server closed the connection"))

    with pytest.raises(OperationalError):
        jobs_queue.work("w1", unreachable)
    with engine.connect() as db:
        assert db.execute(select(jobs.c.status)).scalar_one() == "queued"  # released at once, for a healthy worker


def test_a_job_its_workers_died_on_max_attempts_times_is_given_up_not_claimed_again(
    engine: Engine, clock: ManualClock
) -> None:
    add_jobs(engine, "poison.mp4", "next.mp4")
    finished: list[int] = []

    def exhausted(db: object, row: object, reason: str) -> dict[str, str]:
        finished.append(row.id)  # type: ignore[attr-defined]
        return {"output": f"given up: {reason}"}

    work = JobQueue(engine, jobs, STORE.transaction, clock, stale_after_s=15, max_attempts=2, exhausted=exhausted)
    for attempt in (1, 2):  # each worker dies holding the claim
        claim = work.claim(f"dies-{attempt}")
        assert claim is not None and claim.row.video == "poison.mp4" and claim.attempt == attempt
        clock.set(clock.now() + timedelta(seconds=60))
    taken = work.claim("w3")
    assert taken is not None and taken.row.video == "next.mp4"  # the poison job is finished instead
    with engine.connect() as db:
        poison = db.execute(select(jobs).where(jobs.c.video == "poison.mp4")).one()
    assert (poison.status, poison.attempts) == ("done", 2) and finished == [poison.id]
    assert poison.output == "given up: its worker stopped during each of its 2 attempts; not tried again"


@pytest.mark.parametrize("track", ["dojo", "wmeval"])
def test_the_head_read_without_alembic_is_alembics_head(track: str) -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from podium.core.storage.store import head_revision

    migrations = Path(__file__).parents[3] / "src" / "podium" / "tracks" / track / "migrations"
    config = Config()
    config.set_main_option("script_location", str(migrations))
    assert head_revision(migrations) == ScriptDirectory.from_config(config).get_current_head() is not None


def test_a_migrated_database_opens_without_alembic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = sqlite_url(tmp_path / "demo.sqlite3")
    STORE.open(url)  # a new database: migrated by Alembic

    def no_upgrade(*_args: object) -> None:
        raise AssertionError("Alembic ran on a database already at its head")

    monkeypatch.setattr("podium.core.storage.store.upgrade", no_upgrade)
    assert STORE.at_head(STORE.open(url))
    with pytest.raises(AssertionError, match="already at its head"):
        STORE.open(sqlite_url(tmp_path / "new.sqlite3"))  # a new one still needs the migrations


def test_every_pooled_sqlite_connection_takes_the_write_lock_first(tmp_path: Path) -> None:
    engine = STORE.open(sqlite_url(tmp_path / "demo.sqlite3"))
    with engine.connect() as connection:  # the pool's first connection, made while the store was opened
        assert connection.connection.dbapi_connection.isolation_level is None  # type: ignore[union-attr]
