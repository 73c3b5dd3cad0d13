"""A per-host registry of sandbox runs, so that no run outlives the worker that started it.

A worker killed with SIGKILL cannot clean up: its sandbox's processes (running as the slot's own uid, re-parented
to init) and its scratch folder (``/dev/shm/podium-box-*``) would stay, and its successors use other uids and
never look at them. So every run is written down *before its program starts*, in one small JSON file per run under
a fixed folder of the host and user (``$PODIUM_SANDBOX_REGISTRY``, default ``/dev/shm/podium-registry-<euid>``;
tmpfs, so a reboot empties it along with what it lists)::

    {"owner_pid": 4242, "owner_start": "1234567", "pid_namespace": "pid:[4026531836]", "uid": 1879048321,
     "box": "/dev/shm/podium-box-3f2a...", "cgroups": ["/sys/fs/cgroup/memory/.../slot-0", ...], "pids": [4250, 4251]}

The entry names its owner by pid *and* start time (field 22 of ``/proc/PID/stat``), so a recycled pid is not
mistaken for a live owner. It is written with the uid, the cgroups and the scratch folder before the sandbox is
spawned, updated with the pids before the program is released, and removed after the run is cleaned up.

The sweeper runs as root where the sandbox switches uids, so it trusts nothing another user could have put there:
the folder must be its own (owned by this euid, mode 0700, not a link) and so must each entry file, and an entry is
acted on only if what it names is the sandbox's own (a slot uid, a ``podium-box-`` folder beside the others, cgroups
named ``podium-sandbox-``). The owner also holds an advisory lock on a lock file of the run while it runs; an owner
counts as dead only when its pid and start time no longer match *and* its lock can be taken.

``sweep()`` (run by every sandbox at start and every ``SWEEP_EVERY_S`` seconds by a thread of its process) takes
each entry of the same PID namespace whose owner is dead and kills what it lists: every process in its cgroups, its
recorded pids (when they still run as its uid) and every process of its uid (unless a live run holds that uid,
looked up again before every pass), then removes its cgroups, its scratch folder and the entry.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import stat
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from podium.core.execution.sandbox.cgroups import SANDBOX_CGROUP_PREFIX
from podium.core.execution.sandbox.supervise import BOX_PREFIX, is_slot_uid, new_box_path, remove_box

REGISTRY_ENV = "PODIUM_SANDBOX_REGISTRY"
SWEEP_EVERY_S = 5.0
_GONE_WITHIN_S = 5.0


def registry_root() -> Path:
    """Where this host's runs are registered."""
    configured = os.environ.get(REGISTRY_ENV)
    if configured:
        return Path(configured)
    shm = Path("/dev/shm")
    parent = shm if os.access(shm, os.W_OK | os.X_OK) else Path("/tmp")
    return parent / f"podium-registry-{os.geteuid()}"  # per user: never a folder another user made


class UntrustedRegistry(OSError):
    """The registry folder exists but is not this user's own private folder."""


def _own_private(path: Path, *, folder: bool) -> bool:
    """Whether ``path`` is a real folder (or file) owned by this euid, unreadable by others (folders)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    kind = stat.S_ISDIR(info.st_mode) if folder else stat.S_ISREG(info.st_mode)
    return kind and info.st_uid == os.geteuid() and (not folder or info.st_mode & 0o077 == 0)


def process_start(pid: int) -> str | None:
    """The start time of a live ``pid`` (clock ticks since boot), which tells it from a later process with its pid.

    None when no such process runs: none exists, or it is a zombie (dead, waiting for its parent to reap it).
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # fields[0] is field 3 of stat(5), the state
    if len(fields) <= 19 or fields[0] in ("Z", "X"):
        return None
    return fields[19]  # field 22: starttime


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


_owner: dict[int, tuple[str, str]] = {}


def _this_owner() -> tuple[int, str, str]:
    """The pid, start time and pid namespace of this process, read once per process (a forked child reads its own)."""
    me = os.getpid()
    if me not in _owner:
        _owner.clear()
        _owner[me] = (process_start(me) or "", _pid_namespace())
    return (me, *_owner[me])


