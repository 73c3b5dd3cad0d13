"""Train the embedded letter classifier on synthetic block letters; export its weights for NumPy inference.

From the repository root, with the ``hf`` extra: ``python -m tools.pcg_classifier.train_classifier --out
src/podium/tracks/pcg/classifiers/letter_cnn.npz --report tools/pcg_classifier/letter_cnn.json``
(``--seed``, ``--quick`` for a tiny smoke run, ``--augment`` for skeleton warps and more small grids,
``--keep-strokes`` for a drop-rule rewrite of the training images that never removes a cell,
``--builder-per-letter N`` for the images per letter drawn from the builder templates of ``builder_letters``,
``--design-sets KEYS`` (``--design-per-letter N``) for images varied from hand-designed block-letter pictures,
``--members N`` for an ensemble of N networks from seeds ``--seed``, ``--seed`` + 1, … in one file,
``--ensemble A,B`` to join trained weights files into one, ``--teacher W`` to learn also from the probabilities
of the weights ``W``, ``--device cpu|cuda``, ``--evaluate-only`` to re-measure existing weights). Needs torch (the
``hf`` extra) and the fonts that ``scripts/install-fonts.sh`` installs; writes the weights and, beside them, a
JSON with the evaluation figures.
The defaults reproduce the shipped model: two networks (seeds 0 and 1), each on fonts, 1,000 builder templates and
500 variants per letter of the first eight sets' hand-designed pictures (see docs/pcg-classifier-model-card.md).

Data (everything from one seed): the capitals A–Z of every usable font under the system font folders, grouped
into families (clones of one design count as one family). Each glyph is thinned to its skeleton (Zhang–Suen)
and redrawn on a coarse grid of 5–16 rows (small grids more often) with strokes 1–3 cells wide (horizontal and
vertical strokes may differ) and a width stretch of 0.45–1.7; some grids are then made "droppable" as a builder
in the drop language must (unsupported cells bridged by a bar, left out, dropped or replaced by a pillar). Each
cell becomes a block (SquareTiny, or runs merged into RectSmall b31/b13) at the converter's 0.2401 spacing, with the
evaluator's collider sizes. Defects imitate the physics: settled (slightly compressed) stacks, jitter,
tilted blocks, missing blocks, partial collapses (a few top blocks displaced and rotated downward), debris on the
ground, leaning. Images are drawn by podium's own ``render_level`` (the export's exact framing) and shrunk by the
classifier's ``preprocess``. Whole font families (``HELD_OUT_FAMILIES``) are kept out of training to test on.
Letters drawn from ``builder_letters``' stroke templates (the shapes drop-language builders make; 1,000 per
letter by default, ``--builder-per-letter``) join the fonts' through the same drop-rule rewrite, blocks, defects
and renderer. With ``--design-sets``, variants of the named sets' hand-designed pictures (``design_variants``)
join them too; those sets then train the model and no longer measure it (the JSON marks them ``seen_in_training``).

Evaluation: (a) top-1 on the held-out families in block style: all images, clean ones, and the letters as drawn
(clean and not changed by the drop rule's rewrite, which can remove or move strokes; every image records whether
it was), or a note that no held-out font was found; (b) top-1 on the nine sets of hand-designed block letters
(``data/block_letters/first.txt`` ... ``ninth.txt``, keys ``block_letters``, ``block_letters_second_set`` ...
``block_letters_ninth_set``), built with the converter, simulated with podium's physics and rendered as the
evaluator would.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from podium.tracks.pcg.classifiers import LETTERS
from podium.tracks.pcg.classifiers.embedded import (
    FORMAT_VERSION,
    INPUT_SIZE,
    EmbeddedClassifier,
    feature_map_side,
    preprocess,
    weights_identity,
)
from podium.tracks.pcg.official.levelxml import level_xml_text, parse_level
from podium.tracks.pcg.rules.build import CELL_SIZE, GridLevel, drop_blocks
from podium.tracks.pcg.rules.physics import BLOCK_GEOMETRY, BlockPose, PhysicsParameters, evaluate_stability
from podium.tracks.pcg.rules.render import render_level
from tools.pcg_classifier.block_letters import block_letter_levels, picture_grid
from tools.pcg_classifier.builder_letters import builder_grid
from tools.pcg_classifier.design_variants import vary_grid
from tools.pcg_classifier.letter_sets import letter_sets

# the evaluation figures of the shipped weights (src/podium/tracks/pcg/classifiers/letter_cnn.npz)
REPORT_PATH = Path(__file__).with_name("letter_cnn.json")
FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/share/texmf/fonts/opentype"), Path("/usr/local/share/fonts"))
CELL = float(CELL_SIZE)  # the converter's grid step
SQUARE = BLOCK_GEOMETRY["SquareTiny"]
RECT = BLOCK_GEOMETRY["RectSmall"]

# The hand-designed block-letter sets, by their key in the weights' JSON (see the model card for how each was made).
BLOCK_LETTER_SETS: dict[str, Mapping[str, tuple[str, ...]]] = {
    key: letter_set.designs for key, letter_set in letter_sets().items()
}  # read from data/block_letters/<set>.txt
# What the shipped model was trained with (the defaults of --design-sets and --members): the variants of the
# first eight sets' pictures, two networks. The ninth set judged it (model card, rule 7).
SHIPPED_DESIGN_SETS = ("block_letters", "block_letters_second_set", "block_letters_third_set",
                       "block_letters_fourth_set", "block_letters_fifth_set", "block_letters_sixth_set",
                       "block_letters_seventh_set", "block_letters_eighth_set")  # fmt: skip
SHIPPED_MEMBERS = 2
# What the report says when no font of a held-out family (nor, with --quick, a second family) is installed.
NO_HELD_OUT_FONTS = "no held-out font families installed, so none was measured; scripts/install-fonts.sh installs them"
# Families never seen in training (each name groups a design and its metric clones).
HELD_OUT_FAMILIES = ("helvetica", "times", "lato", "gentium", "karla", "comfortaa", "jetbrainsmono", "cabin")
# Symbol, math-only, script and blackletter faces: their capitals are not the letters a level builder draws.
EXCLUDED = re.compile(
    r"symbol|dingbat|d050000l|math|emoji|awesome|integrals|size(one|two|three|four|five)|nonunicode|stixvariants"
    r"|^noto(sans|serif)(?!-|display|mono)|kristi|isabella|z003|chanc|chanu|chorus|blankenburg|rufscript|lobster|script|abecedario|ipa|wingding|ocrb?-?math"
)
# Designs sold under several names (metric clones) count as one family.
CLONES = (
    ("helvetica", r"^(liberationsans|arimo|nimbussans|freesans|texgyreheros|sansu|sanscu)"),
    ("times", r"^(liberationserif|tinos|nimbusroman|freeserif|texgyretermes|romau|stix|tymes)"),
    ("courier", r"^(liberationmono|cousine|nimbusmono|freemono|texgyrecursor|monou|courier)"),
    ("palatino", r"^(p052|texgyrepagella|pallu)"),
    ("bookman", r"^(urwbookman|texgyrebonum|booku)"),
    ("schoolbook", r"^(c059|texgyreschola|schou)"),
    ("avantgarde", r"^(urwgothic|texgyreadventor|gothu)"),
    ("vera", r"^(dejavu|aerial|veranda)"),
    ("computermodern", r"^(cmu|lm(roman|sans|mono))"),
    ("notosans", r"^(noto|opensans)"),
    ("libertine", r"^(linlibertine|linbiolinum)"),
    ("gentium", r"^gentium"),
    ("paratype", r"^pt[a-z]\d"),
    ("mplus", r"^mplus"),
    ("inter", r"^inter"),
    ("karla", r"^karla"),
    ("anonymous", r"^anonymous"),
    ("opendyslexic", r"^opendyslexic"),
    ("beteckna", r"^beteckna"),
    ("ebgaramond", r"^ebgaramond"),
    ("gillius", r"^gillius"),
    ("romande", r"^romande"),
    ("ikarius", r"^ikarius"),
    ("verana", r"^verana"),
    ("ibm3270", r"^3270"),
    ("oxygen", r"^oxygen"),
    ("uralic-api", r"^ap(i|$)"),
    ("uralic-ellen", r"^(ell|eleg)"),
    ("babel", r"^babe"),
)
STYLE_WORDS = re.compile(
    r"(bold|italic|oblique|regular|light|medium|semibold|demibold|extrabold|black|heavy|thin|book|roman|condensed"
    r"|cond|narrow|retina|hairline|extralight|demi)+$"
)

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class FontFile:
    """One font file and the family it belongs to."""

    path: Path
    family: str


def font_family(path: Path) -> str:
    """The family of a font file, from its name: clones grouped, style words dropped."""
    stem = re.sub(r"[^a-z0-9_ -]", "", path.stem.lower())
    compact = re.sub(r"[ _-]", "", stem)
    for family, pattern in CLONES:
        if re.match(pattern, compact):
            return family
    first = re.split(r"[-_]", stem)[0].replace(" ", "")
    return STYLE_WORDS.sub("", first) or first


def find_fonts(roots: Sequence[Path] = FONT_ROOTS) -> list[FontFile]:
    """Every TTF/OTF font under ``roots`` whose name is not excluded, sorted by path (one file per name)."""
    seen: set[str] = set()
    fonts = []
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in (".ttf", ".otf") and p.is_file()):
            key = path.name.lower()
            if key in seen or EXCLUDED.search(key):
                continue
            seen.add(key)
            fonts.append(FontFile(path, font_family(path)))
    return fonts


# ---------------------------------------------------------------------------------------------------------------
# Glyphs and skeletons


def zhang_suen(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Thin a binary image to a one-pixel skeleton (Zhang & Suen 1984), vectorised over the whole image."""
    image = np.pad(mask.astype(np.uint8), 1)
    while True:
        changed = False
        for step in (0, 1):
            p = image
            p2, p3, p4, p5 = p[:-2, 1:-1], p[:-2, 2:], p[1:-1, 2:], p[2:, 2:]
            p6, p7, p8, p9 = p[2:, 1:-1], p[2:, :-2], p[1:-1, :-2], p[:-2, :-2]
            ring = (p2, p3, p4, p5, p6, p7, p8, p9)
            count = sum(n.astype(np.int32) for n in ring)
            transitions = sum(((ring[i] == 0) & (ring[(i + 1) % 8] == 1)).astype(np.int32) for i in range(8))
            first, second = ((p2, p4, p6), (p4, p6, p8)) if step == 0 else ((p2, p4, p8), (p2, p6, p8))
            side = (np.prod(first, axis=0) == 0) & (np.prod(second, axis=0) == 0)
            remove = (p[1:-1, 1:-1] == 1) & (count >= 2) & (count <= 6) & (transitions == 1) & side
            if remove.any():
                image[1:-1, 1:-1][remove] = 0
                changed = True
        if not changed:
            return image[1:-1, 1:-1].astype(bool)


