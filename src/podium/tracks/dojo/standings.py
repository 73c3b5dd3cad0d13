"""Leaderboards: per problem (one row per user) and per season (docs/rules/dojo-scoring.md §5.3 and §7).

Per problem, a user's row is their best submission by (score desc, L asc, created_at asc, solver_hash asc); users
are ranked by the same order, and users equal on all of it share a rank. Per season, a user's score is the sum of
their per-problem scores; the table also reports their Stage Pass and Reward Correct counts and the median L of
their Reward Correct solutions. The scoring rules give no tie-break across a season, so equal totals share a rank.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from podium.core.clock import utc_text
from podium.core.ranking.leaderboard import Ranked, TieBreak, rank_entries
from podium.core.reporting.tables import Cell, render_table


@dataclass(frozen=True, slots=True)
class ScoredSubmission:
    """One counted submission with its final score on its problem (diversity included)."""

    submission_id: int
    user: str
    problem: str
    score: int
    length: int
    created_at: datetime
    solver_hash: str
    stage_pass: bool
    reward_correct: bool


def _best_key(entry: ScoredSubmission) -> tuple[int, int, str, str]:
    return (-entry.score, entry.length, utc_text(entry.created_at), entry.solver_hash)


PROBLEM_TIE_BREAKS: tuple[TieBreak[ScoredSubmission], ...] = (
    TieBreak("shorter", lambda e: e.length),
    TieBreak("earlier", lambda e: utc_text(e.created_at)),
    TieBreak("solver_hash", lambda e: e.solver_hash),
)
PROBLEM_HEADER = ("rank", "user", "score", "L", "stage_pass", "reward_correct", "submission", "submitted_at")


def best_per_user(submissions: Iterable[ScoredSubmission]) -> list[ScoredSubmission]:
    """Each user's best submission, in user order."""
    best: dict[str, ScoredSubmission] = {}
    for entry in submissions:
        current = best.get(entry.user)
        if current is None or _best_key(entry) < _best_key(current):
            best[entry.user] = entry
    return [best[user] for user in sorted(best)]


def problem_standings(submissions: Iterable[ScoredSubmission]) -> list[Ranked[ScoredSubmission]]:
    """The per-problem leaderboard: one ranked row per user."""
    return rank_entries(best_per_user(submissions), lambda e: e.score, tie_breaks=PROBLEM_TIE_BREAKS)


def problem_rows(standings: Sequence[Ranked[ScoredSubmission]]) -> list[list[Cell]]:
    """Rows under ``PROBLEM_HEADER``."""
    return [
        [
            row.rank,
            row.entry.user,
            row.entry.score,
            row.entry.length,
            "yes" if row.entry.stage_pass else "no",
            "yes" if row.entry.reward_correct else "no",
            row.entry.submission_id,
            utc_text(row.entry.created_at),
        ]
        for row in standings
    ]


def problem_csv(standings: Sequence[Ranked[ScoredSubmission]]) -> str:
    """The per-problem leaderboard as the CSV that reveal publishes and its checks compare."""
    return render_table(PROBLEM_HEADER, problem_rows(standings), "csv")


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """One user's season: total score and the extra figures of docs/rules/dojo-scoring.md §7."""

    user: str
    score: int
    stage_pass: int
    reward_correct: int
    median_length: float | None  # over the user's Reward Correct solutions; None without one
    problems: int


SEASON_HEADER = ("rank", "user", "score", "stage_pass", "reward_correct", "median_L", "problems")


def season_standings(submissions: Iterable[ScoredSubmission]) -> list[Ranked[SeasonRow]]:
    """The season leaderboard from every counted submission of every problem."""
    by_problem: dict[str, list[ScoredSubmission]] = {}
    for entry in submissions:
        by_problem.setdefault(entry.problem, []).append(entry)
    rows_of: dict[str, list[ScoredSubmission]] = {}
    for problem in sorted(by_problem):
        for best in best_per_user(by_problem[problem]):
            rows_of.setdefault(best.user, []).append(best)
    rows = [
        SeasonRow(
            user=user,
            score=sum(e.score for e in bests),
            stage_pass=sum(e.stage_pass for e in bests),
            reward_correct=sum(e.reward_correct for e in bests),
            median_length=_median([e.length for e in bests if e.reward_correct]),
            problems=len(bests),
        )
        for user, bests in sorted(rows_of.items())
    ]
    return rank_entries(rows, lambda r: r.score)


def _median(values: list[int]) -> float | None:
    return float(statistics.median(values)) if values else None


def problem_records(standings: Sequence[Ranked[ScoredSubmission]]) -> list[dict[str, Any]]:
    """The per-problem leaderboard as JSON objects keyed by ``PROBLEM_HEADER``, with JSON's own types.

    The tables say ``yes``/``no`` for people; a program reading the API gets booleans and numbers.
    """
    return [
        {
            "rank": row.rank,
            "user": row.entry.user,
            "score": row.entry.score,
            "L": row.entry.length,
            "stage_pass": row.entry.stage_pass,
            "reward_correct": row.entry.reward_correct,
            "submission": row.entry.submission_id,
            "submitted_at": utc_text(row.entry.created_at),
        }
        for row in standings
    ]


def season_rows(standings: Sequence[Ranked[SeasonRow]]) -> list[list[Cell]]:
    """Rows under ``SEASON_HEADER``."""
    return [
        [
            row.rank,
            row.entry.user,
            row.entry.score,
            row.entry.stage_pass,
            row.entry.reward_correct,
            _number(row.entry.median_length),
            row.entry.problems,
        ]
        for row in standings
    ]


def season_records(standings: Sequence[Ranked[SeasonRow]]) -> list[dict[str, Any]]:
    """The season leaderboard as JSON objects keyed by ``SEASON_HEADER``: counts and ``median_L`` are numbers.

    ``median_L`` is an integer where the median is whole (60), a float where it falls between two lengths
    (60.5), and null for a user without a Reward Correct solution.
    """
    return [
        {
            "rank": row.rank,
            "user": row.entry.user,
            "score": row.entry.score,
            "stage_pass": row.entry.stage_pass,
            "reward_correct": row.entry.reward_correct,
            "median_L": _number(row.entry.median_length),
            "problems": row.entry.problems,
        }
        for row in standings
    ]


def _number(value: float | None) -> int | float | None:
    return int(value) if value is not None and value.is_integer() else value
