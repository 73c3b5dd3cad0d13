"""Per-run cgroups (v1 ``memory`` + ``pids`` + ``cpu``/``cpuacct``, or v2), created once per slot and reused.

Creating and removing a cgroup per run costs about 33 ms (docs/rules/dojo-platform.md §11), more than bubblewrap itself,
so each sandbox slot owns one cgroup for the life of the process: a run only rewrites the limits when they change, reads
the OOM counter before and after, and moves the sandbox's first process in before the program starts. The cgroups live
under the judge's own cgroup (``podium-sandbox-<pid>/slot-<n>``), so the container's limits still hold over them; they
are removed at exit, and those left by a judge that died are removed by the next one.

Each run gets its own memory high-water mark: v1 zeroes ``memory.max_usage_in_bytes`` in ``prepare``; v2's
``memory.peak`` covers the cgroup's whole life, but since Linux 6.12 a write to an open ``memory.peak`` resets the
peak for that file descriptor alone, so ``prepare`` opens and resets one per run and ``usage`` reads through it. On
older kernels the reset fails and a v2 run reports no peak rather than an earlier run's.

CPU is counted for the whole tree, children and zombies included, where a CPU controller can be used: v1's
``cpuacct.usage`` (nanoseconds) or v2's ``cpu.stat`` ``usage_usec``; the backends read it before the program starts
and after the tree is gone. The same controller caps a run at one CPU's worth (v1 ``cpu.cfs_quota_us``, v2
``cpu.max``), so a run that starts many busy processes slows itself, not another slot's run. Where the CPU
controllers are missing or cannot be written, ``cpu_s`` is None and the backends fall back to the program's own
rusage (and RLIMIT_CPU), which each result says.

Where no cgroup can be written (no root, a read-only cgroupfs, a v2 tree whose controllers are not delegated),
``detect`` says why and the sandbox falls back to rlimits alone.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

_MIB = 1 << 20
SANDBOX_CGROUP_PREFIX = "podium-sandbox-"  # every cgroup folder the sandbox makes starts so
CPU_PERIOD_US = 100_000
"""The CPU quota's period: a run may use ``CPU_PERIOD_US`` of CPU time per period, one CPU's worth."""


@dataclass(frozen=True, slots=True)
class MemoryUsage:
    """What a cgroup saw of one run's memory (since ``prepare``)."""

    oom_kills: int
    reached_limit: bool  # the use met the limit, so the kernel had to reclaim
    peak_bytes: int | None  # the high-water mark, where the kernel can give one for a single run


class Cgroup(Protocol):
    """One reusable cgroup: limits, membership, the memory counters and a kill switch."""

    def prepare(self, memory_mib: int, tasks: int) -> None:
        """Set the limits for the next run and remember the memory counters."""
        ...

    def attach(self, pid: int) -> None:
        """Move a process (and so all it will fork) into the cgroup."""
        ...

    def holds(self, pid: int) -> bool:
        """Whether the process is in the cgroup (in every hierarchy, for v1)."""
        ...

    def usage(self) -> MemoryUsage:
        """The run's memory counters, each cgroup file read once."""
        ...

    def cpu_s(self) -> float | None:
        """CPU time every process ever in the cgroup has used, in seconds; None where no controller counts it."""
        ...

    def waited_s(self) -> float:
        """How long the cgroup's live threads have waited for a CPU while runnable, in seconds (``schedstat``)."""
        ...

    def kill_all(self) -> None:
        """SIGKILL every process still in the cgroup."""
        ...

    def remove(self) -> None:
        """Remove the cgroup (it must be empty)."""
        ...

    def folders(self) -> tuple[Path, ...]:
        """Its folders in the cgroup filesystem (one per v1 hierarchy), for the run registry."""
        ...


@dataclass(frozen=True, slots=True)
class CgroupSupport:
    """Where per-run cgroups can be made, or why they cannot (``factory`` is None then)."""

    description: str
    factory: CgroupFactory | None


