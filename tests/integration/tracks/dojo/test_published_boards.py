"""A revealed board is a record: served from its audit entry, changed only by an audited amendment that replay
verifies; an edited row makes ``verify-audit`` fail. On SQLite and a real PostgreSQL, with the real sandbox.

The season is the one a 4-user check found rewritten: under the scoring rules v0.1 two tags give everyone the
shared +20, so recomputing after a disqualification moved another contestant from 1241 to 1211.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import update

from podium.core.errors import PodiumError
from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.cli import dojo as dojo_cli
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.replay import replay_season
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import submissions
from podium.tracks.dojo.worker import work
from tests.needs import need_module
from tests.tracks.dojo.test_platform import GOLF, STAGE_ONLY, tag
from tests.tracks.dojo.test_users import open_season, url  # noqa: F401  the SQLite / PostgreSQL fixture

TUPLE_SHIFT = b"a,b=0,1\nfor _ in range(200):print(a);a,b=b,a+b\n"


@dataclass(frozen=True)
class Answer:
    exit_code: int
    output: str


def cli(*args: str) -> Answer:
    """``podium dojo ARGS`` as the command line answers: podium's errors as ``error: ...`` and their exit code."""
    result = CliRunner().invoke(dojo_cli, list(args))
    if isinstance(result.exception, PodiumError):
        return Answer(result.exception.exit_code, f"{result.output}error: {result.exception.describe()}")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Answer(result.exit_code, result.output)


def csv_rows(text: str) -> list[list[str]]:
    return [line.split(",")[:4] for line in text.splitlines()[1:]]


@pytest.fixture
def revealed(url: str, bubblewrap: Sandbox) -> Iterator[Dojo]:  # noqa: F811
    dojo, clock = open_season(url, bubblewrap, ScoringRules())  # v0.1: the rule whose recomputation moved scores
    users = {name: dojo.add_user(name, Role.SOLVER)[0] for name in ("ann", "bob", "cat", "dan")}
    entries = [
        ("ann", GOLF, tag("linear_recurrence")),
        ("bob", GOLF, None),  # a copy of ann's, found out after the contest; unspecified
        ("cat", TUPLE_SHIFT, tag("linear_recurrence")),
        ("dan", STAGE_ONLY, None),
    ]
    for minute, (name, source, claim) in enumerate(entries):
        clock.set(clock.now() + timedelta(minutes=minute))
        dojo.submit(users[name], "fib", source, claim)
    assert work(dojo, bubblewrap) == 4
    dojo.freeze("fib")
    dojo.reveal("fib")
    yield dojo


def test_a_disqualification_after_reveal_is_an_amendment_and_changes_no_other_score(revealed: Dojo, url: str) -> None:  # noqa: F811
    board = cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output
    # two tags (linear_recurrence, unspecified): +20 for all; +30 to the first of each tag
    assert csv_rows(board) == [["1", "ann", "1241", "35"], ["2", "bob", "1241", "35"], ["3", "cat", "1208", "47"],
                               ["4", "dan", "200", "47"]]  # fmt: skip
    season = cli("leaderboard", "--season", "s1", "--format", "csv", "--db", url).output

    # disabling after reveal blocks access only: every board stays as published
    assert cli("user", "disable", "bob", "--reason", "copied ann's solver", "--db", url).exit_code == 0
    assert cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output == board
    assert cli("leaderboard", "--season", "s1", "--format", "csv", "--db", url).output == season

    done = cli("disqualify", "bob", "--problem", "fib", "--reason", "copied ann's solver", "--db", url)
    assert done.exit_code == 0 and "version 2 of the board published without bob (submission 2)" in done.output
    amended = cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output
    # bob's row is gone; nobody else's score moved (a recomputation would give ann 1221 and cat 1188); ranks close up
    assert csv_rows(amended) == [["1", "ann", "1241", "35"], ["2", "cat", "1208", "47"], ["3", "dan", "200", "47"]]
    season_rows = csv_rows(cli("leaderboard", "--season", "s1", "--format", "csv", "--db", url).output)
    assert [row[1:3] for row in season_rows] == [["ann", "1241"], ["cat", "1208"], ["dan", "200"]]

    assert "replay matches the published results" in cli("replay", "--season", "s1", "--db", url).output
    assert replay_season(revealed, "s1").ok
    verified = cli("verify-audit", "--db", url)
    assert verified.exit_code == 0 and "published boards match the rows" in verified.output

    again = cli("disqualify", "bob", "--problem", "fib", "--reason", "twice", "--db", url)
    assert again.exit_code != 0 and "has no row on version 2" in again.output  # nothing silently re-published

    need_module("fastapi", "web")
    from fastapi.testclient import TestClient

    from podium.tracks.dojo.track import TRACK
    from podium.web.app import create_app

    client = TestClient(create_app({"db": url}, {"dojo": TRACK}))
    served = client.get("/dojo/api/problems/fib/leaderboard").json()
    assert [(r["user"], r["score"], r["rank"]) for r in served] == [("ann", 1241, 1), ("cat", 1208, 2), ("dan", 200, 3)]
    versions = client.get("/dojo/api/problems/fib/leaderboard/versions").json()
    assert [v["version"] for v in versions] == [1, 2] and versions[1]["reason"] == "copied ann's solver"
    assert versions[1]["removed"] == [{"user": "bob", "submission": 2}] and len(versions[0]["leaderboard"]) == 4
    page = client.get("/dojo/problems/fib").text
    assert "Amended after reveal" in page and "copied ann&#x27;s solver" in page and "bob (submission 2)" in page


