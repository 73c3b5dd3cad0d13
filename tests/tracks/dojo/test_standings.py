"""Standings with hand-computed expectations: best submission per user, tie-breaks, season totals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from podium.tracks.dojo.standings import (
    ScoredSubmission,
    problem_rows,
    problem_standings,
    season_rows,
    season_standings,
)

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


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
