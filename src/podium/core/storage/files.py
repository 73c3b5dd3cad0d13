"""Reading and writing the files of a run directory without losing anything.

Reads turn every operating-system or decoding problem into an ``InputError`` that names the file and the fix.
Writes go to a temporary file in the same folder and are renamed into place, so a killed run never leaves a
half-written output that a later run would mistake for a finished one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from podium.core.errors import InputError


def read_bytes(path: Path) -> bytes:
    """Read a whole file, or raise an ``InputError`` saying why it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path, fix="check the path, or rerun the stage that writes it") from None
    except IsADirectoryError:
        raise InputError("expected a file but found a folder", path=path, fix="move the folder away") from None
    except PermissionError:
        raise InputError("permission denied", path=path, fix=f"make it readable: chmod u+r '{path}'") from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", path=path) from None


def read_json(path: Path) -> Any:
    """Parse a JSON file, or raise an ``InputError`` that points at the broken spot."""
    return parse_json(read_bytes(path), path)


def parse_json(data: bytes, path: Path) -> Any:
    """Parse JSON bytes read from ``path``, or raise an ``InputError`` that points at the broken spot."""
    text = data.decode("utf-8", errors="replace")  # bad bytes become U+FFFD; JSON's own errors name the spot
    try:
        return json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            path=path,
            fix="repair the file, or delete it and rerun the stage that writes it",
        ) from None


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp makes files private (0600); outputs get the permissions an ordinary write would give them
_FILE_MODE = 0o666 & ~_current_umask()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see either the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
