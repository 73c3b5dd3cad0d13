"""How a run ended, decided from evidence gathered outside the program (pure logic, shared by every backend).

The evidence is ordered by how little the program can fake it: what the reader saw on stdout and whether the
parent killed the run come first, then the cgroup's OOM and limit-hit counters and the signal with the CPU
time the kernel accounted, and only then the last lines of stderr. A program that prints ``MemoryError`` to stderr
and exits 1 gains nothing by it: the verdict moves between two faults of its own.
"""

from __future__ import annotations

import signal as signals
from dataclasses import dataclass
from enum import StrEnum

from podium.core.execution.sandbox.records import Limits, RunStatus

_EFBIG = b"[Errno 27] File too large"


class Stop(StrEnum):
    """Why the reader stopped reading (and, unless ``EXITED``, killed the tree)."""

    EXITED = "exited"
    LINES = "lines"
    OUTPUT = "output"
    WALL = "wall"


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the parent knows once the tree is gone."""

    stop: Stop
    exit_code: int | None
    signal: int | None
    cpu_time_s: float | None
    oom_kills: int
    memory_limit_reached: bool
    stderr_tail: bytes


def decide(evidence: Evidence, limits: Limits) -> tuple[RunStatus, str]:
    """The status of a run and one line saying why."""
    if evidence.stop is Stop.LINES:
        return RunStatus.OK, "stopped after enough lines"
    if evidence.stop is Stop.OUTPUT:
        return RunStatus.OUTPUT_LIMIT, f"more than {limits.stdout_bytes} bytes on stdout"
    if evidence.oom_kills and evidence.exit_code != 0:
        return RunStatus.MEMORY_LIMIT, f"killed by the cgroup's OOM killer at {limits.memory_mib} MiB"
    cpu_limit_hit = _cpu_limit_hit(evidence, limits)
    if (cpu_limit_hit or evidence.stop is Stop.WALL) and evidence.memory_limit_reached:
        # Without swap the kernel reclaims the program's own file pages (the interpreter, its libraries) at the
        # limit and lets it fault them back in, again and again, before it gives up and kills: CPU time can run
        # out first (10 s of it once on CI). A program that reached its memory limit and then ran out of time gets
        # the verdict of the memory limit; either way the fault is its own.
        return RunStatus.MEMORY_LIMIT, f"out of time after reaching the {limits.memory_mib} MiB memory limit"
    if cpu_limit_hit:
        return RunStatus.TIME_LIMIT, f"CPU time over {limits.cpu_time_s:g} s"
    if evidence.stop is Stop.WALL:
        return RunStatus.TIME_LIMIT, f"wall time over {limits.wall_time_s:g} s; killed by the parent"
    return _from_exit(evidence, limits)


def _cpu_limit_hit(evidence: Evidence, limits: Limits) -> bool:
    if evidence.signal == signals.SIGXCPU:
        return True
    # RLIMIT_CPU's hard limit ends with SIGKILL; a SIGKILL after the soft limit's CPU time is that, not an attack
    spent = evidence.cpu_time_s
    return evidence.signal == signals.SIGKILL and spent is not None and spent >= limits.cpu_time_s


def _from_exit(evidence: Evidence, limits: Limits) -> tuple[RunStatus, str]:
    tail = _last_lines(evidence.stderr_tail)
    if evidence.signal == signals.SIGXFSZ or any(_EFBIG in line for line in tail):
        return RunStatus.OUTPUT_LIMIT, f"wrote a file over {limits.file_size_mib} MiB"
    if evidence.exit_code == 0:
        if evidence.cpu_time_s is not None and evidence.cpu_time_s > limits.cpu_time_s:
            return RunStatus.TIME_LIMIT, f"finished, but used {evidence.cpu_time_s:.2f} s of CPU time"
        return RunStatus.OK, "exited with code 0"
    if any(line.startswith(b"MemoryError") for line in tail):
        return RunStatus.MEMORY_LIMIT, f"MemoryError under the {limits.memory_mib} MiB limit"
    if evidence.signal is not None:
        return RunStatus.RUNTIME_ERROR, f"killed by signal {_signal_name(evidence.signal)}"
    return RunStatus.RUNTIME_ERROR, f"exited with code {evidence.exit_code}"


def _last_lines(tail: bytes, count: int = 3) -> list[bytes]:
    return [line.strip() for line in tail.strip().splitlines()[-count:]]


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)


def split_status(code: int) -> tuple[int | None, int | None]:
    """``(exit_code, signal)`` from a status in shell form, where 128 + N means "killed by signal N".

    bubblewrap reports its program's end that way, so an exit code above 128 cannot be told from a signal; we read
    it as the signal, as a shell does. A negative code (``Popen`` style) is a signal too.
    """
    if code < 0:
        return None, -code
    if code > 128 and code - 128 < signals.NSIG:
        return None, code - 128
    return code, None
