"""The fork-server backend: Python programs run in a process forked per run from a pre-started zygote per slot.

A run costs about 0.4 of bubblewrap's chain in machine CPU (no new interpreter starts, no bubblewrap execs), with
isolation made fresh for every run: new user, PID, mount, network, IPC, UTS and cgroup namespaces, its own
``/tmp``, ``/box`` and session keyring, rlimits, uid 65534 inside (the slot's own uid outside), no capabilities,
no_new_privs and the same system-call filter (``seccomp.py``). ``zygote.py`` is the other side; the design, its
costs and where it is weaker than bubblewrap are in ``docs/design/core.md`` ("The fork-server").

Only what a zygote can run is run here: ``python3 [options] FILE`` with ``FILE`` among the request's files, a
read-only box, no readable host folders and no channel (dojo solvers and setters). Everything else goes to the
bubblewrap backend, whose result says so (``backend="bubblewrap"``).

The judge never forks itself (it has threads): each zygote is started by exec from the slot's spawner thread and
talks to the judge over a socketpair; ``PR_SET_PDEATHSIG`` ties it to that thread. A zygote is replaced after
``RUNS_PER_ZYGOTE`` runs, when a request needs another interpreter or environment (the hash seed is fixed when an
interpreter starts), and when it fails; a run it failed is an ``INTERNAL_ERROR``, which the dojo's judge retries.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import re
import select
import shutil
import socket
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from podium.core.errors import DependencyError
from podium.core.execution.sandbox import host_gate
from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox
from podium.core.execution.sandbox.cgroups import Cgroup
from podium.core.execution.sandbox.records import FilterProfile, RunRequest, RunResult, RunStatus
from podium.core.execution.sandbox.root import Entry, devices
from podium.core.execution.sandbox.seccomp import filter_program
from podium.core.execution.sandbox.supervise import (
    RlimitValues,
    Slot,
    address_space_mib,
    can_switch_uid,
    capture_run,
    conclude,
    internal_result,
    kill_pidfd,
    shrink_stdout_pipe,
    slot_pool,
    tree_cpu_s,
)
from podium.core.execution.sandbox.verdict import Stop

ZYGOTE = Path(__file__).with_name("zygote.py")
ZYGOTE_MARK = "# podium fork-server zygote"
"""The first line of a zygote's command line (``ps`` shows it; the rest is the zygote's text)."""
RUNS_PER_ZYGOTE = 1000
"""Runs before a zygote is replaced: a bound on how long one root process per slot lives."""

ZYGOTE_SHARE_MIB = 2
"""Memory a run uses without being charged for it: the zygote's pages it shares until it writes to them.

