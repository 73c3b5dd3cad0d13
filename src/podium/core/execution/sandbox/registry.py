"""A per-host registry of sandbox runs, so that no run outlives the worker that started it.

A worker killed with SIGKILL cannot clean up: its sandbox's processes (running as the slot's own uid, re-parented
to init) and its scratch folder (``/dev/shm/podium-box-*``) would stay, and its successors use other uids and
never look at them. So every run is written down *before its program starts*, in one small JSON file per run under
a fixed folder of the host (``$PODIUM_SANDBOX_REGISTRY``, default ``/dev/shm/podium-registry``; tmpfs, so a reboot
empties it along with what it lists)::

    {"owner_pid": 4242, "owner_start": "1234567", "pid_namespace": "pid:[4026531836]", "uid": 1879048321,
     "box": "/dev/shm/podium-box-3f2a...", "cgroups": ["/sys/fs/cgroup/memory/.../slot-0", ...], "pids": [4250, 4251]}

The entry names its owner by pid *and* start time (field 22 of ``/proc/PID/stat``), so a recycled pid is not
mistaken for a live owner. It is written with the uid, the cgroups and the scratch folder before the sandbox is
spawned, updated with the pids before the program is released, and removed after the run is cleaned up.

``sweep()`` (run by every sandbox at start and every ``SWEEP_EVERY_S`` seconds by a thread of its process) takes
each entry of the same PID namespace whose owner is dead and kills what it lists: every process in its cgroups, its
recorded pids (when they still run as its uid) and every process of its uid (unless a live run holds that uid),
then removes its cgroups, its scratch folder and the entry.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

REGISTRY_ENV = "PODIUM_SANDBOX_REGISTRY"
DEFAULT_REGISTRY = "/dev/shm/podium-registry"
SWEEP_EVERY_S = 5.0
_GONE_WITHIN_S = 5.0


def registry_root() -> Path:
    """Where this host's runs are registered."""
    configured = os.environ.get(REGISTRY_ENV)
    if configured:
        return Path(configured)
    shm = Path("/dev/shm")
    return Path(DEFAULT_REGISTRY) if os.access(shm, os.W_OK | os.X_OK) else Path("/tmp/podium-registry")


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
        """Whether the worker process that started the run still runs."""
        return process_start(self.owner_pid) == self.owner_start


class RegisteredRun:
    """The registry entry of one run in progress; ``add_pid`` records a process before the program is released."""

    def __init__(self, registry: RunRegistry, entry: RunEntry) -> None:
        self._registry, self.entry = registry, entry
        self._lock = threading.Lock()

    def add_pid(self, pid: int) -> None:
        """Record ``pid`` as one of the run's processes."""
        with self._lock:
            self.entry = replace(self.entry, pids=(*self.entry.pids, pid))
            self._registry.write(self.entry)


class RunRegistry:
    """The registry folder of this host."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or registry_root()

    def path(self, name: str) -> Path:
        """The file of entry ``name``."""
        return self.root / f"{name}.json"

    def write(self, entry: RunEntry) -> None:
        """Write ``entry`` atomically (a sweeper never reads half of it)."""
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.root / f".{entry.name}.{threading.get_ident()}.tmp"
        data = asdict(entry)
        del data["name"]
        temporary.write_text(json.dumps(data))
        os.replace(temporary, self.path(entry.name))

    @contextlib.contextmanager
    def run(self, uid: int | None, box: Path, cgroups: Sequence[Path]) -> Iterator[RegisteredRun]:
        """Register a run for the duration of the block (the entry is written before the block starts)."""
        me = os.getpid()
        entry = RunEntry(
            owner_pid=me,
            owner_start=process_start(me) or "",
            pid_namespace=_pid_namespace(),
            uid=uid,
            box=str(box),
            cgroups=tuple(str(c) for c in cgroups),
            name=f"{me}-{uuid.uuid4().hex}",
        )
        self.write(entry)
        try:
            yield RegisteredRun(self, entry)
        finally:
            with contextlib.suppress(OSError):
                self.path(entry.name).unlink()

    def entries(self) -> list[RunEntry]:
        """Every readable entry."""
        found = []
        with contextlib.suppress(OSError):
            for path in self.root.glob("*.json"):
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
        return found

    def sweep(self) -> list[RunEntry]:
        """Kill and clean up every run of this PID namespace whose owner is dead; returns those runs."""
        entries = [e for e in self.entries() if e.pid_namespace == _pid_namespace()]
        live_uids = {e.uid for e in entries if e.owner_alive()}
        swept = []
        for entry in entries:
            if entry.owner_alive():
                continue
            clean_up(entry, kill_uid=entry.uid is not None and entry.uid not in live_uids)
            with contextlib.suppress(OSError):
                self.path(entry.name).unlink()
            swept.append(entry)
        return swept


def clean_up(entry: RunEntry, *, kill_uid: bool) -> None:
    """Kill every process of an orphaned run, then remove its cgroups and its scratch folder."""
    deadline = time.monotonic() + _GONE_WITHIN_S
    while True:
        left = _kill_run(entry, kill_uid=kill_uid)
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
        targets |= {pid for pid in entry.pids if _uid_of(pid) == entry.uid and process_start(pid) is not None}
        if kill_uid:
            targets |= set(processes_of_uid(entry.uid))
    for pid in targets:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return len(targets)


def _uid_of(pid: int) -> int | None:
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


def remove_box(box: Path) -> None:
    """Remove a scratch folder the sandbox made read-only."""
    if not box.exists():
        return
    for folder in [box, *(p for p in box.rglob("*") if p.is_dir())]:
        with contextlib.suppress(OSError):
            folder.chmod(0o755)
    shutil.rmtree(box, ignore_errors=True)


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
