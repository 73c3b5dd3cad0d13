"""The fork-server's zygote: a pre-started interpreter that forks a freshly isolated process tree per run.

This file's text runs under the sandbox's own interpreter (``/usr/bin/python3`` with the request's options, never
the judge's) as ``python3 [options] -c TEXT SOCKET``, as root, started by exec from the judge (``forkserver.py``),
one per sandbox slot, and imports the standard library only. Given as text, not as a path, its code names no file
of the host: a program that looks at the code above it finds ``<string>``.
It never runs untrusted code and never holds a run's source or output: the judge hands each run's request (a
memfd) and pipes to the run's own processes, which the zygote forwards unread. ``docs/design/core.md``
("The fork-server") gives the design and its weaknesses.

Once, at start: a private mount namespace whose root is a tmpfs holding what the judge's ``hello`` lists
(``root.py``, bubblewrap's list too: the interpreter's files read-only, the loader cache, five devices, the ``fd``
links), the host's ``/proc`` (each run's init mounts its own over it) and empty ``/tmp`` and ``/box`` mount points;
``pivot_root`` into it; ``gc.freeze()`` and a warm-up ``compile()``.

Per run, prepared while the slot is idle (so cgroup v1's wait in ``cgroup.procs`` costs no one time)::

    zygote --clone--> init (pid 1) in new user, PID, mount, network, IPC and UTS namespaces; the zygote maps root
        to root and 65534 to the slot's uid; init joins the slot's cgroups and a new cgroup namespace, mounts a
        fresh /proc, brings loopback up, sets the hostname, joins a new session keyring and waits for the run;
        then it mounts /tmp and /box (the request's files, read-only)
      init --fork--> program (pid 2): setsid, rlimits, no
          capabilities, uid 65534, no_new_privs, the system-call filter, every other descriptor closed; then the
          program's text is compiled and executed in this process, as ``python3 FILE`` would run it

The judge kills init (and with it the whole PID namespace) at the wall limit or once it has read enough.
Protocol with the judge (one UNIX socketpair, messages are JSON objects, descriptors travel with ``SCM_RIGHTS``):
``hello`` in, ``ready`` out; ``prepare`` in (no answer) once the slot's cgroup is free for the next run; per run
``run`` in with four descriptors (request memfd, stdout, stderr, report pipe), ``started`` out (init's host pid),
``ended`` out (init's wait status). On the report pipe the program writes its set-up CPU time before any
untrusted code runs, and init writes the program's wait status and CPU time.

**Nothing of the judge above the program.** Once sandboxed, the program's process raises ``_StartProgram``, which
unwinds every frame of the zygote's (``serve``, ``_init``, ``_program``: the judge's ``hello`` with the slot's uid,
the cgroup paths and the filter, and the run's request) back to this file's top level, where it is caught; only
then does the program start, from ``_start_program``, whose frames hold only the program's own source, path and
namespace. A program that walks its frames up, the collector's objects or ``sys.modules`` finds no host path, uid,
pid or cgroup path (``test_isolation.py``).
"""

import sys

_FRESH_MODULES = set(sys.modules)  # what a fresh interpreter holds before its script imports anything
if not sys.flags.safe_path:
    del sys.path[0]  # this file's folder: the zygote imports the standard library only