A fresh interpreter's own pages count against the cgroup limit under bubblewrap; a forked one's are the zygote's
until written. The cgroup limit is lowered by this much so that the limit a program meets stays where it was
(measured by hand: the largest ``bytearray`` that ends OK under each backend; docs/benchmarks.md)."""

_MESSAGE_S = 10.0  # a zygote that says nothing for this long has failed
_REPORT_S = 2.0  # how long init may take to report after the program's output closed
_FLAGS = re.compile(r"-[sSPBEIuqbROd]+")  # interpreter options that take no argument (-OO and -bb too)
_PYTHON = re.compile(r"python3(\.\d+)?")
_FIX = "run podium as root on Linux (with bubblewrap and libseccomp installed), or use --sandbox bubblewrap"


@dataclass(frozen=True, slots=True)
class PythonRun:
    """What a zygote needs to know of a request: its interpreter (path, then argv) and options, and the file to run."""

    interpreter: tuple[str, ...]
    script: str
    arguments: tuple[str, ...]
    environment: tuple[tuple[str, str], ...]
    profile: FilterProfile  # a zygote installs one filter in every run it forks
    root: tuple[Entry, ...]  # and builds one root (``root.py``) for all of them


def python_run(request: RunRequest) -> PythonRun | None:
    """The request as a zygote runs it, or None where only the bubblewrap backend can run it."""
    if request.writable or request.readable or request.channel is not None:
        return None
    program, *rest = request.argv
    options = list(itertools.takewhile(_FLAGS.fullmatch, rest))
    if not _PYTHON.fullmatch(os.path.basename(program)) or len(options) == len(rest):
        return None
    script, *arguments = rest[len(options) :]
    path = PurePosixPath(request.workdir, script)
    if script.startswith("-") or path.is_absolute() or ".." in path.parts or str(path) not in request.files:
        return None
    environment = request.environment()
    executable = _which(program, environment.get("PATH", ""))
    if executable is None:
        return None
    return PythonRun(
        (executable, program, *options),
        script,
        tuple(arguments),
        tuple(environment.items()),
        request.profile,
        request.root(),
    )


@functools.lru_cache(maxsize=64)
def _which(program: str, path: str) -> str | None:
    # the interpreter a request names, looked up once per PATH (every dojo run names the same one)
    return shutil.which(program, path=path)


class ForkServerSandbox:
    """Runs Python programs by forking a pre-started zygote per slot; anything else under bubblewrap."""

    name = "forkserver"
    isolated = True

    def __init__(self, *, cgroups: bool = True) -> None:
        if not can_switch_uid():
            raise DependencyError("the fork-server sandbox needs root (it makes user namespaces)", fix=_FIX)
        self._fallback = BubblewrapSandbox(cgroups=cgroups)
        self._pool = slot_pool(cgroups, fork_server=True)
        self._zygotes: dict[int, _Zygote] = {}
        self._lock = threading.Lock()
        _instances.add(self)

    @property
    def cgroups(self) -> str:
        """Which cgroup enforces memory and processes per run, or ``none: <why>``."""
        return self._pool.support.description

    def run(self, request: RunRequest) -> RunResult:
        """Run one program; a failure of the sandbox itself is an INTERNAL_ERROR result."""
        plan = python_run(request)
        if plan is None:
            return self._fallback.run(request)
        try:
            with host_gate.shared(), self._pool.slot() as slot, self._zygote(slot, plan) as zygote:
                return _Run(self, slot, zygote, request, plan).execute()
        except OSError as error:
            return internal_result(self.name, self.isolated, f"fork-server failure: {error}")

    @contextlib.contextmanager
    def _zygote(self, slot: Slot, plan: PythonRun) -> Iterator[_Zygote]:
        with self._lock:
            zygote = self._zygotes.pop(slot.index, None)
        if zygote is not None and not zygote.serves(plan):
            zygote.close()
            zygote = None
        if zygote is None:
            zygote = _Zygote.start(slot, plan, filter_program(plan.profile))
        try:
            yield zygote
        finally:
            if zygote.healthy and zygote.runs < RUNS_PER_ZYGOTE:
                with self._lock:
                    self._zygotes[slot.index] = zygote
            else:
                zygote.close()

    def close(self) -> None:
        """Stop every idle zygote (they also stop when this process ends)."""
        with self._lock:
            zygotes, self._zygotes = list(self._zygotes.values()), {}
        for zygote in zygotes:
            zygote.close()


_instances: weakref.WeakSet[ForkServerSandbox] = weakref.WeakSet()


def _forget_zygotes_in_child() -> None:
    # a forked worker must not talk to its parent's zygotes: it starts its own on first use
    for sandbox in _instances:
        for zygote in sandbox._zygotes.values():
            zygote.forget()
        sandbox._zygotes = {}
        sandbox._lock = threading.Lock()
    _opened.clear()


os.register_at_fork(after_in_child=_forget_zygotes_in_child)


class _Zygote:
    """The judge's side of one zygote: its process, its socket and what it was started for."""

    def __init__(self, plan: PythonRun, proc: subprocess.Popen[bytes], sock: socket.socket, log: int) -> None:
        self.plan, self.proc, self.sock, self._log = plan, proc, sock, log
        self.runs = 0
        self.healthy = True
        self._log_tail = b""
        self.cpu_mark: float | None = None  # the slot cgroup's CPU counter while empty, before the next init joined

    @staticmethod
    def start(slot: Slot, plan: PythonRun, seccomp_filter: bytes) -> _Zygote:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stdout_read, stdout_write = os.pipe()  # the zygote's streams are pipes, as a judged program's will be
        log_read, log_write = os.pipe()
        try:
            proc = slot.spawner.start(lambda: _exec_zygote(plan, theirs.fileno(), stdout_write, log_write))
        finally:
            for fd in (theirs.fileno(), stdout_write, log_write, stdout_read):
                os.close(fd)
            theirs.detach()
        os.set_blocking(log_read, False)
        zygote = _Zygote(plan, proc, ours, log_read)
        ours.settimeout(_MESSAGE_S)
        cgroup = slot.cgroup.folders() if slot.cgroup is not None else ()
        hello = {
            "uid": slot.uid,
            "filter": seccomp_filter.hex(),
            "cgroup_procs": [f"{folder}/cgroup.procs" for folder in cgroup],
            "root": [*plan.root, *devices()],  # bubblewrap's list: the two roots cannot drift apart
        }
        try:
            zygote.send(hello)
            zygote.receive("ready")
            zygote.cpu_mark = slot.cgroup.cpu_s() if slot.cgroup is not None else None
            zygote.send({"prepare": True})
        except OSError:
            zygote.close()
            raise
        return zygote

    def serves(self, plan: PythonRun) -> bool:
        return (plan.interpreter, plan.environment, plan.profile, plan.root) == (
            self.plan.interpreter,
            self.plan.environment,
            self.plan.profile,
            self.plan.root,
        )

    def send(self, message: Mapping[str, Any], fds: tuple[int, ...] = ()) -> None:
        data = json.dumps(message).encode()
        try:
            if fds:
                socket.send_fds(self.sock, [data], list(fds))
            else:
                self.sock.sendall(data)
        except OSError as error:
            self.healthy = False
            raise OSError(f"the zygote is gone ({error}){self.log()}") from error

    def receive(self, key: str) -> Any:
        """The value of the next message, which must be ``key``; OSError (and an unhealthy zygote) otherwise."""
        value, fds = self.receive_with_fds(key)
        for fd in fds:
            os.close(fd)
        return value

    def receive_with_fds(self, key: str) -> tuple[Any, list[int]]:
        """``receive``, with the descriptors that came with the message (the caller's to close)."""
        try:
            data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 1)
        except OSError as error:
            self.healthy = False
            raise OSError(f"the zygote did not answer ({error}){self.log()}") from error
        message = json.loads(data) if data else {}
        if key not in message:
            for fd in fds:
                os.close(fd)
            self.healthy = False
            raise OSError(f"the zygote ended{self.log()}" if not data else f"the zygote said {message!r}, not {key!r}")
        return message[key], fds

    def log(self) -> str:
        """What the zygote and its run processes wrote on their own stderr lately, as a suffix."""
        with contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(self._log, 1 << 16):
                self._log_tail = (self._log_tail + chunk)[-2048:]
        lines = self._log_tail.decode("utf-8", "replace").strip().splitlines()
        return f": {lines[-1]}" if lines else ""

    def forget(self) -> None:
        """Let go of the zygote in a forked child: the parent keeps talking to it, and alone sees it end."""
        self.healthy = False
        self.sock.close()
        os.close(self._log)

    def close(self) -> None:
        self.healthy = False
        self.sock.close()  # the zygote kills what it prepared and exits
        try:
            self.proc.wait(timeout=_MESSAGE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._log)


