"""The core's paired bootstrap: the same draw for every team, and neighbours told apart by their difference."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from podium.core.ranking.bootstrap import Draws, paired_bootstrap

# Two teams judged on the same 12 episodes: the episodes differ a lot, and b is a little worse on every one.
EPISODES = np.array([3.0, 0.0, 2.0, 1.0, 3.0, 0.0, 2.0, 3.0, 1.0, 0.0, 2.0, 3.0])
VALUES = np.stack([EPISODES, EPISODES - 0.25, EPISODES])  # a, b (worse everywhere), c (equal to a)


def mean_of(rows: npt.NDArray[np.float64]):  # type: ignore[no-untyped-def]
    def score(draws: Draws) -> npt.NDArray[np.float64]:
        return rows[:, draws["task"]].mean(axis=2).T  # type: ignore[no-any-return]

    return score


def test_paired_neighbours_are_told_apart_by_their_difference_though_their_intervals_overlap() -> None:
    spread = paired_bootstrap(["a", "b"], {"task": 12}, mean_of(VALUES[:2]), resamples=2000, seed=4)
    a, b = spread.intervals["a"], spread.intervals["b"]
    assert a.low <= b.high and b.low <= a.high  # the intervals overlap widely (the episodes' spread)...
    assert spread.neighbours == [("a", "b", True)] and spread.apart("b", "a") is True  # ...the difference is 0.25
    assert spread.apart("a", "zed") is None


def test_equal_teams_cannot_be_told_apart_and_a_seed_reproduces_the_draws() -> None:
    rows = VALUES[[0, 2]]
    first = paired_bootstrap(["a", "c"], {"task": 12, "empty": 0}, mean_of(rows), resamples=500, seed=9)
    again = paired_bootstrap(["a", "c"], {"task": 12, "empty": 0}, mean_of(rows), resamples=500, seed=9)
    assert first.neighbours == [("a", "c", False)] and first == again
    assert first.intervals["a"] == first.intervals["c"] and first.resamples == 500 and first.seed == 9
