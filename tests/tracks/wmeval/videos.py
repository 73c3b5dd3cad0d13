"""Real videos made at run time for the wmeval tests and benchmarks (nothing committed): moving test cards."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import av
import numpy as np

from podium.tracks.wmeval.media import DEFAULT_FPS


def synthetic_frames(count: int, width: int, height: int, seed: int = 0) -> list[Any]:
    """Moving test-card frames, each different from the last."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, size=(3,), dtype=np.uint8)
    frames = []
    for index in range(count):
        image = np.zeros((height, width, 3), dtype=np.uint8)
        image[:] = base
        x = int((index / max(1, count - 1)) * (width - width // 8))
        image[:, x : x + width // 8] = (255, 255 - (index * 7) % 255, 40)
        image[height // 3 : height // 3 + 4, :] = int(128 + 127 * math.sin(index / 3))
        frames.append(image)
    return frames


def write_video(path: Path, frames: list[Any], fps: int = DEFAULT_FPS, codec: str = "libx264") -> None:
    """Write ``frames`` with ``codec`` (``libx264``, or ``mpeg4`` for what OpenCV's ``mp4v`` makes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), mode="w", format="mp4") as container:
        stream = container.add_stream(codec, rate=fps)
        height, width = frames[0].shape[:2]
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for image in frames:
            container.mux(stream.encode(av.VideoFrame.from_ndarray(image, "rgb24")))
        container.mux(stream.encode(None))
