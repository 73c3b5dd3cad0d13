"""Shared fixtures: where the vendored acceptance data lives, and copies of it that tests may write into."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PCG_DATA = REPO / "tests" / "data" / "pcg"  # vendored, with its origin in tests/data/README.md


@pytest.fixture(scope="session")
def pcg_data() -> Path:
    """The read-only PCG acceptance data (``tests/data/pcg``); never write into it."""
    if not PCG_DATA.is_dir():
        pytest.fail(f"acceptance data missing: {PCG_DATA} (restore it with `git checkout -- tests/data`)")
    return PCG_DATA


@pytest.fixture
def copy_tree(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Copy a folder into the test's temporary folder and return the copy."""

    def copy(source: Path, name: str | None = None) -> Path:
        target = tmp_path / (name or source.name)
        shutil.copytree(source, target)
        return target

    return copy
