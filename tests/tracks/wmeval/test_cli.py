"""The ``podium wmeval`` commands in-process (click's runner): ingest, accounts, assignment, the operator view."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from podium.tracks.wmeval.cli import wmeval

from .conftest import make_gt, make_team


def run(*args: str) -> str:
    result = CliRunner().invoke(wmeval, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_ingest_accounts_assign_and_the_operator_view(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'w.sqlite3'}"
    media = str(tmp_path / "media")
    gt = make_gt(tmp_path / "gt", {"task1": 2})
    out = run("ingest-gt", str(gt), "--height", "48", "--media", media, "--workers", "1", "--db", db)
    assert "GT: 2 video(s) stored, 2 playable" in out
    team = make_team(tmp_path / "t", {"task1/episode_0.mp4": "h264"})
    out = run("ingest-team", "red", str(team), "--workers", "1", "--db", db)
    assert "red: 1 video(s) stored, 1 playable" in out and "missing: task1/episode_1" in out
    gold = make_team(tmp_path / "gold", {"task1/episode_0.mp4": "h264", "task1/episode_1.mp4": "mp4v"})
    (tmp_path / "gold.csv").write_text("task,episode,expected\ntask1,episode_0,3\ntask1,episode_1,1\n")
    out = run("gold-import", str(gold), "--answers", str(tmp_path / "gold.csv"), "--workers", "1", "--db", db)
    assert "(gold set): 2 video(s) stored, 2 playable" in out
    token_line = run("annotator", "add", "ann", "--db", db)
    assert token_line.startswith("ann (annotator) token: ") and len(token_line.split()[-1]) >= 40
    assert "seed 4: 2 episode(s) mapped" in run("assign", "--seed", "4", "--db", db)
    rows = list(csv.DictReader(io.StringIO(run("assignments", "--format", "csv", "--db", db))))
    kinds = sorted((r["annotator"], r["team"], r["task"], r["kind"]) for r in rows)
    assert kinds == [("ann", "(gold set)", "task1", "gold"), ("ann", "red", "task1", "primary")]
    assert next(r["episode"] for r in rows if r["kind"] == "primary") == "episode_0"
    assert len(json.loads(run("assignments", "--format", "json", "--db", db))) == 2
    assert run("verify-audit", "--db", db).startswith("audit log intact: 5 entries, head ")

    keys = {r["kind"]: r["item"] for r in rows}
    answers = tmp_path / "answers.csv"
    answers.write_text(f"annotator,item,score,cant_judge,note\nann,{keys['primary']},,video,frozen at 2 s\n"
                       f"ann,{keys['gold']},0,,\n")  # fmt: skip
    assert "2 answer(s) applied, 0 unchanged" in run("import-scores", str(answers), "--db", db)
    exported = {r["kind"]: r for r in json.loads(run("assignments", "--format", "json", "--db", db))}
    flagged, zero = exported["primary"], exported["gold"]
    assert (flagged["score"], flagged["cant_judge"], flagged["note"], flagged["revision"]) == (
        None, "video", "frozen at 2 s", 1)  # fmt: skip
    assert (zero["score"], zero["cant_judge"]) == (0, None)  # a real 0 and a flag are told apart
    assert flagged["answered_at"].startswith("20") and flagged["resolution"] is None


def test_backup_copies_the_live_database(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'wmeval.sqlite3'}"
    run = CliRunner().invoke
    assert run(wmeval, ["annotator", "add", "ann", "--db", db]).exit_code == 0
    result = run(wmeval, ["backup", str(tmp_path / "copy.sqlite3"), "--db", db])
    assert result.exit_code == 0 and "integrity ok" in result.output, result.output
    with sqlite3.connect(tmp_path / "copy.sqlite3") as copy:
        assert copy.execute("SELECT name FROM wmeval_users").fetchall() == [("ann",)]


def test_the_scores_table_comes_whole_before_the_open_scoring_note(tmp_path: Path) -> None:
    """Both streams to one place (a terminal, `2>&1`): the note must not run into the table's last line."""
    import subprocess
    import sys

    db = f"sqlite:///{tmp_path / 'w.sqlite3'}"
    podium = [sys.executable, "-m", "podium", "wmeval"]
    subprocess.run([*podium, "init", "--db", db], check=True, capture_output=True)
    both = subprocess.run([*podium, "scores", "--db", db], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=True).stdout  # fmt: skip
    lines = both.splitlines()
    assert lines[0].startswith("rank") and lines[-1].startswith("note: scoring is open"), both
