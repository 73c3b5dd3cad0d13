"""A paired bootstrap of a leaderboard: each team's interval, and which rank neighbours can be told apart.

A competition's score is a function of units in strata: wmeval's are a task's GT episodes, pcg's a letter's trial
numbers. Each replicate draws, in every stratum, as many units as it holds, with replacement, and the *same* draw
serves every team (paired: every team is judged on the same episodes, or the same trial numbers); the track's own
exact score function (``Scorer``) turns the draws into every team's score. Intervals are the percentiles of the
replicates. Two neighbours are told apart when the interval of their *difference* excludes 0, which is the right
test for paired scores: two teams' intervals may overlap while one beats the other in nearly every replicate.

Floats are enough here: the intervals describe noise, not the official score, which stays the track's exact one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Draws = Mapping[str, npt.NDArray[np.int64]]  # stratum -> (resamples, units in it): the indices drawn
Scorer = Callable[[Draws], npt.NDArray[np.float64]]  # the draws -> (resamples, teams): every team's score
CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Interval:
    """A team's bootstrap interval."""

    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Uncertainty:
    """Every team's interval and, for each pair of rank neighbours, whether their difference excludes 0."""

    intervals: dict[str, Interval]
    neighbours: list[tuple[str, str, bool]]  # (better, next, distinguishable)
    resamples: int
    seed: int
    confidence: float = CONFIDENCE

    def apart(self, first: str, second: str) -> bool | None:
        """Whether two rank neighbours can be told apart (None: they are not neighbours)."""
        for better, following, distinguishable in self.neighbours:
            if {better, following} == {first, second}:
                return distinguishable
        return None


def paired_bootstrap(
    teams: Sequence[str],
    strata: Mapping[str, int],
    score: Scorer,
    *,
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> Uncertainty:
    """Intervals of ``teams`` (in rank order) and their neighbours' separations over ``resamples`` replicates.

    ``strata`` gives each stratum's number of units, in the order the draws are made (so a seed reproduces them).
    """
    rng = np.random.default_rng(seed)
    draws = {name: rng.integers(0, units, size=(resamples, units)) for name, units in strata.items() if units > 0}
    finals = np.asarray(score(draws), dtype=float).reshape(resamples, len(teams))
    tail = (1 - confidence) / 2
    low, high = np.quantile(finals, [tail, 1 - tail], axis=0)
    intervals = {team: Interval(float(low[i]), float(high[i])) for i, team in enumerate(teams)}
    neighbours = []
    for i in range(len(teams) - 1):
        difference = finals[:, i] - finals[:, i + 1]
        below, above = np.quantile(difference, [tail, 1 - tail])
        neighbours.append((teams[i], teams[i + 1], bool(below > 0 or above < 0)))
    return Uncertainty(intervals, neighbours, resamples, seed, confidence)
