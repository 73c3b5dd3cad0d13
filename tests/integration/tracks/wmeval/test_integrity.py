"""Scores are facts: no organiser move changes one, on SQLite and on a real PostgreSQL.

A whole competition (8 tasks x 4 episodes, 4 teams, 3 annotators, overlap and gold) is scored in full, then driven
through what organisers really run: ``reassign`` (an annotator leaves), ``assign`` again, a late team and its
``assign``, a re-import of every score from CSV. Before, ``reassign`` remapped a fully scored episode and the next
``assign`` gave its already scored videos a second, unscored primary item, which ``scores`` took instead: one team
fell from 13/8 to 23/16 with "2 pending" and another became first.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, select

from podium.core.clock import ManualClock
from podium.core.storage.sql import sqlite_url
from podium.tracks.wmeval.annotate import import_scores, record_score
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments, reassign
from podium.tracks.wmeval.schema import items, scores
from podium.tracks.wmeval.score import collect, leaderboard
from podium.tracks.wmeval.store import ACCOUNTS, add_account, open_store
from tests.databases import new_postgres_database
from tests.tracks.dojo.conftest import postgres_url  # noqa: F401  the dojo's real PostgreSQL server, reused
from tests.tracks.wmeval.test_assign import seed_rows

TASKS = {f"task{t}": 4 for t in range(1, 9)}
TEAMS = ["amber", "blue", "coral", "dune"]


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    if request.param == "sqlite":
        yield open_store(sqlite_url(tmp_path_factory.mktemp("wm") / "wm.sqlite3"))
        return
    yield open_store(new_postgres_database(str(request.getfixturevalue("postgres_url")), "wmeval_integrity"))


def roster(engine: Engine, clock: ManualClock, count: int) -> None:
    for index in range(count):
        add_account(engine, clock, f"ann{index}", "annotator")


def value_of(team: str, task: str, episode: str, kind: str) -> int:
    """A deterministic score, different across teams, tasks and episodes."""
    return (len(team) * 7 + int(task.removeprefix("task")) * 3 + int(episode.removeprefix("episode_")) + len(kind)) % 4


def score_everything(engine: Engine, clock: ManualClock) -> None:
    with engine.connect() as db:
        accounts = {name: ACCOUNTS.by_name(db, name) for name in ("ann0", "ann1", "ann2")}
    for row in assignments(engine):
        if row.score is None:
            record_score(
                engine, clock, accounts[row.annotator], row.item, value_of(row.team, row.task, row.episode, row.kind)
            )


def facts(engine: Engine) -> dict[str, tuple[int, str]]:
    """Every item's score and who gave it."""
    return {r.item: (r.score, r.annotator) for r in assignments(engine) if r.score is not None}


def board(engine: Engine) -> dict[str, object]:
    return {row.entry.team: (row.rank, row.entry.final) for row in leaderboard(collect(engine))}


def test_no_organiser_move_changes_a_score(engine: Engine) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))

    seed_rows(engine, TASKS, TEAMS)
    roster(engine, clock, 3)
    assign(engine, clock, AssignOptions(annotators_per_task=3, cap=10, overlap=1, gold=1, seed=11))
    score_everything(engine, clock)
    before, ranking = facts(engine), board(engine)
    assert all(
        task.statuses["pending"] == 0 for row in leaderboard(collect(engine)) for task in row.entry.tasks.values()
    )

    holder = next(
        r.annotator for r in assignments(engine) if (r.task, r.episode, r.kind) == ("task2", "episode_2", "primary")
    )
    other = next(name for name in ("ann0", "ann1", "ann2") if name != holder)
    moved = reassign(engine, clock, "task2", "episode_2", other)
    assert moved.moved == 0 and moved.kept_scored == {holder: len(TEAMS)}  # scored items stay with their scorer
    assert assign(engine, clock, AssignOptions(overlap=1, gold=1, seed=12)).items_added == 0  # idempotent
    assert facts(engine) == before and board(engine) == ranking

    seed_rows(engine, TASKS, ["late"], with_gt=False)  # a late team arrives
    added = assign(engine, clock, AssignOptions(overlap=1, gold=1, seed=13)).items_added
    late = [r for r in assignments(engine) if r.team == "late"]
    assert added == len(late) and {r.kind for r in late} <= {"primary", "overlap"}
    primaries = [r for r in assignments(engine) if r.kind == "primary"]
    per_video = {(r.team, r.task, r.episode) for r in primaries}
    assert len(per_video) == len(primaries) == 5 * 8 * 4  # exactly one primary item per video, late team included
    assert facts(engine) == before
    assert {team: ranking[team] for team in TEAMS} == {team: board(engine)[team] for team in TEAMS}

    lines = ["annotator,item,score,note"] + [f"{who},{key},{score}," for key, (score, who) in before.items()]
    again = import_scores(engine, clock, "\n".join(lines) + "\n")  # a re-import of the same scores changes nothing
    assert (again.applied, again.unchanged) == (0, len(before))
    assert facts(engine) == before
    assert {team: ranking[team] for team in TEAMS} == {team: board(engine)[team] for team in TEAMS}


