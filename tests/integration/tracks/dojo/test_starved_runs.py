"""A solver starved of CPU by other runs on the host is judged again alone; one that sleeps keeps its time limit.

Three other runs, each a dozen busy processes held to one CPU by its slot's quota, share the 2-core host with an
honest solver that needs 1.5 s of CPU within a 2.5 s wall limit: it gets about half a CPU, reaches the wall limit
having waited for a CPU much of the time, and is judged again alone (``host_gate``), where it passes. A solver that
sleeps past the wall limit waited for no CPU and keeps its time limit without a second run.
"""

from __future__ import annotations

import concurrent.futures
import time

import pytest

from podium.core.execution.sandbox import Limits, RunRequest, RunResult, Sandbox
from podium.tracks.dojo.execute import execute
from podium.tracks.dojo.verdicts import RunVerdict

HOG = "import os, time\nfor _ in range(12):\n    if os.fork() == 0:\n        while True: pass\ntime.sleep(30)\n"
HONEST = "import time\nwhile time.process_time() < 1.5: pass\nprint(1)\n"
LIMITS = Limits(cpu_time_s=5.0, wall_time_s=2.5)


@pytest.fixture(params=["bubblewrap", "fork_server"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """Each isolated backend the dojo judges with."""
    opened: Sandbox = request.getfixturevalue(request.param)
    return opened


def hog(sandbox: Sandbox) -> RunResult:
    files = {"hog.py": HOG.encode()}
    return sandbox.run(RunRequest(("python3", "-S", "hog.py"), files, limits=Limits(cpu_time_s=60, wall_time_s=5)))


def test_a_starved_solver_is_judged_again_alone_and_passes(sandbox: Sandbox) -> None:
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        hogs = [pool.submit(hog, sandbox) for _ in range(3)]
        time.sleep(1.0)  # the hogs are spinning
        judged = execute(HONEST.encode(), sandbox, n_check=1, limits=LIMITS)
        after_every_other_run = all(h.done() for h in hogs)
    assert judged.verdict is RunVerdict.OK and judged.terms == ("1",), judged
    assert "judged again alone: the first run waited" in judged.reason, judged.reason
    assert judged.first_waited_s is not None and judged.first_waited_s >= 0.25 * LIMITS.wall_time_s
    assert after_every_other_run  # alone: no other run of the host was running


def test_a_solver_that_sleeps_keeps_its_time_limit_without_a_second_run(sandbox: Sandbox) -> None:
    started = time.monotonic()
    judged = execute(b"import time\ntime.sleep(30)\n", sandbox, n_check=1, limits=LIMITS)
    assert judged.verdict is RunVerdict.TIME_LIMIT and "alone" not in judged.reason, judged
    assert judged.run.waited_s is not None and judged.run.waited_s < 0.5
    assert time.monotonic() - started < 2 * LIMITS.wall_time_s
