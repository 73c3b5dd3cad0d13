"""The fork-server backend: which requests a zygote serves, and how zygotes are started, replaced and lost.

The isolation and verdicts of its runs are tested with bubblewrap's, on both backends
(``tests/integration/core/execution/sandbox/``, ``tests/integration/tracks/dojo/test_backend_parity.py``).
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
import time
from pathlib import Path

import pytest

from podium.core.execution.sandbox import RunRequest, RunStatus, forkserver
from podium.core.execution.sandbox.channel import Channel
from podium.core.execution.sandbox.forkserver import ForkServerSandbox, python_run
from tests.conftest import open_backend_or_skip
from tests.processes import parent_of, processes_with

FILES = {"solver.py": b"print(1)\n"}


@pytest.mark.parametrize(
    ("argv", "script", "arguments"),
    [
        (("python3", "-s", "-S", "-P", "-B", "solver.py"), "solver.py", ()),
        (("python3", "solver.py", "a b", "-c"), "solver.py", ("a b", "-c")),
        (("python3.11", "-u", "solver.py"), "solver.py", ()),
    ],
)
def test_a_python_program_among_its_files_is_served(
    argv: tuple[str, ...], script: str, arguments: tuple[str, ...]
) -> None:
    plan = python_run(RunRequest(argv, FILES))
    if argv[0] == "python3.11" and not os.path.exists("/usr/bin/python3.11"):
        assert plan is None
        return
    assert plan is not None and (plan.script, plan.arguments) == (script, arguments)
    assert plan.interpreter[1:] == argv[: -1 - len(arguments)]  # argv[0] as given, then the options


@pytest.mark.parametrize(
    "request_",
    [
        RunRequest(("python3", "-c", "print(1)"), FILES),  # an option with an argument
        RunRequest(("python3", "-m", "solver"), FILES),
        RunRequest(("python3", "other.py"), FILES),  # not among the files
        RunRequest(("python3", "../solver.py"), FILES),
        RunRequest(("sh", "solver.py"), FILES),
        RunRequest(("python3",), FILES),
        RunRequest(("python3", "solver.py"), FILES, writable=True),
        RunRequest(("python3", "solver.py"), FILES, readable=(Path("/usr/share"),)),
        RunRequest(("python3", "solver.py"), FILES, env={"PATH": "/nowhere"}),
    ],
    ids=["dash-c", "dash-m", "missing", "outside", "shell", "no-script", "writable", "readable", "no-python"],
)
def test_anything_else_goes_to_bubblewrap(request_: RunRequest) -> None:
    assert python_run(request_) is None


def test_a_channel_goes_to_bubblewrap() -> None:
    assert python_run(RunRequest(("python3", "solver.py"), FILES, channel=Channel(lambda request: request))) is None


@pytest.fixture(scope="module")
def fork_server() -> ForkServerSandbox:
    opened = open_backend_or_skip("forkserver")
    assert isinstance(opened, ForkServerSandbox)
    return opened


def _zygotes() -> set[int]:
    """This process's zygotes."""
    return {pid for pid in processes_with(forkserver.ZYGOTE_MARK) if parent_of(pid) == os.getpid()}


def _run(sandbox: ForkServerSandbox, source: bytes, env: dict[str, str] | None = None) -> RunStatus:
    result = sandbox.run(RunRequest(("python3", "-S", "solver.py"), {"solver.py": source}, env=env or {}))
    assert result.backend == "forkserver", result
    return result.status


WALK_ROOT = b"""import os
for folder in ("/", "/etc", "/dev"):
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        kind = "link " + os.readlink(path) if os.path.islink(path) else "dir" if os.path.isdir(path) else "file"
        print(path, kind, "writable" if os.access(path, os.W_OK) else "read-only")
"""


def test_a_run_sees_the_same_root_as_under_bubblewrap(fork_server: ForkServerSandbox) -> None:
    """Both roots come from one list (``root.py``): the same entries, links and write access."""
    request = RunRequest(("python3", "-S", "solver.py"), {"solver.py": WALK_ROOT})
    ours, bubblewrap = fork_server.run(request), fork_server._fallback.run(request)
    assert (ours.backend, bubblewrap.backend) == ("forkserver", "bubblewrap")
    listing = ours.stdout.decode().splitlines()
    assert listing == bubblewrap.stdout.decode().splitlines()
    assert "/usr dir read-only" in listing and "/tmp dir writable" in listing and "/dev/null file writable" in listing
    assert not any(line.startswith(("/home", "/root", "/etc/passwd", "/dev/shm")) for line in listing)


def test_a_zygote_serves_one_run_after_another(fork_server: ForkServerSandbox) -> None:
    assert _run(fork_server, b"print(1)") is RunStatus.OK
    before = _zygotes()
    for _ in range(3):
        assert _run(fork_server, b"print(1)") is RunStatus.OK
    assert _zygotes() == before


def test_another_environment_gets_another_zygote(fork_server: ForkServerSandbox) -> None:
    # the hash seed is fixed when an interpreter starts: a run that needs another cannot share a zygote
    hashes = set()
    for seed in ("1", "2"):
        result = fork_server.run(
            RunRequest(
                ("python3", "-S", "solver.py"), {"solver.py": b"print(hash('podium'))"}, env={"PYTHONHASHSEED": seed}
            )
        )
        assert result.status is RunStatus.OK, result
        hashes.add(result.stdout)
    assert len(hashes) == 2


def test_a_zygote_is_replaced_after_its_runs(fork_server: ForkServerSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forkserver, "RUNS_PER_ZYGOTE", 2)
    seen: set[int] = set()
    for _ in range(6):  # one slot: every second run ends its zygote, and the next run starts another
        assert _run(fork_server, b"print(1)") is RunStatus.OK
        seen |= _zygotes()
    assert len(seen) >= 2, seen


def test_a_zygote_that_dies_fails_its_run_as_an_internal_error_and_the_next_run_works(
    fork_server: ForkServerSandbox,
) -> None:
    assert _run(fork_server, b"print(1)") is RunStatus.OK
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        running = pool.submit(_run, fork_server, b"import time\nprint(1, flush=True)\ntime.sleep(3)\n")
        time.sleep(0.5)
        for pid in _zygotes():
            os.kill(pid, signal.SIGKILL)
        assert running.result(timeout=30) is RunStatus.INTERNAL_ERROR  # never the program's fault, nor an exception
    assert _run(fork_server, b"print(1)") is RunStatus.OK  # a new zygote
