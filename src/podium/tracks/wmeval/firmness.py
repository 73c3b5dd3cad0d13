"""How firm the ranking is: for two neighbouring teams, how few single ratings would have to change to tie or swap them.

The bootstrap intervals say how the scores would vary with other episodes; this says how much the board rests on
individual annotators' calls. A rating is one scored primary episode of a team (0-3). Changed to any other 0-3
value, it moves its team's final score by the change times its weight, 1 / (number of tasks × the task's GT
count), exactly as the rubric adds it up (``score.py``). To close the gap between an upper team A and the team
below it, B, a change lowers one of A's ratings (to 0: at most its value × weight) or raises one of B's (to 3: at
most (3 − value) × weight); every change acts alone, so taking the largest first gives the fewest. The count is
exact (``Fraction``), and there always is one: A's final score is made of its ratings alone, so with all of them
at 0 it is no higher than B's. Episodes not scored are no ratings (a missing or pending one is nobody's call).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from podium.core.ranking.leaderboard import Ranked
from podium.tracks.wmeval.score import Collected, EpisodeStatus, TeamScore


@dataclass(frozen=True, slots=True)
class Firmness:
    """Two neighbouring teams, the gap between them, and the fewest single ratings that would tie or swap them."""

    upper: str
    lower: str
    gap: Fraction
    ratings: int


def neighbour_firmness(collected: Collected, board: Sequence[Ranked[TeamScore]]) -> list[Firmness]:
    """For each team and the one ranked right below it."""
    return [
        Firmness(
            a.entry.team, b.entry.team, a.entry.final - b.entry.final, ratings_to_close(collected, a.entry, b.entry)
        )
        for a, b in zip(board, board[1:], strict=False)
    ]


def ratings_to_close(collected: Collected, upper: TeamScore, lower: TeamScore) -> int:
    """The fewest single ratings whose change makes ``upper``'s final score no higher than ``lower``'s."""
    gap = upper.final - lower.final
    if gap <= 0:
        return 0
    moves = sorted(
        [v * w for v, w in _ratings(collected, upper.team) if v > 0]
        + [(3 - v) * w for v, w in _ratings(collected, lower.team) if v < 3],
        reverse=True,
    )
    closed, count = Fraction(0), 0
    while closed < gap:  # all of the upper team's ratings at 0 close it: the moves never run out first
        closed += moves[count]
        count += 1
    return count


def _ratings(collected: Collected, team: str) -> list[tuple[int, Fraction]]:
    """Each scored primary episode of ``team``: its value and its weight in the final score."""
    tasks = len(collected.tasks)
    found = []
    for task in collected.tasks:
        denominator = len(collected.episodes[task])
        for result in collected.results.get(team, {}).get(task, {}).values():
            if result.status is EpisodeStatus.SCORED and denominator:
                found.append((result.value, Fraction(1, tasks * denominator)))
    return found
