"""A leaver's whole queue handed on: primary, overlap and gold items, within the rubric, never silently short."""

from __future__ import annotations

from collections import defaultdict

import pytest
from sqlalchemy import select

from podium.core.errors import ConflictError
from podium.tracks.wmeval.annotate import queue, record_score
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments
from podium.tracks.wmeval.handover import handover
from podium.tracks.wmeval.schema import episode_map
from podium.tracks.wmeval.store import ACCOUNTS, set_disabled

from .conftest import Env
from .test_assign import annotators, seed_gold, seed_rows


def held_twice(env: Env) -> list[tuple[str, str, str, str]]:
    seen: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    twice = []
    for r in assignments(env.engine):
        video = (r.team, r.task, r.episode)
        if r.annotator in seen[video]:
            twice.append((r.annotator, *video))
        seen[video].add(r.annotator)
    return twice


def test_a_leavers_unscored_items_all_go_to_others_within_the_rubric(env: Env) -> None:
    seed_rows(env.engine, {"task1": 4, "task2": 4}, ["red", "blue"])
    seed_gold(env.engine, {"task1": 4, "task2": 4})
    annotators(env, 4)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=3, overlap=1, gold=1, seed=5))
    with env.engine.connect() as db:
        leaver = ACCOUNTS.by_name(db, "ann1")
    mine = queue(env.engine, leaver.id)
    kinds = {r.item: r.kind for r in assignments(env.engine)}
    assert {kinds[i.key] for i in mine} >= {"primary", "gold"}
    scored = mine[0].key
    record_score(env.engine, env.clock, leaver, scored, 2)
    set_disabled(env.engine, env.clock, "ann1", disabled=True)

    done = handover(env.engine, env.clock, "ann1", ["ann3"])
    rows = {r.item: r for r in assignments(env.engine)}
    assert sum(done.moved.values()) == len(mine) - 1 and done.stayed == ()
    assert [k for k, r in rows.items() if r.annotator == "ann1"] == [scored]  # a scored item never moves
    assert held_twice(env) == []  # nobody holds one video twice
    for task in ("task1", "task2"):  # each task still has the rubric's three annotators, a newcomer if need be
        assert len({r.annotator for r in rows.values() if r.task == task and r.annotator != "ann1"}) >= 3
    with env.engine.connect() as db:
        mapped = set(db.execute(select(episode_map.c.annotator_id)).scalars())
    assert leaver.id not in mapped  # a late team's items follow the receivers
    assert done.moved.get("ann3", 0) > 0  # the preferred receiver got work


def test_a_handover_that_cannot_keep_the_rules_refuses_or_moves_what_it_can(env: Env) -> None:
    seed_rows(env.engine, {"task1": 3}, ["red"])
    annotators(env, 3)  # three annotators, every episode an overlap one: nobody can take ann2's copies
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=3, overlap=3, gold=0, seed=1))
    with pytest.raises(ConflictError, match="cannot go anywhere") as refused:
        handover(env.engine, env.clock, "ann2")
    assert refused.value.fix is not None and "--allow-fewer" in refused.value.fix
    before = {r.item: r.annotator for r in assignments(env.engine)}
    partial = handover(env.engine, env.clock, "ann2", allow_fewer=True)
    assert partial.stayed and all("holds this video already" in line for line in partial.stayed)
    after = {r.item: r.annotator for r in assignments(env.engine)}
    assert sum(1 for k in after if after[k] != before[k]) == sum(partial.moved.values())  # exactly what it said
    assert held_twice(env) == []
