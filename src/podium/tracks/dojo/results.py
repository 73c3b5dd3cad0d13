"""Scores and leaderboards: a revealed problem's as published, any other computed from the database.

A revealed problem's board is the record its ``revealed`` entry holds, as amended since (``published.py``): it is
never recomputed from rows, which can be edited. Before reveal (an operator's preview, the checks of replay and
``verify-audit``) a board is computed from judged, counted submissions with their diversity bonus. Practice
submissions (after the freeze, or on a closed problem) are judged but never counted. The diversity window is the
problem's ``freeze_started_at`` (every counted submission while it is still open).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from podium.core.clock import parse_utc
from podium.core.ranking.leaderboard import Ranked
from podium.core.reporting.tables import console_json, render_table
from podium.tracks.dojo.bonus import DiversityEntry, diversity_bonuses, problem_score, tag_distribution
from podium.tracks.dojo.lifecycle import REVEALED_STATES
from podium.tracks.dojo.published import BoardVersion, standings_of
from podium.tracks.dojo.records import JobStatus, Problem, Season, Submission
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.screen import literal_payload
from podium.tracks.dojo.standings import (
    PROBLEM_HEADER,
    SEASON_HEADER,
    ScoredSubmission,
    SeasonRow,
    problem_csv,
    problem_records,
    problem_rows,
    problem_standings,
    season_records,
    season_rows,
    season_standings,
)


class _Users(Protocol):
    def disabled_ids(self) -> frozenset[int]: ...


class ScoringSource(Protocol):
    """What scoring reads of the platform (``platform.Dojo`` is one).

    A protocol, so that the platform, which calls these functions at reveal, and this module do not import each
    other.
    """

    @property
    def users(self) -> _Users: ...

    def season(self, name: str) -> Season: ...

    def season_of(self, problem: Problem) -> Season: ...

    def problems(self, season: str | None = None) -> list[Problem]: ...

    def user_names(self) -> dict[int, str]: ...

    def submissions(self, problem_id: int | None = None, user_id: int | None = None) -> list[Submission]: ...

    def submissions_by_problem(self, problem_ids: Iterable[int]) -> dict[int, list[Submission]]: ...

    def board_versions(self, problem: Problem) -> list[BoardVersion]: ...

    def published_boards(self, problems: Iterable[Problem]) -> dict[int, list[BoardVersion]]: ...


def counted(submission: Submission) -> bool:
    """Whether a submission takes part in scoring: judged, not practice, with the length the judge measured.

    Only a source never admitted (stored before migration 0003, judged ``POLICY_REJECT``) lacks a length.
    """
    return not submission.practice and submission.status is JobStatus.JUDGED and submission.length is not None


def score_submissions(
    problem: Problem,
    judged: list[Submission],
    names: dict[int, str],
    rules: ScoringRules,
    excluded: frozenset[int] = frozenset(),
) -> list[ScoredSubmission]:
    """Final scores of a problem's counted submissions, diversity included.

    ``excluded`` users' submissions are left out: a disabled user leaves every leaderboard computed after it.
    """
    window_end = parse_utc(problem.freeze_started_at) if problem.freeze_started_at else None
    entries = [(s, s.length) for s in judged if counted(s) and s.length is not None and s.user_id not in excluded]
    bonuses = diversity_bonuses(
        (
            DiversityEntry(
                s.id, s.user_id, s.counted_tag, parse_utc(s.created_at), s.solver_hash or "", bool(s.reward_correct)
            )
            for s, _ in entries
        ),
        rules,
        window_end,
    )
    return [
        ScoredSubmission(
            submission_id=s.id,
            user=names[s.user_id],
            problem=problem.slug,
            score=problem_score(
                stage_pass=bool(s.stage_pass),
                reward_correct=bool(s.reward_correct),
                length=length,
                diversity=bonuses[s.id],
                rules=rules,
            ),
            length=length,
            created_at=parse_utc(s.created_at),
            solver_hash=s.solver_hash or hashlib.sha256(s.source).hexdigest(),
            stage_pass=bool(s.stage_pass),
            reward_correct=bool(s.reward_correct),
        )
        for s, length in entries
    ]


def problem_scores(
    dojo: ScoringSource, problem: Problem, excluded: frozenset[int] | None = None
) -> list[ScoredSubmission]:
    """A problem's counted submissions, scored from the rows.

    ``excluded``: the users whose submissions are left out (default: those disabled now).
    """
    rules = dojo.season_of(problem).rules
    left_out = dojo.users.disabled_ids() if excluded is None else excluded
    return score_submissions(problem, dojo.submissions(problem.id), dojo.user_names(), rules, left_out)


def published_scores(dojo: ScoringSource, problems: Sequence[Problem]) -> dict[int, list[ScoredSubmission]]:
    """The revealed ones of ``problems``: their rows as their newest published version holds them, by problem id."""
    slugs = {p.id: p.slug for p in problems}
    return {
        problem_id: [row.entry for row in standings_of(versions[-1], slugs[problem_id])]
        for problem_id, versions in dojo.published_boards(problems).items()
        if versions
    }


def problem_tags(dojo: ScoringSource, problem: Problem) -> dict[str, Any]:
    """The tags of a problem's counted Reward Correct submissions: claimed, counted, and each override.

    Published after reveal for auditing (docs/rules/dojo-scoring.md §6.3).
    """
    solved = [s for s in dojo.submissions(problem.id) if counted(s) and s.reward_correct]
    return {
        "claimed": tag_distribution(s.method_tag for s in solved),
        "counted": tag_distribution(s.counted_tag for s in solved),
        "overridden": [
            {"submission": s.id, "claimed": s.method_tag, "reason": s.tag_override} for s in solved if s.tag_override
        ],
    }


def problem_payloads(dojo: ScoringSource, problem: Problem) -> list[dict[str, Any]]:
    """The literal payload of each counted Reward Correct submission, beside its L, in submission order.

    Published at reveal for audit, whatever the season's literal policy (the spirit of docs/rules/dojo-scoring.md §6.3):
    a solution that is mostly a table shows a payload close to its L. Measured again from the stored source
    (``screen.py``).
    """
    names = dojo.user_names()
    return [
        {
            "submission": s.id,
            "user": names[s.user_id],
            "L": s.length,
            "literal_payload_bytes": literal_payload(s.source.decode("utf-8")),
        }
        for s in dojo.submissions(problem.id)
        if counted(s) and s.reward_correct
    ]


def problem_leaderboard(dojo: ScoringSource, problem: Problem) -> list[Ranked[ScoredSubmission]]:
    """The per-problem leaderboard: as published once revealed, else computed from the rows."""
    if problem.state in REVEALED_STATES and (versions := dojo.board_versions(problem)):
        return standings_of(versions[-1], problem.slug)
    return problem_standings(problem_scores(dojo, problem))


def recomputed_leaderboard_csv(dojo: ScoringSource, problem: Problem, excluded: frozenset[int] | None) -> str:
    """The per-problem board computed from the rows, whatever the problem's state (for the checks of a record)."""
    return problem_csv(problem_standings(problem_scores(dojo, problem, excluded)))


