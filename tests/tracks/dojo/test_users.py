"""Users for the people who run the dojo: list, disable, enable, rotate a token; on SQLite and a real PostgreSQL.

A disabled user's token is refused by the API and by ``podium dojo submit``, their pages' sessions end, the
reason is audited, and their submissions leave the leaderboards computed from then on. A rotated token replaces
the old one at once. Operators do the same through the HTTP API; nobody else may.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from podium.core.clock import ManualClock
from podium.core.errors import AuthError, ConfigError, RateLimited
from podium.core.execution.sandbox import Limits, Sandbox
from podium.core.storage.audit import audit_payload
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.cli import dojo as dojo_cli
from podium.tracks.dojo.judge import judge_submission
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.replay import replay_season
from podium.tracks.dojo.results import problem_leaderboard_csv, problem_leaderboard_text, season_leaderboard_text
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.store import audit_entries, open_store
from podium.tracks.dojo.worker import judge_queue, work
from tests.databases import new_postgres_database
from tests.needs import need_module

from .test_platform import FIB_SETTER, GOLF, LOOP, STAGE_ONLY, problem_files

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "dojo.sqlite3")
    return new_postgres_database(request.getfixturevalue("postgres_url"), "dojo_users")


def run(*args: str) -> str:
    result = CliRunner().invoke(dojo_cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_list_disable_enable_and_rotate_from_the_command_line(url: str) -> None:
    token = run("user", "add", "ann", "--role", "solver", "--db", url).split()[-1]
    run("user", "add", "ops", "--role", "operator", "--db", url)
    platform = Dojo(open_store(url), ManualClock(T0), lambda: pytest.fail("no sandbox here"))
    assert platform.authenticate(token).name == "ann"

    assert "(0 session(s) ended)" in run("user", "disable", "ann", "--reason", "shared a token", "--db", url)
    with pytest.raises(AuthError, match="this account is disabled"):
        platform.authenticate(token)
    listed = {row["name"]: row for row in json.loads(run("user", "list", "--format", "json", "--db", url))}
    assert listed["ann"]["disabled"] and listed["ops"]["disabled"] is None and listed["ann"]["role"] == "solver"
    with open_store(url).connect() as db:
        disabled = [audit_payload(e) for e in audit_entries(db) if e.kind == "user_disabled"]
    assert disabled == [{"user": "ann", "reason": "shared a token", "sessions_ended": 0}]
    with pytest.raises(ConfigError, match="say why"):
        platform.users.disable("ann", "  ")

    run("user", "enable", "ann", "--db", url)
    assert platform.authenticate(token).name == "ann"
    fresh = run("user", "rotate-token", "ann", "--db", url).split()[-1]
    assert fresh != token and platform.authenticate(fresh).name == "ann"
    with pytest.raises(AuthError):
        platform.authenticate(token)  # the old token stopped at once


def test_operators_manage_users_over_http_and_nobody_else_may(url: str) -> None:
    need_module("fastapi", "web")
    from fastapi.testclient import TestClient

    from podium.web.app import create_app

    platform = Dojo(open_store(url), ManualClock(T0), lambda: pytest.fail("no sandbox here"))
    _, ann = platform.add_user("ann", Role.SOLVER)
    _, ops = platform.add_user("ops", Role.OPERATOR)
    as_ops, as_ann = {"Authorization": f"Bearer {ops}"}, {"Authorization": f"Bearer {ann}"}
    with TestClient(create_app({"db": url}, only={"dojo"}), base_url="http://testserver/dojo") as client:
        assert client.get("/api/users", headers=as_ann).status_code == 403
        assert client.post("/api/users/ops/disable", json={"reason": "x"}, headers=as_ann).status_code == 403
        assert {u["name"] for u in client.get("/api/users", headers=as_ops).json()} == {"ann", "ops"}
        answer = client.post("/api/users/ann/disable", json={"reason": "abuse"}, headers=as_ops)
        assert answer.status_code == 200 and answer.json()["disabled"] is True
        assert client.get("/api/me/submissions", headers=as_ann).status_code == 401
        assert client.post("/api/users/ann/enable", headers=as_ops).json() == {"user": "ann", "disabled": False}
        rotated = client.post("/api/users/ann/rotate-token", headers=as_ops).json()["token"]
        assert client.get("/api/me/submissions", headers=as_ann).status_code == 401  # the old token
        assert client.get("/api/me/submissions", headers={"Authorization": f"Bearer {rotated}"}).status_code == 200
        assert client.post("/api/users/nobody/enable", headers=as_ops).status_code == 404


def open_season(url: str, sandbox: Sandbox, rules: ScoringRules | None = None) -> tuple[Dojo, ManualClock]:
    """A season s1 with the Fibonacci problem validated and opened (the clock at 10:05, five minutes in)."""
    clock = ManualClock(T0)
    salts = iter(bytes([i]) * 32 for i in range(1, 100))
    platform = Dojo(open_store(url), clock, lambda: sandbox, lambda n: next(salts))
    platform.add_user("sam", Role.SETTER)
    platform.create_season("s1", rules)
    platform.add_problem("s1", "fib", "sam", problem_files(FIB_SETTER), open_at=T0 + timedelta(hours=1),
                         freeze_at=T0 + timedelta(hours=3), reveal_at=T0 + timedelta(hours=4))  # fmt: skip
    platform.validate("fib")
    clock.set(T0 + timedelta(hours=1, minutes=5))
    platform.tick()
    return platform, clock


@pytest.fixture
def judged(url: str, bubblewrap: Sandbox) -> Iterator[Dojo]:
    platform, _ = open_season(url, bubblewrap)
    yield platform


def test_a_disabled_user_leaves_the_leaderboard_computed_after_it(judged: Dojo, bubblewrap: Sandbox) -> None:
    ann, _ = judged.add_user("ann", Role.SOLVER)
    bob, _ = judged.add_user("bob", Role.SOLVER)
    judged.submit(ann, "fib", GOLF)
    judged.submit(bob, "fib", LOOP)
    assert work(judged, bubblewrap) == 2
    before = [line.split(",")[:2] for line in problem_leaderboard_csv(judged, judged.problem("fib")).splitlines()[1:]]
    assert before == [["1", "ann"], ["2", "bob"]]
    judged.users.disable("ann", "hard-coded the answers from another site")
    after = [line.split(",")[:2] for line in problem_leaderboard_csv(judged, judged.problem("fib")).splitlines()[1:]]
    assert after == [["1", "bob"]]
    assert len(judged.submissions(judged.problem("fib").id)) == 2  # the rows stay; the leaderboard leaves them out


def test_leaderboards_in_json_have_json_types_as_the_api_does(judged: Dojo, bubblewrap: Sandbox) -> None:
    ann, _ = judged.add_user("ann", Role.SOLVER)
    judged.submit(ann, "fib", GOLF)
    work(judged, bubblewrap)
    [row] = json.loads(problem_leaderboard_text(judged, judged.problem("fib"), "json"))
    assert (row["rank"], row["L"], row["stage_pass"], row["reward_correct"]) == (1, 35, True, True)
    assert isinstance(row["score"], int | float) and isinstance(row["submission"], int)
    [season] = json.loads(season_leaderboard_text(judged, "s1", "json", final_only=False))
    assert season["median_L"] == 35 and isinstance(season["median_L"], int)  # was the string "35"
    assert "35" in season_leaderboard_text(judged, "s1", "csv", final_only=False).splitlines()[1].split(",")


def test_the_queue_and_the_submissions_filtered_by_problem_user_and_status(url: str, bubblewrap: Sandbox) -> None:
    platform, clock = open_season(url, bubblewrap)
    ann, _ = platform.add_user("ann", Role.SOLVER)
    bob, _ = platform.add_user("bob", Role.SOLVER)
    for user, source in ((ann, GOLF), (bob, LOOP), (ann, LOOP)):
        platform.submit(user, "fib", source)
        clock.set(clock.now() + timedelta(seconds=30))
    every = json.loads(run("submissions", "--format", "json", "--db", url))
    assert [(r["user"], r["status"], r["practice"]) for r in every] == [("ann", "queued", False),
                                                                       ("bob", "queued", False),
                                                                       ("ann", "queued", False)]  # fmt: skip
    assert every[0]["L"] == 35 and all(isinstance(r["L"], int) for r in every)
    mine = json.loads(run("submissions", "--user", "ann", "--format", "json", "--db", url))
    assert [r["id"] for r in mine] == [every[0]["id"], every[2]["id"]]
    judged = run("submissions", "--status", "judged", "--problem", "fib", "--format", "json", "--db", url)
    assert json.loads(judged) == []
    queue = json.loads(run("queue", "--format", "json", "--db", url))
    assert [r["id"] for r in queue] == [r["id"] for r in every]
    waits = [r["waiting_s"] for r in queue]  # the command's clock is the machine's: the differences are fixed
    assert [round(waits[0] - waits[1], 1), round(waits[1] - waits[2], 1)] == [30.0, 30.0]
    table = run("queue", "--db", url)
    assert table.splitlines()[0].split() == ["id", "problem", "user", "status", "attempts", "submitted_at", "waiting_s"]


def test_claims_go_round_robin_across_users(url: str, bubblewrap: Sandbox) -> None:
    """ann's burst of five comes first; bob's two come later: bob's first is judged after ann's first, not fifth."""
    platform, clock = open_season(url, bubblewrap)
    ann, _ = platform.add_user("ann", Role.SOLVER)
    bob, _ = platform.add_user("bob", Role.SOLVER)
    owner = {}
    for user in (ann, ann, ann, ann, ann, bob, bob):
        clock.set(clock.now() + timedelta(seconds=1))
        owner[platform.submit(user, "fib", LOOP).submission_id] = user.name
    queue = judge_queue(platform)
    order = []
    while (claim := queue.claim("w1")) is not None:  # one worker, judging each at once
        clock.set(clock.now() + timedelta(seconds=1))
        order.append(owner[claim.id])
        assert queue.finish(claim, {"verdict": "WRONG_ANSWER", "judged_at": platform.now()})
    assert order == ["ann", "bob", "ann", "bob", "ann", "ann", "ann"]
    # a user who submits one at a time, after the last was taken, is never behind: their turn is 0 again
    clock.set(clock.now() + timedelta(minutes=5))
    later = platform.submit(ann, "fib", LOOP).submission_id
    claim = queue.claim("w1")
    assert claim is not None and claim.id == later


def test_a_late_burst_waits_behind_the_rounds_others_already_hold(url: str, bubblewrap: Sandbox) -> None:
    """Two of ann's four are judged when bob sends three: bob's first comes after ann's third, not before it."""
    platform, clock = open_season(url, bubblewrap)
    ann, _ = platform.add_user("ann", Role.SOLVER)
    bob, _ = platform.add_user("bob", Role.SOLVER)
    queue = judge_queue(platform)
    owner = {platform.submit(ann, "fib", LOOP).submission_id: "ann" for _ in range(4)}
    order = []
    for _ in range(2):
        claim = queue.claim("w1")
        assert claim is not None and queue.finish(claim, {"verdict": "WRONG_ANSWER", "judged_at": platform.now()})
        order.append(owner[claim.id])
    owner |= {platform.submit(bob, "fib", LOOP).submission_id: "bob" for _ in range(3)}
    while (claim := queue.claim("w1")) is not None:
        order.append(owner[claim.id])
        assert queue.finish(claim, {"verdict": "WRONG_ANSWER", "judged_at": platform.now()})
    assert order == ["ann", "ann", "ann", "bob", "ann", "bob", "bob"]
    # a rejudge queues the problem's submissions again, round-robin across their users
    assert platform.rejudge("fib") == 7
    assert [owner[i] for i in queue.waiting()] == ["ann", "bob", "ann", "bob", "ann", "bob", "ann"]