def _render_glyph(font: ImageFont.FreeTypeFont, char: str) -> npt.NDArray[np.bool_] | None:
    left, top, right, bottom = (int(v) for v in font.getbbox(char))
    if right <= left or bottom <= top:
        return None
    canvas = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(canvas).text((2 - left, 2 - top), char, font=font, fill=255)
    mask = np.asarray(canvas) > 127
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not len(rows):
        return None
    return mask[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


@dataclass(frozen=True, slots=True)
class Skeleton:
    """A letter's skeleton as points scaled to [0, 1] (row 0 at the top), and its ink's width/height."""

    rows: FloatArray
    cols: FloatArray
    aspect: float
    height_px: float  # the skeleton's extent in pixels (its points are one pixel apart)
    width_px: float


def font_skeletons(path: Path, size: int = 72) -> list[Skeleton] | None:
    """Skeletons of A..Z in the font at ``path``, or None when it lacks real glyphs for them."""
    try:
        font = ImageFont.truetype(str(path), size)
    except OSError:
        return None
    masks = [_render_glyph(font, char) for char in LETTERS]
    missing = _render_glyph(font, "\U0010fffd")
    if any(m is None for m in masks):
        return None
    shapes = {m.tobytes() + bytes(m.shape) for m in masks if m is not None}
    if len(shapes) < len(LETTERS) or (missing is not None and missing.tobytes() + bytes(missing.shape) in shapes):
        return None
    skeletons = []
    for mask in masks:
        assert mask is not None
        height, width = mask.shape
        if height < size // 4:  # small capitals or a symbol font
            return None
        points = np.argwhere(zhang_suen(mask))
        if len(points) < 3:
            return None
        top, left = points.min(axis=0)
        span = np.maximum(points.max(axis=0) - points.min(axis=0), 1)
        rows = ((points[:, 0] - top) / span[0]).astype(np.float32)
        cols = (
            ((points[:, 1] - left) / span[1]).astype(np.float32) if span[1] > 1 else np.zeros(len(points), np.float32)
        )
        skeletons.append(Skeleton(rows, cols, float(span[1] / span[0]), float(span[0]), float(span[1])))
    return skeletons


# ---------------------------------------------------------------------------------------------------------------
# Block style


def warp_skeleton(skeleton: Skeleton, rng: np.random.Generator) -> Skeleton:
    """A randomly distorted copy of ``skeleton``: a shape augmentation for training only.

    A near-identity linear map (slant up to ±0.25, turn up to ±4°, squeeze of either axis) and a smooth wave
    along each axis move the points, which are then rescaled to [0, 1]; the extents follow, so the aspect
    and the pixel sizes that grid coverage uses stay consistent. Fonts alone give too few shapes (the scratch
    prototype found breadth mattered more than quantity), and builders draw slanted and uneven strokes.
    """
    y = (1.0 - skeleton.rows) * skeleton.height_px  # up is positive
    x = skeleton.cols * skeleton.width_px
    turn = rng.uniform(-0.07, 0.07)
    slant = rng.uniform(-0.25, 0.25)
    matrix = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]]) @ np.array(
        [[rng.uniform(0.85, 1.15), slant], [0.0, rng.uniform(0.85, 1.15)]]
    )
    size = max(skeleton.height_px, skeleton.width_px)
    wx, wy = rng.uniform(-0.05, 0.05, size=2) * size
    px, py = rng.uniform(0, 2 * math.pi, size=2)
    new_x = matrix[0, 0] * x + matrix[0, 1] * y
    new_y = matrix[1, 0] * x + matrix[1, 1] * y
    new_x = new_x + wx * np.sin(2 * math.pi * y / size + px)
    new_y = new_y + wy * np.sin(2 * math.pi * x / size + py)
    height = max(float(new_y.max() - new_y.min()), 1.0)
    width = max(float(new_x.max() - new_x.min()), 1.0)
    rows = ((new_y.max() - new_y) / height).astype(np.float32)
    cols = ((new_x - new_x.min()) / width).astype(np.float32)
    return Skeleton(rows, cols, width / height, height, width)


