"""Fixtures the core's sandbox tests share."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def world_readable() -> Iterator[Path]:
    """A folder the slot's uid can reach (pytest's own are root's alone), as podium's requirement folders are."""
    folder = Path(tempfile.mkdtemp(prefix="podium-readable-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)
