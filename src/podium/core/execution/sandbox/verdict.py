"""How a run ended, decided from evidence gathered outside the program (pure logic, shared by every backend).

A limit verdict needs evidence the program cannot make up: the reader's own count of stdout bytes and lines, the
parent's own kill at the wall limit, the cgroup's OOM and limit-hit counters, the CPU time and peak memory the
kernel accounted. CPU time is the whole process tree's where a cgroup counts it (children that were never waited
for, and zombies, included), and it is compared with the exact limit on every path: a run whose CPU time is over
``Limits.cpu_time_s`` is a time limit however it ended, also when the reader stopped it after enough lines (with the
figure read when the last line came) and also when it ignored ``SIGXCPU`` (RLIMIT_CPU, in whole seconds above the
limit, is only the backstop). An exit status alone proves nothing: bubblewrap reports a death by signal N and an
exit with status 128 + N alike, and even where a backend sees the real signal, a program can send itself
``SIGXCPU``. So ``os._exit(152)`` after 16 ms of CPU is a runtime error "exited with status 152", not a time limit;
a death by ``SIGXCPU`` is a time limit only when the run's CPU time reached the limit. What the program writes on
stderr (``File too large``) decides nothing, with one exception: a failed run whose stderr ends in Python's
``MemoryError`` is a memory limit. The address-space backstop refuses one huge request (a 600 MiB ``bytearray``)
before the cgroup counts anything, so the program's own ``MemoryError`` is the only sign; forging it gains nothing,
since a memory limit scores as little as the runtime error it would otherwise be. There is no counter for files a
program writes in its own ``/tmp``, so a file over the size limit (``SIGXFSZ``, or ``EFBIG`` for Python, which
ignores the signal) is a runtime error too; ``OUTPUT_LIMIT`` is the stdout reader's.
"""

from __future__ import annotations

import signal as signals
from dataclasses import dataclass
from enum import StrEnum

from podium.core.execution.sandbox.records import Limits, RunStatus

CPU_SLACK = 0.1
"""The share of the CPU limit a death by its signal may read short: RLIMIT_CPU is checked against CPU time counted
in whole scheduler ticks, while rusage reports the exact run time, which reads less on a busy machine (0.990 s for
a 1 s limit; 9.965 s for 10 s with two other programs busy on 2 cores). A forged status needs 90 % of the limit's
CPU time spent to pass, which is most of what a time limit costs anyway."""


class Stop(StrEnum):
    """Why the reader stopped reading (and, unless ``EXITED``, killed the tree)."""

    EXITED = "exited"
    LINES = "lines"
    OUTPUT = "output"
    WALL = "wall"
    BOX = "box"  # a writable box grew past its quota


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the parent knows once the tree is gone.

    ``exit_code`` and ``signal`` are the end as the backend saw it; ``shell_status`` says an ``exit_code`` above 128
    may stand for a death by signal ``exit_code - 128`` (bubblewrap's reporting), which nothing else tells apart.
    """

    stop: Stop
    exit_code: int | None
    signal: int | None
    cpu_time_s: float | None
    oom_kills: int
    memory_limit_reached: bool
    shell_status: bool = False
    peak_memory_mib: float | None = None
    memory_error: bool = False  # its stderr ends in Python's MemoryError (module docstring)

    def ended_by(self, number: int) -> bool:
        """Whether the end reads as a death by signal ``number`` (a status that may be an exit is included)."""
        return self.signal == number or (self.shell_status and self.exit_code == 128 + number)

    @property
    def failed(self) -> bool:
        """Whether the program did not end with status 0 by itself."""
        return self.stop is not Stop.EXITED or self.exit_code != 0


def decide(evidence: Evidence, limits: Limits) -> tuple[RunStatus, str]:
    """The status of a run and one line saying why."""
    spent = evidence.cpu_time_s or 0.0
    over_cpu = spent > limits.cpu_time_s
    if evidence.stop is Stop.LINES:
        if over_cpu:
            return RunStatus.TIME_LIMIT, f"CPU time over {limits.cpu_time_s:g} s ({spent:.2f} s) by its last line"
        return RunStatus.OK, "stopped after enough lines"
    if evidence.stop is Stop.OUTPUT:
        return RunStatus.OUTPUT_LIMIT, f"more than {limits.stdout_bytes} bytes on stdout"
    if evidence.stop is Stop.BOX:
        return RunStatus.OUTPUT_LIMIT, f"more than {limits.box_mib} MiB written in its working folder"
    if evidence.oom_kills and evidence.failed:
        return RunStatus.MEMORY_LIMIT, f"killed by the cgroup's OOM killer at {limits.memory_mib} MiB"
    # RLIMIT_CPU ends a process with SIGXCPU, and SIGKILL a second later if it ignored that
    cpu_limit_hit = over_cpu or (
        spent >= limits.cpu_time_s * (1 - CPU_SLACK)
        and (evidence.ended_by(signals.SIGXCPU) or evidence.ended_by(signals.SIGKILL))
    )
    if (cpu_limit_hit or evidence.stop is Stop.WALL) and evidence.memory_limit_reached:
        # Without swap the kernel reclaims the program's own file pages (the interpreter, its libraries) at the
        # limit and lets it fault them back in, again and again, before it gives up and kills: CPU time can run
        # out first (10 s of it once on CI). A program that reached its memory limit and then ran out of time gets
        # the verdict of the memory limit; either way the fault is its own.
        return RunStatus.MEMORY_LIMIT, f"out of time after reaching the {limits.memory_mib} MiB memory limit"
    if cpu_limit_hit:
        return RunStatus.TIME_LIMIT, f"CPU time over {limits.cpu_time_s:g} s ({spent:.2f} s)"
    if evidence.stop is Stop.WALL:
        return RunStatus.TIME_LIMIT, f"wall time over {limits.wall_time_s:g} s; killed by the parent"
    peak = evidence.peak_memory_mib
    if evidence.failed and peak is not None and peak >= limits.memory_mib:
        # where no cgroup counts, the kernel's high-water mark shows the program did reach its limit
        return RunStatus.MEMORY_LIMIT, f"ended after reaching the {limits.memory_mib} MiB limit (peak {peak:.0f} MiB)"
    if evidence.exit_code == 0:
        return RunStatus.OK, "exited with code 0"
    if evidence.memory_error:
        return RunStatus.MEMORY_LIMIT, f"its own MemoryError under the {limits.memory_mib} MiB limit"
    return RunStatus.RUNTIME_ERROR, _describe_end(evidence)


def _describe_end(evidence: Evidence) -> str:
    if evidence.signal is not None:
        return f"killed by signal {_signal_name(evidence.signal)}"
    code = evidence.exit_code
    if evidence.shell_status and code is not None and 128 < code < 128 + signals.NSIG:
        return f"exited with status {code} (a death by {_signal_name(code - 128)} gives the same status)"
    return f"exited with code {code}"


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)


def split_status(code: int) -> tuple[int | None, int | None]:
    """``(exit_code, signal)`` from a ``Popen``-style return code, where only a negative code is a signal.

    A status of 128 + N from bubblewrap stays an exit code here; ``Evidence.shell_status`` lets ``ended_by`` read it
    as the death by signal N it may also be.
    """
    return (None, -code) if code < 0 else (code, None)
