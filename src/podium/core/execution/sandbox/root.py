"""What a run's root holds from the host: the same list for bubblewrap's chain and the fork-server's zygote.

The interpreter's files read-only (``/usr``, and ``/bin``, ``/lib*`` as this host lays them out: links stay links),
two files of ``/etc`` that hold no secrets (the loader's cache and the Debian alternatives links some ``/usr/bin``
names go through), and a ``/dev`` of the five character devices programs use plus the ``fd`` links, nothing else.
No other ``/etc``, no ``/home``, ``/root`` or the repository. bubblewrap turns the entries into arguments
(``bubblewrap.py``); the judge sends them to each zygote, which builds its root from them (``zygote.py``, which
imports no podium code), so the two roots cannot drift apart.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

Kind = Literal["ro-bind", "ro-bind-try", "symlink", "dev-bind-try"]
Entry = tuple[Kind, str, str]  # (what, its source on the host or a link's target, where it appears in the run)

_TOP_FOLDERS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/alternatives")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_STREAMS = ("stdin", "stdout", "stderr")


def host_files() -> list[Entry]:
    """The interpreter's files and the two ``/etc`` entries, as this host lays them out."""
    entries: list[Entry] = [("ro-bind", "/usr", "/usr")]
    for name in _TOP_FOLDERS:
        path = Path("/", name)
        if path.is_symlink():
            entries.append(("symlink", os.readlink(path), str(path)))
        elif path.is_dir():
            entries.append(("ro-bind", str(path), str(path)))
    entries += [("ro-bind-try", path, path) for path in _ETC_FILES]
    return entries


def devices() -> list[Entry]:
    """``/dev``'s entries, to go on an empty ``/dev`` (bubblewrap's own ``--dev`` adds devpts, tty, shm, ptmx)."""
    entries: list[Entry] = [("dev-bind-try", f"/dev/{device}", f"/dev/{device}") for device in _DEVICES]
    entries.append(("symlink", "/proc/self/fd", "/dev/fd"))
    entries += [("symlink", f"/proc/self/fd/{n}", f"/dev/{stream}") for n, stream in enumerate(_STREAMS)]
    return entries
