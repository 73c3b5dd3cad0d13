"""Assignment invariants: one annotator per video, caps, the same mapping for every team, opaque keys."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest
from sqlalchemy import Engine, insert, select

from podium.core.errors import ConfigError, NotFoundError
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments, plan, reassign
from podium.tracks.wmeval.schema import episode_map, gt, teams, videos
from podium.tracks.wmeval.store import add_account

from .conftest import Env

AT = "2026-06-01T00:00:00.000000+00:00"


def seed_rows(
    engine: Engine, tasks: dict[str, int], team_names: list[str], missing: int = 0, *, with_gt: bool = True
) -> None:
    """GT and video rows without media: assignment reads only the tables (``with_gt=False``: a later team only)."""
    with engine.begin() as db:
        for task, count in tasks.items() if with_gt else ():
            for e in range(count):
                db.execute(insert(gt).values(task=task, episode=f"episode_{e}", video_path=f"gt/{task}/{e}.mp4",
                                             last_frame_path="x.png", playable=True, reason="", probe_json="{}",
                                             created_at=AT))  # fmt: skip
        for name in team_names:
            team_id = db.execute(insert(teams).values(name=name, created_at=AT)).inserted_primary_key[0]
            for task, count in tasks.items():
                for e in range(count - missing):
                    db.execute(insert(videos).values(team_id=team_id, task=task, episode=f"episode_{e}",
                               original_path="o.mp4", video_path="v.mp4", last_frame_path="l.png",
                               playable=True, reason="", probe_json="{}", created_at=AT))  # fmt: skip


def seed_gold(engine: Engine, tasks: dict[str, int], expected: int = 2) -> None:
    """A gold set's rows: one video per GT episode, each with its expected score."""
    with engine.begin() as db:
        gold_id = db.execute(insert(teams).values(name="(gold set)", kind="gold", created_at=AT)).inserted_primary_key[
            0
        ]
        for task, count in tasks.items():
            for e in range(count):
                db.execute(insert(videos).values(team_id=gold_id, task=task, episode=f"episode_{e}", expected=expected,
                           original_path="o.mp4", video_path="g.mp4", last_frame_path="l.png", playable=True,
                           reason="", probe_json="{}", created_at=AT))  # fmt: skip


def annotators(env: Env, n: int) -> list[str]:
    names = [f"ann{i}" for i in range(n)]
    for name in names:
        add_account(env.engine, env.clock, name, "annotator")
    add_account(env.engine, env.clock, "ops", "operator")
    return names


def test_plan_deals_each_episode_to_one_annotator_within_the_cap() -> None:
    tasks = {"task1": [f"episode_{i}" for i in range(40)], "task2": [f"episode_{i}" for i in range(7)]}
    result = plan(tasks, ["a", "b", "c", "d"], AssignOptions(cap=10), random.Random(1))
    assert len(result["task1"]) == 30  # 3 annotators x cap 10: a sample, the same for every team
    assert len(result["task2"]) == 7
    for slots in result.values():
        load = Counter(slot.annotator for slot in slots.values())
        assert len(load) == 3 and max(load.values()) <= 10
    assert plan(tasks, ["a", "b", "c", "d"], AssignOptions(cap=10), random.Random(1)) == result  # seeded
    with pytest.raises(ConfigError):
        plan(tasks, [], AssignOptions(), random.Random(1))


def test_every_team_gets_the_same_mapping_and_each_video_one_scorer(env: Env) -> None:
    seed_rows(env.engine, {"task1": 12, "task2": 5}, ["red", "green", "blue"])
    seed_gold(env.engine, {"task1": 12, "task2": 5})
    annotators(env, 4)
    summary = assign(env.engine, env.clock, AssignOptions(cap=3, gold=1, seed=7))
    assert summary.episodes_left_out == 3  # task1: 12 episodes, 3 annotators x cap 3 = 9 sampled
    rows = assignments(env.engine)
    primary = [r for r in rows if r.kind == "primary"]
    per_video = Counter((r.team, r.task, r.episode) for r in primary)
    assert set(per_video.values()) == {1}
    assert len(per_video) == 3 * (9 + 5)
    scorer: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in primary:
        scorer[(r.task, r.episode)].add(r.annotator)
    assert all(len(names) == 1 for names in scorer.values())  # identical for every team
    cap = Counter((r.annotator, r.team, r.task) for r in primary)
    assert max(cap.values()) <= 3
    assert "ops" not in {r.annotator for r in rows}
    gold = [r for r in rows if r.kind == "gold"]
    assert Counter(r.annotator for r in gold) == {f"ann{i}": 1 for i in range(4)}
    owned = {(r.annotator, r.task, r.episode) for r in primary}
    assert all((r.annotator, r.task, r.episode) in owned for r in gold)  # gold from the episodes they score
    assert {r.team for r in gold} == {"(gold set)"} and "(gold set)" not in {r.team for r in primary}
    keys = [r.item for r in rows]
    assert len(set(keys)) == len(keys) and all(len(k) == 16 and int(k, 16) >= 0 for k in keys)
    assert not any(t in k for k in keys for t in ("red", "green", "blue"))


