"""The isolated backend: bubblewrap with every namespace unshared, run as a slot's own unprivileged host uid.

One run, from the trusted side::

    slot's spawner thread: joins a fresh anonymous session keyring (spawn.py), then starts
    unshare --setgid=SLOT_UID --setuid=SLOT_UID -- prlimit --cpu=... -- bwrap [namespaces, binds] --seccomp FD
        --info-fd --block-fd
        bwrap (outer, SLOT_UID) -- clone into new namespaces --> bwrap as pid 1 (blocks on --block-fd)
    judge: moves the outer bwrap into the slot's cgroup while it starts (pid 1 is then cloned inside),
        reads pid 1's host pid from --info-fd, moves pid 1 too if it was cloned first, writes to --block-fd
        pid 1 --> loads the system-call filter (seccomp.py) --> the program (uid 65534 inside, SLOT_UID outside;
        rlimits inherited from the chain)

Nothing of one run is there for the next: each gets new user, pid, network, IPC, UTS, mount and cgroup
namespaces, its own ``/tmp`` and session keyring, and a filter that refuses the kernel keyrings, other processes,
new namespaces and mounts (``tests/core/sandbox_attacks`` holds the channels this closes). Only the interpreter's
files are visible: ``/usr`` and the ``/bin``, ``/lib*`` links read-only, a fresh ``/proc``, a ``/dev`` of five
harmless devices, an 8 MiB ``/tmp``, ``/box`` (the working directory) holding only the given files, read-only unless
the request makes it writable (under a quota the judge polls), and any folders the request names as readable.
No ``/etc`` beyond the loader cache and alternatives links, no ``/home``, ``/root`` or the repository. Killing the
namespace's pid 1 kills every process in it, so the parent's wall limit reaches the whole tree however it forks.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from podium.core.errors import DependencyError
from podium.core.execution.sandbox import host_gate
from podium.core.execution.sandbox.cgroups import MemoryUsage
from podium.core.execution.sandbox.channel import serving
from podium.core.execution.sandbox.records import Limits, RunRequest, RunResult, RunStatus
from podium.core.execution.sandbox.registry import RegisteredRun, RunRegistry, start_sweeper
from podium.core.execution.sandbox.root import Entry, devices
from podium.core.execution.sandbox.seccomp import filter_program
from podium.core.execution.sandbox.supervise import (
    SYSTEM_PATH,
    RlimitValues,
    Slot,
    UtilLinux,
    address_space_mib,
    become_subreaper,
    box_after,
    box_directory,
    can_switch_uid,
    capture_run,
    conclude,
    internal_result,
    judge_peak_kib,
    kill_pidfd,
    new_box_path,
    program_peak_kib,
    reap_orphan,
    rlimit_args,
    shrink_stdout_pipe,
    slot_pool,
    sweep_uid,
    tree_cpu_s,
    uid_switch_args,
    util_linux_tools,
    wait_with_deadline,
)
from podium.core.execution.sandbox.verdict import Stop

BOX = "/box"
"""The program's working directory inside the sandbox."""

SANDBOX_UID = 65534
_HANDSHAKE_S = 10.0
_REAP_S = 2.0
_FIX = "apt-get install bubblewrap, or pass --sandbox rlimits to accept a weaker, unisolated backend"


class BubblewrapSandbox:
    """Runs programs under bubblewrap; ``cgroups`` says which limits a cgroup enforces (or why none)."""

    name = "bubblewrap"
    isolated = True

    def __init__(self, *, cgroups: bool = True) -> None:
        self._tools = _tools()
        filter_program()  # compiled now: a host without libseccomp fails here, not in the first run
        self._pool = slot_pool(cgroups)
        become_subreaper()
        self._registry = RunRegistry()
        start_sweeper(self._registry)  # the runs of workers that died on this host, now and every few seconds

    @property
    def cgroups(self) -> str:
        """Which cgroup enforces memory and processes per run, or ``none: <why>`` (rlimits alone then)."""
        return self._pool.support.description

    def run(self, request: RunRequest) -> RunResult:
        """Run one program in a fresh sandbox; any failure of the sandbox itself is an INTERNAL_ERROR result."""
        if not _program_exists(request):
            return internal_result(
                self.name, self.isolated, f"program {request.argv[0]!r} does not exist inside the sandbox"
            )
        hidden = [str(folder) for folder in request.readable if not _reachable_by_anyone(folder)]
        if hidden:
            why = f"readable folder {', '.join(hidden)} is not readable by every user (the program runs as its own uid)"
            return internal_result(self.name, self.isolated, why)
        try:
            with host_gate.shared(), self._pool.slot() as slot:
                # registered before anything exists, so that a sweeper finds all of it if this process dies
                uid, path = (slot.uid if can_switch_uid() else None), new_box_path()
                cgroups = slot.cgroup.folders() if slot.cgroup is not None else ()
                with (
                    self._registry.run(uid, path, cgroups) as registered,
                    box_directory(request.files, path, group=uid, writable=request.writable) as box,  # gid = uid
                ):
                    return _Run(self, slot, box, request, registered).execute()
        except OSError as error:
            return internal_result(self.name, self.isolated, f"sandbox failure: {error}")


