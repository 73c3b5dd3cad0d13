"""Gold items that measure something: generated videos with a known score, served exactly like every other item.

Gold items were the reference shown as the generated video (same bytes, same picture): always a 3, so gold
accuracy measured nothing. A gold set is now a folder in the team layout and a CSV of the expected scores.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from podium.core.errors import InputError
from podium.core.execution.executor import SerialExecutor
from podium.tracks.wmeval.annotate import item_for, queue, record_score
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments
from podium.tracks.wmeval.ingest import import_gold, ingest_gt, ingest_team, media_root
from podium.tracks.wmeval.schema import teams
from podium.tracks.wmeval.score import collect
from podium.tracks.wmeval.stats import annotator_quality, collect_ratings
from podium.tracks.wmeval.store import add_account
from tests.tracks.wmeval.conftest import Env, make_gt, make_team

ANSWERS = "task,episode,expected\ntask1,episode_0,3\ntask1,episode_1,1\n"


@pytest.fixture
def ready(env: Env) -> Env:
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 2}), SerialExecutor(), env.clock, 48)
    ingest_team(env.engine, root, "red", make_team(env.tmp / "red", {"task1/episode_0.mp4": "h264"}),
                SerialExecutor(), env.clock)  # fmt: skip
    return env


def gold_folder(env: Env) -> object:
    return make_team(env.tmp / "gold", {"task1/episode_0.mp4": "h264", "task1/episode_1.mp4": "mp4v"})


@pytest.mark.parametrize(
    ("answers", "named"),
    [
        ("task,episode,expected\ntask1,episode_0,3\n", "task1/episode_1: a video without an answer"),
        (ANSWERS + "task1,episode_7,2\n", "task1/episode_7: an answer without a video"),
        ("task,episode,expected\ntask1,episode_0,4\ntask1,episode_1,1\n", "line 2: expected task,episode,score"),
        ("task,episode\ntask1,episode_0\n", "first line must be"),
    ],
)
def test_a_gold_set_whose_answers_and_videos_differ_is_refused_whole(ready: Env, answers: str, named: str) -> None:
    root = media_root(ready.engine, ready.media)
    with pytest.raises(InputError) as refused:
        import_gold(ready.engine, root, gold_folder(ready), answers, SerialExecutor(), ready.clock)  # type: ignore[arg-type]
    assert named in refused.value.message
    with ready.engine.connect() as db:
        assert [r.name for r in db.execute(select(teams))] == ["red"]


def test_gold_items_are_gold_videos_served_like_any_other_and_measure_the_annotator(ready: Env) -> None:
    root = media_root(ready.engine, ready.media)
    report = import_gold(ready.engine, root, gold_folder(ready), ANSWERS, SerialExecutor(), ready.clock)  # type: ignore[arg-type]
    assert (report.stored, dict(report.methods)) == (2, {"transcoded": 2})  # made as a team's are
    account, _ = add_account(ready.engine, ready.clock, "ann", "annotator")
    assert assign(ready.engine, ready.clock, AssignOptions(annotators_per_task=1, gold=2, seed=3)).gold_videos == 2
    rows = assignments(ready.engine)
    gold = [r for r in rows if r.kind == "gold"]
    assert sorted(r.episode for r in gold) == ["episode_0", "episode_1"] and {r.team for r in gold} == {"(gold set)"}
    for row in gold:
        view = item_for(ready.engine, account.id, row.item)
        assert view.media["generated.mp4"] != view.media["reference.mp4"]  # never the reference as the video
        assert view.media["generated.mp4"].startswith("teams/") and view.media["generated.mp4"].endswith("video.mp4")
    assert [team for team in collect(ready.engine).results] == ["red"]  # never ranked
    for row in gold:  # the annotator gives 3 to both: right on one, two off on the other
        record_score(ready.engine, ready.clock, account, row.item, 3)
    quality = {q.annotator: q for q in annotator_quality(collect_ratings(ready.engine))}
    assert (quality["ann"].gold_items, quality["ann"].gold_accuracy) == (2, 0.5)
    assert len(queue(ready.engine, account.id)) == 3  # red's video and the two gold items, one queue


def test_a_gold_set_covering_part_of_the_gt_reports_no_missing_scores(ready: Env) -> None:
    """A gold set is never scored: an episode it leaves out is no 'missing ... scores 0' line."""
    root = media_root(ready.engine, ready.media)
    partial = make_team(ready.tmp / "gold1", {"task1/episode_0.mp4": "h264"})
    report = import_gold(ready.engine, root, partial, "task,episode,expected\ntask1,episode_0,2\n",  # type: ignore[arg-type]
                         SerialExecutor(), ready.clock)  # fmt: skip
    assert report.stored == 1 and not any("scores 0" in line for line in report.lines()), report.lines()