def test_queues_are_shuffled_across_teams(env: Env) -> None:
    seed_rows(env.engine, {"task1": 6}, ["red", "green", "blue"])
    annotators(env, 1)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, cap=10, gold=0, seed=3))
    order = [r.team for r in assignments(env.engine)]
    runs = sum(1 for a, b in zip(order, order[1:], strict=False) if a != b)
    assert len(order) == 18 and runs > 5  # teams interleave, not three blocks


def test_overlap_items_go_to_every_annotator_of_the_task(env: Env) -> None:
    seed_rows(env.engine, {"task1": 9}, ["red", "green"])
    annotators(env, 3)
    assign(env.engine, env.clock, AssignOptions(cap=3, overlap=2, gold=0, seed=5))
    rows = assignments(env.engine)
    with env.engine.connect() as db:
        shared = {r.episode for r in db.execute(select(episode_map).where(episode_map.c.overlap))}
    assert len(shared) == 2
    overlap = [r for r in rows if r.kind == "overlap"]
    assert len(overlap) == 2 * 2 * 2  # 2 episodes x 2 teams x the 2 other annotators
    for r in overlap:
        assert r.episode in shared
    per_video = Counter((r.team, r.episode) for r in rows)
    assert all(per_video[(t, e)] == 3 for t in ("red", "green") for e in shared)


def test_a_team_ingested_later_gets_the_existing_mapping(env: Env) -> None:
    seed_rows(env.engine, {"task1": 6}, ["red"])
    annotators(env, 3)
    assign(env.engine, env.clock, AssignOptions(gold=0, seed=1))
    seed_rows_team = {"task1": 6}
    with env.engine.begin() as db:
        team_id = db.execute(insert(teams).values(name="late", created_at=AT)).inserted_primary_key[0]
        for e in range(seed_rows_team["task1"]):
            db.execute(insert(videos).values(team_id=team_id, task="task1", episode=f"episode_{e}",
                                             original_path="o", video_path="v", last_frame_path="l", playable=True,
                                             reason="", probe_json="{}", created_at=AT))  # fmt: skip
    again = assign(env.engine, env.clock, AssignOptions(gold=0, seed=99))
    assert again.items_added == 6
    by = {(r.team, r.episode): r.annotator for r in assignments(env.engine)}
    assert all(by[("late", f"episode_{e}")] == by[("red", f"episode_{e}")] for e in range(6))


def test_missing_videos_get_no_item_and_reassignment_moves_unscored_items(env: Env) -> None:
    seed_rows(env.engine, {"task1": 4}, ["red", "green"], missing=1)
    annotators(env, 2)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, gold=0, seed=2))
    rows = assignments(env.engine)
    assert len(rows) == 6 and {r.annotator for r in rows} == {"ann0"}
    assert reassign(env.engine, env.clock, "task1", "episode_0", "ann1").moved == 2
    moved = {(r.team, r.annotator) for r in assignments(env.engine) if r.episode == "episode_0"}
    assert moved == {("red", "ann1"), ("green", "ann1")}
    with pytest.raises(NotFoundError):
        reassign(env.engine, env.clock, "task1", "episode_9", "ann1")
    with pytest.raises(ConfigError):
        reassign(env.engine, env.clock, "task1", "episode_0", "ops")


