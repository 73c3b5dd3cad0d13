"""The caveat every report prints quotes what the measurement gives today, and the rank statistics are right."""

from __future__ import annotations

import json
import math

import pytest

from podium.tracks.pcg.provenance import AGREEMENT_PATH
from tests.tracks.pcg.agreement import measure, pearson, spearman


def test_spearman_uses_average_ranks_for_ties() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4, 5], [1, 4, 3, 2, 5]) == pytest.approx(0.6)  # one pair swapped two apart
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(pearson([2.5, 2.5, 1], [3, 2, 1]))
    assert math.isclose(pearson([1, 2, 3], [2, 4, 7]), 0.9933992677987827)


@pytest.mark.slow
def test_the_reports_caveat_quotes_the_measured_figures() -> None:
    found = measure()
    assert found.trials == 150
    assert found.spearman["official"] == pytest.approx(1.0)
    notes = json.loads(AGREEMENT_PATH.read_text("utf-8"))
    caveat, physics = notes["classifiers"]["embedded"]["caveat"], notes["physics"]["figures"]
    assert f"Spearman {found.spearman['physics+embedded']:.1f}" in caveat
    assert f"Pearson {found.similarity_pearson:.2f}" in caveat
    assert f"(Spearman {found.spearman['physics+vit']:.1f})" in physics
