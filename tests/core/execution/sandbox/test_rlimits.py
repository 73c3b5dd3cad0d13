"""The weaker rlimits backend: refused unless asked for, marked unisolated, and still enforcing its limits."""

from __future__ import annotations

import shutil

import pytest

from podium.core.errors import ConfigError, DependencyError
from podium.core.execution.sandbox import Limits, RunRequest, RunStatus, bubblewrap, open_sandbox

QUICK = Limits(cpu_time_s=1.0, wall_time_s=2.0)
PYTHON = ("python3", "-s", "-S", "-P", "-B", "solver.py")


def test_the_weaker_backend_is_refused_unless_allowed() -> None:
    with pytest.raises(ConfigError, match="does not isolate"):
        open_sandbox("rlimits")


def test_an_unknown_backend_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown sandbox backend"):
        open_sandbox("docker")


def test_the_weaker_backend_says_it_does_not_isolate() -> None:
    sandbox = open_sandbox("rlimits", allow_weaker=True)
    assert sandbox.name == "rlimits" and sandbox.isolated is False
    result = sandbox.run(RunRequest(PYTHON, {"solver.py": b"import os\nprint(sorted(os.listdir('.')))"}))
    assert result.status is RunStatus.OK and result.stdout == b"['solver.py']\n"
    assert result.isolated is False and result.backend == "rlimits" and "not isolated" in result.detail


def test_the_weaker_backend_still_enforces_time_and_lines() -> None:
    sandbox = open_sandbox("rlimits", allow_weaker=True)
    spin = sandbox.run(RunRequest(PYTHON, {"solver.py": b"while True: pass"}, limits=QUICK))
    assert spin.status is RunStatus.TIME_LIMIT
    sleep = sandbox.run(RunRequest(PYTHON, {"solver.py": b"import time\ntime.sleep(60)"}, limits=QUICK))
    assert sleep.status is RunStatus.TIME_LIMIT and sleep.wall_time_s < 3
    endless = b"i = 0\nwhile True:\n    print(i)\n    i += 1"
    stopped = sandbox.run(RunRequest(PYTHON, {"solver.py": endless}, limits=QUICK, stop_after_lines=200))
    assert stopped.status is RunStatus.OK and stopped.stopped_early
    assert stopped.stdout.decode().split() == [str(i) for i in range(200)]
    grow = b"items = []\nwhile True: items.append([0] * 1000)"
    memory = sandbox.run(RunRequest(PYTHON, {"solver.py": grow}, limits=Limits(cpu_time_s=10, wall_time_s=20)))
    # the address-space limit holds, and the program's own MemoryError says so
    assert memory.status is RunStatus.MEMORY_LIMIT, memory
    assert memory.stderr_tail.rstrip().endswith(b"MemoryError"), memory.stderr_tail


def test_a_missing_bwrap_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, path=None: None)
    with pytest.raises(DependencyError) as raised:
        bubblewrap.BubblewrapSandbox()
    assert "bubblewrap is missing" in raised.value.message
    assert raised.value.fix is not None and "apt-get install bubblewrap" in raised.value.fix
    assert "--sandbox rlimits" in raised.value.fix