def test_reassign_hands_over_what_is_left_and_keeps_what_is_scored(engine: Engine) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))

    seed_rows(engine, {"task1": 4}, TEAMS)
    roster(engine, clock, 2)
    assign(engine, clock, AssignOptions(annotators_per_task=2, gold=0, seed=3))
    episode = [r for r in assignments(engine) if r.episode == "episode_1"]
    holder = episode[0].annotator
    with engine.connect() as db:
        account = ACCOUNTS.by_name(db, holder)
    for row in episode[:2]:  # the holder scored two teams' videos of the episode, then left
        record_score(engine, clock, account, row.item, 2)
    other = "ann1" if holder == "ann0" else "ann0"
    done = reassign(engine, clock, "task1", "episode_1", other)
    assert (done.moved, done.kept_scored) == (2, {holder: 2})
    after = {(r.team, r.annotator, r.score) for r in assignments(engine) if r.episode == "episode_1"}
    assert after == {(episode[0].team, holder, 2), (episode[1].team, holder, 2),
                     (episode[2].team, other, None), (episode[3].team, other, None)}  # fmt: skip
    with engine.connect() as db:
        assert len(db.execute(select(scores)).all()) == 2


def test_a_late_teams_items_are_shuffled_into_what_is_left_not_appended(engine: Engine) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))

    seed_rows(engine, {"task1": 10, "task2": 10}, ["amber", "blue"])
    roster(engine, clock, 1)
    assign(engine, clock, AssignOptions(annotators_per_task=1, gold=0, seed=5))
    seed_rows(engine, {"task1": 10, "task2": 10}, ["late"], with_gt=False)
    assign(engine, clock, AssignOptions(annotators_per_task=1, gold=0, seed=6))
    order = [r.team for r in assignments(engine)]
    assert len(order) == 60 and order[-20:] != ["late"] * 20
    tail_late = len(order) - max(i for i, team in enumerate(order) if team != "late") - 1
    assert tail_late < 10, order  # not a block at the end that would mark them as one late team's
    with engine.connect() as db:
        positions = [r.position for r in db.execute(select(items.c.position).order_by(items.c.position))]
    assert positions == list(range(60))


def test_a_leaver_is_disabled_handed_over_and_a_late_team_follows_the_receivers(engine: Engine) -> None:
    """The organiser sequence around a leaver: score, disable, handover, a late team, assign; no score moves."""
    from podium.tracks.wmeval.handover import handover
    from podium.tracks.wmeval.store import set_disabled

    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    seed_rows(engine, {"task1": 4, "task2": 4}, TEAMS[:2])
    roster(engine, clock, 4)
    assign(engine, clock, AssignOptions(annotators_per_task=3, cap=10, overlap=1, gold=0, seed=21))
    with engine.connect() as db:
        leaver = ACCOUNTS.by_name(db, "ann1")
    theirs = [r for r in assignments(engine) if r.annotator == "ann1"]
    for row in theirs[:2]:
        record_score(engine, clock, leaver, row.item, 3)
    before, ranking = facts(engine), board(engine)
    set_disabled(engine, clock, "ann1", disabled=True)
    done = handover(engine, clock, "ann1", ["ann3"])
    assert sum(done.moved.values()) == len(theirs) - 2 and done.stayed == ()
    assert facts(engine) == before and board(engine) == ranking  # scored items stayed with their scorer
    seed_rows(engine, {"task1": 4, "task2": 4}, ["late"], with_gt=False)
    late = assign(engine, clock, AssignOptions(annotators_per_task=3, cap=10, overlap=1, gold=0, seed=22))
    assert late.withheld == {} and late.items_added > 0  # nothing left mapped to the leaver
    assert not [r for r in assignments(engine) if r.annotator == "ann1" and r.team == "late"]
    primaries = [r for r in assignments(engine) if r.kind == "primary"]
    assert len({(r.team, r.task, r.episode) for r in primaries}) == len(primaries) == 3 * 8


def test_one_video_is_replaced_and_every_other_answer_stays_on_both_databases(
    engine: Engine, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from tests.tracks.wmeval.conftest import Env
    from tests.tracks.wmeval.test_ingest import (
        test_a_replacement_changes_only_the_videos_that_changed_and_keeps_every_other_answer as replacement,
    )

    tmp = tmp_path_factory.mktemp("wm-replace")
    replacement(Env(engine, tmp / "media", ManualClock(datetime(2026, 6, 1, tzinfo=UTC)), tmp))