import atexit  # noqa: E402 -- after the list above, on purpose
import contextlib  # noqa: E402
import ctypes  # noqa: E402
import fcntl  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.syscall.restype = ctypes.c_long
_pylibc = ctypes.PyDLL(None, use_errno=True)  # keeps the GIL through the call: the clone's child returns holding it
_pylibc.syscall.restype = ctypes.c_long

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x2000000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 1, 24, 22, 38
SECCOMP_MODE_FILTER = 2
KEYCTL_JOIN_SESSION_KEYRING = 1
SIOCSIFFLAGS, IFF_UP = 0x8914, 0x1
_LOOPBACK_UP = struct.pack("16sH22x", b"lo", IFF_UP)  # struct ifreq; made here, as every import is, not per run
_MACHINE = os.uname().machine
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}[_MACHINE]
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}[_MACHINE]
SYS_CLONE = {"x86_64": 56, "aarch64": 220}[_MACHINE]
_RLIMITS = {  # prlimit's names, which the judge's request uses
    "cpu": resource.RLIMIT_CPU,
    "as": resource.RLIMIT_AS,
    "fsize": resource.RLIMIT_FSIZE,
    "nproc": resource.RLIMIT_NPROC,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
}
SANDBOX_ID = 65534  # what the program is inside its user namespace (the slot's uid outside), as under bubblewrap
ROOT = "/tmp"  # where the new root is built, inside the zygote's private mount namespace only
MAX_FDS = 4  # a run's request, stdout, stderr and report pipe
Config = dict[str, Any]  # the judge's hello, or a run's request header


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")
    return result


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def encode(text: str | None) -> bytes | None:
        return None if text is None else text.encode()

    _check(_libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)), f"mount {target}")


class _Channel:
    """The socket to the judge: JSON messages, each with up to ``MAX_FDS`` descriptors."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, message: dict[str, Any], fds: tuple[int, ...] = ()) -> None:
        data = json.dumps(message).encode()
        if fds:
            socket.send_fds(self.sock, [data], list(fds))
        else:
            self.sock.sendall(data)

    def receive(self) -> tuple[dict[str, Any] | None, list[int]]:
        data, fds, _, _ = socket.recv_fds(self.sock, 1 << 20, MAX_FDS)
        if not data:
            for fd in fds:
                os.close(fd)
            return None, []
        return json.loads(data), fds


# -- once, at start ----------------------------------------------------------------------------------------------


def _bind_read_only(source: str, target: str) -> None:
    _mount(source, target, None, MS_BIND | MS_REC)
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _build_root(entries: list[list[str]]) -> int:
    """A private root of the judge's ``entries`` (``root.py``), pivoted into; a descriptor of the host's /proc."""
    host_proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    _check(_libc.unshare(CLONE_NEWNS), "unshare mount")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for name in ("proc", "tmp", "box", "dev", "old"):
        os.mkdir(f"{ROOT}/{name}", 0o755)
    for kind, source, target in entries:
        inside = ROOT + target
        os.makedirs(os.path.dirname(inside), mode=0o755, exist_ok=True)
        if kind == "symlink":
            os.symlink(source, inside)
            continue
        if kind.endswith("-try") and not os.path.exists(source):
            continue
        if os.path.isdir(source):
            os.mkdir(inside, 0o755)
        else:
            open(inside, "w").close()
        if kind == "dev-bind-try":
            _mount(source, inside, None, MS_BIND)  # the root is remounted read-only below
        else:
            _bind_read_only(source, inside)
    # the kernel lets a user namespace mount a proc only where a proc is fully visible already: the host's, which
    # every run's init then covers with its own (and the filter keeps it from unmounting)
    _mount("/proc", f"{ROOT}/proc", None, MS_BIND | MS_REC)
    os.chdir(ROOT)
    _check(_libc.syscall(SYS_PIVOT_ROOT, b".", b"old"), "pivot_root")
    _check(_libc.umount2(b"/old", MNT_DETACH), "umount old root")
    os.rmdir("/old")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return host_proc


# -- per run: init, program -------------------------------------------------------------------------------------


class _Prepared:
    """A run's init, waiting for the run."""

    def __init__(self, init: int, handoff: socket.socket) -> None:
        self.init, self.handoff = init, handoff


