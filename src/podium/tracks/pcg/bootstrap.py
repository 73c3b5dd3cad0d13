"""Bootstrap intervals of normalised scores, and which neighbours can be told apart with 10 trials.

The core's paired bootstrap (``podium.core.ranking.bootstrap``): each replicate draws, within every letter, T trial
numbers with replacement, the same numbers for every team, and the official rule recomputes from them the character
scores (times the fixed diversity), the prompt scores and the normalised shares; the weights stay as computed (they
depend on every team, and a re-weighting per replicate would mix two sources of noise). Intervals are the 2.5 % and
97.5 % percentiles; two rank neighbours are told apart when the interval of their difference excludes 0, not when
their two intervals do not overlap: that test ignores the difference (on the bundled 2023 example one of four
neighbour pairs differs between the two: ``docs/design/pcg-report.md``). Floats are enough here: the intervals
describe noise, not the official score.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from podium.core.ranking.bootstrap import Draws, Uncertainty, paired_bootstrap
from podium.tracks.pcg.rules.score import CompetitionScores

REPLICATES = 1000


def normalized_uncertainty(
    scores: CompetitionScores,
    ranked: Sequence[str],
    *,
    with_diversity: bool,
    replicates: int = REPLICATES,
    seed: int = 0,
) -> Uncertainty | None:
    """Intervals of each team's normalised score (percent) for the teams ``ranked`` (rank order); None: no trials."""
    teams = list(dict.fromkeys(t.team for t in scores.trials))
    characters = list(dict.fromkeys(t.character for t in scores.trials))
    if not teams or set(ranked) != set(teams):
        return None
    trial_count = len(scores.trials) // (len(teams) * len(characters))
    trial_scores = np.array([float(t.score) for t in scores.trials]).reshape(len(teams), len(characters), trial_count)
    diversity = np.ones((len(teams), len(characters)))
    if with_diversity:
        diversity = np.array([float(c.diversity) for c in scores.characters]).reshape(len(teams), len(characters))
    order = [teams.index(team) for team in ranked]

    def normalized(draws: Draws) -> npt.NDArray[np.float64]:
        per_letter = np.stack(
            [trial_scores[:, i, draws[c]].mean(axis=2) for i, c in enumerate(characters)], axis=1
        )  # (teams, letters, replicates): each letter's mean over the drawn trial numbers
        prompt = (per_letter * diversity[..., None]).mean(axis=1).T  # (replicates, teams)
        total = prompt.sum(axis=1, keepdims=True)
        shares: npt.NDArray[np.float64] = 100 * prompt / np.where(total == 0, 1, total)
        return shares[:, order]

    strata = {character: trial_count for character in characters}
    return paired_bootstrap(list(ranked), strata, normalized, resamples=replicates, seed=seed)