class CgroupFactory(Protocol):
    """Makes the cgroup of one sandbox slot."""

    def create(self, name: str) -> Cgroup:
        """Create (or take over) the cgroup called ``name`` under this process's sandbox folder."""
        ...

    def cleanup(self) -> None:
        """Remove this process's sandbox folder once its slots are gone."""
        ...


# Files are named by plain strings and read with os calls: a run reads and writes about ten of them, and pathlib
# cost more CPU than the kernel did.


def _write(path: str | Path, value: str) -> None:
    # one write() per value: cgroup files take a whole value per write and reject partial ones
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _read(path: str | Path) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode()


def _counters(path: str) -> dict[str, int]:
    """A flat-keyed cgroup file (``memory.events``, ``memory.oom_control``) as name -> value."""
    pairs = (line.partition(" ") for line in _read(path).splitlines())
    return {name: int(value) for name, _, value in pairs if value.strip().isdigit()}


def _reset(path: str) -> bool:
    """Zero a v1 high-water counter; False where the kernel refuses (the figure would then be stale)."""
    try:
        _write(path, "0")
    except OSError:
        return False
    return True


def _waited_s(procs: str) -> float:
    """The run-queue wait of every thread of the processes listed in ``procs`` (``schedstat``'s second field)."""
    waited_ns = 0
    for pid in _read(procs).split():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile waits no more
            for task in os.scandir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    waited_ns += int(_read(f"{task.path}/schedstat").split()[1])
    return waited_ns / 1e9


def _kill_listed(procs: str) -> None:
    for pid in _read(procs).split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)