@functools.cache
def _zygote_text() -> str:
    # given as text (-c), not as a path: the zygote's code then names no host file a program could look at
    return f"{ZYGOTE_MARK}\n{ZYGOTE.read_text('utf-8')}"


def _exec_zygote(plan: PythonRun, sock: int, stdout: int, log: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*plan.interpreter[1:], "-c", _zygote_text(), str(sock)],
        executable=plan.interpreter[0],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=log,
        env=dict(plan.environment),
        pass_fds=(sock,),
        start_new_session=True,
    )


def _request_file(request: RunRequest, plan: PythonRun, cgroup: bool) -> int:
    """A memfd holding everything the run's own processes need: only they read it, never the zygote."""
    limits = request.limits
    rlimits = RlimitValues.of(
        limits.cpu_time_s, address_space_mib(limits, cgroup), limits.file_size_mib, limits.processes
    )
    files = list(request.files.items())
    header = {
        "files": [[name, len(data)] for name, data in files],
        "script": plan.script,
        "arguments": list(plan.arguments),
        "workdir": request.workdir,
        "tmp_mib": limits.tmp_mib,
        "rlimits": rlimits.settings(),
    }
    fd = os.memfd_create("podium-run", os.MFD_CLOEXEC)
    try:
        with os.fdopen(os.dup(fd), "wb") as stream:
            stream.write(json.dumps(header).encode() + b"\n")
            for _, data in files:
                stream.write(data)
    except BaseException:
        os.close(fd)
        raise
    return fd


