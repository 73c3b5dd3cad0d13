"""Start a slot's runs from a thread of its own, each in a fresh, empty anonymous session keyring.

A process inherits the session keyring of the thread that started it, and bubblewrap does not replace it: a judge
started by ``su -``, ``runuser`` or a systemd service holds one (with whatever the operator keeps there), and every
run would share it with every other. So each run is started in a keyring nobody else holds: the starting thread
joins a new anonymous session keyring just before it spawns the run (``keyctl(KEYCTL_JOIN_SESSION_KEYRING,
NULL)``, one cheap system call). The seccomp filter also refuses the key calls inside the sandbox; this closes the
keyring for the weaker backend too, and for any call a filter might miss.

Session keyrings belong to a thread, not a process, so the join changes nothing for the judge's other threads. It
is made on a long-lived thread per slot rather than on the caller's: the caller (a worker thread that also talks to
the database) keeps the keyring it had, and the thread stays alive as long as the run, which matters because
bubblewrap's ``--die-with-parent`` fires when the *thread* that started it exits.
"""

from __future__ import annotations

import ctypes
import errno
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from podium.core.execution.sandbox.seccomp import syscall_number

T = TypeVar("T")

_KEYCTL_JOIN_SESSION_KEYRING = 1
# The judge runs under a filter of its own (a container's) that refuses key calls: then no child of it can reach a
# keyring either, and there is nothing to replace.
_KEYRINGS_UNREACHABLE = (errno.ENOSYS, errno.EPERM)


def join_fresh_session_keyring() -> None:
    """Make the calling thread's session keyring a new, empty, anonymous one (OSError when the kernel refuses)."""
    number = syscall_number("keyctl")
    if number is None:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, _KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        code = ctypes.get_errno()
        if code not in _KEYRINGS_UNREACHABLE:
            raise OSError(code, f"could not give the run a fresh session keyring: {errno.errorcode.get(code, code)}")


class Spawner:
    """One thread that runs ``start`` callables, one at a time, each after joining a fresh session keyring."""

    def __init__(self, name: str) -> None:
        self._requests: queue.SimpleQueue[tuple[Callable[[], Any], _Answer]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def start(self, launch: Callable[[], T]) -> T:
        """``launch()`` called on the spawner's thread in a fresh session keyring; its result or its exception."""
        answer = _Answer()
        self._requests.put((launch, answer))
        answer.ready.wait()
        if answer.error is not None:
            raise answer.error
        return answer.value  # type: ignore[no-any-return]

    def _serve(self) -> None:
        while True:
            launch, answer = self._requests.get()
            try:
                join_fresh_session_keyring()
                answer.value = launch()
            except BaseException as error:  # noqa: BLE001 -- handed to the caller, which raises it
                answer.error = error
            answer.ready.set()


class _Answer:
    __slots__ = ("error", "ready", "value")

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None