def _prepare(config: Config, judge_sock: socket.socket, host_proc: int, cgroup_fds: list[int]) -> _Prepared:
    """Clone the next run's init into new namespaces and give its user namespace its uids; init does the rest."""
    maps_read, maps_written = os.pipe()
    handoff, handoff_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    init = _clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
    if init == 0:
        judge_sock.close()
        handoff.close()
        os.close(maps_written)
        _child(lambda: _init(config, host_proc, cgroup_fds, maps_read, handoff_child))
    handoff_child.close()
    os.close(maps_read)
    try:
        uid = config["uid"]
        for name in ("uid_map", "gid_map"):
            fd = os.open(f"{init}/{name}", os.O_WRONLY | os.O_CLOEXEC, dir_fd=host_proc)
            try:
                os.write(fd, f"0 0 1\n{SANDBOX_ID} {uid} 1\n".encode())
            finally:
                os.close(fd)
        os.write(maps_written, b"m")
    except BaseException:
        os.kill(init, signal.SIGKILL)
        os.waitpid(init, 0)
        handoff.close()
        raise
    finally:
        os.close(maps_written)
    return _Prepared(init, handoff)


def _clone(flags: int) -> int:
    """``fork`` into new namespaces at once: the PID namespace then belongs to the new user namespace.

    A raw ``clone`` rather than ``os.fork`` followed by ``unshare``: a process cannot enter a new PID namespace itself,
    only its children can, which would cost one more fork of this interpreter per run. The child runs only this
    file's code (no threads, no ``raise()``: glibc's cached thread id in the child is the parent's).
    """
    return _check(_pylibc.syscall(SYS_CLONE, ctypes.c_ulong(flags | signal.SIGCHLD), None, None, None, None), "clone")


def _init(config: Config, host_proc: int, cgroup_fds: list[int], maps_read: int, handoff: socket.socket) -> None:
    """Pid 1 of the run: its cgroups, /proc, network and keyring; then the program, reaped with its CPU time."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.read(maps_read, 1) != b"m":
        return
    os.close(maps_read)
    os.close(host_proc)
    for fd in cgroup_fds:
        os.write(fd, b"0")  # "0": the writing process itself; cgroup v1 may wait here ~11 ms, while the slot idles
        os.close(fd)
    joined_cpu = _own_cpu()  # from here on the cgroup counts init's time, which the judge takes off the program's
    _check(_libc.unshare(CLONE_NEWCGROUP), "unshare cgroup")
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, _LOOPBACK_UP)
    socket.sethostname("sandbox")
    _check(_libc.syscall(SYS_KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, None), "keyctl")
    signal_message, fds, _, _ = socket.recv_fds(handoff, 4096, MAX_FDS)
    handoff.close()
    if not signal_message:
        os._exit(0)  # the zygote is going away
    request_fd, stdout_fd, stderr_fd, report_fd = fds
    # closefd=False: the program's process, unwinding past this frame, must not close a descriptor number again
    report = os.fdopen(report_fd, "w", closefd=False)
    try:
        request = _read_request(request_fd)
        _make_box(request)
        program = os.fork()
        if program == 0:
            _child(lambda: _program(config, request, stdout_fd, stderr_fd, report_fd))
        report.write(json.dumps({"init_setup_cpu": _own_cpu() - joined_cpu}) + "\n")
        report.flush()
    except _StartProgram:
        raise  # in the program's process: on up to the top level
    except BaseException as error:  # noqa: BLE001 -- reported to the judge as the sandbox's failure
        report.write(json.dumps({"error": f"{type(error).__name__}: {error}"}) + "\n")
        report.flush()
        os._exit(0)
    os.close(stdout_fd)
    os.close(stderr_fd)
    while True:  # pid 1 reaps every orphan of the namespace; the run ends with the program
        pid, status, usage = os.wait4(-1, 0)
        if pid == program:
            break
    cpu = usage.ru_utime + usage.ru_stime
    report.write(json.dumps({"status": status, "cpu": cpu}) + "\n")
    report.flush()
    os._exit(0)  # and with pid 1 goes every process the program left behind


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _read_request(fd: int) -> Config:
    """The run's request: a JSON header line, then each file's bytes in the header's order."""
    with os.fdopen(fd, "rb") as stream:
        stream.seek(0)
        header: Config = json.loads(stream.readline())
        header["files"] = [(name, stream.read(size)) for name, size in header["files"]]
    return header


