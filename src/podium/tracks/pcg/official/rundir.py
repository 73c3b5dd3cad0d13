"""ChatGPT4PCG run directories: ``<root>/<TEAM>/<stage>/...``, with the official rule for team folders and their order.

The official scripts treat every sub-folder of the root as a team, except names that start with ``.`` and the
reserved folders ``logs`` and ``result``. What they write depends on the operating system they ran on, so it is
an explicit choice here (``Platform``): folders come in byte order on Linux and macOS (libuv sorts with
``strcmp``) and in upper-cased order on Windows/NTFS, which decides the rows of result tables and the order of
tied teams; and text tables end lines with the system's EOL (json2csv's default), LF or CRLF. The published
ChatGPT4PCG files show both: the 2024 tables and the 2023 character table come from Windows, the 2023 trial
table from a POSIX system.
"""

from __future__ import annotations

import enum
from pathlib import Path

from podium.core.errors import InputError

RESERVED_FOLDERS = frozenset({"logs", "result"})


class Platform(enum.StrEnum):
    """The operating system whose folder order and line ends the outputs reproduce."""

    POSIX = "posix"  # byte order of the names, LF (Linux, macOS)
    WINDOWS = "windows"  # ordinal order of the upper-cased names (NTFS), CRLF

    @property
    def eol(self) -> str:
        """The line end text files get on this system."""
        return "\r\n" if self is Platform.WINDOWS else "\n"

    def sort(self, names: list[str]) -> list[str]:
        """Return ``names`` in this order."""
        if self is Platform.WINDOWS:
            return sorted(names, key=lambda n: (n.upper().encode("utf-16-be"), n))
        return sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape"))


def require_root(root: Path) -> Path:
    """Check that ``root`` is an existing folder, or raise an ``InputError`` with the fix."""
    if not root.exists():
        raise InputError(
            "competition root does not exist", path=root, fix="pass the folder that holds the team folders"
        )
    if not root.is_dir():
        raise InputError(
            "competition root is not a folder", path=root, fix="pass the folder that holds the team folders"
        )
    return root


def list_team_dirs(root: Path, platform: Platform = Platform.POSIX) -> list[str]:
    """Return the team folder names of ``root`` by the official rule, in ``platform``'s order."""
    require_root(root)
    try:
        names = [
            entry.name
            for entry in root.iterdir()
            if entry.is_dir() and not entry.name.startswith(".") and entry.name not in RESERVED_FOLDERS
        ]
    except PermissionError:
        raise InputError("permission denied while listing", path=root, fix=f"chmod u+rx '{root}'") from None
    return platform.sort(names)


def list_visible_files(folder: Path) -> list[Path]:
    """Return the files of ``folder`` (not sub-folders, not hidden files) in byte order of their names."""
    if not folder.is_dir():
        return []
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    return sorted(files, key=lambda p: p.name.encode("utf-8", "surrogateescape"))


def base_name(file_name: str) -> str:
    """Everything before the last ``.``: outputs keep their input's base name and change only the extension."""
    stem, dot, _ = file_name.rpartition(".")
    return stem if dot else file_name
