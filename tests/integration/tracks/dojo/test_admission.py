"""One admission rule everywhere: what `podium dojo judge` rejects, `submit` refuses with the same
reason, never truncated; only solvers compete; a malformed solution.json is refused; a judged row always has the
length the judge measured (a CHECK constraint), and replay checks it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from podium.cli.main import main
from podium.core.clock import SystemClock
from podium.core.errors import InputError, PermissionDenied
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import inserted_id, sqlite_url
from podium.tracks.dojo.judge import judge_submission
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.replay import replay_season
from podium.tracks.dojo.results import problem_leaderboard_csv
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import problems, seasons, submissions, users
from podium.tracks.dojo.store import STORE, open_store
from podium.tracks.dojo.verdicts import RunVerdict
from podium.tracks.dojo.worker import work
from tests.databases import new_database, upgrade_to

FIB_SETTER = b"a,b=0,1\nfor _ in range(300):print(a);a,b=b,a+b\n"
GOLF = b"a,b=0,1\nwhile 1:print(a);a,b=b,a+b\n"


def oversized(total: int = 70_047) -> bytes:
    """A correct solver on its first line, padded with comment lines to ``total`` bytes (the issue's file)."""
    padding = b"".join(b"# %05d padding padding padding padding padding padding\n" % i for i in range(2000))
    source = GOLF + padding
    return source[: total - 1] + b"\n"


BIG = oversized()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return sqlite_url(tmp_path / "dojo.sqlite3")


@pytest.fixture
def dojo(db_url: str, bubblewrap: Sandbox) -> Dojo:
    platform = Dojo(open_store(db_url), SystemClock(), lambda: bubblewrap)
    platform.add_user("ops", Role.OPERATOR)
    platform.add_user("sam", Role.SETTER)
    platform.add_user("ann", Role.SOLVER)
    platform.create_season("s1")
    platform.add_problem("s1", "fib", "sam", ProblemFiles(Path("fib"), FIB_SETTER, "Fibonacci", "", 0, 10))
    assert platform.validate("fib").accepted
    platform.open("fib")
    return platform


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    captured = capsys.readouterr()
    return int(stop.value.code or 0), captured.out, captured.err


def test_the_oversized_source_is_refused_with_the_judges_reason(dojo: Dojo, bubblewrap: Sandbox) -> None:
    assert len(BIG) == 70_047
    judged = judge_submission(BIG, dojo.problem("fib").terms or (), bubblewrap, ScoringRules())
    assert judged.verdict is RunVerdict.POLICY_REJECT
    with pytest.raises(InputError) as refused:
        dojo.submit(dojo.user("ann"), "fib", BIG)
    assert judged.reason in refused.value.message
    assert dojo.submissions() == []  # nothing stored, truncated or not


def test_the_oversized_source_is_refused_by_the_cli(
    dojo: Dojo, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, token = dojo.add_user("cli", Role.SOLVER)
    solver = tmp_path / "solver.py"
    solver.write_bytes(BIG)
    code, out, err = cli(["dojo", "submit", str(solver), "--problem", "fib", "--token", token, "--db", db_url], capsys)
    assert code == 2 and "70047 bytes; at most 65536 are accepted" in err, (out, err)
    assert dojo.submissions() == []


def test_operators_and_setters_do_not_compete(dojo: Dojo) -> None:
    for name in ("ops", "sam"):
        with pytest.raises(PermissionDenied, match="only solvers submit"):
            dojo.submit(dojo.user(name), "fib", GOLF)
    assert dojo.submissions() == []


@pytest.mark.parametrize(
    ("solution", "reason"),
    [
        (b"{method_tag: closed_form}", "solution.json is not JSON"),
        (b'["closed_form"]', "solution.json must be a JSON object"),
        (b'{"method_tag": "closed_form"}\xff', "solution.json is not UTF-8"),
    ],
)
def test_a_malformed_solution_json_is_refused(dojo: Dojo, solution: bytes, reason: str) -> None:
    with pytest.raises(InputError, match=reason):
        dojo.submit(dojo.user("ann"), "fib", GOLF, solution)
    assert dojo.submissions() == []


def test_a_malformed_solution_json_is_refused_by_the_cli(
    dojo: Dojo, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, token = dojo.add_user("cli", Role.SOLVER)
    solver, solution = tmp_path / "solver.py", tmp_path / "solution.json"
    solver.write_bytes(GOLF)
    solution.write_text("method_tag = closed_form\n")
    argv = ["dojo", "submit", str(solver), "--problem", "fib", "--token", token, "--solution", str(solution)]
    code, _, err = cli([*argv, "--db", db_url], capsys)
    assert code == 2 and "solution.json is not JSON" in err
    solution.write_text(json.dumps({"method_tag": "closed_form", "notes": "Binet"}))
    code, out, _ = cli([*argv, "--db", db_url], capsys)
    assert code == 0 and json.loads(out)["method_tag"] == "closed_form"


def test_a_judged_row_carries_the_judged_length_and_replay_checks_it(dojo: Dojo, bubblewrap: Sandbox) -> None:
    receipt = dojo.submit(dojo.user("ann"), "fib", GOLF)
    assert work(dojo, bubblewrap) == 1
    stored = dojo.submission(receipt.submission_id)
    assert (stored.length, stored.verdict) == (len(GOLF), "OK")
    with pytest.raises(IntegrityError), dojo.engine.begin() as db:  # the database refuses a judged row without L
        db.execute(update(submissions).where(submissions.c.id == receipt.submission_id).values(length=None))
    dojo.freeze("fib")
    dojo.reveal("fib")
    board = problem_leaderboard_csv(dojo, dojo.problem("fib")).splitlines()
    # 1000 + brevity floor(200 exp(-35/800)) = 191; no tag claimed, which diversity-v2 (a new season's) rewards with 0
    assert board[1].startswith("1,ann,1191,35,")
    assert replay_season(dojo, "s1").ok
    with dojo.engine.begin() as db:  # a length that is not the stored source's is found
        db.execute(update(submissions).where(submissions.c.id == receipt.submission_id).values(length=3))
    assert any("length" in line for line in replay_season(dojo, "s1").discrepancies)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_migration_0003_rejects_the_rows_stored_without_a_length(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = new_database(database, "dojo_0002", request, tmp_path)
    engine = upgrade_to(STORE, url, "0002")
    now = "2026-11-01T09:00:00.000000+00:00"
    with engine.begin() as db:
        user = inserted_id(db, insert(users).values(name="old", role="solver", token_sha256="0" * 64, created_at=now))
        season = inserted_id(db, insert(seasons).values(name="old", rules_json="{}", created_at=now))
        problem = inserted_id(db, insert(problems).values(
            season_id=season, slug="p", title="p", statement="", offset=0, n_visible=10, state="OPEN",
            setter_id=user, setter_source=b"", created_at=now))  # fmt: skip
        row = {"problem_id": problem, "user_id": user, "source": BIG[:65536], "method_tag": "unspecified",
               "notes": "", "created_at": now, "practice": False, "attempts": 1}  # fmt: skip
        db.execute(insert(submissions).values(**row, status="judged", verdict="OK", stage_pass=True,
                                              reward_correct=True))  # fmt: skip
        db.execute(insert(submissions).values(**row, status="queued"))
    engine.dispose()
    engine = open_store(url)  # upgrades to the newest revision
    with engine.connect() as db:
        rows = db.execute(select(submissions).order_by(submissions.c.id)).all()
    assert [(r.status, r.verdict, r.reward_correct, r.length) for r in rows] == [
        ("judged", "POLICY_REJECT", False, None),
        ("judged", "POLICY_REJECT", False, None),
    ]
    with pytest.raises(IntegrityError), engine.begin() as db:
        db.execute(update(submissions).where(submissions.c.id == rows[0].id).values(verdict="OK"))
    engine.dispose()
