"""The whole organiser sequence, through the command line, on SQLite and on a real PostgreSQL.

Ingest the GT and two teams, import a gold set, add four annotators, assign, score (one can't-judge), a late team
and its assign, replace one video of a team, an annotator who leaves (disabled, queue handed over), the operator's
resolution, then the exports and the report. At each step the answers that should stay are checked to stay.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from podium.core.storage.sql import sqlite_url
from podium.tracks.wmeval.cli import wmeval
from tests.databases import new_postgres_database
from tests.tracks.dojo.conftest import postgres_url  # noqa: F401  the dojo's real PostgreSQL server, reused
from tests.tracks.wmeval.conftest import make_gt, make_team

pytestmark = pytest.mark.slow
EPISODES = {"task1": 3, "task2": 3}
CLIPS = {f"task{t}/episode_{e}.mp4": "h264" for t in (1, 2) for e in range(3)}


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield sqlite_url(tmp_path / "w.sqlite3")
        return
    yield new_postgres_database(str(request.getfixturevalue("postgres_url")), "wmeval_sequence")


def test_the_whole_organiser_sequence_keeps_every_answer_it_should(db: str, tmp_path: Path) -> None:
    media = str(tmp_path / "media")

    def run(*args: str) -> str:
        result = CliRunner().invoke(wmeval, [*args, "--db", db], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    def rows() -> list[dict[str, str]]:
        return list(csv.DictReader(io.StringIO(run("assignments", "--format", "csv"))))

    def answers() -> dict[str, str]:
        return {r["item"]: r["score"] for r in rows() if r["score"]}

    run("ingest-gt", str(make_gt(tmp_path / "gt", EPISODES)), "--height", "48", "--media", media, "--workers", "1")
    for team in ("red", "blue"):
        run("ingest-team", team, str(make_team(tmp_path / team, CLIPS)), "--media", media, "--workers", "1")
    gold = make_team(tmp_path / "gold", {"task1/episode_0.mp4": "h264", "task2/episode_0.mp4": "mp4v"})
    (tmp_path / "gold.csv").write_text("task,episode,expected\ntask1,episode_0,3\ntask2,episode_0,1\n")
    assert "scores 0" not in run("gold-import", str(gold), "--answers", str(tmp_path / "gold.csv"), "--media", media,
                                 "--workers", "1")  # fmt: skip
    for name in ("ann0", "ann1", "ann2", "ann3"):
        run("annotator", "add", name)
    run("assign", "--annotators-per-task", "3", "--overlap", "1", "--gold", "1", "--seed", "7")

    # everybody scores everything but one item of ann1's, which ann0 cannot judge
    first = rows()
    lines = ["annotator,item,score,note,cant_judge"]
    waiting = next(r for r in first if r["annotator"] == "ann0" and r["kind"] == "primary")
    kept_for_ann1 = [r["item"] for r in first if r["annotator"] == "ann1"][:2]
    for r in first:
        if r["item"] == waiting["item"]:
            lines.append(f"ann0,{r['item']},,,reference")
        elif r["item"] not in kept_for_ann1:
            lines.append(f"{r['annotator']},{r['item']},{(len(r['team']) + len(r['episode'])) % 4},,")
    run("import-scores", str(_write(tmp_path / "scores.csv", lines)))
    scored = answers()

    # a late team, then its assign: nothing answered moves
    run("ingest-team", "green", str(make_team(tmp_path / "green", CLIPS)), "--media", media, "--workers", "1")
    run("assign", "--seed", "8")
    assert answers() == scored and {r["team"] for r in rows()} >= {"red", "blue", "green"}

    # red re-sends one video, changed: only its answers go (audited), its items go back to the same annotators
    resent = tmp_path / "red2"
    shutil.copytree(tmp_path / "red", resent)
    shutil.copy(make_team(tmp_path / "other", {"task1/episode_9.mp4": "h264"}) / "evaluator_test/task1/episode_9.mp4",
                resent / "evaluator_test/task1/episode_1.mp4")  # fmt: skip
    before = {r["item"]: r for r in rows() if (r["team"], r["task"], r["episode"]) == ("red", "task1", "episode_1")}
    out = run("ingest-team", "red", str(resent), "--replace", "--only", "task1/episode_1", "--force", "--media", media,
              "--workers", "1")  # fmt: skip
    assert "replaced: 1 video(s)" in out
    after = {r["item"]: r for r in rows()}
    assert all(after[key]["annotator"] == r["annotator"] and not after[key]["score"] for key, r in before.items())
    assert {k: v for k, v in answers().items() if k not in before} == {
        k: v for k, v in scored.items() if k not in before
    }

    # ann1 leaves: disabled, and every unscored item of theirs handed on (what cannot move is named)
    run("annotator", "disable", "ann1")
    handed = run("handover", "ann1", "--to", "ann3", "--allow-fewer")
    assert "handed over" in handed
    stayed = {line.split()[1] for line in handed.splitlines() if line.strip().startswith("stayed:")}
    left = {r["item"] for r in rows() if r["annotator"] == "ann1" and not r["score"]}
    assert left == stayed  # exactly what the command said stayed

    # the operator resolves the can't-judge; exports, report and audit agree
    pending = json.loads(run("cant-judge", "--format", "json"))
    assert [p["item"] for p in pending] == [waiting["item"]]
    run("resolve", waiting["item"], "--broken")
    board = json.loads(run("scores", "--format", "json"))
    assert [t["team"] for t in board["teams"]] != [] and {t["team"] for t in board["teams"]} == {"red", "blue", "green"}
    run("report", str(tmp_path / "report.html"))
    assert "Leaderboard" in (tmp_path / "report.html").read_text()
    assert run("verify-audit").startswith("audit log intact")


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path
