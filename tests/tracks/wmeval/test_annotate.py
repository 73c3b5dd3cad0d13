"""Scores from the API and CSV imports: checked, audited, all-or-nothing; items seen only by their annotator."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from podium.core.errors import ConflictError, InputError, NotFoundError
from podium.core.storage.audit import verify_chain
from podium.tracks.wmeval.annotate import (
    cant_judge_pending,
    import_scores,
    item_for,
    item_opened,
    media_file,
    next_key,
    progress,
    queue,
    record_cant_judge,
    record_score,
    resolve,
)
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments
from podium.tracks.wmeval.freeze import freeze, unfreeze
from podium.tracks.wmeval.report import report_html
from podium.tracks.wmeval.schema import scores
from podium.tracks.wmeval.score import collect
from podium.tracks.wmeval.stats import collect_ratings, time_on_item
from podium.tracks.wmeval.store import ACCOUNTS, audit_entries

from .conftest import Env
from .test_assign import annotators, seed_rows


@pytest.fixture
def assigned(env: Env) -> Env:
    seed_rows(env.engine, {"task1": 4}, ["red", "blue"])
    annotators(env, 2)
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=2, gold=1, seed=3))
    return env


def account(env: Env, name: str):  # type: ignore[no-untyped-def]
    with env.engine.connect() as db:
        return ACCOUNTS.by_name(db, name)


def test_scores_are_revised_and_every_change_audited(assigned: Env) -> None:
    ann = account(assigned, "ann0")
    key = queue(assigned.engine, ann.id)[0].key
    assert record_score(assigned.engine, assigned.clock, ann, key, 2, "ok") == 1
    assert record_score(assigned.engine, assigned.clock, ann, key, 3) == 2
    assert record_cant_judge(assigned.engine, assigned.clock, ann, key, "video", "frozen") == 3
    view = item_for(assigned.engine, ann.id, key)
    assert (view.score, view.cant_judge, view.note) == (None, "video", "frozen")
    with assigned.engine.connect() as db:
        entries = audit_entries(db)
    kinds = [e.kind for e in entries if e.kind.startswith("score")]
    assert kinds == ["score_set", "score_changed", "score_changed"]
    assert '"previous":3' in entries[-1].payload
    assert verify_chain(entries).ok
    assert next_key(assigned.engine, ann.id) != key
    for bad in (4, -1, "3", 2.0, True, None):
        with pytest.raises(InputError):
            record_score(assigned.engine, assigned.clock, ann, key, bad)
    with pytest.raises(InputError, match="can't judge must say why"):
        record_cant_judge(assigned.engine, assigned.clock, ann, key, "bored")


def test_cant_judge_waits_for_the_operator_who_resolves_it_broken_or_rescored(assigned: Env) -> None:
    ann, other = account(assigned, "ann0"), account(assigned, "ann1")
    mine = queue(assigned.engine, ann.id)
    primary = {r.item: r for r in assignments(assigned.engine) if r.kind == "primary" and r.annotator == "ann0"}
    first, second = [item.key for item in mine if item.key in primary][:2]
    record_cant_judge(assigned.engine, assigned.clock, ann, first, "reference", "the reference is black")
    record_cant_judge(assigned.engine, assigned.clock, ann, second, "video")
    waiting = {w.item: w for w in cant_judge_pending(assigned.engine)}
    assert set(waiting) == {first, second} and waiting[first].note == "the reference is black"
    assert next_key(assigned.engine, ann.id) not in (first, second)  # answered: the annotator goes on

    def status(key: str) -> str:
        row = primary[key]
        results = collect(assigned.engine).results[row.team][row.task]
        return results[row.episode].status

    assert status(first) == status(second) == "cant_judge"  # pending: 0 until the operator decides
    answered = {r.item: r.answered_at for r in assignments(assigned.engine)}[second]
    assigned.clock.set(assigned.clock.now() + timedelta(hours=5))  # the operator resolves it later
    assert resolve(assigned.engine, assigned.clock, second, broken=True) == f"{second}: broken, counts 0"
    assert status(second) == "broken"
    assert {r.item: r.answered_at for r in assignments(assigned.engine)}[second] == answered  # still the annotator's
    with pytest.raises(InputError):
        resolve(assigned.engine, assigned.clock, first)  # neither --broken nor --rescore
    with pytest.raises(InputError, match="already could not judge"):
        resolve(assigned.engine, assigned.clock, first, rescore_by="ann0")
    resolve(assigned.engine, assigned.clock, first, rescore_by="ann1")
    assert [w.item for w in cant_judge_pending(assigned.engine)] == []
    assert first in [item.key for item in queue(assigned.engine, other.id)] and status(first) == "pending"
    record_score(assigned.engine, assigned.clock, other, first, 2)
    assert status(first) == "scored"
    with pytest.raises(NotFoundError):
        resolve(assigned.engine, assigned.clock, first, broken=True)  # scored now: nothing to resolve
    with assigned.engine.connect() as db:
        resolved = [e.payload for e in audit_entries(db) if e.kind == "cant_judge_resolved"]
    assert len(resolved) == 2 and '"resolution":"rescore"' in resolved[1] and "the reference is black" in resolved[1]
    ratings = collect_ratings(assigned.engine)  # can't-judge answers are no rating
    assert all(score is not None for by in ratings.by_video.values() for score in by.values())


def test_another_annotators_item_is_no_item(assigned: Env) -> None:
    ann0, ann1 = account(assigned, "ann0"), account(assigned, "ann1")
    theirs = queue(assigned.engine, ann1.id)[0].key
    for call in (
        lambda: item_for(assigned.engine, ann0.id, theirs),
        lambda: record_score(assigned.engine, assigned.clock, ann0, theirs, 3),
        lambda: media_file(assigned.engine, assigned.media, ann0.id, theirs, "generated.mp4"),
    ):
        with pytest.raises(NotFoundError, match=f"no item '{theirs}'"):
            call()
    mine = queue(assigned.engine, ann0.id)[0].key
    for name in ("../../etc/passwd", "generated.mp4/../../x", "reference.mp4"):
        with pytest.raises(NotFoundError):  # unknown names, and files that are not there (no media in this test)
            media_file(assigned.engine, assigned.media, ann0.id, mine, name)


def test_a_csv_import_is_applied_whole_or_not_at_all(assigned: Env) -> None:
    rows = assignments(assigned.engine)
    mine = [r for r in rows if r.annotator == "ann0"]
    theirs = next(r for r in rows if r.annotator == "ann1")
    good = "annotator,item,score,note\n" + "".join(f"ann0,{r.item},2,fine\n" for r in mine)
    bad = good + f"ann0,{theirs.item},3,\nann0,{mine[0].item},7,\nann0,nonexistent,1,\n"
    with pytest.raises(InputError) as caught:
        import_scores(assigned.engine, assigned.clock, bad)
    message = caught.value.message
    n = len(mine) + 2
    assert f"line {n}: item '{theirs.item}' is not 'ann0'" in message
    assert f"line {n + 1}: item '{mine[0].item}' appears twice" in message
    assert f"line {n + 2}: item 'nonexistent'" in message
    with assigned.engine.connect() as db:
        assert db.execute(select(scores)).all() == []  # nothing applied
    with pytest.raises(InputError, match="first line"):
        import_scores(assigned.engine, assigned.clock, "who,what\n")
    with pytest.raises(InputError, match="0, 1, 2 or 3"):
        import_scores(assigned.engine, assigned.clock, f"annotator,item,score\nann0,{mine[0].item},x\n")
    assert import_scores(assigned.engine, assigned.clock, good).applied == len(mine)
    done = progress(assigned.engine)
    assert done.annotators["ann0"] == (len(mine), len(mine))
    assert sum(d for d, _ in done.teams.values()) == sum(1 for r in mine if r.kind == "primary")


def test_a_csv_import_never_overwrites_an_answer_silently_and_takes_cant_judge(assigned: Env, tmp_path: Path) -> None:
    mine = [r for r in assignments(assigned.engine) if r.annotator == "ann0"]
    with assigned.engine.connect() as db:
        ann0 = ACCOUNTS.by_name(db, "ann0")
    source = tmp_path / "late.csv"
    first = f"annotator,item,score,note\nann0,{mine[0].item},2,from the page\n"
    assert import_scores(assigned.engine, assigned.clock, first).applied == 1
    changed = f"annotator,item,score\nann0,{mine[0].item},0\n"
    with pytest.raises(InputError) as refused:
        import_scores(assigned.engine, assigned.clock, changed, source=source)
    assert refused.value.describe().startswith(f"{source}: 1 bad row(s), nothing applied: line 2: item")
    assert "is already answered (score 2); --replace to overwrite it" in refused.value.message
    replaced = import_scores(assigned.engine, assigned.clock, changed, source=source, replace=True)
    assert (replaced.applied, replaced.unchanged) == (1, 0)

    superscript = f"annotator,item,score\nann0,{mine[1].item},\u00b3\n"  # "³" passes str.isdigit, not int()
    with pytest.raises(InputError, match=r"line 2: score must be 0, 1, 2 or 3, not '\u00b3'"):
        import_scores(assigned.engine, assigned.clock, superscript, source=source)

    flags = (f"annotator,item,score,cant_judge,note\nann0,{mine[1].item},,video,frozen\n"
             f"ann0,{mine[2].item},1,,\n")  # fmt: skip
    assert import_scores(assigned.engine, assigned.clock, flags).applied == 2
    answers = {q.key: (q.score, q.cant_judge) for q in queue(assigned.engine, ann0.id)}
    assert answers[mine[1].item] == (None, "video") and answers[mine[2].item] == (1, None)
    for bad, says in ((f"ann0,{mine[3].item},2,video,\n", "a score or cant_judge, not both"),
                      (f"ann0,{mine[3].item},,lost,\n", "cant_judge must be one of")):  # fmt: skip
        with pytest.raises(InputError, match=says):
            import_scores(assigned.engine, assigned.clock, "annotator,item,score,cant_judge,note\n" + bad)
    with pytest.raises(InputError, match="the first line is annotator,item,score,flag"):
        import_scores(assigned.engine, assigned.clock, "annotator,item,score,flag\n", source=source)


def test_a_frozen_competition_stores_no_answer_until_reopened(assigned: Env) -> None:
    ann = account(assigned, "ann0")
    first, second = (q.key for q in queue(assigned.engine, ann.id)[:2])
    record_score(assigned.engine, assigned.clock, ann, first, 2)
    record_cant_judge(assigned.engine, assigned.clock, ann, second, "video")
    since = freeze(assigned.engine, assigned.clock)
    assert freeze(assigned.engine, assigned.clock) == since  # freezing twice keeps the first time
    before = collect(assigned.engine)
    for change in (
        lambda: record_score(assigned.engine, assigned.clock, ann, first, 0),
        lambda: record_cant_judge(assigned.engine, assigned.clock, ann, first, "other"),
        lambda: import_scores(assigned.engine, assigned.clock, f"annotator,item,score\nann0,{first},1\n", replace=True),
        lambda: resolve(assigned.engine, assigned.clock, second, broken=True),
    ):
        with pytest.raises(ConflictError, match=re.escape(f"scoring is frozen since {since}")):
            change()
    assert collect(assigned.engine) == before
    assert unfreeze(assigned.engine, assigned.clock) and not unfreeze(assigned.engine, assigned.clock)
    assert record_score(assigned.engine, assigned.clock, ann, first, 0) == 2
    with assigned.engine.connect() as db:
        kinds = [e.kind for e in audit_entries(db) if e.kind.startswith("scoring")]
    assert kinds == ["scoring_frozen", "scoring_unfrozen"]


def test_the_report_shows_each_task_fraction_with_its_counts_and_whether_scoring_is_open(assigned: Env) -> None:
    for name in ("ann0", "ann1"):
        who = account(assigned, name)
        for row in assignments(assigned.engine):
            if row.annotator == name and row.kind == "primary":
                score = 3 if row.team == "red" else (0 if row.episode.endswith(("0", "1")) else 2)
                record_score(assigned.engine, assigned.clock, who, row.item, score)
    page = report_html(assigned.engine)
    assert "<td>3.000 (N0-N3 0/0/0/4 of 4)</td>" in page  # red: four 3s
    assert "<td>1.000 (N0-N3 2/0/2/0 of 4)</td>" in page  # blue: two 0s and two 2s
    assert "Scoring is open: these numbers can still change" in page
    freeze(assigned.engine, assigned.clock)
    assert "Scoring frozen since 2026-" in report_html(assigned.engine)


def test_time_on_item_runs_from_the_first_opening_to_the_first_answer(assigned: Env) -> None:
    ann = account(assigned, "ann0")
    first, second = (q.key for q in queue(assigned.engine, ann.id)[:2])
    start = assigned.clock.now()

    def at(seconds: int) -> None:
        assigned.clock.set(start + timedelta(seconds=seconds))

    item_opened(assigned.engine, assigned.clock, ann, first)
    at(30)
    item_opened(assigned.engine, assigned.clock, ann, first)  # opened again: the first opening counts
    at(40)
    record_score(assigned.engine, assigned.clock, ann, first, 2)
    at(100)
    record_score(assigned.engine, assigned.clock, ann, first, 3)  # a change later is not time on the item
    item_opened(assigned.engine, assigned.clock, ann, second)
    at(120)
    record_cant_judge(assigned.engine, assigned.clock, ann, second, "video")
    assert time_on_item(assigned.engine) == {"ann0": (2, 30.0)}  # 40 s and 20 s
    assert "<td>30 s (2 items)</td>" in report_html(assigned.engine)
    with pytest.raises(NotFoundError):  # someone else's item is not theirs to open
        item_opened(assigned.engine, assigned.clock, account(assigned, "ann1"), first)