@dataclass(frozen=True, slots=True)
class _Report:
    """What the run's own processes said on the report pipe."""

    wait_status: int | None
    cpu_s: float | None
    setup_cpu_s: float  # the program's own set-up, before it ran anything of its own
    init_setup_cpu_s: float  # init's work in the cgroup before it forked the program
    error: str | None


def _read_report(fd: int, seconds: float) -> _Report | None:
    """The report pipe read to its end; None if it did not end within ``seconds`` (init still alive)."""
    data, deadline = b"", time.monotonic() + seconds
    while True:
        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            return None
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    said: dict[str, Any] = {}
    for line in data.splitlines():
        with contextlib.suppress(ValueError):
            said.update(json.loads(line))
    return _Report(
        said.get("status"),
        said.get("cpu"),
        float(said.get("setup_cpu", 0.0)),
        float(said.get("init_setup_cpu", 0.0)),
        said.get("error"),
    )


class _Run:
    """One run through a zygote, from the request file to the verdict."""

    def __init__(self, sandbox: ForkServerSandbox, slot: Slot, zygote: _Zygote, request: RunRequest, plan: PythonRun):
        self.sandbox, self.slot, self.zygote, self.request, self.plan = sandbox, slot, zygote, request, plan

    def execute(self) -> RunResult:
        cgroup = self.slot.cgroup
        with contextlib.ExitStack() as reads:
            request_fd = _request_file(self.request, self.plan, cgroup is not None)
            reads.callback(os.close, request_fd)
            (stdout, stdout_write), (stderr, stderr_write), (report, report_write) = _pipes(reads, 3)
            try:
                shrink_stdout_pipe(stdout, self.request)
                if cgroup is not None:
                    limits = self.request.limits
                    # + 1: init is in the cgroup too
                    cgroup.prepare(max(1, limits.memory_mib - ZYGOTE_SHARE_MIB), limits.processes + 1)
                self.zygote.runs += 1
                self.zygote.send({"run": True}, (request_fd, stdout_write, stderr_write, report_write))
            finally:
                for fd in (stdout_write, stderr_write, report_write):  # the run's own processes hold them now
                    os.close(fd)
            # init's pidfd, opened by its parent before it could be reaped: never another process that got its pid
            _, (pidfd,) = self.zygote.receive_with_fds("started")
            reads.callback(os.close, pidfd)
            return self._supervise(pidfd, stdout, stderr, report, cgroup)

    def _supervise(self, pidfd: int, stdout: int, stderr: int, report_fd: int, cgroup: Cgroup | None) -> RunResult:
        started = time.monotonic()
        captured = capture_run(stdout, stderr, self.request, None)
        cpu_at_stop = cgroup.cpu_s() if cgroup is not None else None  # before the kill: the figure at the last line
        # at the wall limit, before the kill: did the run wait for a CPU (starved), or sleep?
        waited_s = cgroup.waited_s() if cgroup is not None and captured.stop is Stop.WALL else None
        if captured.stop is not Stop.EXITED:
            kill_pidfd(pidfd)  # pid 1's death takes every process of the namespace with it
        report = _read_report(report_fd, _REPORT_S)
        if report is None:
            kill_pidfd(pidfd)
            report = _read_report(report_fd, _REPORT_S)
        self.zygote.receive("ended")  # init is reaped, and with it every process of the namespace
        wall_time_s = time.monotonic() - started
        memory, cpu_at_end = None, None
        if cgroup is not None:
            memory, cpu_at_end = cgroup.usage(), cgroup.cpu_s()
            cgroup.kill_all()  # empty after a normal end; a safety net for the next run in this slot
        cpu_start, self.zygote.cpu_mark = self.zygote.cpu_mark, cpu_at_end
        if self.zygote.runs < RUNS_PER_ZYGOTE:  # else it is closed after this run: nothing to prepare
            self.zygote.send({"prepare": True})  # the next run's processes may join the cgroup now
        if report is not None and report.error is not None:
            return internal_result(self.sandbox.name, self.sandbox.isolated, f"sandbox set-up failed: {report.error}")
        if captured.stop is Stop.EXITED and (report is None or report.wait_status is None):
            detail = f"the run ended without a report{self.zygote.log()}"
            return internal_result(self.sandbox.name, self.sandbox.isolated, detail)
        returncode, cpu = -9, 0.0
        if report is not None and report.wait_status is not None:
            returncode = os.waitstatus_to_exitcode(report.wait_status)
            cpu = max(0.0, (report.cpu_s or 0.0) - report.setup_cpu_s)
        tree_cpu = tree_cpu_s(cpu_start, cpu_at_stop, cpu_at_end, captured.stop)
        if tree_cpu is not None and report is not None:
            # the cgroup counted init's and the program's set-up too (both reported before any untrusted code ran)
            tree_cpu = max(0.0, tree_cpu - report.init_setup_cpu_s - report.setup_cpu_s)
        peak = None if memory is None or memory.peak_bytes is None else memory.peak_bytes // 1024
        return conclude(
            captured,
            returncode,
            self.request,
            cpu_time_s=cpu if tree_cpu is None else tree_cpu,
            peak_kib=peak,
            oom_kills=memory.oom_kills if memory is not None else 0,
            memory_limit_reached=memory.reached_limit if memory is not None else False,
            wall_time_s=wall_time_s,
            backend=self.sandbox.name,
            isolated=self.sandbox.isolated,
            shell_status=False,  # init reports the program's own wait status: a signal is a signal
            cpu_from_cgroup=tree_cpu is not None,
            waited_s=waited_s,
        )


