"""Crash safety of the sandbox: a run registered before its program starts is found and cleaned up after its
worker dies (SIGKILL), by any other process of the host; a live worker's runs are never touched."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from podium.core.execution.sandbox.registry import (
    REGISTRY_ENV,
    RunEntry,
    RunRegistry,
    UntrustedRegistry,
    processes_of_uid,
    registry_root,
)
from podium.core.execution.sandbox.supervise import new_box_path
from tests.conftest import required

SLEEPER = """
from podium.core.execution.sandbox import Limits, RunRequest, open_sandbox
sandbox = open_sandbox("bubblewrap")
sandbox.run(RunRequest(("python3", "-c", "import time; time.sleep(120)"), {"keep.txt": b"x"},
                       limits=Limits(wall_time_s=60.0)))
"""


def wait_for_running_entry(registry: RunRegistry, worker: subprocess.Popen[bytes]) -> RunEntry:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert worker.poll() is None, "the worker died before its sandbox started"
        ours = [  # the sleeper's run, not the sandbox's start-up probe
            e
            for e in registry.entries()
            if e.owner_pid == worker.pid and len(e.pids) == 2 and (Path(e.box) / "keep.txt").exists()
        ]
        if ours and ours[0].uid is not None and processes_of_uid(ours[0].uid):
            time.sleep(0.5)  # the program itself is running now
            return ours[0]
        time.sleep(0.05)
    raise TimeoutError(f"no registered run appeared in {registry.root}")


def our_zombies(uid: int) -> list[int]:
    found = []
    for pid in (int(name) for name in os.listdir("/proc") if name.isdigit()):
        try:
            if Path(f"/proc/{pid}").stat().st_uid == uid:
                parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                found += [pid] if parent == os.getpid() else []
        except (OSError, ValueError, IndexError):
            continue
    return found


def test_a_killed_workers_sandbox_is_swept_and_a_live_ones_is_not(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None and not required("PODIUM_REQUIRE_SANDBOX"):
        pytest.skip("bubblewrap is not installed")
    if os.geteuid() != 0:
        pytest.skip("runs as a slot's own uid only as root")
    root = tmp_path / "registry"
    registry = RunRegistry(root)
    worker = subprocess.Popen([sys.executable, "-c", SLEEPER], env={**os.environ, REGISTRY_ENV: str(root)})
    try:
        entry = wait_for_running_entry(registry, worker)
        data = json.loads(registry.path(entry.name).read_text())
        assert set(data) == {"owner_pid", "owner_start", "pid_namespace", "uid", "box", "cgroups", "pids"}
        assert Path(entry.box).is_dir() and entry.owner_alive()
        assert registry.sweep() == [] and processes_of_uid(entry.uid or 0)  # its owner lives: left alone

        worker.send_signal(signal.SIGKILL)
        worker.wait()
        started = time.monotonic()
        swept = registry.sweep()  # this process is the subreaper of the worker's sandbox: the sweep reaps it too
        assert [e.name for e in swept] == [entry.name]
        assert processes_of_uid(entry.uid or 0) == [] and our_zombies(entry.uid or 0) == []
        assert not Path(entry.box).exists()
        assert not any(Path(c).exists() for c in entry.cgroups)
        assert registry.entries() == []
        assert time.monotonic() - started < 5
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        registry.sweep()


def _dead_entry(**fields: object) -> dict[str, object]:
    namespace = os.readlink("/proc/self/ns/pid")
    entry: dict[str, object] = {"owner_pid": 4_194_305, "owner_start": "1", "pid_namespace": namespace,
                                "uid": 20_001, "box": str(new_box_path()), "cgroups": [], "pids": []}  # fmt: skip
    return entry | fields


def test_a_sweeper_acts_only_on_its_own_private_entries_naming_sandbox_things(tmp_path: Path) -> None:
    root = tmp_path / "registry"
    root.mkdir(mode=0o700)
    registry = RunRegistry(root)
    (root / "plausible.json").write_text(json.dumps(_dead_entry()))
    (root / "root-uid.json").write_text(json.dumps(_dead_entry(uid=0)))
    (root / "etc.json").write_text(json.dumps(_dead_entry(box="/etc")))
    (root / "cgroup.json").write_text(json.dumps(_dead_entry(cgroups=["/sys/fs/cgroup/system.slice"])))
    assert [e.name for e in registry.entries()] == ["plausible"]
    if os.geteuid() == 0:
        os.chown(root / "plausible.json", 65534, 65534)  # another user's file in our folder: not ours to act on
        assert registry.entries() == []
    root.chmod(0o755)  # readable by others: not a private folder
    assert registry.entries() == [] and registry.sweep() == []
    with pytest.raises(UntrustedRegistry):
        registry.write(RunEntry(1, "1", "", None, str(new_box_path()), name="x"))


def test_the_default_registry_is_per_user() -> None:
    assert registry_root().name == f"podium-registry-{os.geteuid()}" or REGISTRY_ENV in os.environ


def test_pids_added_together_are_written_in_one_entry(tmp_path: Path) -> None:
    registry = RunRegistry(tmp_path / "registry")
    with registry.run(None, new_box_path(), ()) as registered:
        registered.add_pid(11, 12)
        registered.add_pid(13)
        entry = json.loads(registry.path(registered.entry.name).read_text())
        assert entry["pids"] == [11, 12, 13]
