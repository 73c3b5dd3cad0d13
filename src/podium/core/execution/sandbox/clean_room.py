"""Clean-room runs: alone on the host, after the page cache of every file the run can read is evicted.

A run reads files of the host (its interpreter, through the root of ``root.py``) whose cached pages every other
run shares: a program that reads chosen pages leaves bits that a later program reads back by timing its reads. No
system call needs to be refused for that, so a filter cannot close it. A run in the clean room holds the host gate
alone (``host_gate``: no other sandboxed run of any podium process on the host meanwhile) and starts with none of
those files cached, so what an earlier run left in the cache cannot reach it.

Eviction is ``posix_fadvise(POSIX_FADV_DONTNEED)`` on each readable file: it drops the clean pages no process has
mapped (pages mapped by a live process, such as the interpreter's own libraries, stay cached whatever any run
did, so they carry nothing). Where the judge may (root), the kernel's unused dentries and inodes go too
(``/proc/sys/vm/drop_caches`` ← 2), which closes the same kind of timing channel through name lookups.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from podium.core.execution.sandbox import host_gate
from podium.core.execution.sandbox.root import Entry, readable_files

DROP_CACHES = Path("/proc/sys/vm/drop_caches")


@dataclass(frozen=True, slots=True)
class Eviction:
    """What a clean room evicted before its run, and what that cost."""

    files: int
    seconds: float
    names_dropped: bool  # the kernel's unused dentries and inodes were dropped too (root only)


def evict(entries: Iterable[Entry], folders: Iterable[Path] = ()) -> Eviction:
    """Drop the cached pages of every file readable through ``entries`` and ``folders``."""
    started = time.perf_counter()
    count = 0
    for path in readable_files(entries, folders):
        with contextlib.suppress(OSError):  # a file that went away or that the judge may not open holds nothing
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                count += 1
            finally:
                os.close(fd)
    names_dropped = False
    with contextlib.suppress(OSError):
        DROP_CACHES.write_text("2\n")
        names_dropped = True
    return Eviction(count, time.perf_counter() - started, names_dropped)


@contextlib.contextmanager
def clean_room(entries: Iterable[Entry], folders: Iterable[Path] = ()) -> Iterator[Eviction]:
    """Hold the host alone, evict, and let the caller run: what it runs meets a cold cache and no other run."""
    with host_gate.alone():
        yield evict(entries, folders)
