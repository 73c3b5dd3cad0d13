"""Variants of hand-designed block letters: the same letter with strokes doubled or thinned, parts longer."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from podium.tracks.pcg.rules.build import GRID_HEIGHT, GRID_WIDTH
from tools.pcg_classifier.block_letters import picture_grid
from tools.pcg_classifier.design_variants import MIN_ROWS, vary_grid
from tools.pcg_classifier.letter_sets import load_letter_set

DESIGNS = load_letter_set("first").designs


def without_repeats(grid: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The grid with every row that repeats the one below it, then every such column, removed."""
    rows = [i for i in range(len(grid)) if i == 0 or not np.array_equal(grid[i], grid[i - 1])]
    grid = grid[rows]
    cols = [j for j in range(grid.shape[1]) if j == 0 or not np.array_equal(grid[:, j], grid[:, j - 1])]
    return grid[:, cols]


def test_a_picture_reads_as_its_cells_bottom_row_first() -> None:
    grid = picture_grid("""
        ===.
        #.#.
        ||..
        ||.#
        ||.#
        """)
    assert grid.shape == (5, 4)
    assert grid[0].tolist() == [True, True, False, True]  # the bottom row
    assert grid[4].tolist() == [True, True, True, False]  # the top row, a b31
    assert grid[3].tolist() == [True, False, True, False]


def test_variants_only_repeat_or_drop_twin_lines_and_stay_on_the_grid() -> None:
    rng = np.random.default_rng(0)
    changed = 0
    for pictures in DESIGNS.values():
        for picture in pictures:
            grid = picture_grid(picture)
            for _ in range(20):
                variant = vary_grid(grid, rng)
                assert variant.shape[0] <= GRID_HEIGHT and variant.shape[1] <= GRID_WIDTH
                assert variant.shape[0] >= min(MIN_ROWS, grid.shape[0])
                np.testing.assert_array_equal(without_repeats(variant), without_repeats(grid))
                changed += variant.shape != grid.shape
    assert changed > 0.5 * 20 * sum(len(p) for p in DESIGNS.values())  # most variants differ from the picture


def test_a_full_grid_only_loses_lines() -> None:
    grid = np.ones((GRID_HEIGHT, GRID_WIDTH), dtype=bool)
    rng = np.random.default_rng(1)
    for _ in range(50):
        variant = vary_grid(grid, rng)
        assert variant.shape[0] <= GRID_HEIGHT and variant.shape[1] <= GRID_WIDTH and variant.all()
