"""Scoring with hand-computed expectations: brevity, diversity window/dedup/cap, tie-breaks, seasons."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from podium.tracks.dojo.bonus import (
    UNSPECIFIED,
    DiversityEntry,
    brevity_bonus,
    diversity_bonuses,
    method_tag,
    problem_score,
    tag_distribution,
)
from podium.tracks.dojo.gate import gate
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.standings import (
    ScoredSubmission,
    problem_rows,
    problem_standings,
    season_rows,
    season_standings,
)

RULES = ScoringRules()
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    # 800 ln 2 = 554.5 is where the bonus crosses 100
    ("length", "bonus"),
    [(0, 200), (1, 199), (554, 100), (555, 99), (800, 73), (2000, 16), (4238, 1), (4239, 0)],
)
def test_brevity_reference_values(length: int, bonus: int) -> None:
    assert brevity_bonus(length, RULES) == bonus


def test_brevity_is_never_negative_and_never_grows_with_length() -> None:
    values = [brevity_bonus(n, RULES) for n in range(0, 6000)]
    assert values[0] == 200 and min(values) == 0
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))
    assert values.index(0) == 4239


def test_problem_score_by_gate() -> None:
    assert problem_score(stage_pass=False, reward_correct=False, length=10, diversity=0, rules=RULES) == 0
    assert problem_score(stage_pass=True, reward_correct=False, length=10, diversity=50, rules=RULES) == 200
    assert problem_score(stage_pass=True, reward_correct=True, length=554, diversity=50, rules=RULES) == 1150


def test_gates_count_leading_terms() -> None:
    truth = [str(i * i) for i in range(200)]
    assert gate(truth, truth, RULES).reward_correct
    assert gate(truth[:100], truth, RULES) == gate(truth[:100], truth, RULES)
    stage_only = gate(truth[:100] + ["x"] * 100, truth, RULES)
    assert stage_only.stage_pass and not stage_only.reward_correct and stage_only.matching_prefix == 100
    assert not gate(truth[:99], truth, RULES).stage_pass
    assert gate(truth[:150], truth, RULES).stage_pass  # fewer terms are judged on what was printed
    wrong_first = gate(["1"] + truth[1:], truth, RULES)
    assert not wrong_first.stage_pass and wrong_first.matching_prefix == 0
    assert gate(truth + ["junk"], truth, RULES).reward_correct  # terms past n_check are never compared


@pytest.mark.parametrize(
    ("value", "tag"),
    [
        ("closed_form", "closed_form"),
        (None, UNSPECIFIED),
        (7, UNSPECIFIED),
        ("", UNSPECIFIED),
        ("   ", UNSPECIFIED),
        ("x" * 64, "x" * 64),
        ("x" * 65, UNSPECIFIED),
    ],
)
def test_method_tags(value: object, tag: str) -> None:
    assert method_tag(value, RULES) == tag


def entry(sid: int, user: int, tag: str, minutes: int, *, correct: bool = True, sha: str = "") -> DiversityEntry:
    return DiversityEntry(sid, user, tag, T0 + timedelta(minutes=minutes), sha or f"{sid:064x}", correct)


def test_one_tag_gets_only_the_first_bonus() -> None:
    entries = [entry(1, 1, "closed_form", 0), entry(2, 2, "closed_form", 5)]
    assert diversity_bonuses(entries, RULES, None) == {1: 30, 2: 0}


def test_two_tags_share_twenty_and_the_cap_is_fifty() -> None:
    entries = [
        entry(1, 1, "closed_form", 0),  # first of its tag: 30 + 20 shared = 50
        entry(2, 2, "linear_recurrence", 1),  # first of its tag: 30 + 20 = 50
        entry(3, 3, "closed_form", 2),  # shared only: 20
        entry(4, 4, "closed_form", 3, correct=False),  # not Reward Correct: nothing
    ]
    assert diversity_bonuses(entries, RULES, None) == {1: 50, 2: 50, 3: 20, 4: 0}


def test_cap_binds_when_the_parameters_exceed_it() -> None:
    generous = ScoringRules(diversity_first_tag_bonus=40)
    entries = [entry(1, 1, "a", 0), entry(2, 2, "b", 1)]
    assert diversity_bonuses(entries, generous, None) == {1: 50, 2: 50}  # 40 + 20 capped at 50


def test_window_ends_at_the_freeze() -> None:
    freeze = T0 + timedelta(minutes=10)
    entries = [entry(1, 1, "a", 0), entry(2, 2, "b", 10), entry(3, 3, "c", 11)]
    # 3 came after the freeze: its tag does not count, and it gets nothing
    assert diversity_bonuses(entries, RULES, freeze) == {1: 50, 2: 50, 3: 0}
    assert diversity_bonuses(entries, RULES, T0 + timedelta(minutes=5)) == {1: 30, 2: 0, 3: 0}


def test_dedup_keeps_the_earliest_per_user_and_tag() -> None:
    # user 1 submits tag "a" twice; the earliest (id 5, at minute 0) is the one that can be first of its tag.
    entries = [entry(4, 1, "a", 3), entry(5, 1, "a", 0), entry(6, 2, "a", 1)]
    assert diversity_bonuses(entries, RULES, None) == {4: 0, 5: 30, 6: 0}


def test_dedup_ties_break_on_hash_then_id() -> None:
    same_time = [entry(2, 1, "a", 0, sha="b" * 64), entry(1, 2, "a", 0, sha="a" * 64)]
    assert diversity_bonuses(same_time, RULES, None) == {1: 30, 2: 0}  # smaller hash first
    same_hash = [entry(9, 1, "a", 0, sha="c" * 64), entry(8, 2, "a", 0, sha="c" * 64)]
    assert diversity_bonuses(same_hash, RULES, None) == {8: 30, 9: 0}  # then the smaller id


def test_spam_of_one_user_cannot_make_a_second_tag_count_twice() -> None:
    entries = [entry(1, 1, "a", 0), *(entry(10 + i, 2, "b", 1 + i) for i in range(5))]
    bonuses = diversity_bonuses(entries, RULES, None)
    assert bonuses[1] == 50 and bonuses[10] == 50  # first of "b"
    assert all(bonuses[10 + i] == 20 for i in range(1, 5))  # later copies: only the shared bonus


def test_unspecified_is_a_tag_of_its_own_and_diversity_can_be_disabled() -> None:
    entries = [entry(1, 1, UNSPECIFIED, 0), entry(2, 2, "closed_form", 1)]
    assert diversity_bonuses(entries, RULES, None) == {1: 50, 2: 50}
    assert diversity_bonuses(entries, ScoringRules(diversity_enabled=False), None) == {1: 0, 2: 0}
    assert tag_distribution(["closed_form", UNSPECIFIED, "closed_form"]) == {"closed_form": 2, UNSPECIFIED: 1}


def scored(
    sid: int, user: str, score: int, length: int, minutes: int = 0, *, problem: str = "p1", sha: str = ""
) -> ScoredSubmission:
    return ScoredSubmission(
        sid,
        user,
        problem,
        score,
        length,
        T0 + timedelta(minutes=minutes),
        sha or f"{sid:064x}",
        score >= 200,
        score >= 1000,
    )


def test_one_row_per_user_with_their_best_submission() -> None:
    rows = problem_standings([scored(1, "ann", 1100, 300), scored(2, "ann", 1150, 100), scored(3, "bob", 200, 50)])
    assert [(r.rank, r.entry.user, r.entry.submission_id) for r in rows] == [(1, "ann", 2), (2, "bob", 3)]


def test_best_submission_of_a_user_follows_the_tie_breaks() -> None:
    rows = problem_standings(
        [scored(1, "ann", 1100, 300, 5), scored(2, "ann", 1100, 200, 9), scored(3, "ann", 1100, 200, 1)]
    )
    assert rows[0].entry.submission_id == 3  # same score: shorter, then earlier


def test_problem_tie_breaks_shorter_then_earlier_then_hash() -> None:
    rows = problem_standings(
        [
            scored(1, "ann", 1100, 300, 0),
            scored(2, "bob", 1100, 250, 9),  # shorter wins
            scored(3, "cat", 1100, 300, 0, sha="0" * 64),  # same L and time as ann: smaller hash wins
            scored(4, "dan", 1100, 300, 3),  # later
        ]
    )
    assert [(r.rank, r.entry.user, r.decided_by) for r in rows] == [
        (1, "bob", "shorter"),
        (2, "cat", "solver_hash"),
        (3, "ann", "solver_hash"),
        (4, "dan", "earlier"),
    ]
    assert problem_rows(rows)[0] == [1, "bob", 1100, 250, "yes", "yes", 2, "2026-11-01T12:09:00.000000+00:00"]


def test_season_totals_counts_and_median() -> None:
    submissions = [
        scored(1, "ann", 1150, 100, problem="p1"),
        scored(2, "ann", 1100, 300, problem="p2"),
        scored(3, "ann", 200, 50, problem="p3"),
        scored(4, "bob", 1180, 40, problem="p1"),
        scored(5, "bob", 1170, 60, problem="p2"),
        scored(6, "bob", 0, 10, problem="p3"),
        scored(7, "bob", 1160, 80, problem="p3"),  # bob's best on p3
        scored(8, "cat", 0, 10, problem="p1"),
    ]
    rows = season_standings(submissions)
    assert season_rows(rows) == [
        [1, "bob", 3510, 3, 3, 60, 3],
        [2, "ann", 2450, 3, 2, 200, 3],
        [3, "cat", 0, 0, 0, None, 1],
    ]


def test_equal_season_totals_share_a_rank() -> None:
    rows = season_standings([scored(1, "ann", 1100, 10), scored(2, "bob", 1100, 20)])
    assert [r.rank for r in rows] == [1, 1]
