"""The builder templates: every letter draws a small grid, reproducibly, and letters stay apart."""

from __future__ import annotations

import numpy as np

from podium.tracks.pcg.classifiers import LETTERS
from tools.pcg_classifier.builder_letters import TEMPLATES, builder_grid


def test_every_letter_draws_a_small_grid_reproducibly() -> None:
    assert len(TEMPLATES) == len(LETTERS)
    for label in range(len(LETTERS)):
        for seed in range(20):
            grid = builder_grid(label, np.random.default_rng(seed))
            again = builder_grid(label, np.random.default_rng(seed))
            assert np.array_equal(grid, again)
            rows, cols = grid.shape
            assert 5 <= rows <= 12 and 1 <= cols <= 8, (LETTERS[label], grid.shape)
            assert grid[0].any() and grid[-1].any() and grid[:, 0].any() and grid[:, -1].any()  # fills its box


def test_letters_that_share_a_box_differ() -> None:
    # the same grid size and no wobble would still draw O, D and Q, or P and R, apart: compare what they share
    pictures: dict[str, set[bytes]] = {letter: set() for letter in "ODQPRCG"}
    for letter in pictures:
        for seed in range(200):
            grid = builder_grid(LETTERS.index(letter), np.random.default_rng(seed))
            pictures[letter].add(grid.tobytes() + bytes(grid.shape))
    for first, second in (("O", "D"), ("O", "Q"), ("P", "R"), ("C", "G")):
        shared = pictures[first] & pictures[second]
        assert len(shared) <= 0.05 * len(pictures[first]), (first, second, len(shared))
