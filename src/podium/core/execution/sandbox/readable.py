"""Folders every sandboxed program may read: content-addressed, published whole, writable by the judge alone.

A run's program reads them at their own paths (``RunRequest.readable``), as a uid of its own, so they must be
readable by anyone all the way down from ``/``: the judge's home or a pytest folder usually is not. They live in
``<tmp>/podium-<KIND>-<EUID>/<KEY>/``, made by the judge's user, 0755, and checked on every use to be its own and
writable by nobody else (on a shared host another user could otherwise plant a folder there first).

A folder is built under a temporary name and renamed into place when complete, so a reader (another team's run, a
second judge process) sees the whole folder or none, and a build killed half-way leaves only a temporary folder
that the next build of that kind removes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from podium.core.errors import ConfigError

_BUILDING = ".building-"


def readable_root(kind: str, parent: Path | None = None) -> Path:
    """``<parent or tmp>/podium-<kind>-<euid>``, made if missing; ConfigError when someone else could change it."""
    root = Path(parent or tempfile.gettempdir()) / f"podium-{kind}-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        root.mkdir(mode=0o755)
    info = os.lstat(root)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise ConfigError(
            f"{root} is not a folder of this user's that only it can change",
            fix=f"remove {root} (another user may have made it) and run again",
        )
    os.chmod(root, 0o755)  # whatever the umask made of it: the programs' uids must get through
    remove_abandoned(root)
    return root


def publish(root: Path, key: str, fill: Callable[[Path], None]) -> Path:
    """``root/key``, built by ``fill(folder)`` unless it exists, readable by anyone; the path.

    ``fill`` writes into an empty temporary folder; if it raises, nothing is published and the error goes on.
    """
    target = root / key
    if target.is_dir():
        return target
    building = root / f"{_BUILDING}{key}-{uuid.uuid4().hex}"
    building.mkdir(mode=0o755)
    try:
        fill(building)
        open_to_everyone(building)
        try:
            os.rename(building, target)
        except OSError:
            if not target.is_dir():  # lost a race to another builder of the same key: theirs is as good
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return target


def remove_abandoned(root: Path, older_than_s: float = 3600.0) -> None:
    """Remove temporary folders of builds that died (killed mid-install), once they are clearly not in progress."""
    for entry in root.iterdir():
        with contextlib.suppress(OSError):
            if entry.name.startswith(_BUILDING) and time.time() - entry.lstat().st_mtime > older_than_s:
                shutil.rmtree(entry)


def open_to_everyone(folder: Path) -> None:
    """Folders 0755 and files 0644 (0755 when executable), whatever the umask or the installer made of them."""
    for parent, _, files in os.walk(folder):
        os.chmod(parent, 0o755)
        for name in files:
            path = os.path.join(parent, name)
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                os.chmod(path, 0o755 if info.st_mode & 0o100 else 0o644)