@dataclass(frozen=True, slots=True)
class _Tools:
    bwrap: str
    chain: UtilLinux


def _tools() -> _Tools:
    bwrap = shutil.which("bwrap", path=SYSTEM_PATH)
    if bwrap is None:
        raise DependencyError("bubblewrap is missing (no bwrap on PATH)", fix=_FIX)
    return _Tools(bwrap, util_linux_tools())


def _as_arguments(entries: Iterable[Entry]) -> list[str]:
    return [argument for kind, source, target in entries for argument in (f"--{kind}", source, target)]


@functools.lru_cache(maxsize=16)
def _layout(root: tuple[Entry, ...]) -> list[str]:
    # the host's part of the root as arguments, once per view (every dojo run has the same one)
    return _as_arguments(root)


def bwrap_args(layout: list[str], box: Path, request: RunRequest) -> list[str]:
    """Namespaces, mounts and identity of one sandbox (everything but the descriptors and the argv).

    Every namespace is new for every run. A network namespace kept per slot once saved 1 ms a run, and let a run
    park data for the next in TCP connections left in TIME_WAIT (``tests/core/sandbox_attacks/tcp_time_wait``).
    """
    readable = [arg for folder in request.readable for arg in ("--ro-bind", str(folder), str(folder))]
    return [
        "--unshare-all",  # pid, net (no network, no DNS), ipc, uts, cgroup; and "try" user
        "--unshare-user",  # not just "try": --uid and --disable-userns need it
        "--disable-userns",  # and the program cannot make a user namespace of its own
        "--die-with-parent",
        "--new-session",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "sandbox",
        *layout,
        "--proc",
        "/proc",
        *_DEV_ARGS,
        "--perms",
        "1777",
        "--size",
        str(request.limits.tmp_mib << 20),
        "--tmpfs",
        "/tmp",
        "--bind" if request.writable else "--ro-bind",
        str(box),
        BOX,
        *readable,  # after /tmp, so that a folder under /tmp is bound onto the run's own tmpfs
        "--chdir",
        str(PurePosixPath(BOX, request.workdir)),
        # bubblewrap's own root and /dev are writable tmpfs mounts (so /dev/shm too): only /tmp (and a writable
        # box) may be
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
    ]


# A /dev of the five character devices programs use and the fd links, nothing else, made once: bubblewrap's own
# --dev adds a private devpts mount, /dev/tty, /dev/shm and /dev/ptmx, none of which a judged program needs (/dev is
# read-only anyway), for 0.7 ms more per run here.
_DEV_ARGS = ("--tmpfs", "/dev", *_as_arguments(devices()))


def _reachable_by_anyone(folder: Path) -> bool:
    """Whether any user may list ``folder`` and pass through every folder above it (no uid or group is shared)."""
    try:
        if os.stat(folder).st_mode & 0o005 != 0o005:
            return False
        return all(os.stat(above).st_mode & 0o001 for above in folder.parents)
    except OSError:
        return False


def _program_exists(request: RunRequest) -> bool:
    program = request.argv[0]
    if "/" not in program:
        search = request.environment().get("PATH", "").split(":")
        return any(folder and os.path.exists(os.path.join(folder, program)) for folder in search)
    path = PurePosixPath(BOX, program)  # a relative path starts in the working directory
    if path.is_relative_to(BOX):
        return str(path.relative_to(BOX)) in request.files
    return os.path.exists(path)


