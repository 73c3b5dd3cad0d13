"""Science Birds level XML: the converter's exact text, and a reader for any level file.

Writing reproduces the official converter byte for byte (``docs/rules/pcg.md`` §4.5): an XML declaration that says
utf-16 over UTF-8 bytes, LF line ends, 2-space indentation, no line end after ``</Level>``, numbers as
bignumber.js ``toFixed()``. Reading accepts what the converter writes and any other level a Science Birds tool
writes (real UTF-16, a BOM, other attributes): the declaration is dropped and the text parsed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from podium.tracks.pcg.official.jsnum import to_fixed
from podium.tracks.pcg.rules.build import (
    BLOCK_SHAPES,
    CELL_SIZE,
    GRID_HEIGHT,
    GRID_WIDTH,
    GridLevel,
    PlacedBlock,
    block_world_position,
)

_MIN_CAMERA_WIDTH = Decimal(17)


def _camera_and_width(level: GridLevel) -> tuple[Decimal, int]:
    """Camera min width and level width, from the grid as the converter computes them."""
    grid = level.grid
    top_row = max((r for r in range(GRID_HEIGHT) if any(grid[r])), default=0)
    widest_row_cells = max((sum(row) for row in grid), default=0)
    level_height = Decimal("3.5") + CELL_SIZE * (top_row + 1)
    level_width = Decimal(2) + CELL_SIZE * widest_row_cells
    size = max(2 * max(Decimal("1.6") * level_height, level_width), _MIN_CAMERA_WIDTH)
    return size, int(level_width / 18) + 3


def level_xml_text(level: GridLevel) -> str:
    """The exact XML text the official converter writes for ``level``."""
    camera_width, level_width = _camera_and_width(level)
    lines = [
        '<?xml version="1.0" encoding="utf-16"?>',
        f'<Level width="{level_width}">',
        f'  <Camera x="2" y="0" minWidth="{to_fixed(camera_width)}" maxWidth="{to_fixed(camera_width + 5)}" />',
        "  <Birds>",
        '    <Bird type="BirdRed" />',
        "  </Birds>",
        '  <Slingshot x="-9" y="-2.5" />',
        "  <GameObjects>",
    ]
    lines.extend(_block_line(block) for block in level.blocks)
    lines += ["  </GameObjects>", "</Level>"]
    return "\n".join(lines)


@lru_cache(maxsize=2 * GRID_WIDTH * GRID_HEIGHT * len(BLOCK_SHAPES))  # every possible placed block
def _block_line(block: PlacedBlock) -> str:
    position = block_world_position(block)
    x, y = position.x, position.y
    return (
        f'    <Block type="{block.shape.sb_type}" material="wood" x="{to_fixed(x)}" y="{to_fixed(y)}" '
        f'rotation="{block.shape.rotation_deg}" />'
    )


@dataclass(frozen=True, slots=True)
class LevelObject:
    """One object of a level's ``GameObjects`` as written in the file."""

    kind: str  # element name: Block, Pig, TNT, Platform
    type: str
    material: str
    x: Decimal
    y: Decimal
    rotation_deg: Decimal


@dataclass(frozen=True, slots=True)
class LevelFile:
    """The parts of a level file podium uses."""

    width: int
    objects: tuple[LevelObject, ...]


class LevelParseError(ValueError):
    """A level file that cannot be read as a Science Birds level; the message says what is wrong."""


_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    return data.decode("utf-8-sig")


def _number(element: ElementTree.Element, name: str, default: str | None = None) -> Decimal:
    text = element.get(name, default)
    if text is None:
        raise LevelParseError(f"<{element.tag}> has no {name} attribute")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise LevelParseError(f"<{element.tag}> attribute {name}={text!r} is not a number") from None
    if not value.is_finite():
        raise LevelParseError(f"<{element.tag}> attribute {name}={text!r} is not finite")
    return value


def parse_level(data: bytes) -> LevelFile:
    """Parse level bytes (UTF-8 that declares utf-16, real UTF-16, with or without BOM)."""
    try:
        text = _decode(data)
    except UnicodeDecodeError as exc:
        raise LevelParseError(f"not UTF-8 or UTF-16 text (bad byte at offset {exc.start})") from None
    try:
        root = ElementTree.fromstring(_DECLARATION.sub("", text, count=1))
    except ElementTree.ParseError as exc:
        raise LevelParseError(f"malformed XML: {exc}") from None
    if root.tag != "Level":
        raise LevelParseError(f"root element is <{root.tag}>, expected <Level>")
    width_text = root.get("width", "1")
    try:
        width = int(width_text)
    except ValueError:
        raise LevelParseError(f"<Level width={width_text!r}> is not an integer") from None
    objects = []
    game_objects = root.find("GameObjects")
    for element in game_objects if game_objects is not None else ():
        objects.append(
            LevelObject(
                kind=element.tag,
                type=element.get("type", ""),
                material=element.get("material", ""),
                x=_number(element, "x"),
                y=_number(element, "y"),
                rotation_deg=_number(element, "rotation", "0"),
            )
        )
    return LevelFile(width, tuple(objects))


def drops_from_level(level: LevelFile) -> list[tuple[str, int]]:
    """Recover a drop sequence (block code, slot) that rebuilds ``level``'s blocks, in file order.

    Inverts ``block_world_position`` for each converter-made block; used to turn published levels back into
    responses. Raises ``LevelParseError`` for an object the converter could not have written.
    """
    drops = []
    for obj in level.objects:
        if obj.kind != "Block":
            raise LevelParseError(f"<{obj.kind}> cannot come from a drop sequence")
        if obj.type == "SquareTiny":
            code, offset = "b11", Decimal("2.12005")
        elif obj.type == "RectSmall" and obj.rotation_deg == 90:
            code, offset = "b13", Decimal("2.12005")
        elif obj.type == "RectSmall" and obj.rotation_deg == 0:
            code, offset = "b31", Decimal("2.36015") - CELL_SIZE
        else:
            raise LevelParseError(f"block {obj.type} rotated {obj.rotation_deg} is not a drop-language block")
        column = (obj.x - offset) / CELL_SIZE
        if column != column.to_integral_value():
            raise LevelParseError(f"block at x={obj.x} is not on the 0.2401 grid")
        drops.append((code, int(column)))
    return drops
