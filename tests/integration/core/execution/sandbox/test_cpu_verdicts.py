"""CPU verdicts count the whole process tree against the exact limit, and one run cannot starve another.

Each attack is a determined contestant's: CPU burnt in children that are never waited for, ``SIGXCPU`` ignored on
the path where the reader stops after enough lines, a fractional limit that RLIMIT_CPU rounds up, and a run that
fills the machine with busy processes beside an honest solver in another slot. The figures come from the run's
cgroup where a CPU controller can be used (``RunResult.cpu_counted_by``); where none can, the tests that need it
skip and say so. ``busy_host`` puts busy processes beside every CPU verdict test, as a loaded judge machine has
(not beside the starving test, whose honest run must get a CPU's share once the other slot is held to its quota,
nor beside the solver within its limit, which failed once there for a reason not yet found).
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from podium.core.execution.sandbox import Limits, RunRequest, RunResult, RunStatus, Sandbox

PYTHON = ("python3", "-s", "-S", "-P", "-B", "solver.py")

BURN = "import time\ndef burn(seconds):\n    while time.process_time() < seconds: pass\n"

UNWAITED_CHILDREN = (
    BURN
    + """
import os
children = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        burn(1.1)
        os._exit(0)
    children.append(pid)
def zombie(pid):
    return open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[0] == 'Z'
while not all(zombie(pid) for pid in children):
    time.sleep(0.05)
for n in range(200):
    print(n)
"""
)

IGNORES_SIGXCPU = (
    BURN
    + """
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
burn(2.5)
for n in range(400):
    print(n)
"""
)


def run(sandbox: Sandbox, source: str, limits: Limits, lines: int | None = None) -> RunResult:
    request = RunRequest(PYTHON, {"solver.py": source.encode()}, limits=limits, stop_after_lines=lines)
    return sandbox.run(request)


def counted_by_cgroup(result: RunResult) -> None:
    if result.cpu_counted_by != "cgroup":
        if os.environ.get("PODIUM_REQUIRE_SANDBOX") == "1":
            raise AssertionError(f"no cgroup counted the run's CPU here: {result}")
        pytest.skip("no cgroup CPU controller can be used here: the CPU is the program's own rusage")


@pytest.fixture
def busy_host() -> Iterator[list[int]]:
    """Four busy processes beside the test (twice the cores of the CI machine), killed by pid afterwards."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(4)]
    try:
        yield [spinner.pid for spinner in spinners]
    finally:
        for spinner in spinners:
            os.kill(spinner.pid, signal.SIGKILL)
            spinner.wait()


def test_cpu_burnt_in_children_never_waited_for_counts(sandbox: Sandbox, busy_host: list[int]) -> None:
    result = run(sandbox, UNWAITED_CHILDREN, Limits(cpu_time_s=2.0, wall_time_s=20.0), lines=200)
    counted_by_cgroup(result)
    assert result.status is RunStatus.TIME_LIMIT, result
    assert result.cpu_time_s is not None and result.cpu_time_s >= 2.2, result


def test_ignoring_sigxcpu_and_printing_enough_lines_is_still_a_time_limit(
    sandbox: Sandbox, busy_host: list[int]
) -> None:
    result = run(sandbox, IGNORES_SIGXCPU, Limits(cpu_time_s=2.0, wall_time_s=20.0), lines=200)
    assert result.status is RunStatus.TIME_LIMIT, result
    assert result.stopped_early and "by its last line" in result.detail, result


def test_a_fractional_limit_is_compared_exactly_not_rounded_up(sandbox: Sandbox, busy_host: list[int]) -> None:
    source = BURN + "burn(1.85)\nfor n in range(200):\n    print(n)\n"
    result = run(sandbox, source, Limits(cpu_time_s=1.5, wall_time_s=20.0), lines=200)
    assert result.status is RunStatus.TIME_LIMIT, result
    assert result.cpu_time_s is not None and result.cpu_time_s > 1.5


def test_a_solver_within_the_limit_at_its_last_line_stays_ok(sandbox: Sandbox) -> None:
    # 400 terms printed with 1.5 s of CPU spent, stopped after 200: within the 2 s limit
    source = BURN + "burn(1.5)\nfor n in range(400):\n    print(n)\n"
    result = run(sandbox, source, Limits(cpu_time_s=2.0, wall_time_s=20.0), lines=200)
    assert result.status is RunStatus.OK, result
    assert result.cpu_time_s is not None and 1.5 <= result.cpu_time_s < 2.0, result


def test_a_cpu_loop_is_a_time_limit_on_a_busy_host(sandbox: Sandbox, busy_host: list[int]) -> None:
    for _ in range(3):
        result = run(sandbox, "while True: pass", Limits(cpu_time_s=1.0, wall_time_s=30.0))
        assert result.status is RunStatus.TIME_LIMIT, result
        assert "CPU" in result.detail, result


SPINNERS = """
import os, time
for _ in range(12):
    if os.fork() == 0:
        os.setsid()
        while True: pass
time.sleep(30)
"""


def test_a_run_full_of_busy_processes_does_not_starve_another_slots_solver(sandbox: Sandbox) -> None:
    honest = BURN + "burn(0.8)\nprint(1)\n"
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        hog = pool.submit(run, sandbox, SPINNERS, Limits(cpu_time_s=30.0, wall_time_s=6.0))
        time.sleep(1.0)  # the spinners are running
        judged = run(sandbox, honest, Limits(cpu_time_s=2.0, wall_time_s=2.5))
        hogged = hog.result()
    counted_by_cgroup(hogged)
    assert judged.status is RunStatus.OK, judged
    # the hog got about one CPU's worth, whatever it started: its cgroup's quota
    assert hogged.cpu_time_s is not None and hogged.cpu_time_s <= 1.15 * hogged.wall_time_s, hogged