def problem_leaderboard_text(dojo: ScoringSource, problem: Problem, fmt: str) -> str:
    """The per-problem leaderboard rendered as ``table``, ``markdown``, ``csv`` or ``json``.

    JSON has its own types, as the API gives them: numbers and booleans.
    """
    standings = problem_leaderboard(dojo, problem)
    if fmt == "json":
        return console_json(problem_records(standings))
    return render_table(PROBLEM_HEADER, problem_rows(standings), fmt)


def problem_leaderboard_csv(dojo: ScoringSource, problem: Problem) -> str:
    """The per-problem leaderboard as the CSV published at reveal."""
    return problem_leaderboard_text(dojo, problem, "csv")


def season_leaderboard(dojo: ScoringSource, season: str, *, final_only: bool = True) -> list[Ranked[SeasonRow]]:
    """The season leaderboard over its revealed problems (or all problems, for an operator's preview)."""
    rules, names, excluded = dojo.season(season).rules, dojo.user_names(), dojo.users.disabled_ids()  # once
    counted_problems = [p for p in dojo.problems(season) if not final_only or p.state in REVEALED_STATES]
    judged = dojo.submissions_by_problem(p.id for p in counted_problems)  # one query for the whole season
    published = published_scores(dojo, counted_problems)
    scored: list[ScoredSubmission] = []
    for problem in counted_problems:
        if problem.id in published:
            scored.extend(published[problem.id])
        else:
            scored.extend(score_submissions(problem, judged[problem.id], names, rules, excluded))
    return season_standings(scored)


def season_leaderboard_text(dojo: ScoringSource, season: str, fmt: str, *, final_only: bool = True) -> str:
    """The season leaderboard rendered as ``table``, ``markdown``, ``csv`` or ``json`` (JSON's own types)."""
    standings = season_leaderboard(dojo, season, final_only=final_only)
    if fmt == "json":
        return console_json(season_records(standings))
    return render_table(SEASON_HEADER, season_rows(standings), fmt)
