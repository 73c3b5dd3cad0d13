"""The sandbox's records and protocol: what a caller asks for (``RunRequest``, ``Limits``) and gets (``RunResult``).

Every limit lives in ``Limits``, with its unit in its name. A ``RunResult`` always carries the backend's name and
whether it isolates, so a result judged by a weaker backend can never pass for an isolated one. These names are a
contract that other parts of podium code against; change them only together with their callers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Protocol

from podium.core.errors import ConfigError
from podium.core.execution.sandbox.channel import CHANNEL_FD_ENV, Channel
from podium.core.execution.sandbox.root import Entry, run_root

BASE_ENV: Mapping[str, str] = {"PATH": "/usr/bin", "LANG": "C.UTF-8"}
"""The whole environment of a sandboxed program, before ``RunRequest.env`` is merged over it."""


class FilterProfile(StrEnum):
    """Which system-call filter a run gets (``seccomp.py``): every run's, or that and more for judged solvers."""

    STANDARD = "standard"
    """Refuses what no judged program needs: keyrings, other processes, namespaces, mounts, the kernel's state."""
    SOLVER = "solver"
    """The standard filter, plus the calls that reach objects of the host kernel every run shares (file locks,
    file watches, the page cache): a short program that prints integers never needs them."""


class RunStatus(StrEnum):
    """How a run ended (closed set)."""

    OK = "ok"
    """Exited 0, or was stopped by the reader after ``stop_after_lines`` lines."""
    RUNTIME_ERROR = "runtime_error"
    """Non-zero exit, or killed by a signal, with no evidence of a limit (verdict.py): a file over
    ``file_size_mib`` is a runtime error too."""
    TIME_LIMIT = "time_limit"
    """The CPU limit (a death by SIGXCPU or SIGKILL after the limit's CPU time) or the parent's wall limit."""
    MEMORY_LIMIT = "memory_limit"
    """Killed by the cgroup's OOM killer, out of time after reaching the cgroup's limit, where no cgroup counts
    ended with a peak at or over the limit, or failed with Python's ``MemoryError`` (verdict.py)."""
    OUTPUT_LIMIT = "output_limit"
    """More than ``stdout_bytes`` before enough lines, or a writable box grown past ``box_mib``."""
    INTERNAL_ERROR = "internal_error"
    """The sandbox itself failed; never the program's fault."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Every limit of one run. ``processes`` counts threads too (the kernel counts tasks)."""

    cpu_time_s: float = 2.0
    wall_time_s: float = 5.0
    memory_mib: int = 256
    processes: int = 16
    file_size_mib: int = 1
    tmp_mib: int = 8
    stdout_bytes: int = 1 << 20
    stderr_bytes: int = 64 << 10
    box_mib: int = 64  # what a writable box may hold in all (``RunRequest.writable``)

    def __post_init__(self) -> None:
        for limit in fields(self):
            value = getattr(self, limit.name)
            if value <= 0:
                raise ConfigError(f"sandbox limit {limit.name} must be positive, not {value}")


_RESERVED = ("/box", "/proc", "/dev")  # the sandbox's own mounts, which a readable folder may not cover


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One program to run: its argv, the files of its box (the otherwise empty working folder), its limits.

    The box is read-only unless ``writable``: then the program may change and add files there, up to
    ``Limits.box_mib`` in all, and ``RunResult.box`` holds every file it ends with. ``workdir`` is the folder inside
    the box the program starts in. ``readable`` names host folders the program may read at their own paths (the
    isolated backend binds them read-only; they must be world-readable, as the program runs as a uid of its own).
    ``host_paths``: None gives the program the host's whole interpreter layout (``/usr``); a tuple gives it only
    the Python interpreter its argv names (binary, standard library, shared libraries) and these host paths
    (``root.py``).
    """

    argv: tuple[str, ...]
    files: Mapping[str, bytes]
    limits: Limits = Limits()
    env: Mapping[str, str] = field(default_factory=dict)
    stop_after_lines: int | None = None
    # a request/answer channel to the parent (one extra descriptor, ``PODIUM_CHANNEL_FD``); see ``channel.py``
    channel: Channel | None = field(default=None, compare=False)
    writable: bool = False
    workdir: str = ""
    readable: tuple[Path, ...] = ()
    profile: FilterProfile = FilterProfile.STANDARD
    host_paths: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not self.argv:
            raise ConfigError("a sandbox run needs a non-empty argv")
        if self.stop_after_lines is not None and self.stop_after_lines < 1:
            raise ConfigError(f"stop_after_lines must be at least 1, not {self.stop_after_lines}")
        workdir = PurePosixPath(self.workdir)
        if workdir.is_absolute() or ".." in workdir.parts:
            raise ConfigError(f"workdir {self.workdir!r} must be a plain relative path inside the box")
        for folder in self.readable:
            inside = PurePosixPath(folder)
            if (
                not inside.is_absolute()
                or any(inside.is_relative_to(root) for root in _RESERVED)
                or inside.parent == inside
            ):
                raise ConfigError(
                    f"readable folder {str(folder)!r} must be an absolute path outside {', '.join(_RESERVED)}"
                )

        for path in self.host_paths or ():
            if not PurePosixPath(path).is_absolute() or any(PurePosixPath(path).is_relative_to(r) for r in _RESERVED):
                raise ConfigError(f"host path {path!r} must be an absolute path outside {', '.join(_RESERVED)}")

    def root(self) -> tuple[Entry, ...]:
        """The host's part of this run's root (``root.py``): what the program can read of the host."""
        return run_root(self.argv[0], self.environment().get("PATH", ""), self.host_paths)

    def environment(self) -> dict[str, str]:
        """The program's whole environment: the fixed base with ``env`` merged over it."""
        return {**BASE_ENV, **self.env}

    def environment_with(self, channel_fd: int | None) -> dict[str, str]:
        """The environment, naming the channel's descriptor when the run has one."""
        environment = self.environment()
        if channel_fd is not None:
            environment[CHANNEL_FD_ENV] = str(channel_fd)
        return environment


@dataclass(frozen=True, slots=True)
class RunResult:
    """How one run ended, what it printed (each stream capped) and what it cost."""

    status: RunStatus
    exit_code: int | None
    signal: int | None
    stdout: bytes
    stderr: bytes  # the first Limits.stderr_bytes
    stderr_tail: bytes  # the last 4 KiB, however long stderr was: where a traceback ends
    stopped_early: bool
    wall_time_s: float
    cpu_time_s: float | None
    # the run's cgroup high-water mark (v1), else its rusage figure where that cannot be the judge's own; else None
    peak_memory_mib: float | None
    backend: str
    isolated: bool
    detail: str
    box: Mapping[str, bytes] | None = None  # a writable box's files after the run (regular files only)
    # where cpu_time_s comes from: "cgroup" (the whole process tree, children and zombies included), or "rusage"
    # (the program and the children it waited for; where no cgroup CPU controller can be used)
    cpu_counted_by: str = "rusage"
    # at the wall limit: how long the run's threads had waited for a CPU while runnable (None: another end, or no
    # cgroup to find them); a run that waited much of its wall time was starved, not slow (dojo: judged again alone)
    waited_s: float | None = None


class Sandbox(Protocol):
    """Runs untrusted programs under ``Limits``; safe to call from several threads at once."""

    name: str
    isolated: bool

    def run(self, request: RunRequest) -> RunResult:
        """Run one program to completion (or to a limit) and describe how it ended."""
        ...
