"""A real HTTP server on loopback for the page, security and load tests (uvicorn in a thread of this process), and
the command line the page tests set their competitions up with.

The app is ``podium.web.app.create_app`` given the wmeval track (its entry point may not be installed in the
environment running the tests), so errors are answered exactly as ``podium serve`` answers them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from click.testing import CliRunner

from podium.tracks.wmeval.cli import wmeval
from podium.tracks.wmeval.track import TRACK
from podium.web.app import create_app

SCREENSHOTS = os.environ.get("PODIUM_WMEVAL_SCREENSHOTS")  # a folder: the page tests keep screenshots there (docs/)


def cli(*args: str) -> str:
    """Run ``podium wmeval ARGS`` in this process; its output (a failure fails the test)."""
    result = CliRunner().invoke(wmeval, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve(db_url: str, limit_concurrency: int | None = None) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` serving the wmeval router over ``db_url`` until the block ends."""
    app = create_app({"db": db_url}, {"wmeval": TRACK})
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", limit_concurrency=limit_concurrency)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    _wait_until_up(base)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _wait_until_up(base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("the test server did not start")
        time.sleep(0.05)


def app_from_environment() -> object:
    """The app over ``PODIUM_DB`` (for ``uvicorn --factory`` in a separate process)."""
    return create_app({"db": os.environ["PODIUM_DB"]}, {"wmeval": TRACK})


@contextmanager
def serve_process(db_url: str) -> Iterator[str]:
    """The same app in its own process, so clients in this process do not share its interpreter lock."""
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "--factory", "tests.tracks.wmeval.serving:app_from_environment",
               "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]  # fmt: skip
    server = subprocess.Popen(command, env=os.environ | {"PODIUM_DB": db_url})
    try:
        _wait_until_up(f"http://127.0.0.1:{port}")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
