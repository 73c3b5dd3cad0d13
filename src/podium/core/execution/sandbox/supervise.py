"""The trusted side of a run, shared by every backend: slots, the working directory, the capped reader, reaping.

A *slot* is what one concurrent run owns: a host uid nobody else uses (so ``RLIMIT_NPROC``, which the kernel
counts per real uid, limits this run and no other), where the host allows, a cgroup, and the thread that starts
its runs, each in a fresh session keyring (``spawn.py``). Slots are pooled per process and reused; a process has
at most four pools (with and without cgroups; the fork-server's own, whose idle slots hold the next run's
prepared processes in their cgroups, with and without), each with its own block of uids and cgroup names. The
blocks are derived from the judge's pid: in the high uid range two judges share one only if their pids agree
modulo 2^20; where only the low range can be used (a user namespace without it), pids that agree modulo 156 do.

The judge makes itself a child subreaper: a sandbox's first process can outlive the bubblewrap that started it
(bubblewrap exits as soon as it learns the exit status), and a subreaper judge can reap it instead of leaving a
zombie that keeps counting against the process limit (docs/rules/dojo-platform.md §11: "Can't fork for pid 1").
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import math
import os
import resource
import select
import shutil
import signal
import stat
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from podium.core.errors import ConfigError, DependencyError
from podium.core.execution.sandbox.cgroups import Cgroup, CgroupSupport, detect
from podium.core.execution.sandbox.records import Limits, RunRequest, RunResult, RunStatus
from podium.core.execution.sandbox.spawn import Spawner
from podium.core.execution.sandbox.verdict import Evidence, Stop, decide, split_status

MAX_SLOTS = 64
"""Concurrent runs per judge process; a run beyond this waits for a free slot."""

POOLS_PER_PROCESS = 4  # bubblewrap and rlimits, the fork-server: each with and without cgroups

_READ_CHUNK = 1 << 16
_DEADLINE_POLL_S = 0.1  # how late a moved deadline can be noticed
_STDERR_TAIL = 4096
# tmpfs where there is one: creating and removing a folder per run costs ~2 ms on a slow disk, ~0.1 ms there
_BOX_PARENT = "/dev/shm" if os.access("/dev/shm", os.W_OK | os.X_OK) else None
_PR_SET_CHILD_SUBREAPER = 36
# 0x70000000 upward is past the ranges systemd hands out to users, dynamic users and nspawn containers
_HIGH_UIDS = (0x7000_0000, 1 << 28)
_LOW_UIDS = (20_000, 40_000)


@dataclass(frozen=True, slots=True)
class Slot:
    """What one concurrent run owns: a host uid of its own, where possible a cgroup, and the thread that starts it."""

    index: int
    uid: int
    cgroup: Cgroup | None
    spawner: Spawner


class SlotPool:
    """Hands out slots to runs, at most ``MAX_SLOTS`` at a time, creating each slot (and its cgroup) once."""

    def __init__(self, support: CgroupSupport, block: int, name: str = "slot") -> None:
        self.support = support
        self._name = name
        self._free: list[Slot] = []
        self._made: list[Slot] = []
        self._changed = threading.Condition()
        self._base_uid = _uid_base(block)

    @contextlib.contextmanager
    def slot(self) -> Iterator[Slot]:
        """Hold a slot for the duration of one run."""
        with self._changed:
            while not self._free and len(self._made) >= MAX_SLOTS:
                self._changed.wait()
            slot = self._free.pop() if self._free else self._make()
        try:
            yield slot
        finally:
            with self._changed:
                self._free.append(slot)
                self._changed.notify()

    def _make(self) -> Slot:
        index = len(self._made)
        factory = self.support.factory
        cgroup = factory.create(f"{self._name}-{index}") if factory is not None else None
        slot = Slot(index, self._base_uid + index, cgroup, Spawner(f"podium-{self._name}-{index}"))
        self._made.append(slot)
        return slot

    def close(self) -> None:
        """Remove the cgroups of the slots not in use (at exit)."""
        with self._changed:
            for slot in self._free:
                if slot.cgroup is not None:
                    slot.cgroup.remove()
            if self.support.factory is not None and len(self._free) == len(self._made):
                self.support.factory.cleanup()


def _uid_base(block: int) -> int:
    """The first uid of a pool's slots: each live pid owns ``POOLS_PER_PROCESS`` blocks of ``MAX_SLOTS`` uids."""
    start, span = _HIGH_UIDS if _uids_mapped(*_HIGH_UIDS) else _LOW_UIDS
    per_pid = POOLS_PER_PROCESS * MAX_SLOTS
    return start + (os.getpid() % (span // per_pid)) * per_pid + block * MAX_SLOTS


def is_slot_uid(uid: int) -> bool:
    """Whether ``uid`` is one the sandbox gives its slots (never a user's or a system account's)."""
    return any(start <= uid < start + span for start, span in (_HIGH_UIDS, _LOW_UIDS))


def _uids_mapped(start: int, span: int) -> bool:
    # in a user namespace (rootless containers) only the mapped uids can be switched to
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/uid_map").read_text().splitlines():
            inside, _, count = (int(part) for part in line.split())
            if inside <= start and start + span <= inside + count:
                return True
    return False


_pools: dict[tuple[bool, bool], SlotPool] = {}
_supports: list[CgroupSupport] = []
_pools_lock = threading.Lock()


def slot_pool(cgroups: bool, *, fork_server: bool = False) -> SlotPool:
    """The pool of slots of this process, with cgroups (where the host allows) or without.

    The fork-server has pools of its own: between runs its slots' cgroups hold the next run's prepared processes,
    which another backend's run in the same slot would count, or kill when it cleans up.
    """
    key = (cgroups, fork_server)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            if cgroups and not _supports:
                _supports.append(detect())
            support = _supports[0] if cgroups else CgroupSupport("none: turned off", None)
            block = int(cgroups) + 2 * int(fork_server)  # never another pool's uids
            pool = _pools[key] = SlotPool(support, block, "fork-slot" if fork_server else "slot")
        return pool


def _close_pools() -> None:
    for pool in _pools.values():
        pool.close()


def _forget_pools_in_child() -> None:
    # a forked worker must not share its parent's uids or cgroups; it builds its own on first use
    _pools.clear()
    _supports.clear()
    global _subreaper
    _subreaper = False


atexit.register(_close_pools)
os.register_at_fork(after_in_child=_forget_pools_in_child)

_subreaper = False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (once); False where the kernel refuses."""
    global _subreaper
    if not _subreaper:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _subreaper


SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"  # tools are looked up here only, never on a caller's PATH


@dataclass(frozen=True, slots=True)
class UtilLinux:
    """The util-linux programs of the trusted chain before the sandbox."""

    unshare: str
    prlimit: str


def util_linux_tools() -> UtilLinux:
    """The paths of ``unshare`` and ``prlimit``, or DependencyError naming the package."""
    found = {name: shutil.which(name, path=SYSTEM_PATH) for name in ("unshare", "prlimit")}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        raise DependencyError(f"{' and '.join(missing)} missing", fix="apt-get install util-linux")
    return UtilLinux(*(str(found[name]) for name in ("unshare", "prlimit")))


def can_switch_uid() -> bool:
    """Only root can run the program as a slot's own uid."""
    return os.geteuid() == 0


BOX_PREFIX = "podium-box-"


def new_box_path() -> Path:
    """A path for a run's scratch folder that nothing uses yet (``box_directory`` creates it)."""
    return Path(_BOX_PARENT or tempfile.gettempdir(), f"{BOX_PREFIX}{uuid.uuid4().hex}")


def remove_box(box: Path) -> None:
    """Remove a scratch folder the sandbox made read-only (its own run's, or an orphaned one)."""
    if not box.exists():
        return
    for folder, _, _ in os.walk(box):  # top down: each folder is opened up (to its owner) before it is listed
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)
    shutil.rmtree(box, ignore_errors=True)


@contextlib.contextmanager
def box_directory(
    files: Mapping[str, bytes], root: Path | None = None, *, group: int | None = None, writable: bool = False
) -> Iterator[Path]:
    """A fresh host folder (``root``, which must not exist, else a new one) holding only ``files``.

    Only the run may read it, never another user of the host (``/dev/shm`` is everybody's): with ``group`` (the
    slot's own gid, which the program runs under) it is root's with that group, folders 0750 and files 0440
    (0770 and 0660 when ``writable``); without, the judge's own, 0500 and 0400 (0700 and 0600), since a judge
    that is not root runs the program under its own uid. The folder is removed afterwards. Naming it first lets
    the run registry record it before it exists.
    """
    root = root or new_box_path()
    root.mkdir(mode=0o700)
    if group is None:
        folder_mode, file_mode = (0o700, 0o600) if writable else (0o500, 0o400)
    else:
        folder_mode, file_mode = (0o770, 0o660) if writable else (0o750, 0o440)
    try:
        folders = {str(root)}
        for name, data in files.items():
            relative = _relative(name)
            for depth in range(1, len(relative.parts)):
                folder = os.path.join(root, *relative.parts[:depth])
                if folder not in folders:
                    os.makedirs(folder, mode=0o700, exist_ok=True)
                    folders.add(folder)
            fd = os.open(os.path.join(root, relative), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o400)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if group is not None:
                    os.fchown(fd, 0, group)
                os.fchmod(fd, file_mode)  # whatever the umask
            finally:
                os.close(fd)
        for folder in folders:
            if group is not None:
                os.chown(folder, 0, group)
            os.chmod(folder, folder_mode)  # readable (writable) by the run alone, by nobody else
        yield root
    finally:
        remove_box(root)


_BLOCK = 4096


def box_size(box: Path) -> int:
    """What a box holds, as a disk counts it, never following links.

    Every entry (file, folder, link) takes whole 4 KiB blocks, at least one, so a million empty files count too.
    """
    total = 0
    for folder, folders, names in os.walk(box):
        for name in (*folders, *names):
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(folder, name))
                size = info.st_size if stat.S_ISREG(info.st_mode) else 0
                total += max(1, -(-size // _BLOCK)) * _BLOCK
    return total


def read_box(box: Path) -> dict[str, bytes]:
    """Every regular file of a box after its run, by relative path.

    Links are never followed (they could point at the judge's files), and nothing but regular files is read.
    """
    found: dict[str, bytes] = {}
    for folder, _, names in os.walk(box):
        for name in names:
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
                try:
                    if stat.S_ISREG(os.fstat(fd).st_mode):
                        with os.fdopen(os.dup(fd), "rb") as stream:
                            found[os.path.relpath(path, box)] = stream.read()
                finally:
                    os.close(fd)
    return found


def _relative(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts:
        raise ConfigError(f"sandbox file name {name!r} must be a plain relative path")
    return path


def rlimit_args(prlimit: str, limits: RlimitValues) -> list[str]:
    """``prlimit`` options that set every rlimit before the next program in the chain execs."""
    options = [
        f"--{name}={soft}" if soft == hard else f"--{name}={soft}:{hard}" for name, soft, hard in limits.settings()
    ]
    return [prlimit, *options, "--"]


@dataclass(frozen=True, slots=True)
class RlimitValues:
    """The rlimits of one run, in the kernel's units."""

    cpu_soft_s: int
    address_space_bytes: int
    file_size_bytes: int
    processes: int | None  # None: leave RLIMIT_NPROC as inherited

    def settings(self) -> list[tuple[str, int, int]]:
        """Every rlimit a run gets, as ``(prlimit's name, soft, hard)``: the one list both backends set.

        The CPU hard limit is a second above the soft one, so the program gets SIGXCPU (a verdict) before SIGKILL;
        64 descriptors; no core files.
        """
        settings = [
            ("cpu", self.cpu_soft_s, self.cpu_soft_s + 1),
            ("as", self.address_space_bytes, self.address_space_bytes),
            ("fsize", self.file_size_bytes, self.file_size_bytes),
        ]
        if self.processes is not None:
            settings.append(("nproc", self.processes, self.processes))
        return [*settings, ("nofile", 64, 64), ("core", 0, 0)]

    @staticmethod
    def of(cpu_time_s: float, address_space_mib: int, file_size_mib: int, processes: int | None) -> RlimitValues:
        """Round the CPU limit up to whole seconds (RLIMIT_CPU's unit); the parent checks the exact figure."""
        return RlimitValues(max(1, math.ceil(cpu_time_s)), address_space_mib << 20, file_size_mib << 20, processes)


def uid_switch_args(tools: UtilLinux, uid: int) -> list[str]:
    """Options that run the rest of the chain as ``uid`` with no supplementary groups.

    With no namespace option, ``unshare`` (util-linux 2.32 or later) does only ``setgroups(0)``, ``setgid``,
    ``setuid`` and execs: 1.2 ms a run here against 2.0 ms for ``setpriv``, which loads NSS modules to look the
    uid up although it is given as a number.
    """
    return [tools.unshare, f"--setgid={uid}", f"--setuid={uid}", "--"]


@dataclass(frozen=True, slots=True)
class Captured:
    """What the reader kept and why it stopped."""

    stop: Stop
    stdout: bytes
    stderr: bytes
    stderr_tail: bytes


class _Stdout:
    """Keeps at most ``limit`` bytes and reports when ``lines`` lines arrived or the limit was passed."""

    def __init__(self, limit: int, lines: int | None) -> None:
        self.limit, self.lines = limit, lines
        self.data = bytearray()
        self.newlines = 0

    def feed(self, chunk: bytes) -> Stop | None:
        kept = chunk[: self.limit + 1 - len(self.data)]  # one byte past the limit shows it was passed
        if self.lines is not None:
            found = kept.count(b"\n")
            if self.newlines + found >= self.lines:
                self.data += kept[: _nth_newline(kept, self.lines - self.newlines) + 1]
                return Stop.LINES if len(self.data) <= self.limit else self._overflow()
            self.newlines += found
        self.data += kept
        return self._overflow() if len(self.data) > self.limit else None

    def _overflow(self) -> Stop:
        del self.data[self.limit :]
        return Stop.OUTPUT


def _nth_newline(data: bytes, n: int) -> int:
    """The index of the ``n``-th newline of ``data``, which holds at least ``n``: one split in C, not n searches."""
    rest = data.split(b"\n", n)[n]
    return len(data) - len(rest) - 1


class _Stderr:
    """Keeps the first ``limit`` bytes and the last few KiB (where a traceback ends), drains the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()

    def feed(self, chunk: bytes) -> Stop | None:
        self.head += chunk[: self.limit - len(self.head)]
        self.tail += chunk[-_STDERR_TAIL:]
        del self.tail[:-_STDERR_TAIL]
        return None


def capture(
    stdout_fd: int,
    stderr_fd: int,
    *,
    wall_time_s: float,
    stdout_limit: int,
    stderr_limit: int,
    lines: int | None,
    moving_deadline: Callable[[], float] | None = None,
    over_quota: Callable[[], bool] | None = None,
) -> Captured:
    """Read both pipes until they close, enough lines arrive, stdout passes its limit or the wall time is up.

    ``moving_deadline`` (a channel's) is a second, monotonic deadline the parent may move while the run goes on;
    ``over_quota`` says whether a writable box grew past its limit. Both are looked at every ``_DEADLINE_POLL_S``.
    """
    out, err = _Stdout(stdout_limit, lines), _Stderr(stderr_limit)
    feeders: dict[int, Callable[[bytes], Stop | None]] = {stdout_fd: out.feed, stderr_fd: err.feed}
    poller = select.poll()
    for fd in feeders:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + wall_time_s
    stop = Stop.EXITED
    while feeders and stop is Stop.EXITED:
        now = time.monotonic()
        limit = deadline if moving_deadline is None else min(deadline, moving_deadline())
        remaining = limit - now
        if remaining <= 0:
            stop = Stop.WALL
            break
        if over_quota is not None and over_quota():
            stop = Stop.BOX
            break
        if moving_deadline is not None or over_quota is not None:
            remaining = min(remaining, _DEADLINE_POLL_S)
        for fd, _ in poller.poll(math.ceil(remaining * 1000)):
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                poller.unregister(fd)
                del feeders[fd]
            elif (reason := feeders[fd](chunk)) is not None:
                stop = reason
                break
    return Captured(stop, bytes(out.data), bytes(err.head), bytes(err.tail))


def kill_pidfd(pidfd: int) -> None:
    """SIGKILL the process behind ``pidfd`` (which cannot be a recycled pid), if it still runs."""
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)


def wait_with_deadline(pid: int, pidfd: int, seconds: float) -> tuple[int, resource.struct_rusage]:
    """Reap our child ``pid``, SIGKILLing it first if it has not exited within ``seconds``."""
    if not select.select([pidfd], [], [], seconds)[0]:
        kill_pidfd(pidfd)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage


def reap_orphan(pid: int, pidfd: int) -> resource.struct_rusage | None:
    """Reap ``pid`` if it was re-parented to us (we are its subreaper); None if someone else reaped it."""
    kill_pidfd(pidfd)
    try:
        # WNOWAIT through the pidfd proves that ``pid`` is still this very process before wait4 takes it
        os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        return None
    return os.wait4(pid, 0)[2]


def sweep_uid(uid: int) -> int:
    """SIGKILL every process left with ``uid`` (a slot's own) and reap those that are our children."""
    me, found = os.getpid(), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            if entry.stat().st_uid != uid:
                continue
            os.kill(pid, signal.SIGKILL)
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found += 1
        if parent == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return found


_F_SETPIPE_SZ = 1031


def shrink_stdout_pipe(stdout_fd: int, request: RunRequest) -> None:
    """Give a program the reader stops after some lines a one-page stdout pipe, before the program starts.

    Between the line that completes ``stop_after_lines`` and the kill, an endless generator keeps printing; a
    64 KiB pipe lets it run eight more 8 KiB flushes of Python's buffer before it blocks, a page one none. Measured
    on the dojo's endless solver, 4 threads: 19.1 ms of the machine's CPU per run with the default pipe, 18.0 with
    one page. A long output costs a read per page instead (the reader keeps up).
    """
    if request.stop_after_lines is not None:
        with contextlib.suppress(OSError):  # an old kernel, or a pipe already holding more: keep its size
            fcntl.fcntl(stdout_fd, _F_SETPIPE_SZ, os.sysconf("SC_PAGE_SIZE"))


def capture_run(stdout_fd: int, stderr_fd: int, request: RunRequest, box: Path | None) -> Captured:
    """``capture`` under the request's wall time, output caps, line count and (for a writable box) box quota.

    ``box``: the run's host folder, watched when the request makes it writable (None: a box in the run's own tmpfs,
    never writable).
    """
    limits = request.limits
    return capture(
        stdout_fd,
        stderr_fd,
        wall_time_s=limits.wall_time_s,
        stdout_limit=limits.stdout_bytes,
        stderr_limit=limits.stderr_bytes,
        lines=request.stop_after_lines,
        moving_deadline=None if request.channel is None else request.channel.deadline,
        over_quota=_QuotaWatch(box, limits.box_mib << 20) if request.writable and box is not None else None,
    )


class _QuotaWatch:
    """Whether a writable box is over its quota, walked at most as often as keeps the walks near 5 % of a core.

    A box of a few files takes well under a millisecond to walk, so it is looked at every poll (0.1 s); one of
    thousands of files (a bundled library) takes milliseconds, and is then looked at less often, never more than
    about 20 walks' time apart.
    """

    def __init__(self, box: Path, quota: int) -> None:
        self._box, self._quota, self._next = box, quota, 0.0

    def __call__(self) -> bool:
        started = time.monotonic()
        if started < self._next:
            return False
        over = box_size(self._box) > self._quota
        self._next = started + 20 * (time.monotonic() - started)
        return over


def box_after(captured: Captured, request: RunRequest, box: Path) -> dict[str, bytes] | None:
    """A writable box's files after its run, unless it ended over its quota (then what it wrote is dropped)."""
    if not request.writable or captured.stop is Stop.BOX or box_size(box) > request.limits.box_mib << 20:
        return None
    return read_box(box)


def _ends_in_memory_error(stderr_tail: bytes) -> bool:
    """Whether the last line a program wrote on stderr is Python's ``MemoryError`` (a traceback's end)."""
    lines = stderr_tail.rstrip().splitlines()
    return bool(lines) and lines[-1].startswith(b"MemoryError")


def tree_cpu_s(start_s: float | None, at_stop_s: float | None, at_end_s: float | None, stop: Stop) -> float | None:
    """The run's CPU time from its cgroup's counter, or None where no controller counts it.

    ``start_s`` is read before the program starts; ``at_stop_s`` the moment the reader stopped (before any kill),
    which is the figure when the reader stopped after enough lines, as a line printed within the limit is; else
    ``at_end_s``, read once the whole tree is gone.
    """
    end_s = at_stop_s if stop is Stop.LINES else at_end_s
    if start_s is None or end_s is None:
        return None
    return max(0.0, end_s - start_s)


def address_space_mib(limits: Limits, cgroup: bool) -> int:
    """The RLIMIT_AS backstop: tight without a cgroup, roomy with one (threads reserve address space they never use)."""
    return limits.memory_mib * 2 + 64 if cgroup else limits.memory_mib + 64


def internal_result(backend: str, isolated: bool, detail: str) -> RunResult:
    """A result for a run the sandbox could not carry out (never the program's fault)."""
    return RunResult(
        status=RunStatus.INTERNAL_ERROR,
        exit_code=None,
        signal=None,
        stdout=b"",
        stderr=b"",
        stderr_tail=b"",
        stopped_early=False,
        wall_time_s=0.0,
        cpu_time_s=None,
        peak_memory_mib=None,
        backend=backend,
        isolated=isolated,
        detail=detail.splitlines()[0] if detail else "sandbox failure",
    )


def judge_peak_kib() -> int:
    """The judge process's resident-memory high-water mark, in KiB.

    A child this process forks and execs starts its own ``ru_maxrss`` from this figure: subprocess uses vfork, and
    Linux carries the old address space's high-water mark across exec. So the rusage of a sandbox's outer process
    reports the judge's own size unless the sandboxed programs grew larger (measured: a ``print(1)`` solver read
    416 MiB under a judge holding 400 MiB, 16 MiB under a small one).
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def program_peak_kib(measured_kib: int, inherited_kib: int) -> int | None:
    """The sandboxed programs' peak from rusage, or None where it may be the judge's inherited figure."""
    return measured_kib if measured_kib > inherited_kib else None


def conclude(
    captured: Captured,
    returncode: int,
    request: RunRequest,
    *,
    cpu_time_s: float,
    peak_kib: int | None,
    oom_kills: int,
    memory_limit_reached: bool,
    wall_time_s: float,
    backend: str,
    isolated: bool,
    shell_status: bool,
    box: Mapping[str, bytes] | None = None,
    cpu_from_cgroup: bool = False,
    waited_s: float | None = None,
) -> RunResult:
    """The result of a finished run, decided from the evidence gathered outside it (shared by every backend).

    ``shell_status``: the backend reports a death by signal N as status 128 + N (bubblewrap), so such a status
    may be either. ``cpu_from_cgroup``: ``cpu_time_s`` is the whole tree's, from the run's cgroup.
    """
    exit_code, signal_number = (None, 9) if captured.stop is not Stop.EXITED else split_status(returncode)
    peak_mib = None if peak_kib is None else peak_kib / 1024
    evidence = Evidence(
        captured.stop,
        exit_code,
        signal_number,
        cpu_time_s,
        oom_kills,
        memory_limit_reached,
        shell_status=shell_status,
        peak_memory_mib=peak_mib,
        memory_error=_ends_in_memory_error(captured.stderr_tail),
    )
    status, detail = decide(evidence, request.limits)
    return RunResult(
        status=status,
        exit_code=exit_code,
        signal=signal_number,
        stdout=captured.stdout,
        stderr=captured.stderr,
        stderr_tail=captured.stderr_tail,
        stopped_early=captured.stop is Stop.LINES,
        wall_time_s=wall_time_s,
        cpu_time_s=cpu_time_s,
        peak_memory_mib=peak_mib,
        backend=backend,
        isolated=isolated,
        detail=detail if isolated else f"{detail} (not isolated)",
        box=box,
        cpu_counted_by="cgroup" if cpu_from_cgroup else "rusage",
        waited_s=waited_s,
    )
