"""The host's processes as the sandbox tests look at them (through ``/proc``): by command line, parent, state."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def processes_with(text: str) -> list[int]:
    """The pids whose command line holds ``text``, in order."""
    found = []
    for entry in os.scandir("/proc"):
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and text.encode() in Path(entry.path, "cmdline").read_bytes():
                found.append(int(entry.name))
    return sorted(found)


def _stat_fields(pid: int) -> list[str]:
    """``/proc/PID/stat`` after the command name (which may hold spaces): state, parent, ..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def parent_of(pid: int) -> int | None:
    """The parent's pid, or None once the process is gone."""
    try:
        return int(_stat_fields(pid)[1])
    except (OSError, ValueError, IndexError):
        return None


def is_live(pid: int) -> bool:
    """Whether the process exists and is not a zombie waiting to be reaped."""
    try:
        return _stat_fields(pid)[0] != "Z"
    except (OSError, IndexError):
        return False


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` now (one pass over ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (parent := parent_of(int(entry.name))) is not None:
            children.setdefault(parent, []).append(int(entry.name))
    found, waiting = [], list(children.get(pid, []))
    while waiting:
        found.append(child := waiting.pop())
        waiting += children.get(child, [])
    return found