@dataclass(frozen=True, slots=True)
class RunEntry:
    """One registered run: who owns it and everything it may leave behind."""

    owner_pid: int
    owner_start: str
    pid_namespace: str
    uid: int | None  # the slot's own uid; None where the judge cannot switch uids (not root)
    box: str
    cgroups: tuple[str, ...] = ()
    pids: tuple[int, ...] = ()
    name: str = field(default="", compare=False)

    def owner_alive(self) -> bool:
        """Whether the worker process that started the run still runs (by its pid and start time)."""
        return process_start(self.owner_pid) == self.owner_start

    def names_only_sandbox_things(self) -> bool:
        """Whether everything the entry would have a sweeper kill or remove is the sandbox's own."""
        box = Path(self.box)
        return (
            (self.uid is None or is_slot_uid(self.uid))
            and box.parent == new_box_path().parent
            and box.name.startswith(BOX_PREFIX)
            and all(any(part.startswith(SANDBOX_CGROUP_PREFIX) for part in Path(c).parts) for c in self.cgroups)
        )


class RegisteredRun:
    """The registry entry of one run in progress; ``add_pid`` records a process before the program is released."""

    def __init__(self, registry: RunRegistry, entry: RunEntry) -> None:
        self._registry, self.entry = registry, entry
        self._lock = threading.Lock()

    def add_pid(self, *pids: int) -> None:
        """Record ``pids`` as processes of the run (several at once: one write of the entry, ~0.2 ms, for all)."""
        with self._lock:
            self.entry = replace(self.entry, pids=(*self.entry.pids, *pids))
            self._registry.write(self.entry)