def grid_rows(rng: np.random.Generator, *, augment: bool) -> int:
    """How many grid rows a letter gets.

    Plain (the shipped model's training data and the held-out evaluation): 5–16 rows, small grids more often.
    With ``augment``: the same mixed with 4–7-row grids two times in five, the sizes hand-built block letters
    and drop-language builders use most.
    """
    if augment and rng.random() < 0.4:
        return int(rng.integers(4, 8))
    return 5 + int(12 * rng.random() ** 1.5)


@dataclass(frozen=True, slots=True)
class LetterGrid:
    """A letter drawn on the block grid (row 0 at the bottom) and whether the drop rule's rewrite changed it."""

    cells: npt.NDArray[np.bool_]
    drop_rewritten: bool


def skeleton_grid(
    skeleton: Skeleton, rng: np.random.Generator, *, augment: bool = False, keep_strokes: bool = False
) -> LetterGrid:
    """Redraw a skeleton on a coarse grid (row 0 at the bottom): 4–16 rows, strokes 1–3 cells, stretched.

    Horizontal and vertical strokes may differ in width (a builder's stem two blocks wide under one-block bars);
    strokes never fill the letter's inner space entirely (at least 5 free rows and, for letters that are not
    narrow, 3 free columns for the skeleton). With ``augment`` the skeleton is first warped
    (``warp_skeleton``) and rows are drawn as ``grid_rows`` says; without it (the default) letters are drawn
    exactly as for the shipped model and its evaluation, so figures stay comparable. ``keep_strokes`` is passed
    to ``make_droppable``.
    """
    if augment and rng.random() < 0.6:
        skeleton = warp_skeleton(skeleton, rng)
    rows = grid_rows(rng, augment=augment)
    stroke_y = 1 if rows < 8 else int(rng.choice([1, 1, 2])) if rows < 12 else int(rng.choice([1, 1, 2, 2, 3]))
    stroke_y = max(1, min(stroke_y, rows // 5))
    stretch = math.exp(rng.uniform(math.log(0.45), math.log(1.7)))
    cols = round(rows * max(skeleton.aspect, 0.05) * stretch)
    stroke_x = stroke_y if rng.random() < 0.6 else int(rng.integers(1, 4))
    stroke_x = max(1, min(stroke_x, cols // 3))
    if skeleton.aspect > 0.3:  # room between two stems
        cols = max(cols, 2 * stroke_x + 1)
    cols = int(np.clip(cols, stroke_x, 20))
    inner_rows, inner_cols = rows - stroke_y + 1, cols - stroke_x + 1
    core = np.zeros((inner_rows, inner_cols), dtype=bool)
    if rng.random() < (0.8 if rows <= 8 else 0.4):
        # a cell is drawn when enough of the skeleton runs through it: clean letters on small grids
        r = np.clip((skeleton.rows * inner_rows).astype(np.int64), 0, inner_rows - 1)
        c = np.clip((skeleton.cols * inner_cols).astype(np.int64), 0, inner_cols - 1)
        counts = np.bincount(r * inner_cols + c, minlength=inner_rows * inner_cols).reshape(inner_rows, inner_cols)
        side = min(skeleton.height_px / inner_rows, skeleton.width_px / inner_cols if inner_cols > 1 else math.inf)
        core = counts >= rng.uniform(0.3, 0.6) * side
        if not core.any():
            core = counts == counts.max()
    else:  # every cell the skeleton touches, the grid shifted by up to a third of a cell
        r = np.rint(skeleton.rows * (inner_rows - 1) + rng.uniform(-0.35, 0.35)).astype(np.int64)
        c = np.rint(skeleton.cols * (inner_cols - 1) + rng.uniform(-0.35, 0.35)).astype(np.int64)
        core[np.clip(r, 0, inner_rows - 1), np.clip(c, 0, inner_cols - 1)] = True
    if rng.random() < 0.5:  # close diagonal steps with a cell, as a builder stacking blocks would
        below = rng.random() < 0.5
        down = core[:-1, :-1] & core[1:, 1:] & ~core[1:, :-1] & ~core[:-1, 1:]
        up = core[1:, :-1] & core[:-1, 1:] & ~core[:-1, :-1] & ~core[1:, 1:]
        if below:
            core[1:, :-1] |= down
            core[1:, 1:] |= up
        else:
            core[:-1, 1:] |= down
            core[:-1, :-1] |= up
    grid = np.zeros((rows, cols), dtype=bool)
    for dy in range(stroke_y):
        for dx in range(stroke_x):
            grid[dy : dy + inner_rows, dx : dx + inner_cols] |= core
    grid = grid[::-1]  # row 0 at the bottom
    if rng.random() < 0.3:
        droppable = make_droppable(grid, rng, keep_strokes=keep_strokes)
        if droppable.sum() >= 3:
            return LetterGrid(droppable, not np.array_equal(droppable, grid))
    return LetterGrid(grid, False)


def make_droppable(
    grid: npt.NDArray[np.bool_], rng: np.random.Generator, *, keep_strokes: bool = False
) -> npt.NDArray[np.bool_]:
    """Give every cell support as a builder in the drop language must (row 0 at the bottom).

    Bottom-up, a cell with nothing below is bridged by a three-cell bar resting on a neighbour's support where
    one is in reach, or else left out, let fall onto what is below it, or replaced by a pillar beneath it. Leaving out a
    cell also takes the support from what is above it, so the rewrite can remove whole strokes; with
    ``keep_strokes`` (a training option) an unbridged cell is always kept and propped up by a pillar instead.
    """
    g = grid.copy()
    rows, cols = g.shape
    bridge_share = rng.uniform(0.4, 1.0)
    for r in range(1, rows):
        bridged = np.zeros(cols, dtype=bool)
        for c in np.flatnonzero(g[r] & ~g[r - 1]):
            if bridged[c]:
                continue
            centres = [k for k in (c, c - 1, c + 1) if 1 <= k <= cols - 2 and g[r - 1, k - 1 : k + 2].any()]
            if centres and rng.random() < bridge_share:
                k = min(centres, key=lambda k: (not g[r - 1, k], abs(k - c)))
                g[r, k - 1 : k + 2] = True
                bridged[k - 1 : k + 2] = True
                continue
            choice = rng.random()  # drawn with keep_strokes too, so the other options' draws stay the same
            if keep_strokes:
                g[_support_below(g, r, c) + 1 : r, c] = True  # a pillar under the kept cell
                continue
            g[r, c] = False
            if choice < 0.55:  # left out
                continue
            support = _support_below(g, r, c)
            if choice < 0.7:  # replaced by a pillar
                g[support + 1 : r, c] = True
            else:  # fallen onto what is below it
                g[support + 1, c] = True
    return g


def _support_below(g: npt.NDArray[np.bool_], r: int, c: int) -> int:
    """The highest occupied row below ``(r, c)``, or -1 (the ground)."""
    below = r - 1
    while below >= 0 and not g[below, c]:
        below -= 1
    return below


def grid_blocks(grid: npt.NDArray[np.bool_], rng: np.random.Generator) -> list[tuple[str, float, float]]:
    """Cover the grid's cells with blocks: (kind, centre column, centre row); runs of three may merge."""
    merge = rng.uniform(0.0, 0.9)
    free = grid.copy()
    blocks = []
    for row, col in zip(*np.nonzero(grid), strict=True):
        if not free[row, col]:
            continue
        horizontal = col + 2 < grid.shape[1] and free[row, col : col + 3].all()
        vertical = row + 2 < grid.shape[0] and free[row : row + 3, col].all()
        if horizontal and (not vertical or rng.random() < 0.5) and rng.random() < merge:
            free[row, col : col + 3] = False
            blocks.append(("b31", col + 1.0, float(row)))
        elif vertical and rng.random() < merge:
            free[row : row + 3, col] = False
            blocks.append(("b13", float(col), row + 1.0))
        else:
            free[row, col] = False
            blocks.append(("b11", float(col), float(row)))
    return blocks


def block_poses(blocks: list[tuple[str, float, float]], rng: np.random.Generator, *, defects: bool) -> list[BlockPose]:
    """World poses of grid blocks, with the physics' marks when ``defects``."""
    settle = rng.uniform(0.955, 1.0) if defects else 1.0  # stacks of 0.21 colliders settle below the 0.2401 step
    poses = []
    for kind, col, row in blocks:
        geometry = SQUARE if kind == "b11" else RECT
        angle = math.pi / 2 if kind == "b13" else 0.0
        poses.append(BlockPose(col * CELL, row * CELL * settle, angle, geometry))
    if not defects or not poses:
        return poses
    jitter = rng.uniform(0.0, 0.015)
    wobble = rng.uniform(0.0, math.radians(3))
    tilt_rate = rng.uniform(0.0, 0.08) if rng.random() < 0.5 else 0.0
    missing_rate = rng.uniform(0.0, 0.08) if rng.random() < 0.5 else 0.0
    shear = rng.uniform(-0.12, 0.12) if rng.random() < 0.2 else 0.0
    changed = []
    for pose in poses:
        if rng.random() < missing_rate and len(poses) > 3:
            continue
        angle = pose.angle_rad + rng.normal(0.0, wobble) + math.atan(shear)
        if rng.random() < tilt_rate:
            angle += rng.uniform(-0.6, 0.6)
        x = pose.x + rng.normal(0.0, jitter) + shear * pose.y
        changed.append(BlockPose(x, pose.y + rng.normal(0.0, jitter), angle, pose.geometry))
    poses = changed
    if rng.random() < 0.35 and len(poses) >= 6:  # a partial collapse: a few top blocks fall and turn
        heights = np.array([p.y for p in poses])
        order = np.argsort(-heights)
        count = int(rng.integers(1, max(2, len(poses) // 5) + 1))
        for index in order[:count]:
            pose = poses[index]
            drop = rng.uniform(0.2, 1.0) * (pose.y - heights.min())
            angle = float(rng.choice([0.0, math.pi / 2, rng.uniform(-math.pi / 2, math.pi / 2)]))
            poses[index] = BlockPose(pose.x + rng.uniform(-0.4, 0.4), pose.y - drop, angle, pose.geometry)
    if rng.random() < 0.12:  # debris lying on the ground beside the letter
        xs = [p.x for p in poses]
        bottom = min(p.y for p in poses)
        for _ in range(int(rng.integers(1, 3))):
            side = min(xs) - rng.uniform(0.3, 1.0) if rng.random() < 0.5 else max(xs) + rng.uniform(0.3, 1.0)
            geometry = SQUARE if rng.random() < 0.5 else RECT
            poses.append(BlockPose(side, bottom, float(rng.uniform(-0.2, 0.2)), geometry))
    if rng.random() < 0.2:  # the whole structure turned a little
        turn = rng.uniform(-0.07, 0.07)
        c, s = math.cos(turn), math.sin(turn)
        poses = [BlockPose(p.x * c - p.y * s, p.x * s + p.y * c, p.angle_rad + turn, p.geometry) for p in poses]
    return poses


@dataclass(frozen=True, slots=True)
class LetterImage:
    """One synthetic image (preprocessed), its letter's grid rows, and whether the drop rule's rewrite changed it."""

    image: FloatArray
    rows: int
    drop_rewritten: bool


def block_letter_image(
    skeleton: Skeleton,
    rng: np.random.Generator,
    *,
    defects: bool,
    augment: bool = False,
    keep_strokes: bool = False,
) -> LetterImage:
    """One synthetic image: a skeleton in block style, rendered and preprocessed."""
    grid = skeleton_grid(skeleton, rng, augment=augment, keep_strokes=keep_strokes)
    return LetterImage(grid_image(grid.cells, rng, defects=defects), grid.cells.shape[0], grid.drop_rewritten)


def grid_image(grid: npt.NDArray[np.bool_], rng: np.random.Generator, *, defects: bool) -> FloatArray:
    """A letter grid as blocks (with the physics' marks when ``defects``), rendered and preprocessed."""
    return preprocess(render_level(block_poses(grid_blocks(grid, rng), rng, defects=defects)))


# ---------------------------------------------------------------------------------------------------------------
# Data sets


@dataclass(frozen=True, slots=True)
class FontJob:
    """Images to make from one font: how many per letter, the share with defects, the seed, augmentation."""

    index: int
    path: str
    per_letter: int
    defect_share: float
    seed: int
    augment: bool = False  # skeleton warps and more small grids (see ``skeleton_grid``)
    keep_strokes: bool = False  # the drop-rule rewrite never removes a cell (see ``make_droppable``)


@dataclass
class DataSet:
    """Preprocessed images, their letters, which have defects, their grid rows, the fonts used, drop rewrites."""

    images: npt.NDArray[np.float16]
    labels: npt.NDArray[np.int64]
    defects: npt.NDArray[np.bool_]
    rows: npt.NDArray[np.int64]
    fonts: list[str]
    drop_rewritten: npt.NDArray[np.bool_]


def _data_set(samples: list[tuple[int, bool, LetterImage]], sources: list[str]) -> DataSet:
    """(label, with defects, image) samples as a ``DataSet`` made from ``sources``."""
    images = [letter.image.astype(np.float16) for _, _, letter in samples]
    return DataSet(
        np.stack(images) if images else np.zeros((0, INPUT_SIZE, INPUT_SIZE), np.float16),
        np.asarray([label for label, _, _ in samples], np.int64),
        np.asarray([defective for _, defective, _ in samples], bool),
        np.asarray([letter.rows for _, _, letter in samples], np.int64),
        sources,
        np.asarray([letter.drop_rewritten for _, _, letter in samples], bool),
    )


def make_font_images(job: FontJob) -> DataSet:
    """The images of one font (an empty set when the font is unusable)."""
    skeletons = font_skeletons(Path(job.path))
    if skeletons is None:
        return _data_set([], [])
    samples = []
    for label, skeleton in enumerate(skeletons):
        rng = np.random.default_rng([job.seed, job.index, label])
        for _ in range(job.per_letter):
            defective = bool(rng.random() < job.defect_share)
            letter = block_letter_image(
                skeleton, rng, defects=defective, augment=job.augment, keep_strokes=job.keep_strokes
            )
            samples.append((label, defective, letter))
    return _data_set(samples, [job.path])


@dataclass(frozen=True, slots=True)
class BuilderJob:
    """Images of the builder templates (``builder_letters``): how many per letter, the share with defects, seed."""

    index: int
    per_letter: int
    defect_share: float
    seed: int


def make_builder_images(job: BuilderJob) -> DataSet:
    """Letters drawn from the builder templates, through the same blocks, defects and renderer as fonts."""
    samples = []
    for label in range(len(LETTERS)):
        rng = np.random.default_rng([job.seed, 1 << 20, job.index, label])  # apart from every font's stream
        for _ in range(job.per_letter):
            defective = bool(rng.random() < job.defect_share)
            drawn = builder_grid(label, rng)
            grid = make_droppable(drawn, rng, keep_strokes=bool(rng.random() < 0.5)) if rng.random() < 0.3 else drawn
            image = grid_image(grid, rng, defects=defective)
            samples.append((label, defective, LetterImage(image, grid.shape[0], not np.array_equal(grid, drawn))))
    return _data_set(samples, [f"builder templates, part {job.index}"])


@dataclass(frozen=True, slots=True)
class DesignJob:
    """Images varied (``design_variants``) from the hand-designed pictures of ``sets`` (``BLOCK_LETTER_SETS`` keys)."""

    index: int
    sets: tuple[str, ...]
    per_letter: int
    defect_share: float
    seed: int


def make_design_images(job: DesignJob) -> DataSet:
    """Variants of the designed pictures, each letter's pictures in turn, through the same blocks and renderer."""
    samples = []
    for label, letter in enumerate(LETTERS):
        pictures = [picture_grid(p) for key in job.sets for p in BLOCK_LETTER_SETS[key].get(letter, ())]
        rng = np.random.default_rng([job.seed, 2 << 20, job.index, label])  # apart from the fonts' and templates'
        for k in range(job.per_letter if pictures else 0):
            defective = bool(rng.random() < job.defect_share)
            grid = vary_grid(pictures[(job.index + k) % len(pictures)], rng)
            samples.append((label, defective, LetterImage(grid_image(grid, rng, defects=defective), len(grid), False)))
    return _data_set(samples, [f"designs of {', '.join(job.sets)}, part {job.index}"])


def make_data_set(jobs: Sequence[FontJob | BuilderJob | DesignJob], workers: int) -> DataSet:
    """Run ``jobs`` (in ``workers`` processes when more than one) and join their images in job order."""
    if workers > 1:
        with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
            parts = list(pool.map(_make_images, jobs, chunksize=1))  # map keeps the jobs' order
    else:
        parts = [_make_images(job) for job in jobs]
    return DataSet(
        np.concatenate([part.images for part in parts]),
        np.concatenate([part.labels for part in parts]),
        np.concatenate([part.defects for part in parts]),
        np.concatenate([part.rows for part in parts]),
        [font for part in parts for font in part.fonts],
        np.concatenate([part.drop_rewritten for part in parts]),
    )


def _make_images(job: FontJob | BuilderJob | DesignJob) -> DataSet:
    if isinstance(job, DesignJob):
        return make_design_images(job)
    return make_font_images(job) if isinstance(job, FontJob) else make_builder_images(job)


def spread(items: list[FontFile], count: int) -> list[FontFile]:
    """At most ``count`` items spread evenly over ``items`` (a family's styles, in name order)."""
    if len(items) <= count:
        return items
    return [items[round(i * (len(items) - 1) / (count - 1))] for i in range(count)] if count > 1 else items[:1]


# ---------------------------------------------------------------------------------------------------------------
# The model (torch only here; inference is NumPy in classifiers/embedded.py)


@dataclass(frozen=True, slots=True)
class Architecture:
    """Channels of the 3×3 convolutions, where 2×2 max pools follow, and the hidden layer's width."""

    channels: tuple[int, ...] = (16, 32, 64, 128, 128)
    strides: tuple[int, ...] = (2, 1, 1, 1, 1)
    pool_after: tuple[bool, ...] = (False, True, True, True, False)
    hidden: int = 128

    @property
    def final_size(self) -> int:
        """Side of the last feature map."""
        return feature_map_side(self.strides, self.pool_after)


def torch_model(arch: Architecture) -> Any:
    """The network in torch: conv (no bias) + batch norm + ReLU (+ max pool) blocks, hidden linear + ReLU, output."""
    import torch
    from torch import nn

    class LetterNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers: list[nn.Module] = []
            previous = 1
            for channels, stride, pool in zip(arch.channels, arch.strides, arch.pool_after, strict=True):
                conv = nn.Conv2d(previous, channels, 3, stride=stride, padding=1, bias=False)
                layers += [conv, nn.BatchNorm2d(channels)]
                layers.append(nn.ReLU(inplace=True))
                if pool:
                    layers.append(nn.MaxPool2d(2))
                previous = channels
            self.features = nn.Sequential(*layers)
            self.hidden = nn.Linear(previous * arch.final_size**2, arch.hidden)
            self.dropout = nn.Dropout(0.25)
            self.out = nn.Linear(arch.hidden, len(LETTERS))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            features = self.features(x[:, None]).flatten(1)
            return self.out(self.dropout(torch.relu(self.hidden(features))))  # type: ignore[no-any-return]

    return LetterNet()


def export_weights(model: Any, arch: Architecture, path: Path, extra: dict[str, Any] | None = None) -> None:
    """Write ``model`` (eval mode) as the npz ``EmbeddedClassifier`` reads: batch norm folded into the convolutions."""
    import torch

    arrays: dict[str, npt.NDArray[np.float32]] = {}
    convs = [m for m in model.features if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.features if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for index, (conv, norm) in enumerate(zip(convs, norms, strict=True)):
            mean, var = norm.running_mean, norm.running_var
            assert mean is not None and var is not None
            scale = norm.weight / torch.sqrt(var + norm.eps)
            arrays[f"conv{index}.weight"] = (conv.weight * scale[:, None, None, None]).numpy().astype(np.float32)
            arrays[f"conv{index}.bias"] = (norm.bias - mean * scale).numpy().astype(np.float32)
        for name in ("hidden", "out"):
            layer = getattr(model, name)
            arrays[f"{name}.weight"] = layer.weight.numpy().astype(np.float32)
            arrays[f"{name}.bias"] = layer.bias.numpy().astype(np.float32)
    spec = {
        "format": FORMAT_VERSION,
        "input_size": INPUT_SIZE,
        "strides": list(arch.strides),
        "pool_after": list(arch.pool_after),
        **(extra or {}),
    }
    _save_weights(path, spec, arrays)


def combine_weights(members: Sequence[Path], path: Path) -> None:
    """Write the networks of the weights files ``members`` as one ensemble file (see ``embedded.load_networks``)."""
    arrays: dict[str, npt.NDArray[np.generic]] = {}
    for index, member in enumerate(members):
        with np.load(member, allow_pickle=False) as archive:
            if "members" in json.loads(str(archive["spec"])):
                raise ValueError(f"{member} is already an ensemble: name its member files instead")
            arrays.update({f"m{index}.{key}": archive[key] for key in archive.files})
    spec = {"format": FORMAT_VERSION, "input_size": INPUT_SIZE, "members": len(members)}
    _save_weights(path, spec, arrays)


def _save_weights(path: Path, spec: dict[str, Any], arrays: Mapping[str, npt.NDArray[np.generic]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp.npz")
    np.savez_compressed(temporary, spec=np.array(json.dumps(spec, sort_keys=True)), **arrays)
    os.replace(temporary, path)


def _batches(count: int, size: int, rng: np.random.Generator) -> Iterator[npt.NDArray[np.int64]]:
    order = rng.permutation(count)
    for start in range(0, count - size + 1, size):
        yield order[start : start + size]


def train(
    data: DataSet,
    arch: Architecture,
    *,
    epochs: int,
    seed: int,
    batch_size: int,
    device: str = "cpu",
    log: Any,
    teacher: FloatArray | None = None,
) -> Any:
    """Train with AdamW and a one-cycle learning rate on ``device``; returns the model on the CPU in eval mode.

    With ``teacher`` (a teacher model's probabilities for each training image) the loss is half the cross-entropy
    against the true letters and half the cross-entropy against those probabilities (distillation).

    Deterministic from ``seed`` as far as torch allows: the initial weights, the batch order and dropout come
    from the seed and deterministic kernels are requested; results can still differ in the last bits between
    machines, thread counts and torch versions (and between CPU and GPU).
    """
    import torch

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    model = torch_model(arch).to(device=device, memory_format=torch.channels_last)
    images = torch.from_numpy(data.images).to(device)  # float16 keeps a large set small (inputs are 0..1)
    labels = torch.from_numpy(data.labels).to(device)
    soft_targets = None if teacher is None else torch.from_numpy(teacher).to(device)
    steps_per_epoch = max(1, len(images) // batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=3e-3, total_steps=epochs * steps_per_epoch, pct_start=0.15
    )
    rng = np.random.default_rng(seed)
    loss_function = torch.nn.CrossEntropyLoss()  # no label smoothing: the probabilities are used as scores
    for epoch in range(epochs):
        model.train()
        started = time.perf_counter()
        total = torch.zeros((), device=device)
        correct = torch.zeros((), dtype=torch.int64, device=device)
        seen = 0
        for batch in _batches(len(images), min(batch_size, len(images)), rng):
            index = torch.from_numpy(batch).to(device)
            x, y = images[index].float(), labels[index]
            logits = model(x)
            loss = loss_function(logits, y)
            if soft_targets is not None:
                soft_loss = -(soft_targets[index] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
                loss = 0.5 * loss + 0.5 * soft_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.detach() * len(batch)  # summed on the device: no synchronisation per step
            correct += (logits.argmax(1) == y).sum()
            seen += len(batch)
        log(
            f"epoch {epoch + 1}/{epochs}: loss {float(total) / max(seen, 1):.4f},"
            f" train top-1 {int(correct) / max(seen, 1):.4f} ({time.perf_counter() - started:.0f} s)"
        )
    return model.cpu().eval()


# ---------------------------------------------------------------------------------------------------------------
# Evaluation


def top1(predicted: npt.NDArray[np.int64], labels: npt.NDArray[np.int64]) -> float:
    """Share of correct predictions."""
    return float((predicted == labels).mean()) if len(labels) else math.nan


def confusions(predicted: npt.NDArray[np.int64], labels: npt.NDArray[np.int64]) -> dict[str, dict[str, int]]:
    """For each letter with errors: how often it was taken for which other letter."""
    errors: dict[str, dict[str, int]] = {}
    for truth, guess in zip(labels.tolist(), predicted.tolist(), strict=True):
        if truth != guess:
            row = errors.setdefault(LETTERS[truth], {})
            row[LETTERS[guess]] = row.get(LETTERS[guess], 0) + 1
    return dict(sorted(errors.items()))


def held_out_data_set(fonts: Sequence[FontFile], per_letter: int, seed: int, workers: int) -> DataSet:
    """The held-out evaluation images: ``per_letter`` per font and letter, half with defects, never augmented.

    Image k of a letter depends only on (seed, font index, letter), so a smaller ``per_letter`` gives the first
    images of a larger set (the tests use this to measure a subset quickly).
    """
    jobs = [FontJob(i, str(f.path), per_letter, 0.5, seed) for i, f in enumerate(fonts)]
    return make_data_set(jobs, workers)


def held_out_report(classifier: EmbeddedClassifier, data: DataSet) -> dict[str, Any]:
    """Top-1 on the held-out images: all, clean, with defects, and clean by grid rows."""
    inputs = data.images.astype(np.float32)
    predictions = classifier.predict_arrays(inputs)
    predicted = np.asarray([int(np.argmax(p.probabilities)) for p in predictions], np.int64)

    def part(mask: npt.NDArray[np.bool_]) -> dict[str, Any]:
        return {"count": int(mask.sum()), "top1": top1(predicted[mask], data.labels[mask])}

    clean = ~data.defects
    report: dict[str, Any] = {
        "families": sorted({font_family(Path(p)) for p in data.fonts}),
        "font_files": [Path(p).name for p in data.fonts],
        "all": {**part(np.ones(len(data.labels), bool)), "errors": confusions(predicted, data.labels)},
        "clean": {**part(clean), "errors": confusions(predicted[clean], data.labels[clean])},
        "with_defects": part(data.defects),
        "clean_rows_5_6": part(clean & (data.rows <= 6)),
        "clean_rows_7_14": part(clean & (data.rows >= 7) & (data.rows <= 14)),
        "clean_rows_15_16": part(clean & (data.rows >= 15)),
        "clean_by_rows": {str(r): part(clean & (data.rows == r)) for r in sorted(set(data.rows.tolist()))},
        "with_defects_by_rows": {
            str(r): part(data.defects & (data.rows == r)) for r in sorted(set(data.rows.tolist()))
        },
    }
    # the letters as drawn: neither physics defects nor the drop rule's rewrite (see the model card)
    drawn = clean & ~data.drop_rewritten
    report.update(
        {
            "clean_as_drawn": {**part(drawn), "errors": confusions(predicted[drawn], data.labels[drawn])},
            "clean_drop_rewritten": part(clean & data.drop_rewritten),
            "clean_as_drawn_rows_5_6": part(drawn & (data.rows <= 6)),
            "clean_as_drawn_rows_7_14": part(drawn & (data.rows >= 7) & (data.rows <= 14)),
            "clean_as_drawn_rows_15_16": part(drawn & (data.rows >= 15)),
        }
    )
    return report


def block_letter_inputs(
    designs: Mapping[str, tuple[str, ...]] | None = None,
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Hand-designed block letters (default: the first set), built, simulated and rendered like the evaluator."""
    # only the first run's poses make the image, so one run per level gives the evaluator's picture
    params = dataclasses.replace(PhysicsParameters(), runs=1)
    inputs, labels = [], []
    for letter, calls in block_letter_levels(designs):
        level = drop_blocks([(kind.upper(), slot) for kind, slot in calls])
        assert isinstance(level, GridLevel), letter
        result = evaluate_stability(parse_level(level_xml_text(level).encode()), params)
        inputs.append(preprocess(render_level(result.image_poses)))
        labels.append(LETTERS.index(letter))
    return np.stack(inputs), np.asarray(labels, np.int64)


def evaluate(classifier: EmbeddedClassifier, inputs: FloatArray, labels: npt.NDArray[np.int64]) -> dict[str, Any]:
    """Top-1 and confusions of ``classifier`` on preprocessed ``inputs``."""
    predictions = classifier.predict_arrays(inputs.astype(np.float32))
    predicted = np.asarray([int(np.argmax(p.probabilities)) for p in predictions], np.int64)
    return {"count": len(labels), "top1": top1(predicted, labels), "errors": confusions(predicted, labels)}


def inference_speed(classifier: EmbeddedClassifier, repeats: int = 64) -> dict[str, float]:
    """Milliseconds per 1024×1024 RGBA image, preprocessing included: 64 images per call (16 per forward), and 1."""
    rng = np.random.default_rng(0)
    gray = np.full((1024, 1024), 255, np.uint8)
    gray[200:800, int(rng.integers(200, 400)) : 600] = 0
    image = Image.fromarray(np.dstack([gray, gray, gray, np.full_like(gray, 255)]), "RGBA")
    images = [image] * repeats
    classifier.predict(images[:2])
    started = time.perf_counter()
    classifier.predict(images)
    batched = (time.perf_counter() - started) / repeats * 1000
    started = time.perf_counter()
    for one in images[:16]:
        classifier.predict([one])
    single = (time.perf_counter() - started) / 16 * 1000
    return {"batch64_ms_per_image": round(batched, 3), "single_ms_per_image": round(single, 3)}


# ---------------------------------------------------------------------------------------------------------------
# Command


def split_fonts(
    fonts: Sequence[FontFile], max_per_family: int = 12, *, quick: bool = False
) -> tuple[list[FontFile], list[FontFile]]:
    """(training fonts, held-out fonts): whole families in ``HELD_OUT_FAMILIES`` are held out.

    At most ``max_per_family`` styles of a family are used, spread over its names. ``quick`` keeps one font of
    three families and holds out the last when none of the usual held-out families is among them.
    """
    families: dict[str, list[FontFile]] = {}
    for font in fonts:
        families.setdefault(font.family, []).append(font)
    held_out_names = set(HELD_OUT_FAMILIES)
    if quick:
        names = sorted(families, key=lambda name: (name != "vera", name))[:3]
        families = {name: spread(families[name], 1) for name in names}
        if not held_out_names & set(families):
            held_out_names = {names[-1]} if len(names) > 1 else set()
    chosen = {name: spread(fs, max_per_family) for name, fs in sorted(families.items())}
    train_fonts = [f for name, fs in chosen.items() if name not in held_out_names for f in fs]
    test_fonts = [f for name, fs in chosen.items() if name in held_out_names for f in fs]
    return train_fonts, test_fonts


def evaluation_report(
    classifier: EmbeddedClassifier, test_data: DataSet | None, log: Any, seen: Sequence[str] = ()
) -> dict[str, Any]:
    """The JSON sections ``held_out_fonts`` (a note when there is no test set), each block-letter set and ``speed``.

    Sets in ``seen`` trained the model: their figures are marked ``seen_in_training``, not a measure of it.
    """
    report: dict[str, Any] = {}
    if test_data is not None and len(test_data.labels):
        report["held_out_fonts"] = held_out_report(classifier, test_data)
        held_out = report["held_out_fonts"]
        log(f"(a) held-out fonts: top-1 {held_out['all']['top1']:.4f}, clean {held_out['clean']['top1']:.4f}")
    else:
        report["held_out_fonts"] = {"families": [], "font_files": [], "all": {"count": 0}, "note": NO_HELD_OUT_FONTS}
        log(f"(a) held-out fonts: none ({NO_HELD_OUT_FONTS})")
    for key, designs in BLOCK_LETTER_SETS.items():
        inputs, labels = block_letter_inputs(designs)
        report[key] = evaluate(classifier, inputs, labels) | {"seen_in_training": key in seen}
        seen_note = " (seen in training)" if key in seen else ""
        log(f"(b) {key}{seen_note}: top-1 {report[key]['top1']:.4f} {report[key]['errors']}")
    report["speed"] = inference_speed(classifier)
    return report


def ensemble_report(members: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The start of an ensemble's JSON from its members' own reports: their names, seeds and training.

    The sets that trained any member count as seen in training for the ensemble.
    """
    kept = ("weights", "name", "seed", "data", "model", "training")
    described = [{k: m[k] for k in kept if k in m} for m in members]
    seen = sorted({key for m in described for key in m.get("training", {}).get("design_sets", [])})
    return {"members": described, "training": {"ensemble": True, "design_sets": seen}}


def _read_json(path: Path) -> dict[str, Any]:
    """A weights file's JSON report, or nothing when it has none."""
    return json.loads(path.read_text("utf-8")) if path.is_file() else {}


def _parts(per_letter: int, parts: int = 10) -> list[int]:
    """``per_letter`` images split into ``parts`` near-equal jobs, so that the workers share them."""
    return [per_letter // parts + (i < per_letter % parts) for i in range(parts)]


def main(argv: Sequence[str] | None = None) -> int:
    """Make the data, train, export, evaluate; print progress and write the report (``<out>.json`` by default)."""
    parser = argparse.ArgumentParser(prog="python -m tools.pcg_classifier.train_classifier", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="weights file to write (.npz)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a tiny smoke run: few fonts, few images, few steps")
    parser.add_argument("--per-letter", type=int, default=None, help="training images per font and letter")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--max-fonts-per-family", type=int, default=12)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--threads", type=int, default=2, help="torch threads for training")
    parser.add_argument("--defect-share", type=float, default=0.7, help="share of training images with defects")
    parser.add_argument("--augment", action="store_true", help="warp skeletons and draw more 4-7-row grids")
    parser.add_argument(
        "--keep-strokes", action="store_true", help="training images: the drop-rule rewrite props cells, never drops"
    )
    parser.add_argument(
        "--builder-per-letter",
        type=int,
        default=1000,
        help="images per letter drawn from the builder templates (builder_letters); 0 for fonts only",
    )
    parser.add_argument(
        "--design-sets",
        default=",".join(SHIPPED_DESIGN_SETS),
        help="comma-separated block-letter sets (keys of BLOCK_LETTER_SETS) whose pictures, varied, train the model"
        " (default: the first eight; '' for none)",
    )
    parser.add_argument(
        "--design-per-letter", type=int, default=500, help="images per letter varied from the --design-sets pictures"
    )
    parser.add_argument(
        "--members",
        type=int,
        help="networks to train from seeds --seed, --seed + 1, ...; more than 1 makes an ensemble (default 2)",
    )
    parser.add_argument(
        "--teacher",
        type=Path,
        help="weights file (an ensemble, say) whose probabilities each network also learns from: half of the loss",
    )
    parser.add_argument(
        "--evaluate-only", action="store_true", help="evaluate the existing --out weights; update their JSON"
    )
    parser.add_argument(
        "--ensemble",
        default="",
        help="comma-separated weights files (each trained by this command): write them to --out as one ensemble,"
        " then evaluate it",
    )
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="where torch trains")
    parser.add_argument("--font-root", type=Path, action="append", help="font folder (repeatable; default: system)")
    parser.add_argument(
        "--report",
        type=Path,
        help="the JSON of evaluation figures to write (and, with --evaluate-only, to read; default: <out>.json)",
    )
    args = parser.parse_args(argv)
    if (args.ensemble or args.evaluate_only) and (args.members is not None or args.teacher):
        parser.error("--members and --teacher train networks; --ensemble and --evaluate-only train none")
    members = SHIPPED_MEMBERS if args.members is None else args.members
    if members < 1:
        parser.error("--members must be at least 1")
    design_sets = tuple(key for key in args.design_sets.split(",") if key)
    unknown = sorted(set(design_sets) - set(BLOCK_LETTER_SETS))

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    import torch

    torch.set_num_threads(args.threads)
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    if unknown:  # said before any data is made
        log(f"unknown --design-sets {', '.join(unknown)}: choose from {', '.join(BLOCK_LETTER_SETS)}")
        return 2
    fonts = find_fonts(args.font_root or FONT_ROOTS)
    if not fonts:
        log("no fonts found: run scripts/install-fonts.sh")
        return 2
    train_fonts, test_fonts = split_fonts(fonts, args.max_fonts_per_family, quick=args.quick)
    log(f"{len(fonts)} font files: {len(train_fonts)} to train, {len(test_fonts)} held out")
    if not test_fonts:
        log(f"no held-out font: the report says so instead of measuring them ({NO_HELD_OUT_FONTS})")
    test_per_letter = 2 if args.quick else 6
    test_data = held_out_data_set(test_fonts, test_per_letter, args.seed + 1, args.workers) if test_fonts else None
    json_path = args.report or args.out.with_suffix(".json")
    if args.ensemble:
        member_files = [Path(name) for name in args.ensemble.split(",") if name]
        combine_weights(member_files, args.out)
        log(f"wrote the {len(member_files)} networks of {', '.join(map(str, member_files))} to {args.out}")
        own = [_read_json(m.with_suffix(".json")) | {"weights": m.name} for m in member_files]  # each on itself
        report = {"weights": args.out.name} | ensemble_report(own)
    elif args.evaluate_only:
        report = {"weights": args.out.name} | _read_json(json_path)
    else:
        recipe = Recipe(
            arch=Architecture(),
            per_letter=args.per_letter or (2 if args.quick else 10),
            defect_share=args.defect_share,
            augment=args.augment,
            keep_strokes=args.keep_strokes,
            builder_per_letter=args.builder_per_letter,
            design_sets=design_sets,
            design_per_letter=args.design_per_letter if design_sets else 0,
            epochs=args.epochs or (1 if args.quick else 8),
            batch_size=32 if args.quick else 128,
            device=device,
            threads=args.threads,
            workers=args.workers,
            teacher=args.teacher,
        )
        trained = train_networks(recipe, args.seed, members, train_fonts, args.out, log)
        if trained is None:
            return 2
        report = trained | {"quick": args.quick}
    seen = report.get("training", {}).get("design_sets", [])  # what trained these weights, if the JSON says
    classifier = EmbeddedClassifier.load(args.out)
    report.update(name=classifier.name, sha256=hashlib.sha256(args.out.read_bytes()).hexdigest())
    report.update(evaluation_report(classifier, test_data, log, seen=seen))
    json_path.write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    log(f"wrote {json_path} ({classifier.name})")
    return 0


@dataclass(frozen=True, slots=True)
class Recipe:
    """How every network of one training command is made and trained (all but the seed)."""

    arch: Architecture
    per_letter: int  # training images per font and letter
    defect_share: float
    augment: bool
    keep_strokes: bool
    builder_per_letter: int
    design_sets: tuple[str, ...]
    design_per_letter: int
    epochs: int
    batch_size: int
    device: str
    threads: int
    workers: int
    teacher: Path | None = None  # weights whose probabilities the networks learn from besides the letters


def train_networks(
    recipe: Recipe, seed: int, members: int, train_fonts: Sequence[FontFile], out: Path, log: Any
) -> dict[str, Any] | None:
    """Train ``members`` networks from seeds ``seed``, ``seed`` + 1, … into ``out``; the JSON on how.

    One network is written as it is; several are trained apart (each its own data, weights and batch order) and
    written as one ensemble. None when no training font has usable capitals.
    """
    if members == 1:
        return train_network(recipe, seed, train_fonts, out, log)
    with tempfile.TemporaryDirectory() as scratch:
        paths = [Path(scratch) / f"member{index}.npz" for index in range(members)]
        described = []
        for index, path in enumerate(paths):
            member = train_network(recipe, seed + index, train_fonts, path, log)
            if member is None:
                return None
            described.append(member)
        combine_weights(paths, out)
    return {"weights": out.name} | ensemble_report(described)


def train_network(
    recipe: Recipe, seed: int, train_fonts: Sequence[FontFile], out: Path, log: Any
) -> dict[str, Any] | None:
    """Make one network's training data from ``seed``, train it and export it to ``out``; the JSON on how.

    None when no training font has usable capitals.
    """
    import torch

    started = time.perf_counter()
    share = recipe.defect_share
    font_jobs = [
        FontJob(i, str(f.path), recipe.per_letter, share, seed, recipe.augment, recipe.keep_strokes)
        for i, f in enumerate(train_fonts)
    ]
    builder_jobs = [BuilderJob(i, n, share, seed) for i, n in enumerate(_parts(recipe.builder_per_letter)) if n]
    design_shares = enumerate(_parts(recipe.design_per_letter))
    design_jobs = [DesignJob(i, recipe.design_sets, n, share, seed) for i, n in design_shares if n]
    train_data = make_data_set([*font_jobs, *builder_jobs, *design_jobs], recipe.workers)
    data_seconds = time.perf_counter() - started
    if not len(train_data.labels):
        log("none of the training fonts has usable capitals A-Z")
        return None
    log(f"made {len(train_data.labels)} training images from {len(train_data.fonts)} fonts in {data_seconds:.0f} s")

    teacher = None
    if recipe.teacher is not None:
        started = time.perf_counter()
        teacher = teacher_probabilities(EmbeddedClassifier.load(recipe.teacher), train_data.images)
        log(f"the teacher's probabilities for {len(teacher)} images in {time.perf_counter() - started:.0f} s")
    started = time.perf_counter()
    arch = recipe.arch
    model = train(
        train_data,
        arch,
        epochs=recipe.epochs,
        seed=seed,
        batch_size=recipe.batch_size,
        device=recipe.device,
        log=log,
        teacher=teacher,
    )
    train_seconds = time.perf_counter() - started
    parameters = sum(p.numel() for p in model.parameters())
    export_weights(model, arch, out, {"seed": seed})
    log(f"trained {parameters} parameters in {train_seconds:.0f} s; wrote {out}")
    return {
        "weights": out.name,
        "name": weights_identity(out),
        "seed": seed,
        "data": {
            "train_fonts": len(train_data.fonts),
            "train_families": len({font_family(Path(p)) for p in train_data.fonts}),
            "train_images": len(train_data.labels),
            "train_images_with_defects": int(train_data.defects.sum()),
            "train_font_files": [Path(p).name for p in train_data.fonts],
            "seconds_to_make": round(data_seconds, 1),
        },
        "model": {
            "architecture": {
                "channels": list(arch.channels),
                "strides": list(arch.strides),
                "pool_after": list(arch.pool_after),
                "hidden": arch.hidden,
            },
            "parameters": parameters,
            "file_bytes": out.stat().st_size,
        },
        "training": {
            "epochs": recipe.epochs,
            "batch_size": recipe.batch_size,
            "seconds": round(train_seconds, 1),
            "threads": recipe.threads,
            "device": recipe.device,
            "torch": torch.__version__,
            "images_per_font_and_letter": recipe.per_letter,
            "defect_share": recipe.defect_share,
            "augment": recipe.augment,
            "keep_strokes": recipe.keep_strokes,
            "builder_images_per_letter": sum(job.per_letter for job in builder_jobs),
            "design_sets": list(recipe.design_sets),
            "design_images_per_letter": sum(job.per_letter for job in design_jobs),
            "teacher": None if recipe.teacher is None else weights_identity(recipe.teacher),
        },
    }


def teacher_probabilities(teacher: EmbeddedClassifier, images: npt.NDArray[np.float16]) -> FloatArray:
    """The teacher's probabilities (N, 26) for preprocessed images, in batches of 16 (small is fastest)."""
    step = 16
    parts = [
        teacher.forward(images[i : i + step].astype(np.float32)).probabilities for i in range(0, len(images), step)
    ]
    return np.concatenate(parts) if parts else np.zeros((0, len(LETTERS)), np.float32)


if __name__ == "__main__":
    raise SystemExit(main())
