"""A request/answer channel between a sandboxed program and its parent: one inherited socket, JSON lines.

Some programs must ask the trusted side for things they may not do themselves (a model call that needs the network
and an API key, a value only the judge may compute). The sandbox gives such a program exactly one extra descriptor:
one end of a ``socketpair``, its number in the environment variable ``PODIUM_CHANNEL_FD``. The program writes one
JSON value per line; a thread of the parent reads it, passes it to the run's ``handler`` and writes the handler's
answer back as one JSON line, so requests are answered one at a time and in order. Nothing else crosses: the
socket is unnamed (no path on any file system a program could reach), and the network namespace stays empty.

The parent may also move the run's wall deadline from the handler (``Channel.set_deadline``): the program's
phases (a trial, a wait for a model) then get their own limits, enforced by the same reader that enforces
``Limits.wall_time_s``, whichever comes first.

What arrives is untrusted: a line longer than ``max_line_bytes`` closes the channel (the parent's memory is not the
program's to spend), a line that is not JSON gets ``{"channel_error": ...}``, and an exception in the handler is
recorded in ``failures`` (a bug of the parent, shown to the operator) and answered the same way.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

CHANNEL_FD_ENV = "PODIUM_CHANNEL_FD"
MAX_LINE_BYTES = 8 << 20
_JOIN_S = 2.0

Handler = Callable[[Any], Any]
"""One request (a JSON value) in, one answer (a JSON value) out."""


class Channel:
    """The parent's side of one run's channel; give it to ``RunRequest(channel=...)`` and it serves that run."""

    def __init__(self, handler: Handler, *, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.handler = handler
        self.max_line_bytes = max_line_bytes
        self.failures: list[str] = []
        self.requests = 0
        self._deadline = math.inf
        self._lock = threading.Lock()
        self._parent: socket.socket | None = None
        self._child_fd: int | None = None
        self._thread: threading.Thread | None = None

    def deadline(self) -> float:
        """The monotonic time after which the parent kills the run (``inf``: only the run's own wall limit)."""
        with self._lock:
            return self._deadline

    def set_deadline(self, when: float) -> None:
        """Kill the run at monotonic time ``when`` unless moved again (``math.inf`` lifts it)."""
        with self._lock:
            self._deadline = when

    def set_timeout(self, seconds: float) -> None:
        """Kill the run ``seconds`` from now unless moved again."""
        self.set_deadline(time.monotonic() + seconds)

    @contextlib.contextmanager
    def opened(self) -> Iterator[int]:
        """Open the socket pair and serve it; yields the child's descriptor (inheritable), to pass to the spawn.

        Call ``spawned()`` once the child has its copy, so that the child's exit is seen as the end of the channel.
        The block's end closes everything and waits briefly for the serving thread.
        """
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        child.set_inheritable(True)
        self._parent, self._child_fd = parent, child.detach()
        self._thread = threading.Thread(target=self._serve, args=(parent,), name="podium-sandbox-channel", daemon=True)
        self._thread.start()
        try:
            yield self._child_fd
        finally:
            self.spawned()
            with contextlib.suppress(OSError):
                parent.shutdown(socket.SHUT_RDWR)
            # a handler busy in a long call (a model that thinks) is left to finish on its own; its answer goes nowhere
            self._thread.join(_JOIN_S)
            parent.close()

    def spawned(self) -> None:
        """Close the parent's copy of the child's end (the child holds its own now)."""
        if self._child_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._child_fd)
            self._child_fd = None

    def _serve(self, sock: socket.socket) -> None:
        try:
            self._serve_lines(sock)
        finally:  # the program sees the end of the channel at once, not when its run ends
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def _serve_lines(self, sock: socket.socket) -> None:
        with contextlib.suppress(OSError), sock.makefile("rb") as reader:
            while True:
                line = reader.readline(self.max_line_bytes + 1)
                if not line:
                    return
                if len(line) > self.max_line_bytes and not line.endswith(b"\n"):
                    self._send(sock, {"channel_error": f"request longer than {self.max_line_bytes} bytes"})
                    return
                self.requests += 1
                self._send(sock, self._answer(line))

    def _answer(self, line: bytes) -> Any:
        try:
            request = json.loads(line)
        except ValueError:
            return {"channel_error": "a request is one line of JSON"}
        try:
            return self.handler(request)
        except Exception as error:  # the parent's bug: recorded for the operator, never the program's fault
            self.failures.append(f"{type(error).__name__}: {error}")
            return {"channel_error": "the parent failed to answer"}

    @staticmethod
    def _send(sock: socket.socket, answer: Any) -> None:
        sock.sendall(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")


@contextlib.contextmanager
def serving(channel: Channel | None) -> Iterator[int | None]:
    """``channel.opened()``, or None for a run without a channel (what every backend calls around its run)."""
    if channel is None:
        yield None
        return
    with channel.opened() as fd:
        yield fd