def _pipes(reads: contextlib.ExitStack, count: int) -> list[tuple[int, int]]:
    """``count`` pipes; the read ends close with ``reads``, the write ends are the caller's to close."""
    pipes = []
    for _ in range(count):
        read, write = os.pipe2(os.O_CLOEXEC)
        reads.callback(os.close, read)
        pipes.append((read, write))
    return pipes


_opened: list[ForkServerSandbox] = []
_opened_lock = threading.Lock()
_probe_error: list[str] = []


def opened_fork_server() -> ForkServerSandbox:
    """The fork-server sandbox of this process (one: its zygotes belong to the slots), checked once to work.

    DependencyError, with the reason, where this host cannot run it (then ``open_sandbox("auto")`` takes
    bubblewrap).
    """
    with _opened_lock:
        if not _opened and not _probe_error:
            sandbox = ForkServerSandbox()
            probe = RunRequest(("python3", "-s", "-S", "-P", "-B", "probe.py"), {"probe.py": b"print(6 * 7)"})
            result = sandbox.run(probe)
            if result.status is RunStatus.OK and result.stdout == b"42\n" and result.backend == sandbox.name:
                _opened.append(sandbox)
            else:
                sandbox.close()
                _probe_error.append(result.detail or result.stderr_tail.decode(errors="replace"))
    if _probe_error:
        raise DependencyError(f"the fork-server sandbox cannot run here: {_probe_error[0]}", fix=_FIX)
    return _opened[0]
