"""Cgroup discovery from mountinfo and /proc/self/cgroup, and the v2 cgroup driven through its files.

The v2 cgroup is tested against fake files (plain files in a tmp folder, named as cgroupfs names them) because this host
mounts v1 for memory and pids: no v2 cgroup with those controllers can be made here. A fake ``memory.peak`` cannot
reset a peak per descriptor as the kernel's does, so the tests check that ``prepare`` wrote the reset, then write the
figure the kernel would give through that descriptor, and check that ``usage`` reads it back.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

import pytest

from podium.core.execution.sandbox.cgroups import (
    CPU_PERIOD_US,
    Cgroup,
    _inside,
    _mounts,
    _own_paths,
    _v1_cpu_bases,
    _V1Factory,
    _V2Factory,
    detect,
)

MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""


def test_mountinfo_and_proc_cgroup_are_parsed() -> None:
    mounts = _mounts(MOUNTINFO)
    assert [(m.fstype, str(m.point)) for m in mounts] == [
        ("cgroup", "/sys/fs/cgroup/memory"),
        ("cgroup", "/sys/fs/cgroup/pids"),
        ("cgroup2", "/sys/fs/cgroup/unified"),
    ]
    own = _own_paths("8:pids:/\n4:memory:/box/abc\n0::/\n")
    assert own == {"pids": "/", "memory": "/box/abc", "": "/"}
    assert _inside(mounts[0], own["memory"]) == Path("/sys/fs/cgroup/memory/box/abc")
    assert _inside(mounts[1], own["pids"]) == Path("/sys/fs/cgroup/pids")


def test_no_controllers_means_no_cgroups() -> None:
    support = detect(mountinfo="31 23 0:28 / /sys rw - sysfs sysfs rw\n", proc_cgroup="0::/\n")
    assert support.factory is None and support.description.startswith("none:")


def test_v2_cgroups_are_driven_through_their_files(tmp_path: Path) -> None:
    # a plain folder stands in for cgroupfs: the logic writes and reads the same file names
    factory = _V2Factory(tmp_path / "podium-sandbox-1")
    (tmp_path / "podium-sandbox-1").mkdir()
    cgroup = factory.create("slot-0")
    folder = tmp_path / "podium-sandbox-1" / "slot-0"
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    for name in ("memory.max", "memory.swap.max", "pids.max", "cgroup.procs"):
        (folder / name).write_text("")
    cgroup.prepare(256, 17)
    assert (folder / "memory.max").read_text() == str(256 << 20)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == "17"
    (folder / "memory.events").write_text("max 10\noom 2\noom_kill 3\n")
    usage = cgroup.usage()
    assert usage.oom_kills == 2
    assert usage.reached_limit
    cgroup.attach(12345)
    assert (folder / "cgroup.procs").read_text() == "12345"


def test_a_v2_slot_cgroup_sets_limits_and_reads_its_counters(tmp_path: Path) -> None:
    """The v2 cgroup's file handling, against plain files laid out as cgroupfs would (this host runs v1)."""
    slot = tmp_path / "slot-0"
    slot.mkdir()
    (slot / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
    (slot / "cgroup.procs").write_text("12\n34\n")
    for name in ("memory.max", "memory.swap.max", "pids.max", "cgroup.kill"):
        (slot / name).write_text("")
    cgroup = _V2Factory(tmp_path).create("slot-0")
    cgroup.prepare(64, 10)
    assert (slot / "memory.max").read_text() == str(64 << 20) and (slot / "pids.max").read_text() == "10"
    assert (slot / "memory.swap.max").read_text() == "0"
    (slot / "memory.events").write_text("low 0\nhigh 0\nmax 2\noom 1\noom_kill 1\n")
    usage = cgroup.usage()
    assert (usage.oom_kills, usage.reached_limit, usage.peak_bytes) == (1, True, None)
    assert cgroup.holds(34) and not cgroup.holds(3)
    cgroup.kill_all()
    assert (slot / "cgroup.kill").read_text() == "1"


def _v2_slot(tmp_path: Path) -> tuple[Cgroup, Path]:
    """A v2 slot cgroup over fake files, with an empty ``memory.peak`` and ``cgroup.kill``."""
    slot = tmp_path / "slot-0"
    slot.mkdir()
    (slot / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
    for name in ("memory.max", "memory.swap.max", "pids.max", "memory.peak", "cgroup.procs", "cgroup.kill"):
        (slot / name).write_text("")
    return _V2Factory(tmp_path).create("slot-0"), slot


def _open_descriptors(path: Path) -> int:
    """How many of this process's descriptors are open on ``path`` (or on a file since deleted from there)."""
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # the descriptor iterdir itself used is gone by now
            count += os.readlink(fd).startswith(str(path))
    return count


def test_a_v2_run_reads_the_peak_since_its_own_reset(tmp_path: Path) -> None:
    cgroup, slot = _v2_slot(tmp_path)
    peak = slot / "memory.peak"
    cgroup.prepare(64, 10)
    assert peak.read_text() == "reset\n"  # the write that resets the kernel's peak for this descriptor
    peak.write_text(f"{5 << 20}\n")  # what the kernel would then give through it
    assert cgroup.usage().peak_bytes == 5 << 20
    # the next run: a fresh file stands in for the kernel's fresh figure, and a descriptor kept from the first run
    # would still read 5 MiB from the old one
    peak.unlink()
    peak.write_text("")
    cgroup.prepare(64, 10)
    assert peak.read_text() == "reset\n"
    peak.write_text(f"{7 << 20}\n")
    usage = cgroup.usage()
    assert (usage.peak_bytes, usage.reached_limit) == (7 << 20, False)
    assert _open_descriptors(peak) == 1  # the first run's descriptor was closed
    cgroup.remove()
    assert _open_descriptors(peak) == 0


@pytest.mark.parametrize(("peak_bytes", "reached"), [((64 << 20) - 1, False), (64 << 20, True)])
def test_a_v2_peak_at_the_limit_counts_as_reached(tmp_path: Path, peak_bytes: int, reached: bool) -> None:
    cgroup, slot = _v2_slot(tmp_path)
    cgroup.prepare(64, 10)
    (slot / "memory.peak").write_text(f"{peak_bytes}\n")  # memory.events's max counter stays at 0
    usage = cgroup.usage()
    assert (usage.peak_bytes, usage.reached_limit) == (peak_bytes, reached)


@pytest.mark.parametrize("refusal", ["missing", "directory", "write refused"])
def test_a_v2_kernel_that_refuses_the_reset_gives_no_peak(tmp_path: Path, refusal: str) -> None:
    cgroup, slot = _v2_slot(tmp_path)
    peak = slot / "memory.peak"
    cgroup.prepare(64, 10)
    peak.write_text(f"{5 << 20}\n")
    assert cgroup.usage().peak_bytes == 5 << 20
    # the next run cannot reset memory.peak (a kernel without the file, one whose open fails, or one before 6.12 that
    # refuses the write, as /dev/full does with ENOSPC): no figure rather than the last run's
    peak.unlink()
    if refusal == "directory":
        peak.mkdir()
    elif refusal == "write refused":
        peak.symlink_to("/dev/full")
    cgroup.prepare(64, 10)
    usage = cgroup.usage()
    assert (usage.peak_bytes, usage.reached_limit) == (None, False)
    assert _open_descriptors(peak) == 0 and _open_descriptors(Path("/dev/full")) == 0


def test_v2_kill_all_kills_the_group_or_else_each_listed_process(tmp_path: Path) -> None:
    cgroup, slot = _v2_slot(tmp_path)
    child = subprocess.Popen(["sleep", "60"])
    try:
        (slot / "cgroup.procs").write_text(f"{child.pid}\n")
        cgroup.kill_all()
        assert (slot / "cgroup.kill").read_text() == "1"  # the kernel kills the group: nothing else to do
        assert child.poll() is None
        (slot / "cgroup.kill").unlink()  # a kernel before 5.14
        cgroup.kill_all()
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_a_v1_slot_counts_cpu_in_cpuacct_and_caps_it_at_one_cpu(tmp_path: Path) -> None:
    roots = {name: tmp_path / name / "podium-sandbox-1" for name in ("memory", "pids", "cpu", "cpuacct")}
    factory = _V1Factory(roots["memory"], roots["pids"], (roots["cpu"], roots["cpuacct"]))
    for name in roots:
        slot = roots[name] / "slot-0"
        slot.mkdir(parents=True)
        (slot / "cgroup.procs").write_text("")
    memory, cpu, cpuacct = (roots[name] / "slot-0" for name in ("memory", "cpu", "cpuacct"))
    for name in ("memory.limit_in_bytes", "memory.max_usage_in_bytes"):
        (memory / name).write_text("0")
    (memory / "memory.oom_control").write_text("oom_kill 0\n")
    (memory / "memory.failcnt").write_text("0")
    (roots["pids"] / "slot-0" / "pids.max").write_text("")
    (cpu / "cpu.cfs_quota_us").write_text("-1")
    (cpu / "cpu.cfs_period_us").write_text("100000")
    (cpuacct / "cpuacct.usage").write_text("2500000000\n")
    cgroup = factory.create("slot-0")
    cgroup.prepare(64, 10)
    assert (cpu / "cpu.cfs_quota_us").read_text() == str(CPU_PERIOD_US)  # one CPU's worth per period
    assert (cpu / "cpu.cfs_period_us").read_text() == str(CPU_PERIOD_US)
    assert cgroup.cpu_s() == 2.5
    assert cgroup.folders() == (roots["memory"] / "slot-0", roots["pids"] / "slot-0", cpu, cpuacct)
    cgroup.attach(77)
    assert all((folder / "cgroup.procs").read_text() == "77" for folder in cgroup.folders())


def test_a_v1_slot_without_cpu_controllers_counts_no_cpu(tmp_path: Path) -> None:
    cgroup = _V1Factory(tmp_path / "memory", tmp_path / "pids").create("slot-0")
    assert cgroup.cpu_s() is None and len(cgroup.folders()) == 2


def test_a_v2_slot_reads_cpu_from_cpu_stat_and_sets_cpu_max(tmp_path: Path) -> None:
    cgroup, slot = _v2_slot(tmp_path)
    assert cgroup.cpu_s() is None  # no cpu.stat: nothing counts
    (slot / "cpu.stat").write_text("usage_usec 1250000\nuser_usec 1000000\nsystem_usec 250000\n")
    (slot / "cpu.max").write_text("max 100000")
    cgroup.prepare(64, 10)
    assert cgroup.cpu_s() == 1.25
    assert (slot / "cpu.max").read_text() == f"{CPU_PERIOD_US} {CPU_PERIOD_US}"


def test_v1_cpu_controllers_are_found_mounted_apart_or_together() -> None:
    apart = (
        "30 25 0:26 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
        "31 25 0:27 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
    )
    together = "30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
    own = _own_paths("2:cpuacct:/\n1:cpu:/\n")

    def bases(mountinfo: str) -> list[Path]:
        v1 = {c: m for m in _mounts(mountinfo) for c in ("cpu", "cpuacct") if c in m.options}
        return _v1_cpu_bases(v1, own)

    assert bases(apart) == [Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup/cpuacct")]
    assert bases(together) == [Path("/sys/fs/cgroup/cpu,cpuacct")]