def _make_box(request: Config) -> None:
    """/tmp and /box for this run; /box holds the request's files and is read-only."""
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={request['tmp_mib']}m")
    total = sum(len(data) + 4096 for _, data in request["files"]) + (64 << 10)
    _mount("tmpfs", "/box", "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0755,size={total}")
    for name, data in request["files"]:
        path = os.path.join("/box", name)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    _mount(None, "/box", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


class _StartProgram(BaseException):
    """Raised in the program's sandboxed process: unwinds the zygote's frames to the top level, which starts it."""


_PENDING: list[Config] = []  # the run's request, from ``_program`` to ``_start_program``


def _program(config: Config, request: Config, stdout_fd: int, stderr_fd: int, report_fd: int) -> None:
    """Pid 2: drop everything, then leave the zygote's frames for the top level, which runs the program."""
    try:
        _drop_everything(config, request, stdout_fd, stderr_fd, report_fd)
    except BaseException as error:  # noqa: BLE001 -- the sandbox failed, not the program: the judge says so
        os.write(report_fd, (json.dumps({"error": f"{type(error).__name__}: {error}"}) + "\n").encode())
        os._exit(70)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    os.write(report_fd, (json.dumps({"setup_cpu": usage.ru_utime + usage.ru_stime}) + "\n").encode())
    os.close(report_fd)
    _PENDING.append(request)
    raise _StartProgram


def _start_program() -> None:
    """Run the pending program as ``python3 FILE`` would, once nothing of the zygote's is left above it."""
    globals()["__doc__"] = None  # the zygote's own description names cgroup files: none of the program's business
    gc.collect()  # what the unwinding left in cycles goes now, before the program has a descriptor to lose
    _run_as_fresh_interpreter(_PENDING.pop())


def _drop_everything(config: Config, request: Config, stdout_fd: int, stderr_fd: int, report_fd: int) -> None:
    os.setsid()
    os.dup2(stdout_fd, 1)
    os.dup2(stderr_fd, 2)
    os.chdir(os.path.join("/box", request["workdir"]))
    os.environ["PWD"] = os.getcwd()  # as bubblewrap sets it
    for name, soft, hard in request["rlimits"]:  # the judge's RlimitValues.settings(), bubblewrap's too
        resource.setrlimit(_RLIMITS[name], (soft, hard))
    for capability in range(config["last_capability"] + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), "dropping a capability")
    os.setgroups([])
    os.setresgid(SANDBOX_ID, SANDBOX_ID, SANDBOX_ID)
    os.setresuid(SANDBOX_ID, SANDBOX_ID, SANDBOX_ID)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(config["compiled_filter"]), 0, 0), "seccomp")
    os.closerange(3, report_fd)
    os.closerange(report_fd + 1, 1 << 16)


