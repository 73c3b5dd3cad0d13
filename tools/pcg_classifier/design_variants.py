"""Training letters varied from hand-designed block-letter pictures: shapes builders draw, drawn again differently.

Fonts and stroke templates miss shapes that people building letters from blocks draw all the time; pictures that
people designed (``block_letters`` format) have them. A picture is read as its grid of cells
(``block_letters.picture_grid``) and varied the way two builders drawing the same letter differ: a stroke doubled
or thinned, a part made taller or wider (a row or column repeated, or a repeated one dropped). Repeating or
dropping a line next to its twin leaves every cell on what it rested on, so a variant stands as the picture did.
``train_classifier`` then chooses the blocks afresh and adds the physics' marks, as for every other training image.

A set whose pictures train a model can no longer measure it: the model card says which sets trained the shipped
model and which measure it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from podium.tracks.pcg.rules.build import GRID_HEIGHT, GRID_WIDTH

# the most changes one variant gets (a variant with none is the picture's own grid), and the fewest rows it keeps
MAX_CHANGES = 3
MIN_ROWS = 5


def vary_grid(grid: npt.NDArray[np.bool_], rng: np.random.Generator) -> npt.NDArray[np.bool_]:
    """``grid`` with 0–3 rows or columns repeated, or dropped where they repeat their neighbour."""
    varied = grid
    for _ in range(int(rng.integers(0, MAX_CHANGES + 1))):
        by_column = bool(rng.random() < 0.5)
        lines = varied.T if by_column else varied  # work on rows; columns are the transpose's rows
        limit = GRID_WIDTH if by_column else GRID_HEIGHT
        shrinks = by_column or len(lines) > MIN_ROWS  # small letters stay at least MIN_ROWS tall
        twins = [i for i in range(1, len(lines)) if shrinks and np.array_equal(lines[i], lines[i - 1])]
        if twins and (rng.random() < 0.5 or len(lines) >= limit):
            lines = np.delete(lines, int(rng.choice(twins)), axis=0)  # a doubled stroke thinned, a run shortened
        elif len(lines) < limit:
            at = int(rng.integers(len(lines)))
            lines = np.insert(lines, at, lines[at], axis=0)  # a stroke doubled, a part made longer
        varied = lines.T if by_column else lines
    return np.ascontiguousarray(varied)