class _Run:
    """One run's processes and descriptors, from spawn to reaping."""

    def __init__(
        self, sandbox: BubblewrapSandbox, slot: Slot, box: Path, request: RunRequest, registered: RegisteredRun
    ) -> None:
        self.sandbox, self.slot, self.box, self.request, self.registered = sandbox, slot, box, request, registered

    def execute(self) -> RunResult:
        with serving(self.request.channel) as channel_fd:
            return self._execute(channel_fd)

    def _execute(self, channel_fd: int | None) -> RunResult:
        info_read, info_write = os.pipe()
        block_read, block_write = os.pipe()
        filter_read = _filter_pipe(filter_program(self.request.profile))
        inherited_kib = judge_peak_kib()
        try:
            proc = self.slot.spawner.start(lambda: self._spawn(info_write, block_read, filter_read, channel_fd))
            assert proc.stdout is not None
            shrink_stdout_pipe(proc.stdout.fileno(), self.request)  # the program waits on --block-fd yet
        finally:
            os.close(info_write)
            os.close(block_read)
            os.close(filter_read)
            if self.request.channel is not None:
                self.request.channel.spawned()
        with proc, contextlib.ExitStack() as fds:
            fds.callback(os.close, info_read)
            fds.callback(os.close, block_write)
            outer = os.pidfd_open(proc.pid)
            fds.callback(os.close, outer)
            self._confine_early(proc.pid)
            pid1 = self._handshake(info_read)
            if isinstance(pid1, str):
                return self._abandon(proc, outer, pid1)
            try:
                pidfd1 = os.pidfd_open(pid1)
            except ProcessLookupError:  # pid 1 failed while setting the sandbox up (a bind it could not make)
                return self._abandon(proc, outer, "bubblewrap failed while setting up the sandbox")
            fds.callback(os.close, pidfd1)
            try:
                self.registered.add_pid(proc.pid, pid1)  # before the program is released
                self._confine(pid1)
                # read last before the release: bubblewrap's own set-up until here is not the program's time
                cpu_start = self.slot.cgroup.cpu_s() if self.slot.cgroup is not None else None
                os.write(block_write, b"go")
            except OSError as error:
                kill_pidfd(pidfd1)
                return self._abandon(proc, outer, f"could not confine the sandbox: {error}")
            return self._supervise(proc, outer, pid1, pidfd1, inherited_kib, cpu_start)

    def _spawn(
        self, info_write: int, block_read: int, filter_read: int, channel_fd: int | None
    ) -> subprocess.Popen[bytes]:
        tools, limits = self.sandbox._tools, self.request.limits
        cgroup = self.slot.cgroup is not None
        rlimits = RlimitValues.of(
            limits.cpu_time_s, address_space_mib(limits, cgroup), limits.file_size_mib, _nproc(limits, self.slot.uid)
        )
        chain = uid_switch_args(tools.chain, self.slot.uid) if can_switch_uid() else []
        descriptors = (info_write, block_read, filter_read)
        argv = [
            *chain,
            *rlimit_args(tools.chain.prlimit, rlimits),
            tools.bwrap,
            *bwrap_args(_layout(self.request.root()), self.box, self.request),
            *("--seccomp", str(filter_read), "--info-fd", str(info_write), "--block-fd", str(block_read), "--"),
            *self.request.argv,
        ]
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.request.environment_with(channel_fd),
            # bubblewrap hands every inherited descriptor but its own three on to the program: the channel's passes
            pass_fds=descriptors if channel_fd is None else (*descriptors, channel_fd),
            start_new_session=True,  # the judge's terminal signals are not the sandbox's business
        )

    def _handshake(self, info_read: int) -> int | str:
        """The host pid of the sandbox's pid 1 (from --info-fd), or why bubblewrap did not get that far."""
        data = b""
        deadline = time.monotonic() + _HANDSHAKE_S
        while not data.rstrip().endswith(b"}"):
            if not select.select([info_read], [], [], max(0.0, deadline - time.monotonic()))[0]:
                return "bubblewrap did not start within 10 s"
            chunk = os.read(info_read, 4096)
            if not chunk:
                return "bubblewrap failed before starting the sandbox"
            data += chunk
        try:
            return int(json.loads(data)["child-pid"])
        except (ValueError, KeyError, TypeError):
            return f"bubblewrap said something unexpected on --info-fd: {data[:200]!r}"

    def _confine_early(self, outer_pid: int) -> None:
        """Start moving the outer bubblewrap into the slot's cgroup while it sets the sandbox up.

        A v1 ``cgroup.procs`` write first waits for an RCU grace period (6-12 ms here) when no other write came
        just before. Made now, that wait overlaps bubblewrap's own start instead of following the handshake; pid 1,
        cloned after the move, is born inside, and if it was cloned during the wait, moving it in ``_confine`` is
        quick, as a write right after another does not wait again.
        """
        cgroup, limits = self.slot.cgroup, self.request.limits
        if cgroup is not None:
            with contextlib.suppress(OSError):  # bubblewrap gave up already, or the cgroup refuses: _confine says
                cgroup.prepare(limits.memory_mib, limits.processes + 2)  # + 2: both bubblewraps are in there too
                cgroup.attach(outer_pid)

    def _confine(self, pid1: int) -> None:
        cgroup, limits = self.slot.cgroup, self.request.limits
        if cgroup is not None and not cgroup.holds(pid1):
            cgroup.prepare(limits.memory_mib, limits.processes + 2)
            cgroup.attach(pid1)

    def _abandon(self, proc: subprocess.Popen[bytes], outer: int, reason: str) -> RunResult:
        """Kill a sandbox that never started its program and report why, with bubblewrap's own message."""
        # no wait: the outer process is killed unless it already ended (--die-with-parent takes pid 1 along)
        code, _ = wait_with_deadline(proc.pid, outer, 0.0)
        proc.returncode = code
        message = proc.stderr.read(4096).decode("utf-8", "replace").strip() if proc.stderr else ""
        if can_switch_uid():
            sweep_uid(self.slot.uid)  # pid 1, orphaned to us, and anything else of this slot's uid
        detail = f"{reason}: {message}" if message else reason
        return internal_result(self.sandbox.name, self.sandbox.isolated, detail)

    def _supervise(
        self,
        proc: subprocess.Popen[bytes],
        outer: int,
        pid1: int,
        pidfd1: int,
        inherited_kib: int,
        cpu_start: float | None,
    ) -> RunResult:
        assert proc.stdout is not None and proc.stderr is not None
        started = time.monotonic()
        cgroup = self.slot.cgroup
        captured = capture_run(proc.stdout.fileno(), proc.stderr.fileno(), self.request, self.box)
        cpu_at_stop = cgroup.cpu_s() if cgroup is not None else None  # before the kill: the figure at the last line
        # at the wall limit, before the kill: did the run wait for a CPU (starved), or sleep?
        waited_s = cgroup.waited_s() if cgroup is not None and captured.stop is Stop.WALL else None
        if captured.stop is not Stop.EXITED:
            kill_pidfd(pidfd1)  # pid 1's death takes every process of the namespace with it
        code, outer_usage = wait_with_deadline(proc.pid, outer, _REAP_S)
        proc.returncode = code
        wall_time_s = time.monotonic() - started
        pid1_usage = reap_orphan(pid1, pidfd1)
        usages = [u for u in (outer_usage, pid1_usage) if u is not None]
        memory, cpu_at_end = MemoryUsage(0, False, None), None
        if cgroup is not None:
            memory, cpu_at_end = cgroup.usage(), cgroup.cpu_s()
            cgroup.kill_all()  # empty after a normal end; a safety net for the next run in this slot
        tree_cpu = tree_cpu_s(cpu_start, cpu_at_stop, cpu_at_end, captured.stop)
        # the cgroup's own high-water mark where it has one; else pid 1's rusage, which covers the program it reaped
        # and, cloned by the outer bubblewrap after its exec, never carries the judge's size (judge_peak_kib) as
        # the outer's does
        if memory.peak_bytes is not None:
            peak_kib: int | None = memory.peak_bytes // 1024
        elif pid1_usage is not None:
            peak_kib = pid1_usage.ru_maxrss
        else:
            peak_kib = program_peak_kib(max(u.ru_maxrss for u in usages), inherited_kib)
        return conclude(
            captured,
            code,
            self.request,
            cpu_time_s=sum(u.ru_utime + u.ru_stime for u in usages) if tree_cpu is None else tree_cpu,
            peak_kib=peak_kib,
            oom_kills=memory.oom_kills,
            memory_limit_reached=memory.reached_limit,
            wall_time_s=wall_time_s,
            backend=self.sandbox.name,
            isolated=self.sandbox.isolated,
            shell_status=True,  # bubblewrap reports a death by signal N as status 128 + N
            box=box_after(captured, self.request, self.box),  # the namespace and all its processes are gone
            cpu_from_cgroup=tree_cpu is not None,
            waited_s=waited_s,
        )


