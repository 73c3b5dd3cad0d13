"""The sandbox's channel, for real: a bubblewrapped Python program asks its parent and gets answers over one socket.

The same program then tries to reach what the channel must not open: a server listening on the host's loopback,
a file outside its box. A moving deadline set by the handler ends a run that stops asking.
"""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from podium.core.execution.sandbox import Limits, RunRequest, RunStatus, open_sandbox
from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox
from podium.core.execution.sandbox.channel import Channel

PYTHON = ("python3", "-s", "-S", "-B", "main.py")
LIMITS = Limits(cpu_time_s=5.0, wall_time_s=10.0)

ASK = """
import json, os, socket
sock = socket.socket(fileno=int(os.environ["PODIUM_CHANNEL_FD"]))
stream = sock.makefile("rwb")
def ask(value):
    stream.write(json.dumps(value).encode() + b"\\n"); stream.flush()
    return json.loads(stream.readline())
"""


def run(sandbox: BubblewrapSandbox, source: str, channel: Channel, limits: Limits = LIMITS) -> Any:
    request = RunRequest(PYTHON, {"main.py": (ASK + source).encode()}, limits=limits, channel=channel)
    return sandbox.run(request)


def test_a_sandboxed_program_asks_and_the_parent_answers_in_order(sandbox: BubblewrapSandbox) -> None:
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return {"double": request["n"] * 2, "text": "é ✓"}

    channel = Channel(handler)
    result = run(sandbox, "print([ask({'n': i})['double'] for i in range(5)], ask({'n': 0})['text'])", channel)
    assert result.status is RunStatus.OK, result
    assert result.stdout.decode() == "[0, 2, 4, 6, 8] é ✓\n"
    assert seen == [{"n": i} for i in range(5)] + [{"n": 0}]
    assert channel.requests == 6 and channel.failures == []


def test_bad_requests_and_parent_failures_are_answered_not_fatal(sandbox: BubblewrapSandbox) -> None:
    def handler(request: Any) -> Any:
        if request == "boom":
            raise RuntimeError("parent bug")
        return "ok"

    source = """
stream.write(b"not json\\n"); stream.flush(); print(json.loads(stream.readline()))
print(ask("boom"), ask("fine"))
"""
    channel = Channel(handler)
    result = run(sandbox, source, channel)
    assert result.status is RunStatus.OK, result
    first, second = result.stdout.decode().splitlines()
    assert "channel_error" in first and "channel_error" in second and second.endswith(" ok")
    assert channel.failures == ["RuntimeError: parent bug"]


def test_an_overlong_request_closes_the_channel(sandbox: BubblewrapSandbox) -> None:
    channel = Channel(lambda request: "never", max_line_bytes=1000)
    source = """
stream.write(b"x" * 5000 + b"\\n"); stream.flush()
print(stream.readline().decode().strip()); print(repr(stream.readline()))
"""
    result = run(sandbox, source, channel)
    assert result.status is RunStatus.OK, result
    answer, after = result.stdout.decode().splitlines()
    assert "longer than 1000 bytes" in answer and after == "b''"


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on the host's loopback that would answer anyone who reached it."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.sendall(b"reached\n")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def test_the_channel_opens_no_network_and_no_files(sandbox: BubblewrapSandbox, listener: int) -> None:
    canary = Path("/tmp") / f"podium-canary-{uuid.uuid4().hex}"
    canary.write_text("secret")
    try:
        source = f"""
try:
    socket.create_connection(("127.0.0.1", {listener}), timeout=1).recv(10); print("network reached")
except OSError as error:
    print("no network")
try:
    print(open({str(canary)!r}).read())
except OSError:
    print("no file")
print(sorted(os.listdir("/proc/self/fd")))
print(ask("still here"))
"""
        result = run(sandbox, source, Channel(lambda request: {"echo": request}))
    finally:
        canary.unlink()
    assert result.status is RunStatus.OK, result
    network, files, descriptors, echo = result.stdout.decode().splitlines()
    assert (network, files) == ("no network", "no file")
    assert json.loads(echo.replace("'", '"')) == {"echo": "still here"}
    # stdin, stdout, stderr, the channel, the socket object made from it, and listdir's own descriptor
    assert len(json.loads(descriptors.replace("'", '"'))) <= 6


def test_a_deadline_moved_by_the_parent_ends_a_run_that_stops_asking(sandbox: BubblewrapSandbox) -> None:
    channel = Channel(lambda request: channel.set_timeout(0.5) or "go on")
    result = run(sandbox, "ask('start'); print('asked', flush=True)\nwhile True: pass", channel)
    assert result.status is RunStatus.TIME_LIMIT, result
    assert result.stdout == b"asked\n"
    assert result.wall_time_s < 3.0


def test_the_weaker_backend_serves_the_channel_too() -> None:
    sandbox = open_sandbox("rlimits", allow_weaker=True)
    channel = Channel(lambda request: {"got": request})
    result = sandbox.run(
        RunRequest(PYTHON, {"main.py": (ASK + "print(ask(7))").encode()}, limits=LIMITS, channel=channel)
    )
    assert result.status is RunStatus.OK, result
    assert result.stdout.decode() == "{'got': 7}\n" and not result.isolated
