"""The scoring rule on hand-computed cases, and the leaderboard the ``scores`` command prints."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner
from sqlalchemy import select, update

from podium.tracks.wmeval.annotate import record_score
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments
from podium.tracks.wmeval.cli import wmeval
from podium.tracks.wmeval.schema import videos
from podium.tracks.wmeval.score import (
    Collected,
    EpisodeResult,
    EpisodeStatus,
    final_score,
    leaderboard,
    task_score,
    team_score,
)
from podium.tracks.wmeval.store import ACCOUNTS

from .conftest import Env
from .test_assign import annotators, seed_rows


def test_the_rule_weights_counts_by_score() -> None:
    # (3·2 + 2·1 + 1·1) / 5 = 9/5
    assert task_score([3, 3, 2, 1, 0], 5) == Fraction(9, 5)


def test_a_short_submission_is_divided_by_the_gt_count() -> None:
    # four perfect videos of ten GT episodes: 12 / 10
    assert task_score([3, 3, 3, 3], 10) == Fraction(6, 5)


def test_all_zero_and_empty() -> None:
    assert task_score([0, 0, 0], 3) == 0
    assert task_score([], 4) == 0
    assert task_score([], 0) == 0


def test_more_scores_than_gt_videos_or_out_of_range_is_a_bug() -> None:
    with pytest.raises(ValueError):
        task_score([3, 3], 1)
    with pytest.raises(ValueError):
        task_score([4], 1)


def test_a_missing_task_counts_zero_in_the_mean_over_every_task() -> None:
    tasks = [f"task{i}" for i in range(1, 9)]
    assert final_score({"task1": Fraction(3), "task2": Fraction(1, 2)}, tasks) == Fraction(7, 16)


def collected(results: dict[str, dict[str, dict[str, EpisodeResult]]]) -> Collected:
    return Collected(("task1", "task2"), {"task1": ("e0", "e1", "e2", "e3"), "task2": ("e0", "e1")}, results)


def scored(*values: int) -> dict[str, EpisodeResult]:
    return {f"e{i}": EpisodeResult(v, EpisodeStatus.SCORED) for i, v in enumerate(values)}


def test_unplayable_broken_cant_judge_and_missing_videos_count_zero_against_the_gt_denominator() -> None:
    data = collected(
        {
            "a": {
                "task1": {
                    **scored(3, 2),
                    "e2": EpisodeResult(0, EpisodeStatus.UNPLAYABLE),
                    "e3": EpisodeResult(0, EpisodeStatus.CANT_JUDGE),
                },
                "task2": {"e0": EpisodeResult(0, EpisodeStatus.BROKEN)},  # e1 missing
            }
        }
    )
    score = team_score("a", data)
    assert score.tasks["task1"].value == Fraction(5, 4)
    assert score.tasks["task1"].statuses == {
        "scored": 2, "pending": 0, "cant_judge": 1, "broken": 0, "missing": 0, "unplayable": 1,
    }  # fmt: skip
    assert score.tasks["task1"].counts == (0, 0, 1, 1)
    assert score.tasks["task2"].value == 0
    assert score.tasks["task2"].statuses == {
        "scored": 0, "pending": 0, "cant_judge": 0, "broken": 1, "missing": 1, "unplayable": 0,
    }  # fmt: skip
    assert score.final == Fraction(5, 8)  # (5/4 + 0) / 2, the GT's counts as denominators


def test_equal_exact_scores_share_a_rank() -> None:
    data = collected(
        {
            "a": {"task1": scored(3, 3, 0, 0), "task2": scored(1, 1)},  # (6/4 + 2/2) / 2 = 5/4
            "b": {"task1": scored(1, 1, 1, 1), "task2": scored(3, 0)},  # (4/4 + 3/2) / 2 = 5/4
            "c": {"task1": scored(3, 3, 3, 3)},  # (3 + 0) / 2 = 3/2
            "d": {},
        }
    )
    ranked = [(r.rank, r.entry.team, r.entry.final) for r in leaderboard(data)]
    assert ranked == [(1, "c", Fraction(3, 2)), (2, "a", Fraction(5, 4)), (2, "b", Fraction(5, 4)), (4, "d", 0)]


def test_scores_command_prints_exact_fractions(env: Env) -> None:
    seed_rows(env.engine, {"task1": 4, "task2": 2}, ["red", "blue"], missing=0)
    annotators(env, 1)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, gold=0, seed=1))
    with env.engine.begin() as db:  # blue's task2/episode_1 could not be decoded at ingest
        broken = (videos.c.team_id == 2) & (videos.c.task == "task2") & (videos.c.episode == "episode_1")
        db.execute(update(videos).where(broken).values(playable=False, video_path=None))
    with env.engine.connect() as db:
        ann = ACCOUNTS.by_name(db, "ann0")
        assert db.execute(select(videos.c.id)).all()
    given = {("red", "task1"): [3, 3, 2, 1], ("red", "task2"): [2, 2], ("blue", "task1"): [1, 0, 0, 0],
             ("blue", "task2"): [3, 3]}  # fmt: skip
    for row in assignments(env.engine):
        if row.team == "blue" and row.task == "task2" and row.episode == "episode_1":
            continue  # unplayable: never shown, never scored
        record_score(env.engine, env.clock, ann, row.item, given[(row.team, row.task)][int(row.episode[-1])])
    db_url = str(env.engine.url)
    out = CliRunner().invoke(wmeval, ["scores", "--format", "json", "--db", db_url], catch_exceptions=False).output
    # red: task1 9/4, task2 2 -> 17/8; blue: task1 1/4, task2 3/2 (episode_1 unplayable) -> 7/8
    assert json.loads(out) == {
        "teams": [
            # red 10/8 above blue; a rating weighs 1/8 in task1, 1/4 in task2: red's two task2 2s to 0 (1) and
            # one 3 down or blue's 0 up (3/8) close it, and no two do
            {"team": "red", "rank": 1, "final": "17/8", "tasks": {"task1": "9/4", "task2": "2"},
             "ratings_to_tie_next": 3},
            {"team": "blue", "rank": 2, "final": "7/8", "tasks": {"task1": "1/4", "task2": "3/2"},
             "ratings_to_tie_next": None},
        ]
    }  # fmt: skip
    table = CliRunner().invoke(wmeval, ["scores", "--db", db_url], catch_exceptions=False).output
    assert "2.125" in table and "1 unplayable" in table
    csv_text = CliRunner().invoke(wmeval, ["scores", "--format", "csv", "--db", db_url]).output
    assert csv_text.splitlines()[:2] == ["rank,team,final,task1,task2", "1,red,17/8,9/4,2"]