class _Filter(ctypes.Structure):
    """``struct sock_fprog``: the compiled system-call filter, made once in the zygote and shared by every run."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def _compiled_filter(program: str) -> _Filter:
    data = bytes.fromhex(program)
    return _Filter(len(data) // 8, data)  # the bytes object lives as long as the structure refers to it


_KEPT: list[dict[str, types.ModuleType]] = []
_INTERPRETER = sys.orig_argv[:-3]  # the interpreter and its options, without "-c", this text and its socket


def _run_as_fresh_interpreter(request: Config) -> None:
    """Look like a fresh ``python3 FILE`` to the program, run it, end as the interpreter would; never returns."""
    _KEPT.append(dict(sys.modules))  # kept referenced: freeing them would fault in pages shared with the zygote
    for name in list(sys.modules):
        if name not in _FRESH_MODULES:
            del sys.modules[name]
    script = request["script"]
    path = os.path.join("/box", request["workdir"], script)
    main = types.ModuleType("__main__")
    loader = sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", path)
    main.__dict__.update(__file__=path, __cached__=None, __annotations__={}, __loader__=loader)
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    sys.argv = [script, *request["arguments"]]
    sys.orig_argv = [*_INTERPRETER, *sys.argv]
    if not sys.flags.safe_path:
        sys.path.insert(0, os.path.dirname(path))  # as the interpreter puts the script's folder first
    source = dict(request["files"])[os.path.normpath(os.path.join(request["workdir"], script))]
    del request
    os._exit(_finish(_execute(source, path, main.__dict__)))


def _execute(source: bytes, path: str, namespace: dict[str, Any]) -> int:
    """Compile and run the program's text; its exit status, with what the interpreter prints on the way."""
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as error:
        sys.excepthook(type(error), error.with_traceback(None), None)
        return 1
    del source
    try:
        exec(code, namespace)  # noqa: S102 -- in the sandboxed program's own process, never the judge's
    except SystemExit as error:
        return _exit_status(error.code)
    except BaseException as error:  # noqa: BLE001 -- printed as the interpreter prints an uncaught exception
        below = error.__traceback__.tb_next if error.__traceback__ else None  # from the program's frame on
        sys.excepthook(type(error), error.with_traceback(below), below)
        return 1
    return 0


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):  # the interpreter too ignores a failure to print it
        print(code, file=sys.stderr)
    return 1


def _finish(status: int) -> int:
    """What the interpreter does at exit: wait for threads, run ``atexit``, flush stdout and stderr."""
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:  # noqa: BLE001
            traceback.print_exc()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 -- a stdout the reader closed: the interpreter's status 120
            status = status or 120
    return status


def _child(body: Callable[[], None]) -> None:
    """Run ``body`` in a forked process that never returns to the zygote's loop (the program leaves by raising)."""
    try:
        body()
    except _StartProgram:
        raise
    except BaseException:  # noqa: BLE001 -- reaches the zygote's stderr, the judge's log
        traceback.print_exc()
        os._exit(70)
    os._exit(0)


def serve(sock_fd: int) -> None:
    """Serve runs until the judge closes the socket."""
    sock = socket.socket(fileno=sock_fd)
    channel = _Channel(sock)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    hello, _ = channel.receive()
    if hello is None:
        return
    cgroup_fds = [os.open(path, os.O_WRONLY | os.O_CLOEXEC) for path in hello["cgroup_procs"]]
    hello["compiled_filter"] = _compiled_filter(hello["filter"])
    with open("/proc/sys/kernel/cap_last_cap") as last:
        hello["last_capability"] = int(last.read())
    host_proc = _build_root(hello["root"])
    compile("0", "<warm-up>", "exec")  # an interpreter's first compile() costs 1 ms
    gc.freeze()
    channel.send({"ready": os.getpid()})
    prepared = None
    while True:
        message, fds = channel.receive()
        if message is None:
            if prepared is not None:
                os.kill(prepared.init, signal.SIGKILL)
            _reap_all()
            return
        if prepared is None:  # asked for ahead of the run while the slot is idle, or now
            prepared = _prepare(hello, sock, host_proc, cgroup_fds)
        if "run" not in message:
            continue
        socket.send_fds(prepared.handoff, [b"run"], fds)
        for fd in fds:
            os.close(fd)
        prepared.handoff.close()
        pidfd = os.pidfd_open(prepared.init)  # before init can be reaped, so its pid cannot be anyone else's
        channel.send({"started": prepared.init}, (pidfd,))
        os.close(pidfd)
        _, status = os.waitpid(prepared.init, 0)
        channel.send({"ended": status})
        prepared = None  # the next is prepared when the judge has read this run's cgroup and asks


def _reap_all() -> None:
    """Wait for every child left (a prepared init, just killed)."""
    with contextlib.suppress(ChildProcessError):
        while True:
            os.waitpid(-1, 0)


if __name__ == "__main__":
    try:
        serve(int(sys.argv[-1]))
    except _StartProgram:
        pass  # a run's program process, every frame of the zygote's gone with the exception
    else:
        raise SystemExit(0)  # the judge closed the socket
    _start_program()
