"""The evaluator's black-and-white level image (``docs/rules/pcg.md`` §5.4), from final block poses.

Framing as Unity's similarity export: the union of the blocks' collider AABBs is fitted, longer side first, into
an 824×824 render (s = 824 / longer side pixels per unit, box centre at the render's centre), pasted at (100, 100)
on a white 1024×1024 canvas. Each block is drawn as its OCR sprite: a black rectangle 0.01 larger than the
collider on every side, rotated with the block, sampled at pixel centres (no anti-aliasing), clipped to the
render window. A level with no block left gives a white image, as Unity's does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from podium.tracks.pcg.official.png import encode_gray_as_rgba_png
from podium.tracks.pcg.rules.physics import OCR_SPRITE_PAD_M, BlockPose

IMAGE_SIZE_PX = 1024
RENDER_SIZE_PX = 824
MARGIN_PX = 100


def _corners(pose: BlockPose, half_w: float, half_h: float) -> list[tuple[float, float]]:
    c, s = math.cos(pose.angle_rad), math.sin(pose.angle_rad)
    return [
        (pose.x + dx * c - dy * s, pose.y + dx * s + dy * c) for dx in (-half_w, half_w) for dy in (-half_h, half_h)
    ]


def render_level(poses: Sequence[BlockPose]) -> npt.NDArray[np.uint8]:
    """The level image as a 1024×1024 array of gray levels: 0 for block, 255 for background."""
    image = np.full((IMAGE_SIZE_PX, IMAGE_SIZE_PX), 255, dtype=np.uint8)
    corners = [p for pose in poses for p in _corners(pose, pose.geometry.width / 2, pose.geometry.height / 2)]
    if not corners:
        return image
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    min_x, max_x, min_y, max_y = min(xs), max(xs), min(ys), max(ys)
    longer = max(max_x - min_x, max_y - min_y)
    if longer <= 0:
        return image
    scale = RENDER_SIZE_PX / longer
    centre_x, centre_y = (min_x + max_x) / 2, (min_y + max_y) / 2
    half_image = IMAGE_SIZE_PX / 2
    low, high = MARGIN_PX, MARGIN_PX + RENDER_SIZE_PX  # the render window, [100, 924)
    for pose in poses:
        half_w = pose.geometry.width / 2 + OCR_SPRITE_PAD_M
        half_h = pose.geometry.height / 2 + OCR_SPRITE_PAD_M
        sprite = _corners(pose, half_w, half_h)
        # pixel column i has its centre at world x = centre_x + (i + 0.5 - 512) / scale; rows grow downwards
        col_lo = max(low, math.floor((min(p[0] for p in sprite) - centre_x) * scale + half_image - 0.5))
        col_hi = min(high, math.ceil((max(p[0] for p in sprite) - centre_x) * scale + half_image + 0.5))
        row_lo = max(low, math.floor((centre_y - max(p[1] for p in sprite)) * scale + half_image - 0.5))
        row_hi = min(high, math.ceil((centre_y - min(p[1] for p in sprite)) * scale + half_image + 0.5))
        if col_lo >= col_hi or row_lo >= row_hi:
            continue
        world_x = centre_x + (np.arange(col_lo, col_hi) + 0.5 - half_image) / scale - pose.x
        world_y = centre_y - (np.arange(row_lo, row_hi) + 0.5 - half_image) / scale - pose.y
        c, s = math.cos(pose.angle_rad), math.sin(pose.angle_rad)
        along = world_x[None, :] * c + world_y[:, None] * s
        across = -world_x[None, :] * s + world_y[:, None] * c
        inside = (np.abs(along) <= half_w) & (np.abs(across) <= half_h)
        image[row_lo:row_hi, col_lo:col_hi][inside] = 0
    return image


def level_png(poses: Sequence[BlockPose]) -> bytes:
    """The level image as the evaluator's PNG file bytes (1024×1024 RGBA, pure black and white)."""
    return encode_gray_as_rgba_png(render_level(poses))
