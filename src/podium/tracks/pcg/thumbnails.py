"""Small grey PNG thumbnails for embedding in report pages, made in parallel and remembered by content.

A page that must travel alone (an e-mailed report) cannot link its images; it embeds thumbnails as ``data:`` URIs
instead. A 96-pixel, 16-grey PNG of a black-and-white picture is a few hundred bytes. Decoding a large PNG costs
milliseconds, so thumbnails are made through an ``Executor`` and kept in a cache file keyed by a digest of the
source bytes: a rerun decodes nothing it has seen, and equal inputs always give equal bytes (Pillow's encoder is
deterministic), so a report built again is byte for byte the same. Only the PCG report embeds images so far, so
this lives in the track until a second one needs it (then in ``core/reporting``).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from podium.core.execution.executor import Executor, SerialExecutor

THUMBNAIL_VERSION = "2"  # bump when the thumbnail's size, palette or encoding changes
THUMBNAIL_PX = 96  # the report's tile size


@dataclass(frozen=True, slots=True)
class ThumbnailJob:
    """Source images to shrink: each with the digest it is cached under."""

    digests: tuple[str, ...]
    sources: tuple[bytes, ...]
    size_px: int


@dataclass(frozen=True, slots=True)
class ThumbnailBatch:
    """A job's thumbnails, in its order; ``None`` for a source that could not be decoded."""

    pngs: tuple[bytes | None, ...]


def thumbnail_png(source: bytes, size_px: int = THUMBNAIL_PX, greys: int = 16) -> bytes:
    """``source`` (any image Pillow reads) shrunk to fit ``size_px`` square, as a ``greys``-level grey PNG."""
    with Image.open(io.BytesIO(source)) as image:
        image.draft("L", (size_px, size_px))  # JPEG decodes at a fraction of the size; other formats ignore it
        grey = _on_white(image)
    return thumbnail_of_grey(grey, size_px, greys)


def thumbnail_of_grey(grey: Image.Image, size_px: int = THUMBNAIL_PX, greys: int = 16) -> bytes:
    """The thumbnail of a grey (mode ``L``) picture already in memory: what ``thumbnail_png`` makes of its PNG.

    ``simulate`` holds each level's picture as grey levels before it encodes the PNG, so it makes the thumbnail
    here without decoding the 1024² PNG (about 10 ms; the thumbnail itself is under 1 ms, docs/benchmarks.md).
    """
    factor = max(1, min(grey.size) // (2 * size_px))
    grey = grey.reduce(factor) if factor > 1 else grey
    grey.thumbnail((size_px, size_px), Image.Resampling.BOX, reducing_gap=2.0)
    # ``greys`` evenly spaced levels, each pixel rounded to the nearest: an adaptive palette (median cut) cost as
    # much as everything else here together, and a picture of black blocks on white needs none
    step = 255 / (greys - 1)
    levels = np.rint(np.asarray(grey, dtype=np.float32) / np.float32(step)).astype(np.uint8)
    indexed = Image.frombytes("P", grey.size, levels.tobytes())
    indexed.putpalette([round(index * step) for index in range(greys) for _ in range(3)])
    out = io.BytesIO()
    indexed.save(out, "PNG", bits=max(1, (greys - 1).bit_length()))
    return out.getvalue()


def _on_white(image: Image.Image) -> Image.Image:
    """The image in grey, transparent parts shown as white (an opaque image skips the costly compositing)."""
    if image.mode in ("RGBA", "LA") and image.getchannel("A").getextrema()[0] == 255:
        return image.convert("L")
    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("L")
    return image.convert("L")


def make_batch(job: ThumbnailJob) -> ThumbnailBatch:
    """The thumbnails of one job (module level, so a worker process can run it)."""
    pngs: list[bytes | None] = []
    for source in job.sources:
        try:
            pngs.append(thumbnail_png(source, job.size_px))
        except (OSError, ValueError, Image.DecompressionBombError):
            pngs.append(None)  # an unreadable image gets no thumbnail; the page says so
    return ThumbnailBatch(tuple(pngs))


class ThumbnailCache:
    """Thumbnails by source digest, kept in one JSON-lines file (appended; a torn last line is ignored)."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._known: dict[str, bytes] = {}
        if path is not None and path.exists():
            for line in path.read_text("utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                    self._known[str(entry["digest"])] = base64.b64decode(entry["png"])
                except (ValueError, KeyError, TypeError):
                    continue

    def get(self, digest: str) -> bytes | None:
        """The cached thumbnail, if any."""
        return self._known.get(digest)

    def add(self, items: Mapping[str, bytes]) -> None:
        """Remember new thumbnails (and append them to the file)."""
        self._known.update(items)
        if self._path is None or not items:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._path.open("a", encoding="utf-8") as handle:
            for digest, png in items.items():
                handle.write(json.dumps({"digest": digest, "png": base64.b64encode(png).decode("ascii")}) + "\n")


def source_digest(source: bytes, size_px: int = THUMBNAIL_PX) -> str:
    """The cache key of a source image at a thumbnail size."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"thumbnail/{THUMBNAIL_VERSION}/{size_px}\0".encode())
    digest.update(source)
    return digest.hexdigest()


def make_thumbnails(
    sources: Mapping[str, Path],
    *,
    executor: Executor | None = None,
    cache: ThumbnailCache | None = None,
    size_px: int = 96,
    batch: int = 64,
) -> dict[str, bytes]:
    """Thumbnails of the image files in ``sources`` by the same names; files that cannot be read are left out."""
    executor = executor or SerialExecutor()
    cache = cache or ThumbnailCache(None)
    digests: dict[str, str] = {}
    pending: dict[str, bytes] = {}
    for name, path in sources.items():
        try:
            data = path.read_bytes()
        except OSError:
            continue
        digests[name] = digest = source_digest(data, size_px)
        if cache.get(digest) is None:
            pending.setdefault(digest, data)
    keys = sorted(pending)
    jobs = [_job(keys[i : i + batch], pending, size_px) for i in range(0, len(keys), batch)]
    for job, result in executor.map_unordered(make_batch, jobs):
        cache.add({d: png for d, png in zip(job.digests, result.pngs, strict=True) if png is not None})
    return {name: png for name, digest in digests.items() if (png := cache.get(digest)) is not None}


def _job(digests: Sequence[str], pending: Mapping[str, bytes], size_px: int) -> ThumbnailJob:
    return ThumbnailJob(tuple(digests), tuple(pending[d] for d in digests), size_px)
