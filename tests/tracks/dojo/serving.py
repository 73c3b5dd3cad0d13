"""Real `podium serve` processes for the tests that go through HTTP: a free port, and waiting until it answers."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

START_TIMEOUT_S = 60  # a loaded 2-core machine takes seconds to import the app


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until ``url`` answers 200; fail with the server's ``log`` if it exits or never answers."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"`podium serve` exited with {server.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise TimeoutError(f"`podium serve` did not answer {url} within {START_TIMEOUT_S} s:\n{log.read_text()}")


@contextmanager
def podium_serve(db_url: str, folder: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT``: ``podium serve`` on ``db_url`` in its own process (its log in ``folder``)."""
    port, log = free_port(), folder / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "podium", "serve", "--db", db_url, "--port", str(port)], stdout=sink, stderr=sink
        )
    try:
        wait_until_up(f"http://127.0.0.1:{port}/healthz", server, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
