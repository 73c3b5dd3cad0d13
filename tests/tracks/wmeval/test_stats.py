"""Statistics: Krippendorff's alpha against the published example, agreement, bootstrap, annotator quality."""

from __future__ import annotations

import math

from podium.tracks.wmeval.score import Collected, EpisodeResult, EpisodeStatus, leaderboard
from podium.tracks.wmeval.stats import (
    Ratings,
    agreement,
    annotator_quality,
    bootstrap,
    krippendorff_alpha,
    pair_agreement,
)

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 observers x 12 units example
# (None = missing). Published: nominal 0.743, ordinal 0.815, interval 0.849.
EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_ordinal_alpha_matches_the_published_example() -> None:
    units = [[row[u] for row in EXAMPLE if row[u] is not None] for u in range(12)]
    alpha = krippendorff_alpha(units, values=(1, 2, 3, 4, 5))  # type: ignore[arg-type]
    assert alpha is not None and math.isclose(alpha, 0.815, abs_tol=0.0005)


def test_agreement_counts_pairs() -> None:
    result = agreement([[3, 3, 2], [0, 0], [1]])
    assert result.units == 2 and result.pairs == 4
    assert result.exact == 2 / 4 and result.within_one == 1.0
    assert krippendorff_alpha([[2, 2], [2, 2]]) is None  # no variation: undefined


def test_bootstrap_separates_far_teams_and_not_equal_ones() -> None:
    eps = tuple(f"e{i}" for i in range(10))
    high = {e: EpisodeResult(3, EpisodeStatus.SCORED) for e in eps}
    low = {e: EpisodeResult(0 if i % 2 else 1, EpisodeStatus.SCORED) for i, e in enumerate(eps)}
    same = {e: EpisodeResult(1 if i % 2 else 0, EpisodeStatus.SCORED) for i, e in enumerate(eps)}
    data = Collected(("task1",), {"task1": eps}, {"a": {"task1": high}, "b": {"task1": low}, "c": {"task1": same}})
    ranked = [r.entry for r in leaderboard(data)]
    spread = bootstrap(data, ranked, resamples=500, seed=1)
    assert spread.intervals["a"].low == spread.intervals["a"].high == 3.0
    assert spread.neighbours[0] == ("a", ranked[1].team, True)
    assert spread.neighbours[1][2] is False  # b and c: the same mean, cannot be told apart


def test_severity_and_gold_accuracy() -> None:
    ratings = Ratings(
        by_video={1: {"harsh": 1, "kind": 3}, 2: {"harsh": 0, "kind": 2}, 3: {"kind": 3}},
        gold={"harsh": [(3, 3), (2, 3)], "kind": [(3, 3)]},
        scored={"harsh": [1, 0, 3, 2], "kind": [3, 2, 3, 3], "idle": []},
    )
    quality = {q.annotator: q for q in annotator_quality(ratings)}
    assert quality["harsh"].severity == -2.0 and quality["kind"].severity == 2.0
    assert quality["harsh"].gold_accuracy == 0.5 and quality["kind"].gold_accuracy == 1.0
    assert quality["idle"].mean is None and quality["idle"].gold_accuracy is None


def test_pair_agreement_names_the_two_people_who_read_the_rubric_differently() -> None:
    by_video = {
        1: {"ann": 3, "bob": 3, "cy": 1},
        2: {"ann": 2, "bob": 2, "cy": 0},
        3: {"ann": 1, "cy": 1},
        4: {"dee": 2},
    }
    pairs = {(p.first, p.second): p for p in pair_agreement(Ratings(by_video, {}, {}))}
    assert set(pairs) == {("ann", "bob"), ("ann", "cy"), ("bob", "cy")}  # dee shares no video
    ann_bob, ann_cy = pairs[("ann", "bob")], pairs[("ann", "cy")]
    assert (ann_bob.shared, ann_bob.exact, ann_bob.within_one, ann_bob.mean_difference) == (2, 1.0, 1.0, 0.0)
    assert (ann_cy.shared, ann_cy.exact, ann_cy.within_one) == (3, 1 / 3, 1 / 3)
    assert ann_cy.mean_difference == (2 + 2 + 0) / 3  # cy is the harsher one
