"""Pictures of block letters in the drop language: read them, and build them with ``drop_block`` calls.

The pictures themselves are data (``data/block_letters/<set>.txt``, read by ``letter_sets``). Each is a picture
of the 20×16 grid, top row first: ``#`` a b11, ``=`` a b31 (three in a row, read left to right), ``|`` a b13
(three in a column, read bottom up), ``.`` empty. ``drop_sequence`` turns a picture into the ``drop_block`` calls
that build it (bottom-up, so every block lands where it is drawn under the converter's rule that a block rests on
the highest occupied cell of its footprint) and checks that ``drop_blocks`` rebuilds the picture exactly.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from podium.tracks.pcg.rules.build import GRID_HEIGHT, GRID_WIDTH, drop_blocks
from tools.pcg_classifier.letter_sets import load_letter_set


def _picture_lines(picture: str) -> list[str]:
    """A picture's rows, top first, without the indentation of the string they were written in."""
    return [line.strip() for line in picture.strip().splitlines()]


def picture_grid(picture: str) -> npt.NDArray[np.bool_]:
    """The cells a picture fills (``#``, ``=`` and ``|``), row 0 at the bottom."""
    lines = _picture_lines(picture)
    width = max(len(line) for line in lines)
    grid = np.array([[ch != "." for ch in line.ljust(width, ".")] for line in lines], dtype=bool)
    return grid[::-1].copy()


def parse_picture(picture: str) -> list[tuple[str, int, int]]:
    """The blocks of a picture as (type, centre column, bottom row), row 0 at the bottom."""
    lines = _picture_lines(picture)
    height = len(lines)
    width = max(len(line) for line in lines)
    cells = {(height - 1 - r, c): ch for r, line in enumerate(lines) for c, ch in enumerate(line) if ch != "."}
    for (row, column), ch in cells.items():
        if ch not in "#=|":
            raise ValueError(f"unknown mark {ch!r} at row {row}, column {column}")
    blocks: list[tuple[str, int, int]] = []
    taken: set[tuple[int, int]] = set()
    for row in range(height):
        for column in range(width):
            mark = cells.get((row, column))
            if mark is None or (row, column) in taken:
                continue
            ch = mark
            if ch == "#":
                blocks.append(("b11", column, row))
                taken.add((row, column))
            elif ch == "=":
                part = [(row, column + i) for i in range(3)]
                if any(cells.get(p) != "=" or p in taken for p in part):
                    raise ValueError(f"a b31 at row {row} needs three '=' from column {column}")
                blocks.append(("b31", column + 1, row))
                taken.update(part)
            else:
                part = [(row + i, column) for i in range(3)]
                if any(cells.get(p) != "|" or p in taken for p in part):
                    raise ValueError(f"a b13 in column {column} needs three '|' from row {row}")
                blocks.append(("b13", column, row))
                taken.update(part)
    return blocks


def drop_sequence(picture: str, *, offset: int = 2) -> list[tuple[str, int]]:
    """The ``drop_block(type, slot)`` calls that build ``picture`` (shifted ``offset`` columns right)."""
    blocks = sorted(parse_picture(picture), key=lambda block: (block[2], block[1]))
    calls = [(kind, column + offset) for kind, column, _ in blocks]
    level = drop_blocks([(kind.upper(), slot) for kind, slot in calls])
    # parse_picture accepted every mark, so the blocks fill exactly the picture's cells; the converter's grid
    # starts at the structure's first column
    cells = picture_grid(picture)
    cells = cells[:, int(cells.any(axis=0).argmax()) :]
    expected = np.zeros((GRID_HEIGHT, GRID_WIDTH), dtype=bool)
    expected[: cells.shape[0], : cells.shape[1]] = cells
    grid = getattr(level, "grid", None)
    if grid is None or not np.array_equal(np.asarray(grid, dtype=bool), expected):
        raise ValueError("the drop rule does not rebuild this picture (a block lands lower than drawn)")
    return calls


def block_letter_levels(
    designs: Mapping[str, tuple[str, ...]] | None = None,
) -> list[tuple[str, list[tuple[str, int]]]]:
    """Every design of ``designs`` (default: the first set) as (letter, drop calls), letters in their set's order."""
    chosen = load_letter_set("first").designs if designs is None else designs
    return [(letter, drop_sequence(picture)) for letter, pictures in chosen.items() for picture in pictures]
