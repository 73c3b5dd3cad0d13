"""JSON read with the file and the spot named, and atomic writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.errors import InputError
from podium.core.storage.files import read_json, write_atomic


def test_read_json_names_the_file_and_the_spot(tmp_path: Path) -> None:
    bad = tmp_path / "A.json"
    bad.write_text('{"a": 1,}')
    with pytest.raises(InputError) as info:
        read_json(bad)
    assert str(bad) in info.value.describe() and "line 1" in info.value.message


def test_write_atomic_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "out.txt"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two" and [p.name for p in target.parent.iterdir()] == ["out.txt"]
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"")
    assert target.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777  # not mkstemp's private 0600
