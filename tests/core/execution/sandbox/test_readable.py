"""Folders every sandboxed program may read: published whole, and refused where another user could have planted one."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from podium.core.errors import ConfigError
from podium.core.execution.sandbox.readable import publish, readable_root


def test_a_folder_is_published_whole_open_to_everyone_and_built_once(tmp_path: Path) -> None:
    root = readable_root("test", tmp_path)
    calls = []

    def fill(folder: Path) -> None:
        calls.append(folder)
        (folder / "pkg").mkdir(mode=0o700)
        (folder / "pkg" / "mod.py").write_text("x = 1")
        os.chmod(folder / "pkg" / "mod.py", 0o600)

    first = publish(root, "abc", fill)
    assert publish(root, "abc", fill) == first and len(calls) == 1
    assert (first / "pkg").stat().st_mode & 0o777 == 0o755
    assert (first / "pkg" / "mod.py").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in root.iterdir()] == ["abc"]  # no temporary folder left


def test_a_failed_build_publishes_nothing(tmp_path: Path) -> None:
    root = readable_root("test", tmp_path)

    def fail(folder: Path) -> None:
        (folder / "half.py").write_text("")
        raise RuntimeError("pip failed")

    with pytest.raises(RuntimeError):
        publish(root, "abc", fail)
    assert list(root.iterdir()) == []


def test_two_builders_of_one_key_both_get_the_folder(tmp_path: Path) -> None:
    root = readable_root("test", tmp_path)
    barrier, found = threading.Barrier(2), []

    def fill(folder: Path) -> None:
        barrier.wait()  # both build at once; one rename wins
        (folder / "data").write_text(folder.name)

    threads = [threading.Thread(target=lambda: found.append(publish(root, "k", fill))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found[0] == found[1] == root / "k" and [p.name for p in root.iterdir()] == ["k"]


def test_a_root_another_user_could_change_is_refused(tmp_path: Path) -> None:
    planted = tmp_path / f"podium-test-{os.geteuid()}"
    planted.mkdir()
    planted.chmod(0o777)  # as if another user made it first, or opened it
    with pytest.raises(ConfigError, match="only it can change"):
        readable_root("test", tmp_path)
    if os.geteuid() == 0:  # one that belongs to another user, however tidy
        planted.chmod(0o755)
        os.chown(planted, 65534, 65534)
        with pytest.raises(ConfigError, match="only it can change"):
            readable_root("test", tmp_path)
