"""How many single ratings would tie or swap two neighbouring teams, computed exactly with the rubric's arithmetic."""

from __future__ import annotations

from fractions import Fraction

from podium.tracks.wmeval.firmness import neighbour_firmness, ratings_to_close
from podium.tracks.wmeval.score import Collected, EpisodeResult, EpisodeStatus, leaderboard, team_score

S, P = EpisodeStatus.SCORED, EpisodeStatus.PENDING


def collected(teams: dict[str, dict[str, list[tuple[int, EpisodeStatus]]]]) -> Collected:
    tasks = ("task1", "task2")
    episodes = {task: tuple(f"episode_{i}" for i in range(4)) for task in tasks}
    results = {
        team: {task: {f"episode_{i}": EpisodeResult(v, s) for i, (v, s) in enumerate(values)}
               for task, values in per_task.items()}
        for team, per_task in teams.items()
    }  # fmt: skip
    return Collected(tasks, episodes, results)


def test_the_fewest_changes_to_tie_are_counted_exactly_and_the_largest_first() -> None:
    # weight of a rating: 1 / (2 tasks x 4 episodes) = 1/8 of the final score per point
    data = collected({
        "red": {"task1": [(3, S), (3, S), (2, S), (1, S)], "task2": [(3, S), (0, S), (0, P), (0, P)]},
        "blue": {"task1": [(2, S), (2, S), (2, S), (2, S)], "task2": [(1, S), (1, S), (0, S), (0, P)]},
    })  # fmt: skip
    red, blue = team_score("red", data), team_score("blue", data)
    assert red.final - blue.final == Fraction(12 - 10, 8)  # 2 points apart, 1/8 each
    assert ratings_to_close(data, red, blue) == 1  # one of red's 3s to 0, or blue's 0 to 3, closes 3 points
    board = leaderboard(data)
    [pair] = neighbour_firmness(data, board)
    assert (pair.upper, pair.lower, pair.gap, pair.ratings) == ("red", "blue", Fraction(1, 4), 1)


def test_a_wide_gap_needs_several_changes_and_unscored_episodes_are_no_ratings() -> None:
    data = collected({
        "top": {"task1": [(3, S)] * 4, "task2": [(3, S)] * 4},
        "low": {"task1": [(0, S)] * 4, "task2": [(0, P)] * 4},  # 4 ratings of 0 and 4 not scored
    })  # fmt: skip
    top, low = team_score("top", data), team_score("low", data)
    assert (top.final - low.final) * 8 == 24  # 24 points apart, at most 3 per change: 8 changes
    assert ratings_to_close(data, top, low) == 8
    done, none = team_score("low", data), team_score("top", data)
    assert ratings_to_close(data, done, none) == 0  # not above it: nothing to change
