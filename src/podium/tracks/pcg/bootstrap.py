"""Bootstrap confidence intervals on normalised scores: can two teams be told apart with 10 trials?

Each replicate resamples, with replacement, the T trial scores of every (team, character) and recomputes the
character scores (times the fixed diversity), prompt scores and normalised shares; the weights stay as computed
(they depend on every team, and a re-weighting per replicate would mix two sources of noise). Intervals are the
2.5 % and 97.5 % percentiles. Floats are enough here: the intervals describe noise, not the official score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from podium.tracks.pcg.score import CompetitionScores


@dataclass(frozen=True, slots=True)
class Interval:
    """A 95 % bootstrap interval of a team's normalised score (percent)."""

    low: float
    high: float

    def overlaps(self, other: Interval) -> bool:
        """Whether the two intervals share any value."""
        return self.low <= other.high and other.low <= self.high


def normalized_intervals(
    scores: CompetitionScores, *, with_diversity: bool, replicates: int = 1000, seed: int = 0
) -> dict[str, Interval]:
    """95 % intervals of each team's normalised score."""
    teams = list(dict.fromkeys(t.team for t in scores.trials))
    characters = list(dict.fromkeys(t.character for t in scores.trials))
    if not teams:
        return {}
    trial_count = len(scores.trials) // (len(teams) * len(characters))
    trial_scores = np.array([float(t.score) for t in scores.trials]).reshape(len(teams), len(characters), trial_count)
    diversity = np.ones((len(teams), len(characters)))
    if with_diversity:
        diversity = np.array([float(c.diversity) for c in scores.characters]).reshape(len(teams), len(characters))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, trial_count, size=(replicates, len(teams), len(characters), trial_count))
    resampled = np.take_along_axis(trial_scores[None, ...], picks, axis=3)
    prompt = (resampled.mean(axis=3) * diversity[None, ...]).mean(axis=2)  # replicates × teams
    total = prompt.sum(axis=1, keepdims=True)
    normalized = 100 * prompt / np.where(total == 0, 1, total)
    low, high = np.percentile(normalized, [2.5, 97.5], axis=0)
    return {team: Interval(float(low[i]), float(high[i])) for i, team in enumerate(teams)}
