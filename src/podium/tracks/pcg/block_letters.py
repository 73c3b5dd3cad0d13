"""Hand-designed block letters A–Z in the drop language: a test set for letter classifiers.

Each design is a picture of the 20×16 grid, top row first: ``#`` a b11, ``=`` a b31 (three in a row, read left to
right), ``|`` a b13 (three in a column, read bottom up), ``.`` empty. ``drop_sequence`` turns a picture into the
``drop_block`` calls that build it (bottom-up, so every block lands where it is drawn under the converter's rule
that a block rests on the highest occupied cell of its footprint) and checks that ``drop_blocks`` rebuilds the
picture exactly. Designs avoid overhangs that would tip over: a b31 rests on its centre or on both ends, or on a
stem two cells wide, so the letters mostly stay standing in the evaluator's physics.
"""

from __future__ import annotations

from podium.tracks.pcg.build import GRID_HEIGHT, GRID_WIDTH, drop_blocks

# One entry per letter; at least two designs each.
DESIGNS: dict[str, tuple[str, ...]] = {
    "A": (
        """
        ===
        #.#
        ===
        #.#
        #.#
        """,
        """
        .#.
        ===
        #.#
        ===
        #.#
        #.#
        """,
    ),
    "B": (
        """
        ===
        #.#
        ===
        #.#
        ===
        """,
        """
        ===.
        ##.#
        ##.#
        ===#
        ##.#
        ##.#
        ===#
        """,
    ),
    "C": (
        """
        ===
        ##.
        ##.
        ##.
        ===
        """,
        """
        ===
        ||.
        ||.
        ||.
        ##.
        ##.
        ===
        """,
    ),
    "D": (
        """
        ===.
        ||.#
        ||.#
        ||.#
        ##.#
        ##.#
        ===#
        """,
        """
        ===.
        ##.#
        ##.#
        ##.#
        ===#
        """,
    ),
    "E": (
        """
        ===
        ##.
        ===
        ##.
        ===
        """,
        """
        ===
        ##.
        ##.
        ===
        ##.
        ##.
        ===
        """,
    ),
    "F": (
        """
        ===
        ##.
        ===
        ##.
        ##.
        """,
        """
        ===
        ##.
        ##.
        ===
        ##.
        ##.
        ##.
        """,
    ),
    "G": (
        """
        ===.
        ##..
        ##..
        #===
        ##.#
        ===#
        """,
        """
        ===
        ##.
        ##.
        ===
        #.#
        ===
        """,
    ),
    "H": (
        """
        #.#
        #.#
        ===
        #.#
        #.#
        """,
        """
        |.|
        |.|
        |.|
        ===
        |.|
        |.|
        |.|
        """,
    ),
    "I": (
        """
        ===
        .#.
        .#.
        .#.
        ===
        """,
        """
        #
        #
        #
        #
        #
        """,
    ),
    "J": (
        """
        ..#
        ..#
        ..#
        #.#
        ===
        """,
        """
        ===
        .#.
        .#.
        .#.
        ##.
        """,
    ),
    "K": (
        """
        #.#
        ===
        ##.
        ===
        #.#
        """,
        """
        #.#
        #.#
        ===
        ##.
        ===
        #.#
        #.#
        """,
    ),
    "L": (
        """
        #..
        #..
        #..
        #..
        ===
        """,
        """
        |..
        |..
        |..
        ===
        """,
    ),
    "M": (
        """
        #...#
        ##.##
        #===#
        #.#.#
        #.#.#
        """,
        """
        ##.##
        #===#
        #.#.#
        #.#.#
        #.#.#
        """,
    ),
    "N": (
        """
        #..#
        ##.#
        #===
        #.##
        #.##
        """,
        """
        #..#
        ##.#
        ##.#
        #===
        #.##
        #.##
        #.##
        """,
    ),
    "O": (
        """
        ===
        #.#
        #.#
        #.#
        ===
        """,
        """
        ===
        |.|
        |.|
        |.|
        ===
        """,
    ),
    "P": (
        """
        ===
        #.#
        ===
        ##.
        ##.
        """,
        """
        ===
        #.#
        #.#
        ===
        ##.
        ##.
        ##.
        """,
    ),
    "Q": (
        """
        ===.
        #.#.
        #.#.
        #.##
        ===#
        """,
        """
        ===..
        #.#..
        #.#..
        #.##.
        ===##
        """,
    ),
    "R": (
        """
        ===..
        #.#..
        ===..
        #.#..
        #.===
        #..#.
        """,
        """
        ===..
        #.#..
        #.#..
        ===..
        #.===
        #..#.
        #..#.
        """,
    ),
    "S": (
        """
        ===
        ##.
        ===
        .##
        ===
        """,
        """
        ===
        ##.
        ##.
        ===
        .##
        .##
        ===
        """,
    ),
    "T": (
        """
        ===
        .#.
        .#.
        .#.
        .#.
        """,
        """
        ===
        .|.
        .|.
        .|.
        """,
    ),
    "U": (
        """
        #.#
        #.#
        #.#
        #.#
        ===
        """,
        """
        |.|
        |.|
        |.|
        ===
        """,
    ),
    "V": (
        """
        .#.#.
        .#.#.
        .#.#.
        .===.
        ..#..
        """,
        """
        #.#
        #.#
        #.#
        #.#
        ===
        .#.
        """,
    ),
    "W": (
        """
        #...#
        #...#
        #.#.#
        #.#.#
        #####
        """,
        """
        #.....#
        #..#..#
        #..#..#
        ===#===
        .#.#.#.
        """,
    ),
    "X": (
        """
        #.#
        ===
        .#.
        ===
        #.#
        """,
        """
        #.#
        #.#
        ===
        .#.
        ===
        #.#
        #.#
        """,
    ),
    "Y": (
        """
        #.#
        #.#
        ===
        .#.
        .#.
        """,
        """
        #.#
        ===
        .|.
        .|.
        .|.
        """,
    ),
    "Z": (
        """
        ===#
        .===
        .===
        ===.
        ===#
        """,
        """
        ===#
        .===
        ===.
        ===#
        """,
    ),
}


def parse_picture(picture: str) -> list[tuple[str, int, int]]:
    """The blocks of a picture as (type, centre column, bottom row), row 0 at the bottom."""
    lines = [line.strip() for line in picture.strip().splitlines()]
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
    expected = [[0] * GRID_WIDTH for _ in range(GRID_HEIGHT)]
    for kind, column, row in blocks:
        for dc, dr in {"b11": [(0, 0)], "b31": [(-1, 0), (0, 0), (1, 0)], "b13": [(0, 0), (0, 1), (0, 2)]}[kind]:
            expected[row + dr][column + dc] = 1
    shift = min((c for row in expected for c, cell in enumerate(row) if cell), default=0)
    expected = [row[shift:] + [0] * shift for row in expected]
    grid = getattr(level, "grid", None)
    if grid is None or [list(r) for r in grid] != expected:
        raise ValueError("the drop rule does not rebuild this picture (a block lands lower than drawn)")
    return calls


def block_letter_levels(designs: dict[str, tuple[str, ...]] | None = None) -> list[tuple[str, list[tuple[str, int]]]]:
    """Every design of ``designs`` (default: ``DESIGNS``) as (letter, drop calls), letters in order A..Z."""
    chosen = DESIGNS if designs is None else designs
    return [(letter, drop_sequence(picture)) for letter, pictures in chosen.items() for picture in pictures]
