"""Cgroup discovery from mountinfo and /proc/self/cgroup, and the v2 cgroup driven through its files."""

from __future__ import annotations

from pathlib import Path

from podium.core.execution.sandbox.cgroups import _inside, _mounts, _own_paths, _V2Factory, detect

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