class RunRegistry:
    """The registry folder of this host."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or registry_root()

    def path(self, name: str) -> Path:
        """The file of entry ``name``."""
        return self.root / f"{name}.json"

    def _lock_path(self, name: str) -> Path:
        return self.root / f"{name}.lock"

    def _checked_root(self) -> Path:
        """The registry folder, made if missing; ``UntrustedRegistry`` unless it is this user's private folder."""
        try:
            os.mkdir(self.root, mode=0o700)
        except FileExistsError:
            pass
        except FileNotFoundError:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _own_private(self.root, folder=True):
            raise UntrustedRegistry(f"{self.root} is not a private folder of uid {os.geteuid()}; remove it")
        return self.root

    def write(self, entry: RunEntry) -> None:
        """Write ``entry`` atomically (a sweeper never reads half of it)."""
        root = str(self._checked_root())
        data = {
            "owner_pid": entry.owner_pid,
            "owner_start": entry.owner_start,
            "pid_namespace": entry.pid_namespace,
            "uid": entry.uid,
            "box": entry.box,
            "cgroups": list(entry.cgroups),
            "pids": list(entry.pids),
        }
        temporary = f"{root}/.{entry.name}.{threading.get_ident()}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, json.dumps(data).encode())
        finally:
            os.close(fd)
        os.replace(temporary, f"{root}/{entry.name}.json")

    @contextlib.contextmanager
    def run(self, uid: int | None, box: Path, cgroups: Sequence[Path]) -> Iterator[RegisteredRun]:
        """Register a run for the duration of the block (the entry is written before the block starts)."""
        me, start, namespace = _this_owner()
        entry = RunEntry(
            owner_pid=me,
            owner_start=start,
            pid_namespace=namespace,
            uid=uid,
            box=str(box),
            cgroups=tuple(str(c) for c in cgroups),
            name=f"{me}-{uuid.uuid4().hex}",
        )
        self._checked_root()
        # held for the whole run, and released by the kernel when this process dies, however it dies
        lock = os.open(self._lock_path(entry.name), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.write(entry)
            yield RegisteredRun(self, entry)
        finally:
            for path in (self.path(entry.name), self._lock_path(entry.name)):
                with contextlib.suppress(OSError):
                    path.unlink()
            os.close(lock)

    def owner_gone(self, entry: RunEntry) -> bool:
        """Whether the run's owner is dead: its pid no longer runs as it did, and its run lock is free."""
        if entry.owner_alive():
            return False
        try:
            lock = os.open(self._lock_path(entry.name), os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            return True  # an entry of a run that never took its lock (written by an older podium)
        except OSError:
            return False
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: the owner (or a process it forked) still runs
        finally:
            os.close(lock)
        return True

    def entries(self) -> list[RunEntry]:
        """Every entry of this user's private registry that names only the sandbox's own things."""
        found: list[RunEntry] = []
        if not _own_private(self.root, folder=True):
            return found
        with contextlib.suppress(OSError):
            for path in self.root.glob("*.json"):
                if not _own_private(path, folder=False):
                    continue
                try:
                    data = json.loads(path.read_text())
                    found.append(
                        RunEntry(
                            owner_pid=int(data["owner_pid"]),
                            owner_start=str(data["owner_start"]),
                            pid_namespace=str(data["pid_namespace"]),
                            uid=None if data["uid"] is None else int(data["uid"]),
                            box=str(data["box"]),
                            cgroups=tuple(str(c) for c in data["cgroups"]),
                            pids=tuple(int(p) for p in data["pids"]),
                            name=path.stem,
                        )
                    )
                except (OSError, ValueError, KeyError, TypeError):
                    continue  # removed meanwhile, or not ours to read
        return [entry for entry in found if entry.names_only_sandbox_things()]

    def live_uids(self) -> set[int]:
        """The slot uids of the runs whose owner still lives (a uid can pass from a dead worker to a new one)."""
        here = _pid_namespace()
        return {
            e.uid for e in self.entries() if e.uid is not None and e.pid_namespace == here and not self.owner_gone(e)
        }

    def sweep(self) -> list[RunEntry]:
        """Kill and clean up every run of this PID namespace whose owner is dead; returns those runs."""
        here = _pid_namespace()
        swept = []
        for entry in self.entries():
            if entry.pid_namespace != here or not self.owner_gone(entry):
                continue
            clean_up(entry, kill_uid=lambda uid: uid not in self.live_uids())
            for path in (self.path(entry.name), self._lock_path(entry.name)):
                with contextlib.suppress(OSError):
                    path.unlink()
            swept.append(entry)
        return swept


def clean_up(entry: RunEntry, *, kill_uid: Callable[[int], bool]) -> None:
    """Kill every process of an orphaned run, then remove its cgroups and its scratch folder.

    ``kill_uid(uid)`` is asked before every pass whether every process of the run's uid may go: it may not while a
    live run holds the same uid.
    """
    deadline = time.monotonic() + _GONE_WITHIN_S
    while True:
        left = _kill_run(entry, kill_uid=entry.uid is not None and kill_uid(entry.uid))
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if entry.uid is not None:
        reap_children_of_uid(entry.uid)
    for cgroup in entry.cgroups:
        with contextlib.suppress(OSError):
            Path(cgroup).rmdir()
        with contextlib.suppress(OSError):  # the dead judge's own folder, once its last slot is gone
            Path(cgroup).parent.rmdir()
    remove_box(Path(entry.box))


def _kill_run(entry: RunEntry, *, kill_uid: bool) -> int:
    """SIGKILL what is left of the run; how many processes were still there."""
    targets: set[int] = set()
    for cgroup in entry.cgroups:
        with contextlib.suppress(OSError, ValueError):
            listed = (int(pid) for pid in (Path(cgroup) / "cgroup.procs").read_text().split())
            targets |= {pid for pid in listed if process_start(pid) is not None}
    if entry.uid is not None:
        targets |= {pid for pid in entry.pids if uid_of(pid) == entry.uid and process_start(pid) is not None}
        if kill_uid:
            targets |= set(processes_of_uid(entry.uid))
    for pid in targets:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return len(targets)


def uid_of(pid: int) -> int | None:
    """The uid a process runs as, or None once it is gone."""
    try:
        return Path(f"/proc/{pid}").stat().st_uid
    except OSError:
        return None


def processes_of_uid(uid: int) -> list[int]:
    """The pids of every live process running as ``uid`` (a zombie is dead already: it waits for init to reap it)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if entry.stat().st_uid == uid and process_start(int(entry.name)) is not None:
                found.append(int(entry.name))
    return found


def reap_children_of_uid(uid: int) -> int:
    """Reap the dead processes of ``uid`` that are this process's children; how many.

    A subreaper (every sandbox makes its process one) inherits the processes of a worker it started that died:
    once they are killed, only it can reap them.
    """
    me, reaped = os.getpid(), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            fields = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] == "Z" and int(fields[1]) == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(entry.name), os.WNOHANG)
                reaped += 1
    return reaped


_sweeper_lock = threading.Lock()
_sweeper: threading.Thread | None = None


def start_sweeper(registry: RunRegistry, every_s: float = SWEEP_EVERY_S) -> None:
    """Sweep now, then every ``every_s`` seconds in a daemon thread (one per process)."""
    global _sweeper
    registry.sweep()
    with _sweeper_lock:
        if _sweeper is not None and _sweeper.is_alive():
            return

        def loop() -> None:
            while True:
                time.sleep(every_s)
                with contextlib.suppress(Exception):  # a sweep that fails is tried again at the next tick
                    registry.sweep()

        _sweeper = threading.Thread(target=loop, name="podium-sandbox-sweeper", daemon=True)
        _sweeper.start()


def _forget_sweeper_in_child() -> None:
    global _sweeper
    _sweeper = None


os.register_at_fork(after_in_child=_forget_sweeper_in_child)