def test_a_user_who_submits_too_fast_is_told_when_to_come_back(url: str, bubblewrap: Sandbox) -> None:
    platform, clock = open_season(url, bubblewrap, ScoringRules(max_submissions_per_window=3, submission_window_s=60))
    start = clock.now()
    ann, _ = platform.add_user("ann", Role.SOLVER)
    bob, _ = platform.add_user("bob", Role.SOLVER)
    for seconds in (0, 10, 20):
        clock.set(start + timedelta(seconds=seconds))
        platform.submit(ann, "fib", LOOP)
    clock.set(start + timedelta(seconds=30))
    with pytest.raises(RateLimited, match="ann made 3 submissions in the last 60 s; the season allows 3") as limited:
        platform.submit(ann, "fib", GOLF)
    assert limited.value.retry_after_s == 30  # when the first of the three leaves the window
    platform.submit(bob, "fib", GOLF)  # another user is not affected
    clock.set(start + timedelta(seconds=60, milliseconds=1))
    platform.submit(ann, "fib", GOLF)  # one left the window: one more
    assert len(platform.submissions(user_id=ann.id)) == 4
    assert ScoringRules().max_submissions_per_window == 20 and ScoringRules().submission_window_s == 600


def test_a_replay_runs_under_the_seasons_limits_after_the_cores_defaults_change(
    judged: Dojo, bubblewrap: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, _ = judged.add_user("ann", Role.SOLVER)
    judged.submit(ann, "fib", GOLF)
    judged.submit(ann, "fib", LOOP)
    assert work(judged, bubblewrap) == 2
    judged.clock.set(T0 + timedelta(hours=5))  # type: ignore[attr-defined]  # past freeze and reveal
    judged.tick()
    judged.tick()
    before = replay_season(judged, "s1", bubblewrap)
    assert before.discrepancies == [] and before.submissions_rejudged == 2
    stored = judged.season("s1").rules
    assert stored.to_json()["solver_cpu_time_s"] == 2.0 and stored.to_json()["solver_memory_mib"] == 256

    # a later podium lowers the core's default limits below what a Python start needs
    defaults = dict(zip(("cpu_time_s", "wall_time_s"), Limits.__init__.__defaults__[:2], strict=True))  # type: ignore[index]
    assert defaults == {"cpu_time_s": 2.0, "wall_time_s": 5.0}
    monkeypatch.setattr(Limits.__init__, "__defaults__", (0.001, 0.002, *Limits.__init__.__defaults__[2:]))  # type: ignore[index]
    assert Limits().cpu_time_s == 0.001
    starved = judge_submission(GOLF, judged.problem("fib").terms or (), bubblewrap, stored, limits=Limits())
    assert starved.verdict.value != "ACCEPTED" and not starved.reward_correct  # the new defaults would change it
    report = replay_season(judged, "s1", bubblewrap)
    assert report.discrepancies == [] and report.submissions_rejudged == 2  # the season's own numbers still hold


def test_a_rejected_problem_is_redrafted_from_the_command_line(url: str, tmp_path: Path, bubblewrap: Sandbox) -> None:
    platform = Dojo(open_store(url), ManualClock(T0), lambda: bubblewrap)
    platform.add_user("sam", Role.SETTER)
    platform.create_season("s1")
    platform.add_problem("s1", "cube", "sam", problem_files(b"while 1:print(7)\n"))
    assert not platform.validate("cube").accepted
    folder = tmp_path / "cube"
    folder.mkdir()
    (folder / "setter.py").write_bytes(b"n=0\nwhile 1:print(n*n*n+n);n+=1\n")
    assert "problem cube redrafted (DRAFT); validate it again" in run("problem", "redraft", "cube", str(folder),
                                                                       "--db", url)  # fmt: skip
    assert platform.validate("cube").accepted


def test_the_operator_page_shows_the_queue_and_filters_submissions(url: str, bubblewrap: Sandbox) -> None:
    need_module("fastapi", "web")
    from fastapi.testclient import TestClient

    from podium.web.app import create_app

    platform = Dojo(open_store(url), ManualClock(datetime.now(UTC)), lambda: bubblewrap)
    platform.add_user("sam", Role.SETTER)
    _, ops = platform.add_user("ops", Role.OPERATOR)
    ann, ann_token = platform.add_user("ann", Role.SOLVER)
    platform.create_season("s1")
    platform.add_problem("s1", "fib", "sam", problem_files(FIB_SETTER))
    platform.validate("fib")
    platform.open("fib")
    first = platform.submit(ann, "fib", GOLF).submission_id
    with TestClient(create_app({"db": url}, only={"dojo"}), base_url="http://testserver/dojo",
                    headers={"origin": "http://testserver"}) as client:  # fmt: skip
        client.post("/me", data={"token": ann_token})
        assert client.get("/operator").status_code == 404  # a solver learns nothing of it
        client.cookies.clear()
        client.post("/me", data={"token": ops})
        page = client.get("/operator")
        assert page.status_code == 200 and "Queue (1 waiting or running)" in page.text
        assert f"<td>{first}</td><td>fib</td><td>ann</td><td>queued</td>" in page.text
        assert "Submissions (status judged)" in client.get("/operator?status=judged").text
        assert "<p class='note'>None.</p>" in client.get("/operator?status=judged").text


def test_the_scoreboard_shows_stage_pass_while_open_and_everything_at_reveal(url: str, bubblewrap: Sandbox) -> None:
    platform, clock = open_season(url, bubblewrap)
    ann, _ = platform.add_user("ann", Role.SOLVER)
    bob, _ = platform.add_user("bob", Role.SOLVER)
    _, ops = platform.add_user("ops", Role.OPERATOR)
    platform.submit(ann, "fib", GOLF)  # Reward Correct
    platform.submit(bob, "fib", STAGE_ONLY)  # Stage Pass only
    work(platform, bubblewrap)

    def board(*flags: str) -> list[dict[str, object]]:
        return json.loads(run("scoreboard", "--season", "s1", "--format", "json", *flags, "--db", url))  # type: ignore[no-any-return]

    open_board = board()
    assert open_board == [
        {"rank": 1, "user": "ann", "score": 0, "reward_correct": 0, "stage_pass": 1, "submissions": 1},
        {"rank": 1, "user": "bob", "score": 0, "reward_correct": 0, "stage_pass": 1, "submissions": 1},
    ]  # open: who reached Stage Pass and how often they submitted; nothing of Reward Correct
    live = board("--live")
    assert [(r["user"], r["reward_correct"]) for r in live] == [("ann", 1), ("bob", 0)] and live[0]["score"] > 0

    clock.set(T0 + timedelta(hours=3, minutes=30))
    platform.tick()  # frozen
    late = platform.submit(bob, "fib", GOLF)  # practice: after the freeze
    assert late.practice
    work(platform, bubblewrap)
    assert board() == open_board  # the board stays as it was at the freeze

    clock.set(T0 + timedelta(hours=4, minutes=5))
    platform.tick()  # revealed
    final = board()
    assert [(r["rank"], r["user"], r["reward_correct"]) for r in final] == [(1, "ann", 1), (2, "bob", 0)]
    assert final[0]["score"] == live[0]["score"]

    need_module("fastapi", "web")
    from fastapi.testclient import TestClient

    from podium.web.app import create_app

    with TestClient(create_app({"db": url}, only={"dojo"}), base_url="http://testserver/dojo") as client:
        assert client.get("/api/seasons/s1/scoreboard").json() == final
        assert client.get("/api/seasons/s1/scoreboard?live=true").status_code == 401
        as_ops = {"Authorization": f"Bearer {ops}"}
        assert client.get("/api/seasons/s1/scoreboard?live=true", headers=as_ops).status_code == 200
        assert "id='live'" not in client.get("/scoreboard/s1").text  # the public page
        client.post("/me", data={"token": ops}, headers={"origin": "http://testserver"})
        assert "Live board (operators only" in client.get("/scoreboard/s1").text  # an operator sees both


def test_the_queue_lists_submissions_in_the_order_the_workers_take_them(url: str, bubblewrap: Sandbox) -> None:
    platform, clock = open_season(url, bubblewrap)
    ann, _ = platform.add_user("ann", Role.SOLVER)
    bob, _ = platform.add_user("bob", Role.SOLVER)
    ids = {}
    for n, user in enumerate((ann, ann, ann, bob)):
        clock.set(clock.now() + timedelta(seconds=1))
        ids[platform.submit(user, "fib", LOOP).submission_id] = f"{user.name}{n}"
    shown = [ids[row["id"]] for row in json.loads(run("queue", "--format", "json", "--db", url))]
    assert shown == ["ann0", "bob3", "ann1", "ann2"]  # fair share: bob's first before ann's second
    claim = judge_queue(platform).claim("w1")
    assert claim is not None and ids[claim.id] == "ann0"
    shown = [ids[row["id"]] for row in json.loads(run("queue", "--format", "json", "--db", url))]
    assert shown == ["ann0", "bob3", "ann1", "ann2"]  # the running one first, then the next claims in turn
