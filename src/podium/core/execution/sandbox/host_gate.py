"""One gate for every sandboxed run on the host: shared by all runs, held alone by a run that must have the host.

A run whose verdict depends on the host being quiet (a wall-time limit reached while the run waited for a CPU) is
judged again **alone**: no other sandboxed run of any podium process on this host runs meanwhile. Every run holds
the gate shared; an alone run holds it exclusive. The gate is a pair of ``flock`` locks on host-wide files
(``GATE_FOLDER``), so it holds across processes (workers, the server, the command line):

- a shared holder passes a *turnstile* (shared, at once released) and then holds the *gate* shared;
- an alone run takes the turnstile exclusive, so no new run passes it, then the gate exclusive, which it gets once
  the runs already inside have ended.

So a waiting alone run is not starved by runs that keep arriving. A thread that holds the gate (alone, or shared
already: the fork-server hands some requests to bubblewrap) runs without taking it again: ``flock`` on another
descriptor would wait for itself. The runs of one process's other threads wait like anyone's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

GATE_FOLDER = Path("/run/lock") if os.access("/run/lock", os.W_OK) else Path(tempfile.gettempdir())
_GATE, _TURNSTILE = "podium-sandbox-gate.lock", "podium-sandbox-turnstile.lock"
_held = threading.local()  # this thread's hold: alone (bool), shared (depth)
_open_fds: set[int] = set()  # every gate descriptor of this process, which a forked child must not keep holding


def _forget_in_child() -> None:
    # a lock belongs to the open file, which fork shares: a child (a process pool's worker) that kept the
    # descriptors would hold the gate for as long as it lives
    for fd in list(_open_fds):
        with contextlib.suppress(OSError):
            os.close(fd)
    _open_fds.clear()
    _held.__dict__.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def _open(folder: Path, name: str) -> int:
    # 0o666: judges run as root or as one user; a lock file another user made must not keep this one out
    fd = os.open(folder / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    _open_fds.add(fd)
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o666)
    return fd


def _close(*fds: int) -> None:
    for fd in fds:
        _open_fds.discard(fd)
        os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def shared(folder: Path | None = None) -> Iterator[None]:
    """Hold the gate shared for one run (at once, unless a run is alone or waiting to be)."""
    if getattr(_held, "alone", False) or getattr(_held, "shared", 0):
        _held.shared = getattr(_held, "shared", 0) + 1
        try:
            yield
        finally:
            _held.shared -= 1
        return
    folder = folder or GATE_FOLDER
    turnstile, gate = _open(folder, _TURNSTILE), _open(folder, _GATE)
    try:
        fcntl.flock(turnstile, fcntl.LOCK_SH)
        fcntl.flock(gate, fcntl.LOCK_SH)
        fcntl.flock(turnstile, fcntl.LOCK_UN)
        _held.shared = 1
        yield
    finally:
        _held.shared = 0
        _close(gate, turnstile)


@contextlib.contextmanager
def alone(folder: Path | None = None) -> Iterator[None]:
    """Hold the gate exclusive: every other run on the host has ended and no new one starts until this ends.

    A thread that holds it already keeps it (a verification run alone that is starved is not judged again by
    waiting for itself).
    """
    if getattr(_held, "alone", False):
        yield
        return
    folder = folder or GATE_FOLDER
    turnstile, gate = _open(folder, _TURNSTILE), _open(folder, _GATE)
    try:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        fcntl.flock(gate, fcntl.LOCK_EX)
        _held.alone = True
        yield
    finally:
        _held.alone = False
        _close(gate, turnstile)
