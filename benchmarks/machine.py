"""What every benchmark reports about the machine it ran on (imported by the scripts beside it)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import platform
from collections.abc import Iterator
from pathlib import Path


def cpu_model() -> str:
    """The processor's model name from /proc/cpuinfo, else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def busy_cpu_seconds() -> float:
    """CPU seconds every core has spent busy since boot (/proc/stat), kernel threads included.

    The difference over a stretch of work is what it cost the whole machine: it counts what no rusage sees, such
    as a sandboxed program killed inside its pid namespace and the kernel tearing namespaces down.
    """
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # guest time is already counted in user


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def busy_processes(count: int) -> Iterator[None]:
    """``count`` processes that keep a core busy each while the block runs ("under load")."""
    burners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for burner in burners:
        burner.start()
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