def test_annotators_get_episodes_within_one_of_each_other_and_overlap_primaries_rotate() -> None:
    # 8 tasks x 4 episodes, 3 annotators: dealt round-robin from the same first annotator, one of them once got 16
    # episodes (60 primary items with 4 teams) while the others got 8 (32 and 29)
    tasks = {f"task{t}": [f"episode_{e}" for e in range(4)] for t in range(1, 9)}
    result = plan(tasks, ["ann0", "ann1", "ann2"], AssignOptions(overlap=1), random.Random(7))
    total = Counter(slot.annotator for slots in result.values() for slot in slots.values())
    assert sorted(total.values()) == [10, 11, 11]  # 32 episodes: within one of each other
    for slots in result.values():
        per_task = Counter(slot.annotator for slot in slots.values())
        assert max(per_task.values()) - min(per_task.values()) <= 1 and len(per_task) == 3
    overlap_owner = Counter(slot.annotator for slots in result.values() for slot in slots.values() if slot.overlap)
    assert sorted(overlap_owner.values()) == [2, 3, 3]  # 8 overlap episodes, their primaries rotated


def test_an_episode_the_gt_gains_in_a_mapped_task_is_mapped_too(env: Env) -> None:
    # a GT set restored and ingested again with one more episode: it once never reached the assignment
    seed_rows(env.engine, {"task1": 3}, [])
    annotators(env, 2)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=2, gold=0, seed=4))
    with env.engine.begin() as db:
        db.execute(insert(gt).values(task="task1", episode="episode_3", video_path="gt/x.mp4", last_frame_path="x.png",
                                     playable=True, reason="", probe_json="{}", created_at=AT))  # fmt: skip
    seed_rows(env.engine, {"task1": 4}, ["red"], with_gt=False)
    summary = assign(env.engine, env.clock, AssignOptions(annotators_per_task=2, gold=0, seed=5))
    assert summary.episodes_mapped == 4 and summary.items_added == 4
    load = Counter(r.annotator for r in assignments(env.engine))
    assert sorted(load.values()) == [2, 2]  # the new episode went to the annotator with fewer


def test_a_disabled_annotator_gets_no_work_from_assign_or_reassign(env: Env) -> None:
    """ann1 left: a late team's items for ann1's episodes are withheld and named, and nothing is reassigned to them."""
    from podium.tracks.wmeval.annotate import progress
    from podium.tracks.wmeval.pages import dashboard_body
    from podium.tracks.wmeval.store import set_disabled

    seed_rows(env.engine, {"task1": 4}, ["red"])
    annotators(env, 2)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=2, gold=0, seed=3))
    theirs = sorted(r.episode for r in assignments(env.engine) if r.annotator == "ann1")
    set_disabled(env.engine, env.clock, "ann1", disabled=True)
    stranded = progress(env.engine).disabled_pending
    assert stranded == {"ann1": len(theirs)}  # listed for the operator, who hands them on
    assert "unscored items</h2>" in dashboard_body(progress(env.engine), [], [], [], [])
    with pytest.raises(ConfigError, match="'ann1' is disabled"):
        reassign(env.engine, env.clock, "task1", "episode_0", "ann1")
    seed_rows(env.engine, {"task1": 4}, ["late"], with_gt=False)
    late = assign(env.engine, env.clock, AssignOptions(annotators_per_task=2, gold=0, seed=4))
    assert late.withheld == {"ann1": len(theirs)}
    assert not [r for r in assignments(env.engine) if r.annotator == "ann1" and r.team == "late"]
    reassign(env.engine, env.clock, "task1", theirs[0], "ann0")  # handed on: the next assign gives it out
    again = assign(env.engine, env.clock, AssignOptions(annotators_per_task=2, gold=0, seed=5))
    assert again.items_added == 1 and again.withheld == {"ann1": len(theirs) - 1}


def test_a_late_teams_assign_with_the_first_seed_draws_afresh_and_spreads_its_items(env: Env) -> None:
    """The late team's items go at fresh random places, not where the first run's draws would put them."""
    from podium.tracks.wmeval.assign import run_stream

    assert run_stream(7, 0).random() == random.Random(7).random()  # the first run: the seed's own stream
    assert run_stream(7, 1).random() != run_stream(7, 0).random()
    seed_rows(env.engine, {"task1": 40}, ["red"])
    annotators(env, 1)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, cap=40, gold=0, seed=7))
    seed_rows(env.engine, {"task1": 40}, ["late"], with_gt=False)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, cap=40, gold=0, seed=7))
    rows = assignments(env.engine)  # in queue order
    late = [i for i, r in enumerate(rows) if r.team == "late"]
    assert len(late) == 40 and 20 < sum(late) / len(late) < 60  # spread over the 80 places, not bunched
