"""The platform on a real SQLite database and the real sandbox: lifecycle with an injected clock, commit-reveal,
windows, diversity, leaderboards, audit chain and replay."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from podium.core.clock import ManualClock
from podium.core.errors import AuthError, PermissionDenied
from podium.core.execution.sandbox import RunRequest, RunResult, Sandbox
from podium.core.execution.sandbox.supervise import internal_result
from podium.core.storage.audit import audit_payload, verify_chain
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.lifecycle import LifecycleError, ProblemState
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.replay import replay_season
from podium.tracks.dojo.results import problem_leaderboard_csv, problem_tags, season_leaderboard_text
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import audit_log, submissions
from podium.tracks.dojo.store import audit_entries, open_store
from podium.tracks.dojo.worker import MAX_ATTEMPTS, judge_queue, work
from tests.needs import need_module

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
FIB_SETTER = b"a,b=0,1\nfor _ in range(300):print(a);a,b=b,a+b\n"
GOLF = b"a,b=0,1\nwhile 1:print(a);a,b=b,a+b"  # 34 bytes, 35 canonical
LOOP = b"a, b = 0, 1\nfor _ in range(200):\n    print(a)\n    a, b = b, a + b\n"
STAGE_ONLY = b"a,b=0,1\nfor _ in range(120):print(a);a,b=b,a+b\n"


def problem_files(source: bytes, title: str = "Fibonacci", n_visible: int = 10) -> ProblemFiles:
    return ProblemFiles(Path("problem"), source, title, "", 0, n_visible)


def tag(name: str) -> bytes:
    return json.dumps({"method_tag": name, "notes": "why"}).encode()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
def dojo(tmp_path: Path, clock: ManualClock, bubblewrap: Sandbox) -> Dojo:
    salts = iter(bytes([i]) * 32 for i in range(1, 100))
    platform = Dojo(open_store(sqlite_url(tmp_path / "dojo.sqlite3")), clock, lambda: bubblewrap, lambda n: next(salts))
    platform.add_user("ops", Role.OPERATOR)
    platform.add_user("sam", Role.SETTER)
    platform.create_season("s1", ScoringRules())  # the scoring rules v0.1 as written: the hand computations below
    return platform


def test_a_season_from_draft_to_replay(dojo: Dojo, clock: ManualClock, bubblewrap: Sandbox) -> None:
    ann, bob, cat, dan = (dojo.add_user(name, Role.SOLVER)[0] for name in ("ann", "bob", "cat", "dan"))
    dojo.add_problem(
        "s1", "fib", "sam", problem_files(FIB_SETTER),
        open_at=T0 + timedelta(hours=1), freeze_at=T0 + timedelta(hours=3), reveal_at=T0 + timedelta(hours=4),
    )  # fmt: skip
    with pytest.raises(LifecycleError):
        dojo.submit(ann, "fib", GOLF)  # DRAFT takes no submissions
    with pytest.raises(LifecycleError):
        dojo.freeze("fib")  # DRAFT cannot freeze
    validation = dojo.validate("fib")
    assert validation.accepted and any("too easy" in w for w in validation.warnings)
    assert dojo.tick() == [] and dojo.problem("fib").state is ProblemState.VALIDATING

    clock.set(T0 + timedelta(hours=1, minutes=5))
    assert dojo.tick() == ["fib: opened"]
    opened = dojo.problem("fib")
    assert opened.opened_at == "2026-11-01T10:00:00.000000+00:00"  # at the scheduled time, not the late tick
    assert opened.visible_terms == ("0", "1", "1", "2", "3", "5", "8", "13", "21", "34")

    def submit_at(minutes: int, user, source: bytes, claim: bytes | None = None):  # type: ignore[no-untyped-def]
        clock.set(T0 + timedelta(minutes=minutes))
        return dojo.submit(user, "fib", source, claim)

    first = submit_at(70, ann, LOOP, tag("closed_form"))  # LOOP is a tuple shift: the judge ignores this claim
    assert first.length == len(LOOP) and not first.practice
    submit_at(80, bob, GOLF, tag("linear_recurrence"))
    submit_at(90, cat, STAGE_ONLY)
    submit_at(100, ann, GOLF, tag("closed_form"))  # ann's best: shorter, same tag (no first-of-tag bonus)
    late = submit_at(185, dan, GOLF, tag("matrix_power"))  # after freeze_at but before the tick: practice
    assert late.practice
    with pytest.raises(PermissionDenied):
        dojo.submit(dojo.user("sam"), "fib", GOLF)  # setters do not submit
    assert work(dojo, bubblewrap) == 5
    assert dojo.submission(first.submission_id).tag_override == (
        "closed_form claimed, but the code computes terms from earlier terms"
    )
    assert dojo.submission(2).tag_override is None  # bob's linear_recurrence: Berlekamp-Massey finds order 2

    clock.set(T0 + timedelta(hours=3, minutes=30))
    assert dojo.tick() == ["fib: frozen"]
    assert dojo.problem("fib").freeze_started_at == "2026-11-01T12:00:00.000000+00:00"
    assert dojo.submit(dan, "fib", GOLF).practice
    with pytest.raises(LifecycleError):
        dojo.reveal("fib")  # dan's practice submission is still queued
    work(dojo, bubblewrap)
    clock.set(T0 + timedelta(hours=4))
    assert dojo.tick() == ["fib: revealed"]

    # Hand-computed: golf is 35 canonical bytes -> brevity floor(200 exp(-35/800)) = 191; LOOP is 66 -> 184.
    # Tags in the window: ann's closed_form claims are ignored (both programs are tuple shifts), so she counts
    # as unspecified (first: LOOP); bob's linear_recurrence stands -> two tags: +20 for all.
    # ann: LOOP 1000+184+30+20 = 1234 vs GOLF 1000+191+20 = 1211 -> LOOP is her best. bob: 1000+191+30+20 = 1241.
    assert problem_leaderboard_csv(dojo, dojo.problem("fib")).splitlines() == [
        "rank,user,score,L,stage_pass,reward_correct,submission,submitted_at",
        "1,bob,1241,35,yes,yes,2,2026-11-01T10:20:00.000000+00:00",
        "2,ann,1234,66,yes,yes,1,2026-11-01T10:10:00.000000+00:00",
        "3,cat,200,47,yes,no,3,2026-11-01T10:30:00.000000+00:00",
    ]
    assert season_leaderboard_text(dojo, "s1", "csv").splitlines()[1:] == [
        "1,bob,1241,1,1,35,1",
        "2,ann,1234,1,1,66,1",
        "3,cat,200,1,0,,1",
    ]

    # Anyone can recompute both commitments from what the reveal published.
    with dojo.engine.connect() as db:
        entries = audit_entries(db)
    published = next(audit_payload(e) for e in entries if e.kind == "opened")
    revealed = next(audit_payload(e) for e in entries if e.kind == "revealed")
    salt = bytes.fromhex(revealed["salt_hex"])
    terms = "".join(f"{t}\n" for t in dojo.problem("fib").terms or ()).encode()
    assert hashlib.sha256(b"dojo-setter-v1\0" + salt + FIB_SETTER).hexdigest() == published["setter_commit"]
    assert hashlib.sha256(b"dojo-seq-v1\0" + salt + terms).hexdigest() == published["seq_commit"]
    assert revealed["leaderboard_csv"] == problem_leaderboard_csv(dojo, dojo.problem("fib"))
    assert verify_chain(entries).ok

    report = replay_season(dojo, "s1", bubblewrap)
    assert report.ok, report.discrepancies
    assert report.submissions_rejudged == 4 and report.problems_checked == 1

    # Tampering with a stored result or with the log is found.
    with dojo.engine.begin() as db:
        db.execute(update(submissions).where(submissions.c.id == 3).values(reward_correct=True))
    assert any("submission 3" in d for d in replay_season(dojo, "s1").discrepancies)
    with dojo.engine.begin() as db:
        db.execute(update(audit_log).where(audit_log.c.id == 5).values(payload='{"forged":true}'))
    assert any("audit log broken at entry 5" in d for d in replay_season(dojo, "s1").discrepancies)


def test_illegal_transitions_and_rejected_setters(dojo: Dojo) -> None:
    dojo.add_problem("s1", "const", "sam", problem_files(b"while 1:print(7)\n"))
    result = dojo.validate("const")
    assert not result.accepted and "constant" in result.problems[0]
    assert dojo.problem("const").state is ProblemState.REJECTED
    with pytest.raises(LifecycleError, match="cannot become OPEN"):
        dojo.open("const")
    dojo.redraft("const", problem_files(b"n=0\nwhile 1:print(n*n*n+n);n+=1\n"))
    assert dojo.validate("const").accepted
    dojo.open("const")
    with pytest.raises(LifecycleError, match="cannot become REVEALED"):
        dojo.reveal("const")
    dojo.set_state("const", ProblemState.VOID)
    with pytest.raises(LifecycleError):
        dojo.set_state("const", ProblemState.ARCHIVED)


@pytest.mark.parametrize(
    ("setter", "problem"),
    [
        (b"n=0\nwhile 1:print(n%3);n+=1\n", "eventually periodic with period 3"),
        (b"for n in range(300):print(n if n<50 else 5)\n", "eventually periodic with period 1"),
        (b"for n in range(300):print(hash(str(n))%1000)\n", "not deterministic"),
        (b"for n in range(150):print(n)\n", "printed 150 terms"),
        (b"import socket\n", "static policy"),
        (b"while 1:pass\n", "TIME_LIMIT"),
    ],
)
def test_setter_checks(dojo: Dojo, setter: bytes, problem: str) -> None:
    dojo.add_problem("s1", "p", "sam", problem_files(setter))
    result = dojo.validate("p")
    assert not result.accepted and any(problem in line for line in result.problems), result.problems


def test_visible_terms_must_differ_from_other_problems(dojo: Dojo) -> None:
    dojo.add_problem("s1", "a", "sam", problem_files(b"n=0\nwhile 1:print(n**3);n+=1\n"))
    assert dojo.validate("a").accepted
    dojo.add_problem("s1", "b", "sam", problem_files(b"for n in range(300):print(n**3 if n<50 else n)\n"))
    result = dojo.validate("b")
    assert any("another problem" in line for line in result.problems)


def test_tokens_and_roles(dojo: Dojo) -> None:
    user, token = dojo.add_user("eve", Role.SOLVER)
    assert dojo.authenticate(token) == user
    with pytest.raises(AuthError):
        dojo.authenticate("not a token")
    with pytest.raises(PermissionDenied):
        dojo.add_problem("s1", "x", "eve", problem_files(FIB_SETTER))


def test_a_conflicting_method_tag_is_ignored_recorded_and_shown(
    dojo: Dojo, clock: ManualClock, bubblewrap: Sandbox
) -> None:
    ann, bob = (dojo.add_user(name, Role.SOLVER)[0] for name in ("ann", "bob"))
    dojo.add_problem("s1", "fib", "sam", problem_files(FIB_SETTER))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    clock.set(T0 + timedelta(minutes=1))
    claimed = dojo.submit(ann, "fib", GOLF, tag("matrix_power"))  # a tuple shift, no matrix anywhere
    clock.set(T0 + timedelta(minutes=2))
    dojo.submit(bob, "fib", GOLF)  # no claim: unspecified
    assert work(dojo, bubblewrap) == 2

    stored = dojo.submission(claimed.submission_id)
    assert stored.method_tag == "matrix_power" and stored.counted_tag == "unspecified"
    assert stored.tag_override == "matrix_power claimed, but no matrix product in the code"
    need_module("fastapi", "web")
    from podium.tracks.dojo.web import submission_json

    shown = submission_json(stored, dojo.problem("fib"))
    assert shown["tag_override"] == stored.tag_override and shown["counted_tag"] == "unspecified"
    with dojo.engine.connect() as db:
        judged = [audit_payload(e) for e in audit_entries(db) if e.kind == "judged"]
    assert [j.get("tag_override") for j in judged] == [stored.tag_override, None]

    dojo.freeze("fib")
    dojo.reveal("fib")
    # One counted tag (unspecified), not two: ann gets only the first-of-tag +30, bob nothing, no shared +20.
    # Had the claim stood: two tags, both +30 +20 -> 1241 each. GOLF: 1000 + brevity 191.
    assert problem_leaderboard_csv(dojo, dojo.problem("fib")).splitlines()[1:] == [
        "1,ann,1221,35,yes,yes,1,2026-11-01T09:01:00.000000+00:00",
        "2,bob,1191,35,yes,yes,2,2026-11-01T09:02:00.000000+00:00",
    ]
    assert problem_tags(dojo, dojo.problem("fib")) == {
        "claimed": {"matrix_power": 1, "unspecified": 1},
        "counted": {"unspecified": 2},
        "overridden": [{"submission": 1, "claimed": "matrix_power", "reason": stored.tag_override}],
    }
    assert replay_season(dojo, "s1", bubblewrap).ok


class BrokenSandbox:
    """A sandbox that always fails itself (never the program's fault), counting its runs."""

    def __init__(self) -> None:
        self.runs = 0

    def run(self, request: RunRequest) -> RunResult:
        self.runs += 1
        return internal_result("broken", True, "no slot free")


def test_an_internal_error_is_retried_by_the_queue_once_per_claim(dojo: Dojo, clock: ManualClock) -> None:
    ann = dojo.add_user("ann", Role.SOLVER)[0]
    dojo.add_problem("s1", "fib", "sam", problem_files(FIB_SETTER))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    clock.set(T0 + timedelta(minutes=1))
    submitted = dojo.submit(ann, "fib", GOLF)
    broken = BrokenSandbox()
    assert work(dojo, broken) == 1
    assert broken.runs == MAX_ATTEMPTS  # one run per claim, not three runs per claim
    with dojo.engine.connect() as db:
        row = db.execute(select(submissions).where(submissions.c.id == submitted.submission_id)).one()
    assert (row.attempts, row.verdict, row.status) == (MAX_ATTEMPTS, "INTERNAL_ERROR", "judged")


def test_a_submission_whose_workers_all_died_is_given_up_once(dojo: Dojo, clock: ManualClock) -> None:
    ann = dojo.add_user("ann", Role.SOLVER)[0]
    dojo.add_problem("s1", "fib", "sam", problem_files(FIB_SETTER))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    submitted = dojo.submit(ann, "fib", GOLF)
    queue = judge_queue(dojo)
    for attempt in range(1, MAX_ATTEMPTS + 1):  # each claiming worker is killed before it reports
        claim = queue.claim(f"killed-{attempt}")
        assert claim is not None and claim.id == submitted.submission_id
        clock.set(clock.now() + timedelta(minutes=5))
    assert queue.claim("healthy") is None  # not handed out a fourth time
    with dojo.engine.connect() as db:
        row = db.execute(select(submissions).where(submissions.c.id == submitted.submission_id)).one()
        judged = [e for e in audit_entries(db) if e.kind == "judged"]
    assert (row.status, row.verdict, row.attempts) == ("judged", "INTERNAL_ERROR", MAX_ATTEMPTS)
    assert "its worker stopped during each of its 3 attempts" in row.reason and len(judged) == 1


@pytest.mark.parametrize(
    ("setter", "warning"),
    [
        (b"a=1\nfor n in range(1,301):print(a);a=a*(4*n-2)//(n+1)\n", "P-recursive recurrence of order 1"),  # Catalan
        (b"n=2\nwhile 1:\n if all(n%d for d in range(2,n)):print(n)\n n+=1\n", None),  # primes: no warning
        (b"n=0\nwhile 1:print(10**(30*n));n+=1\n", "linear recurrence of order 1"),  # terms of up to 5,971 digits
    ],
)
def test_too_easy_warns_about_recurrences_found_in_the_visible_terms(
    dojo: Dojo, setter: bytes, warning: str | None
) -> None:
    dojo.add_problem("s1", "p", "sam", problem_files(setter))
    result = dojo.validate("p")
    assert result.accepted
    if warning is None:
        assert result.warnings == []
    else:
        assert any(warning in line for line in result.warnings), result.warnings
