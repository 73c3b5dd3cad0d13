"""The two-tone PNG encoder: any decoder reads back the gray levels it was given, as opaque RGBA."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from podium.tracks.pcg.official.png import encode_gray_as_rgba_png


def _decoded(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as image:
        assert image.mode == "RGBA"
        return np.asarray(image)


def test_every_kind_of_image_decodes_to_its_gray_levels() -> None:
    rng = np.random.default_rng(2026)
    images = [np.full((1024, 1024), 255, np.uint8), rng.integers(0, 256, (37, 13), dtype=np.uint8)]
    for _ in range(40):  # blocks on white, rows repeating, some gray levels, and a non-contiguous view
        gray = np.full((256, 320), 255, np.uint8)
        for _ in range(rng.integers(0, 6)):
            r, c = rng.integers(0, 250, 2)
            gray[r : r + rng.integers(1, 80), c : c + rng.integers(1, 80)] = rng.choice([0, 17, 255])
        images.append(gray)
    images.append(images[-1][:, ::2])
    for gray in images:
        decoded = _decoded(encode_gray_as_rgba_png(gray))
        assert decoded.shape == (*gray.shape, 4)
        assert (decoded[..., :3] == gray[..., None]).all() and (decoded[..., 3] == 255).all()
