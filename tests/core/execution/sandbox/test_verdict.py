"""The sandbox's verdict from the evidence of a run's end, and the split of a status into code and signal."""

from __future__ import annotations

import signal

import pytest

from podium.core.execution.sandbox import Limits, RunStatus
from podium.core.execution.sandbox.verdict import Evidence, Stop, decide, split_status

LIMITS = Limits()


def evidence(stop: Stop = Stop.EXITED, code: int | None = 0, sig: int | None = None, **kw: object) -> Evidence:
    values: dict[str, object] = {"cpu_time_s": 0.1, "oom_kills": 0} | kw
    values.setdefault("memory_limit_reached", False)
    return Evidence(stop, code, sig, **values)  # type: ignore[arg-type]


def bwrap(code: int, **kw: object) -> Evidence:
    """An end as bubblewrap reports it: status 128 + N for a death by signal N, and for exit(128 + N) alike."""
    return evidence(code=code, shell_status=True, **kw)


@pytest.mark.parametrize(
    ("case", "status"),
    [
        (evidence(), RunStatus.OK),
        (evidence(Stop.LINES, None, 9, oom_kills=1), RunStatus.OK),
        (evidence(Stop.LINES, None, 9, cpu_time_s=1.99), RunStatus.OK),  # within the limit at its last line
        (evidence(Stop.LINES, None, 9, cpu_time_s=2.01), RunStatus.TIME_LIMIT),  # enough lines, too late
        (evidence(code=None, sig=signal.SIGKILL, cpu_time_s=2.01), RunStatus.TIME_LIMIT),  # over: however it ended
        (evidence(code=1, cpu_time_s=2.5), RunStatus.TIME_LIMIT),
        (evidence(Stop.OUTPUT, None, 9), RunStatus.OUTPUT_LIMIT),
        (evidence(Stop.WALL, None, 9, cpu_time_s=0.2), RunStatus.TIME_LIMIT),
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=2.0), RunStatus.TIME_LIMIT),
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=1.85), RunStatus.TIME_LIMIT),  # rusage reads a bit short
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=1.75), RunStatus.RUNTIME_ERROR),
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=0.02), RunStatus.RUNTIME_ERROR),  # sent to itself
        (evidence(code=None, sig=signal.SIGKILL, cpu_time_s=3.0), RunStatus.TIME_LIMIT),  # RLIMIT_CPU's hard limit
        (evidence(code=None, sig=signal.SIGKILL, cpu_time_s=0.5), RunStatus.RUNTIME_ERROR),
        (evidence(code=None, sig=signal.SIGKILL, oom_kills=1), RunStatus.MEMORY_LIMIT),
        (evidence(code=0, oom_kills=1), RunStatus.OK),  # a child was OOM-killed, the program coped
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=2.0, memory_limit_reached=True), RunStatus.MEMORY_LIMIT),
        (evidence(Stop.WALL, None, 9, memory_limit_reached=True), RunStatus.MEMORY_LIMIT),
        (evidence(code=1, memory_limit_reached=True), RunStatus.RUNTIME_ERROR),  # reclaimed at the limit, then crashed
        (evidence(code=1, peak_memory_mib=300.0), RunStatus.MEMORY_LIMIT),  # no cgroup: the kernel's high-water mark
        (evidence(code=1, peak_memory_mib=12.0), RunStatus.RUNTIME_ERROR),  # no sign of memory at all
        (evidence(code=1, memory_error=True), RunStatus.MEMORY_LIMIT),  # its own MemoryError: one huge request
        (evidence(code=0, memory_error=True), RunStatus.OK),  # caught, and it ended well
        (evidence(code=None, sig=signal.SIGXFSZ), RunStatus.RUNTIME_ERROR),  # no counter of /tmp's files
        (evidence(code=0, cpu_time_s=2.01), RunStatus.TIME_LIMIT),
        (evidence(code=3), RunStatus.RUNTIME_ERROR),
        (evidence(code=None, sig=signal.SIGSEGV), RunStatus.RUNTIME_ERROR),
        # bubblewrap's statuses: a limit's signal number counts only with the limit's evidence
        (bwrap(128 + signal.SIGXCPU, cpu_time_s=2.0), RunStatus.TIME_LIMIT),
        (bwrap(128 + signal.SIGXCPU, cpu_time_s=0.016), RunStatus.RUNTIME_ERROR),  # os._exit(152)
        (bwrap(128 + signal.SIGKILL, cpu_time_s=0.016), RunStatus.RUNTIME_ERROR),  # os._exit(137)
        (bwrap(128 + signal.SIGKILL, cpu_time_s=0.2, oom_kills=1), RunStatus.MEMORY_LIMIT),
        (bwrap(128 + signal.SIGXFSZ), RunStatus.RUNTIME_ERROR),  # os._exit(153)
        (evidence(code=128 + signal.SIGXCPU, cpu_time_s=2.0), RunStatus.RUNTIME_ERROR),  # an exact exit code 152
    ],
)
def test_decide(case: Evidence, status: RunStatus) -> None:
    decided, detail = decide(case, LIMITS)
    assert decided is status and detail and "\n" not in detail


def test_a_status_that_may_be_a_signal_is_named_as_a_status() -> None:
    assert decide(bwrap(152), LIMITS)[1] == "exited with status 152 (a death by SIGXCPU gives the same status)"
    assert decide(bwrap(3), LIMITS)[1] == "exited with code 3"
    assert decide(evidence(code=None, sig=signal.SIGSEGV), LIMITS)[1] == "killed by signal SIGSEGV"


def test_split_status_takes_only_negative_codes_for_signals() -> None:
    assert split_status(0) == (0, None)
    assert split_status(1) == (1, None)
    assert split_status(128 + 9) == (128 + 9, None)
    assert split_status(-24) == (None, 24)
    assert split_status(255) == (255, None)