def test_an_edited_row_makes_verify_audit_fail_and_name_the_row(revealed: Dojo, url: str) -> None:  # noqa: F811
    assert cli("verify-audit", "--db", url).exit_code == 0
    with revealed.engine.begin() as db:  # someone with the database URL gives dan a Reward Correct
        db.execute(update(submissions).where(submissions.c.id == 4).values(reward_correct=True, stage_pass=True))
    served = cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output
    assert ["4", "dan", "200", "47"] in csv_rows(served)  # the published board is served, not the edited rows
    failed = cli("verify-audit", "--db", url)
    assert failed.exit_code != 0 and "the rows disagree with the published boards" in failed.output
    assert "fib: the board recomputed from the rows differs from the one revealed" in failed.output
    assert "published '4,dan,200,47" in failed.output and "recomputed '" in failed.output
    assert not replay_season(revealed, "s1").ok


def test_a_disqualification_takes_a_submission_id_and_needs_a_reason_and_a_row(revealed: Dojo, url: str) -> None:  # noqa: F811
    assert cli("disqualify", "3", "--problem", "fib", "--reason", "shared", "--db", url).exit_code == 0  # cat's
    assert "without cat (submission 3)" not in cli("leaderboard", "--problem", "fib", "--db", url).output
    assert csv_rows(cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output)[-1][1] == "dan"
    for args, said in [
        (("nobody",), "user nobody has no row"),
        (("ann", "--reason", " "), "needs a reason"),
    ]:
        answer = cli("disqualify", *args[:1], "--problem", "fib", *(args[1:] or ("--reason", "x")), "--db", url)
        assert answer.exit_code != 0 and said in answer.output, answer.output
    assert (
        json.loads(cli("leaderboard", "--problem", "fib", "--format", "json", "--db", url).output)[0]["user"] == "ann"
    )


def test_every_judgment_keeps_what_its_run_cost_and_which_judge_gave_it(revealed: Dojo) -> None:
    from podium.tracks.dojo.judge import JUDGE_VERSION

    for row in revealed.submissions(revealed.problem("fib").id):
        assert row.judge_version == JUDGE_VERSION and row.stderr == ""
        assert row.wall_time_s is not None and row.wall_time_s > 0 and row.cpu_time_s is not None
        assert row.cpu_counted_by in ("cgroup", "rusage") and (row.peak_memory_mib or 0) < 256


def test_replay_tells_a_judge_that_changed_since_from_a_tampered_row(
    revealed: Dojo, bubblewrap: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    import podium.tracks.dojo.replay as replay

    real = replay.judge_submission

    def todays_judge(*args: object, **kwargs: object) -> object:  # a judge that now refuses what it once accepted
        judged = real(*args, **kwargs)  # type: ignore[arg-type]
        return dataclasses.replace(judged, reward_correct=False) if judged.reward_correct else judged

    monkeypatch.setattr(replay, "judge_submission", todays_judge)
    same_judge = replay_season(revealed, "s1", bubblewrap)
    assert not same_judge.ok and len(same_judge.discrepancies) == 3 and not same_judge.judge_changes
    with revealed.engine.begin() as db:  # the rows an older judge judged
        db.execute(update(submissions).values(judge_version="2026.11.01"))
    older_judge = replay_season(revealed, "s1", bubblewrap)
    assert older_judge.ok and len(older_judge.judge_changes) == 3, older_judge
    assert "judge changed since (2026.11.01, now " in older_judge.judge_changes[0]
