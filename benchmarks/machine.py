"""What every benchmark reports about the machine it ran on (imported by the scripts beside it)."""

from __future__ import annotations

import os
import platform
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
