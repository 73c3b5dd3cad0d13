"""A judge worker killed with SIGKILL while its sandbox runs, on SQLite and on a real PostgreSQL server.

Under bubblewrap the run registry cleans up after the dead worker; under the fork-server nothing needs to: the
worker's zygotes die with it (``PR_SET_PDEATHSIG``), each run's init with its zygote, and every
process of the run's PID namespace with its init. Both are tested.

A real `podium dojo worker` process claims a submission whose solver sleeps; it is killed while the program runs.
Within 30 s nothing of that run may remain (no live process of its sandbox uid, no scratch folder, no cgroup), and
within a minute another worker must have taken the submission over and judged it, exactly once (one `judged`
audit entry). The workers share a sandbox registry of their own (`PODIUM_SANDBOX_REGISTRY`), as workers on one
host share the default one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.execution.sandbox.registry import (
    REGISTRY_ENV,
    RunEntry,
    RunRegistry,
    processes_of_uid,
    reap_children_of_uid,
    uid_of,
)
from podium.core.execution.sandbox.supervise import is_slot_uid
from podium.core.storage.audit import audit_payload
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import audit_entries, open_store
from tests.databases import new_postgres_database
from tests.processes import descendants, is_live

SQUARES = b"n=0\nwhile 1:print(n*n);n+=1\n"
SLEEPER = b"import time\ntime.sleep(300)\nprint(0)\n"  # outlives its worker; a live worker stops it at 5 s
WORKER = [sys.executable, "-m", "podium", "dojo", "worker", "--forever", "--threads", "1", "--sandbox", "bubblewrap"]
FORK_SERVER_WORKER = [*WORKER[:-1], "forkserver"]


def wait_until(what: str, condition, timeout_s: float) -> float:  # type: ignore[no-untyped-def]
    """Poll ``condition`` until it holds; how long that took."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if condition():
            return time.monotonic() - started
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout_s} s")


def running_run(registry: RunRegistry, worker: subprocess.Popen[bytes]) -> RunEntry | None:
    """The worker's run of the sleeping solver (not the sandbox's start-up probe), once its program runs."""
    assert worker.poll() is None, "the worker exited"
    for entry in registry.entries():
        ours = entry.owner_pid == worker.pid and len(entry.pids) == 2 and entry.uid is not None
        if ours and (Path(entry.box) / "solver.py").exists() and processes_of_uid(entry.uid or 0):
            return entry
    return None


def leftovers(entry: RunEntry) -> list[str]:
    # this test process is a subreaper (its own sandbox made it one): the killed worker's sandbox processes were
    # re-parented to it, and once the sweep has killed them only it can reap them
    left = [f"process {pid}" for pid in processes_of_uid(entry.uid or 0)]
    left += ["a zombie reaped just now"] * reap_children_of_uid(entry.uid or 0)
    left += [f"folder {p}" for p in (entry.box, *entry.cgroups) if Path(p).exists()]
    return left


def fork_server_run(worker: subprocess.Popen[bytes]) -> list[int] | None:
    """Every process under the worker's zygotes, once one of them runs the sleeping solver as a slot's uid."""
    assert worker.poll() is None, "the worker exited"
    tree = descendants(worker.pid)
    running = any(is_live(pid) and (uid := uid_of(pid)) is not None and is_slot_uid(uid) for pid in tree)
    return tree if running else None


def judged_entries(dojo: Dojo, submission_id: int) -> int:
    with dojo.engine.connect() as db:
        entries = audit_entries(db)
    return sum(1 for e in entries if e.kind == "judged" and audit_payload(e)["submission"] == submission_id)


def kill_a_worker_mid_run(url: str, bubblewrap: Sandbox, tmp_path: Path, *, fork_server: bool) -> dict[str, float]:
    if os.geteuid() != 0:
        pytest.skip("the sandbox runs as a slot's own uid only as root")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    ann = dojo.add_user("ann", Role.SOLVER)[0]
    dojo.create_season("crash")
    dojo.add_problem("crash", "squares", "sam", ProblemFiles(Path("squares"), SQUARES, "Squares", "", 0, 10))
    assert dojo.validate("squares").accepted
    dojo.open("squares")
    submitted = dojo.submit(ann, "squares", SLEEPER).submission_id

    registry = RunRegistry(tmp_path / "registry")
    env = {**os.environ, "PODIUM_DOJO_DB": url, REGISTRY_ENV: str(registry.root)}
    log = tmp_path / "workers.log"
    worker = FORK_SERVER_WORKER if fork_server else WORKER
    with log.open("wb") as sink:
        first = subprocess.Popen(worker, env=env, stdout=sink, stderr=sink)
    second: subprocess.Popen[bytes] | None = None
    try:
        if fork_server:
            wait_until("the first worker's sandbox runs", lambda: fork_server_run(first) is not None, 60)
            tree = fork_server_run(first) or []

            def left() -> list[str]:
                return [f"process {pid}" for pid in tree if is_live(pid)]
        else:
            wait_until("the first worker's sandbox runs", lambda: running_run(registry, first) is not None, 60)
            entry = running_run(registry, first)
            assert entry is not None

            def left() -> list[str]:
                return leftovers(entry)

        claimed = dojo.submission(submitted)
        assert claimed.status.value == "running"
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed = time.monotonic()
        with log.open("ab") as sink:  # another worker on the host (restarted, or one that was there already)
            second = subprocess.Popen(worker, env=env, stdout=sink, stderr=sink)
        cleaned_s = wait_until("the killed run is cleaned up", lambda: not left(), 30)
        assert not left()
        wait_until("another worker judges it", lambda: dojo.submission(submitted).status.value == "judged", 60)
        judged_s = time.monotonic() - killed  # takeover (15 s without a heartbeat) plus the 5 s wall limit
        final = dojo.submission(submitted)
        assert (final.verdict, final.attempts) == ("TIME_LIMIT", 2)
        assert judged_entries(dojo, submitted) == 1  # judged exactly once
        assert registry.entries() == []  # the second worker's own run is gone too
        print(f"\n{url.split(':')[0]}: cleaned {cleaned_s:.1f} s, judged {judged_s:.1f} s after the kill")
        return {"cleaned_s": cleaned_s, "judged_s": judged_s}
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=30)
        registry.sweep()


@pytest.mark.slow
@pytest.mark.parametrize("fork_server", [False, True], ids=["bubblewrap", "forkserver"])
def test_a_killed_worker_on_sqlite(bubblewrap: Sandbox, tmp_path: Path, fork_server: bool) -> None:
    times = kill_a_worker_mid_run(sqlite_url(tmp_path / "dojo.sqlite3"), bubblewrap, tmp_path, fork_server=fork_server)
    assert times["cleaned_s"] < 30 and times["judged_s"] < 60


@pytest.mark.slow
def test_a_killed_worker_on_postgresql(bubblewrap: Sandbox, postgres_url: str, tmp_path: Path) -> None:
    url = new_postgres_database(postgres_url, "dojo_crash")
    times = kill_a_worker_mid_run(url, bubblewrap, tmp_path, fork_server=False)
    assert times["cleaned_s"] < 30 and times["judged_s"] < 60