class _V1Cgroup:
    """v1 cgroups of one slot: in the ``memory`` and ``pids`` hierarchies, and ``cpu``/``cpuacct`` where usable."""

    def __init__(self, memory: Path, pids: Path, cpu: tuple[Path, ...] = ()) -> None:
        self.memory, self.pids, self.cpu = memory, pids, cpu
        self._memory_dir, self._pids_dir = str(memory), str(pids)
        # the folder holding cpuacct.usage and the one holding cpu.cfs_quota_us (the same where co-mounted)
        self._usage = next((str(f) for f in cpu if (f / "cpuacct.usage").exists()), None)
        self._quota = next((str(f) for f in cpu if (f / "cpu.cfs_quota_us").exists()), None)
        self._quota_set = False
        self._swap = (memory / "memory.memsw.limit_in_bytes").exists()
        self._memory_bytes: int | None = None
        self._tasks: int | None = None
        self._oom_before = self._hits_before = 0
        self._peak_known = False

    def prepare(self, memory_mib: int, tasks: int) -> None:
        if memory_mib * _MIB != self._memory_bytes:
            self._set_memory(memory_mib * _MIB)
        if tasks != self._tasks:
            _write(f"{self._pids_dir}/pids.max", str(tasks))
            self._tasks = tasks
        if self._quota is not None and not self._quota_set:
            _write(f"{self._quota}/cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(f"{self._quota}/cpu.cfs_quota_us", str(CPU_PERIOD_US))
            self._quota_set = True
        self._oom_before = _counters(f"{self._memory_dir}/memory.oom_control").get("oom_kill", 0)
        self._hits_before = int(_read(f"{self._memory_dir}/memory.failcnt"))
        self._peak_known = _reset(f"{self._memory_dir}/memory.max_usage_in_bytes")

    def cpu_s(self) -> float | None:
        return None if self._usage is None else int(_read(f"{self._usage}/cpuacct.usage")) / 1e9

    def waited_s(self) -> float:
        return _waited_s(f"{self._pids_dir}/cgroup.procs")

    def _set_memory(self, limit: int) -> None:
        # memory+swap may never be below memory: raise memsw first when growing, lower it last when shrinking
        # (a new cgroup starts unlimited, so its first limit is a shrink)
        files = ["memory.limit_in_bytes"]
        if self._swap:
            files.append("memory.memsw.limit_in_bytes")
            if self._memory_bytes is not None and limit > self._memory_bytes:
                files.reverse()
        for name in files:
            _write(f"{self._memory_dir}/{name}", str(limit))
        self._memory_bytes = limit

    def attach(self, pid: int) -> None:
        for folder in self.folders():
            _write(f"{folder}/cgroup.procs", str(pid))

    def holds(self, pid: int) -> bool:
        return all(str(pid) in _read(f"{folder}/cgroup.procs").split() for folder in self.folders())

    def usage(self) -> MemoryUsage:
        oom_kills = _counters(f"{self._memory_dir}/memory.oom_control").get("oom_kill", 0) - self._oom_before
        peak = int(_read(f"{self._memory_dir}/memory.max_usage_in_bytes")) if self._peak_known else None
        # the high-water mark first: some kernels (6.18 here) leave v1's failcnt at 0 even through an OOM kill
        reached = (
            _at_limit(peak, self._memory_bytes) or int(_read(f"{self._memory_dir}/memory.failcnt")) > self._hits_before
        )
        return MemoryUsage(oom_kills, reached, peak)

    def kill_all(self) -> None:
        _kill_listed(f"{self._pids_dir}/cgroup.procs")

    def remove(self) -> None:
        for path in self.folders():
            with contextlib.suppress(OSError):
                path.rmdir()

    def folders(self) -> tuple[Path, ...]:
        return (self.memory, self.pids, *self.cpu)


def _at_limit(peak: int | None, limit_bytes: int | None) -> bool:
    """Whether the run's high-water mark reached the limit; the limit-hit counter is the other sign of it."""
    return peak is not None and limit_bytes is not None and peak >= limit_bytes


class _V2Cgroup:
    """One v2 cgroup with the ``memory`` and ``pids`` controllers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._dir = str(path)
        self._quota_set = False
        self._memory_bytes: int | None = None
        self._tasks: int | None = None
        self._oom_before = self._hits_before = 0
        self._peak_fd: int | None = None  # memory.peak, opened and reset for this run

    def prepare(self, memory_mib: int, tasks: int) -> None:
        if memory_mib * _MIB != self._memory_bytes:
            _write(f"{self._dir}/memory.max", str(memory_mib * _MIB))
            with contextlib.suppress(OSError):  # no swap controller: nothing to turn off
                _write(f"{self._dir}/memory.swap.max", "0")
            self._memory_bytes = memory_mib * _MIB
        if tasks != self._tasks:
            _write(f"{self._dir}/pids.max", str(tasks))
            self._tasks = tasks
        if not self._quota_set:
            with contextlib.suppress(OSError):  # no cpu controller delegated: no quota (the docs say so)
                _write(f"{self._dir}/cpu.max", f"{CPU_PERIOD_US} {CPU_PERIOD_US}")
            self._quota_set = True
        events = _counters(f"{self._dir}/memory.events")
        self._oom_before, self._hits_before = events.get("oom_kill", 0), events.get("max", 0)
        self._reset_peak()

    def _reset_peak(self) -> None:
        # since 6.12 a write to an open memory.peak resets the peak for that descriptor alone, and reads through it
        # give the peak since; older kernels refuse the write (or have no file), and the run then gets no peak
        self._close_peak()
        try:
            fd = os.open(f"{self._dir}/memory.peak", os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return
        try:
            os.write(fd, b"reset\n")
        except OSError:
            os.close(fd)
            return
        self._peak_fd = fd

    def _close_peak(self) -> None:
        if self._peak_fd is not None:
            fd, self._peak_fd = self._peak_fd, None
            os.close(fd)

    def attach(self, pid: int) -> None:
        _write(f"{self._dir}/cgroup.procs", str(pid))

    def holds(self, pid: int) -> bool:
        return str(pid) in _read(f"{self._dir}/cgroup.procs").split()

    def usage(self) -> MemoryUsage:
        events = _counters(f"{self._dir}/memory.events")
        # the peak through the descriptor prepare reset: this run's alone. Without one (a kernel before 6.12) no
        # figure, as memory.peak read afresh covers the cgroup's whole life, earlier runs in this slot included
        peak = int(os.pread(self._peak_fd, 64, 0)) if self._peak_fd is not None else None
        reached = _at_limit(peak, self._memory_bytes) or events.get("max", 0) > self._hits_before
        return MemoryUsage(events.get("oom_kill", 0) - self._oom_before, reached, peak)

    def cpu_s(self) -> float | None:
        # cpu.stat's usage_usec is kept by every v2 cgroup, whether or not the cpu controller is enabled
        try:
            usage = _counters(f"{self._dir}/cpu.stat").get("usage_usec")
        except OSError:
            return None
        return None if usage is None else usage / 1e6

    def waited_s(self) -> float:
        return _waited_s(f"{self._dir}/cgroup.procs")

    def kill_all(self) -> None:
        try:
            _write(f"{self._dir}/cgroup.kill", "1")
        except OSError:  # kernels before 5.14 have no cgroup.kill
            _kill_listed(f"{self._dir}/cgroup.procs")

    def remove(self) -> None:
        self._close_peak()
        with contextlib.suppress(OSError):
            self.path.rmdir()

    def folders(self) -> tuple[Path, ...]:
        return (self.path,)


class _V1Factory:
    def __init__(self, memory_root: Path, pids_root: Path, cpu_roots: tuple[Path, ...] = ()) -> None:
        self.memory_root, self.pids_root, self.cpu_roots = memory_root, pids_root, cpu_roots

    def create(self, name: str) -> Cgroup:
        memory, pids = self.memory_root / name, self.pids_root / name
        cpu = tuple(root / name for root in self.cpu_roots)
        for folder in (memory, pids, *cpu):
            folder.mkdir(parents=True, exist_ok=True)
        return _V1Cgroup(memory, pids, cpu)

    def cleanup(self) -> None:
        for root in (self.memory_root, self.pids_root, *self.cpu_roots):
            with contextlib.suppress(OSError):
                root.rmdir()


class _V2Factory:
    def __init__(self, root: Path) -> None:
        self.root = root

    def create(self, name: str) -> Cgroup:
        if not self.root.exists():
            self.root.mkdir()
            # v2 hands controllers down one level at a time: the slots below need them enabled here too
            _write(self.root / "cgroup.subtree_control", "+memory +pids")
            with contextlib.suppress(OSError):  # the cpu controller where the parent has it: the quota
                _write(self.root / "cgroup.subtree_control", "+cpu")
        path = self.root / name
        path.mkdir(exist_ok=True)
        return _V2Cgroup(path)

    def cleanup(self) -> None:
        with contextlib.suppress(OSError):
            self.root.rmdir()


@dataclass(frozen=True, slots=True)
class _Mount:
    fstype: str
    root: str
    point: Path
    options: frozenset[str]


def _mounts(mountinfo: str) -> list[_Mount]:
    mounts = []
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, extra = left.split(), right.split()
        if len(fields) >= 5 and len(extra) >= 3 and extra[0] in ("cgroup", "cgroup2"):
            mounts.append(_Mount(extra[0], fields[3], Path(fields[4]), frozenset(extra[2].split(","))))
    return mounts


def _own_paths(proc_cgroup: str) -> dict[str, str]:
    """Controller (or ``""`` for v2) -> this process's cgroup path, from ``/proc/self/cgroup``."""
    paths: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _inside(mount: _Mount, path: str) -> Path:
    """Where the cgroup ``path`` (as /proc/self/cgroup names it) lies under ``mount``."""
    relative = os.path.relpath(path, mount.root) if mount.root != "/" else path.lstrip("/")
    return mount.point / ("" if relative == "." else relative)


def detect(mountinfo: str | None = None, proc_cgroup: str | None = None) -> CgroupSupport:
    """Find where this process may make per-run cgroups: v1 ``memory``+``pids`` first, else v2."""
    mountinfo = Path("/proc/self/mountinfo").read_text() if mountinfo is None else mountinfo
    proc_cgroup = Path("/proc/self/cgroup").read_text() if proc_cgroup is None else proc_cgroup
    mounts, own = _mounts(mountinfo), _own_paths(proc_cgroup)
    folder = f"{SANDBOX_CGROUP_PREFIX}{os.getpid()}"
    controllers: tuple[str, ...] = ("memory", "pids", "cpu", "cpuacct")
    v1 = {c: m for m in mounts if m.fstype == "cgroup" for c in controllers if c in m.options}
    if "memory" in v1 and "pids" in v1:
        memory = _inside(v1["memory"], own.get("memory", "/"))
        pids = _inside(v1["pids"], own.get("pids", "/"))
        cpu = _v1_cpu_bases(v1, own)
        without = "cgroup v1 (memory, pids; no cpu controllers)"
        if cpu:
            with_cpu = _try_folders(
                "cgroup v1 (memory, pids, cpu, cpuacct)",
                [memory, pids, *cpu],
                lambda: _V1Factory(memory / folder, pids / folder, tuple(base / folder for base in cpu)),
            )
            if with_cpu.factory is not None:
                return with_cpu
            without = "cgroup v1 (memory, pids; the cpu controllers are not writable)"
        return _try_folders(without, [memory, pids], lambda: _V1Factory(memory / folder, pids / folder))
    v2 = [m for m in mounts if m.fstype == "cgroup2"]
    if v2:
        base = _inside(v2[0], own.get("", "/"))
        reason = _delegate_v2(base)
        if reason:
            return CgroupSupport(f"none: {reason}", None)
        return _try_folders("cgroup v2 (memory, pids)", [base], lambda: _V2Factory(base / folder))
    return CgroupSupport("none: no cgroup memory and pids controllers are mounted", None)


def _v1_cpu_bases(v1: Mapping[str, _Mount], own: dict[str, str]) -> list[Path]:
    """The judge's folders in the v1 ``cpu`` and ``cpuacct`` hierarchies (one where they are co-mounted)."""
    if "cpu" not in v1 or "cpuacct" not in v1:
        return []
    bases = [_inside(v1[c], own.get(c, "/")) for c in ("cpu", "cpuacct")]
    return bases[:1] if bases[0] == bases[1] else bases


def _delegate_v2(base: Path) -> str | None:
    """Make sure ``base``'s children get the memory and pids controllers; say why not if they cannot."""
    try:
        enabled = set((base / "cgroup.subtree_control").read_text().split())
        if {"memory", "pids"} <= enabled:
            return None
        available = set((base / "cgroup.controllers").read_text().split())
        if not {"memory", "pids"} <= available:
            return f"cgroup v2 at {base} lacks the memory and pids controllers"
        _write(base / "cgroup.subtree_control", "+memory +pids")
    except OSError as error:
        return f"cannot delegate memory and pids under {base} ({error.strerror})"
    return None


def _try_folders(description: str, bases: list[Path], make: Callable[[], CgroupFactory]) -> CgroupSupport:
    for base in bases:
        _remove_stale(base)
    factory = make()
    try:
        probe = factory.create("probe")
        probe.remove()
    except OSError as error:
        factory.cleanup()
        return CgroupSupport(f"none: {description} is not writable ({error.strerror})", None)
    return CgroupSupport(description, factory)


def _remove_stale(base: Path) -> None:
    """Remove the (empty) sandbox cgroups of judges that no longer run."""
    with contextlib.suppress(OSError):
        for folder in base.glob(f"{SANDBOX_CGROUP_PREFIX}*"):
            pid = folder.name.removeprefix(SANDBOX_CGROUP_PREFIX)
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                for slot in folder.iterdir():
                    if slot.is_dir():
                        with contextlib.suppress(OSError):
                            slot.rmdir()
                with contextlib.suppress(OSError):
                    folder.rmdir()