def _filter_pipe(program: bytes) -> int:
    """A pipe's read end holding the compiled filter, which bubblewrap reads to its end (a few hundred bytes)."""
    read, write = os.pipe()
    try:
        os.write(write, program)  # far below a pipe's capacity: never blocks
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return read


def _nproc(limits: Limits, uid: int) -> int:
    # the slot's uid also runs the outer bubblewrap and pid 1; without root the uid is ours and shared, so the
    # limit sits above what we already run (approximate, and said so in the docs)
    if can_switch_uid():
        return limits.processes + 2
    return limits.processes + 2 + _processes_of(os.getuid())


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        with contextlib.suppress(OSError):
            count += entry.name.isdigit() and entry.stat().st_uid == uid
    return count


_probe_lock = threading.Lock()
_probe_error: list[str] = []
_probed = False


def probe() -> None:
    """Check once per process that bubblewrap can start a sandbox here; raise DependencyError if not."""
    global _probed
    with _probe_lock:
        if not _probed:
            result = BubblewrapSandbox(cgroups=False).run(RunRequest(("true",), {}))
            if result.status is not RunStatus.OK:
                _probe_error.append(result.detail)
            _probed = True
    if _probe_error:
        raise DependencyError(f"bubblewrap cannot start a sandbox here: {_probe_error[0]}", fix=_FIX)
