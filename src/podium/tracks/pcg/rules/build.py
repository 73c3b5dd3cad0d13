"""Text → level (``intermediate`` → ``levels``): drop blocks on the 20×16 grid, then place them in the world.

The official converter's rules (``docs/rules/pcg.md`` §4), including its quirks:
- only lines starting with ``<prefix>(`` count; the block type is the text from one character after ``(`` to
  one character before the first ``,`` (positions in UTF-16 code units); the slot is ``parseInt`` of the text
  after the first ``,`` up to the next ``)`` or the line end;
- a block lands just above the highest occupied cell of its footprint (no support check);
- an occupied top cell, a slot outside the grid or NaN is "Height boundary is intruded."; a b31 whose side
  column is off the grid is "Width boundary is intruded."; a b13 whose top would pass row 15 is a height error;
- the top-row quirk: a b31 rejected at row 15 only because a SIDE cell is occupied is placed there anyway;
- after all drops the structure is shifted left so its leftmost occupied column is column 0.
Any error fails the whole trial (no level is written).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from podium.core.records import StageFailure
from podium.tracks.pcg.official.jsnum import as_utf16_units, js_parse_int, js_substring
from podium.tracks.pcg.verdicts import OFFICIAL_MESSAGES, PcgVerdict

GRID_WIDTH = 20
GRID_HEIGHT = 16


@dataclass(frozen=True, slots=True)
class BlockShape:
    """A block type of the drop language."""

    code: str  # b11, b31, b13
    width_cells: int
    height_cells: int
    sb_type: str  # Science Birds prefab
    rotation_deg: int


BLOCK_SHAPES: dict[str, BlockShape] = {
    "B11": BlockShape("b11", 1, 1, "SquareTiny", 0),
    "B31": BlockShape("b31", 3, 1, "RectSmall", 0),
    "B13": BlockShape("b13", 1, 3, "RectSmall", 90),
}


@dataclass(frozen=True, slots=True)
class PlacedBlock:
    """A block on the grid: its centre column and bottom row after the left shift."""

    shape: BlockShape
    column: int
    row: int


@dataclass(frozen=True, slots=True)
class GridLevel:
    """The outcome of dropping every block of one trial."""

    blocks: tuple[PlacedBlock, ...]
    grid: tuple[tuple[int, ...], ...]  # grid[row][column], row 0 at the bottom, after the left shift


class _ConversionError(Exception):
    def __init__(self, verdict: PcgVerdict) -> None:
        self.verdict = verdict


def parse_drop_calls(text: str, prefix: str) -> list[tuple[str, int | None]]:
    """Read ``(block type, slot)`` pairs from the converter's input exactly as the official parser does."""
    call_prefix = prefix + "("
    calls: list[tuple[str, int | None]] = []
    for line in as_utf16_units(text.lower()).split("\n"):
        if not line.startswith(call_prefix):
            continue
        comma = line.find(",")
        block_type = js_substring(line, len(call_prefix) + 1, comma - 1).upper()
        slot = js_parse_int(line[comma + 1 :].split(")", 1)[0]) if comma >= 0 else None
        calls.append((block_type, slot))
    return calls


def _cell(grid: list[list[int]], row: int, column: int) -> int | None:
    """A grid cell, or None off the grid (JavaScript's ``undefined``)."""
    if 0 <= row < GRID_HEIGHT and 0 <= column < GRID_WIDTH:
        return grid[row][column]
    return None


def _drop(grid: list[list[int]], shape: BlockShape, slot: int | None) -> int:
    """Drop one block into ``grid`` (mutated) and return its landing row."""
    column = -1 if slot is None else slot
    if _cell(grid, GRID_HEIGHT - 1, column) != 0:
        raise _ConversionError(PcgVerdict.HEIGHT_BOUNDARY)
    wide = shape.width_cells == 3
    landing = GRID_HEIGHT - 1
    for row in range(GRID_HEIGHT - 1, -1, -1):
        if grid[row][column] != 0:
            break
        if wide:
            if column - 1 < 0 or column + 1 >= GRID_WIDTH:
                raise _ConversionError(PcgVerdict.WIDTH_BOUNDARY)
            if grid[row][column - 1] != 0 or grid[row][column + 1] != 0:
                break
        landing = row
    if wide:
        for dx in (-1, 0, 1):
            grid[landing][column + dx] = 1
    else:
        if landing + shape.height_cells - 1 > GRID_HEIGHT - 1:
            raise _ConversionError(PcgVerdict.HEIGHT_BOUNDARY)
        for dy in range(shape.height_cells):
            grid[landing + dy][column] = 1
    return landing


def drop_blocks(calls: list[tuple[str, int | None]]) -> GridLevel | StageFailure:
    """Drop ``calls`` in order on an empty grid; the first error fails the whole level."""
    grid = [[0] * GRID_WIDTH for _ in range(GRID_HEIGHT)]
    placed: list[tuple[BlockShape, int, int]] = []
    try:
        for block_type, slot in calls:
            shape = BLOCK_SHAPES.get(block_type)
            if shape is None:
                raise _ConversionError(PcgVerdict.UNKNOWN_BLOCK_TYPE)
            row = _drop(grid, shape, slot)
            placed.append((shape, slot if slot is not None else -1, row))
    except _ConversionError as error:
        return StageFailure(error.verdict, OFFICIAL_MESSAGES[error.verdict])
    # Only blocks occupy cells, so the leftmost occupied column is the leftmost block edge.
    shift = min((column - 1 if shape.width_cells == 3 else column for shape, column, _ in placed), default=GRID_WIDTH)
    shifted_grid = tuple(tuple(row[shift:] + [0] * shift) for row in grid)
    blocks = tuple(PlacedBlock(shape, column - shift, row) for shape, column, row in placed)
    return GridLevel(blocks, shifted_grid)


# World placement (docs/rules/pcg.md §4.4): exact decimals, as bignumber.js computes them.
CELL_SIZE = Decimal("0.2401")
ORIGIN_X = Decimal(2)
ORIGIN_Y = Decimal("-3.5")


@dataclass(frozen=True, slots=True)
class WorldPosition:
    """A point in Unity units (the level's world coordinates)."""

    x: Decimal
    y: Decimal


def block_world_position(block: PlacedBlock) -> WorldPosition:
    """The centre of ``block`` in Unity units."""
    shape = block.shape
    x = block.column * CELL_SIZE + shape.width_cells * CELL_SIZE / 2 + ORIGIN_X
    if shape.width_cells > 1:
        x -= CELL_SIZE
    y = block.row * CELL_SIZE + shape.height_cells * CELL_SIZE / 2 + ORIGIN_Y
    return WorldPosition(x, y)
