"""Fixtures for the wmeval tests: real videos made at test time with PyAV, a store on a temporary SQLite file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from podium.core.clock import ManualClock
from podium.core.storage.sql import sqlite_url
from tests.needs import need_module

need_module("av", "wmeval")

from podium.tracks.wmeval.ingest import CAMERAS  # noqa: E402
from podium.tracks.wmeval.store import open_store  # noqa: E402
from tests.tracks.wmeval.videos import synthetic_frames, write_video  # noqa: E402

FRAMES = 12  # half a second at 24 fps: enough to play and end quickly in a browser
SIZE = (64, 48)  # one GT camera view
STRIP = (192, 48)  # a generated video


def write_clip(
    path: Path, seed: int = 0, codec: str = "libx264", frames: int = FRAMES, size: tuple[int, int] = SIZE
) -> Path:
    """A small real video: H.264, or MPEG-4 Part 2 (``mpeg4``, what OpenCV's ``mp4v`` writes)."""
    write_video(path, synthetic_frames(frames, *size, seed=seed), fps=24 if codec == "libx264" else 16, codec=codec)
    return path


def make_gt(root: Path, episodes: Mapping[str, int]) -> Path:
    """A GT folder: ``episodes[task]`` episodes of each task, three camera views each."""
    for task, count in episodes.items():
        for index in range(count):
            for n, cam in enumerate(CAMERAS):
                write_clip(root / task / "videos" / cam / f"episode_{index}.mp4", seed=index * 3 + n)
    return root


def make_team(root: Path, files: Mapping[str, str]) -> Path:
    """A submission: ``files[relative path under evaluator_test]`` is h264, mp4v, corrupt or text."""
    for name, kind in files.items():
        path = root / "evaluator_test" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "h264":  # three views wide, like the baseline's 672x224
            write_clip(path, seed=sum(map(ord, name)), size=STRIP)
        elif kind == "mp4v":
            write_clip(path, codec="mpeg4", size=STRIP)
        elif kind == "corrupt":
            path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"not a video at all" * 50)
        else:
            path.write_text(kind)
    return root


@dataclass
class Env:
    """A migrated store, its media folder and a fixed clock."""

    engine: Engine
    media: Path
    clock: ManualClock
    tmp: Path


@pytest.fixture
def env(tmp_path: Path) -> Env:
    engine = open_store(sqlite_url(tmp_path / "wmeval.sqlite3"))
    return Env(engine, tmp_path / "media", ManualClock(datetime(2026, 6, 1, tzinfo=UTC)), tmp_path)
