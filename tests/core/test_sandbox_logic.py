"""Pure logic of the sandbox: the verdict from evidence, the capped reader's buffers, cgroup discovery and files."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from podium.core.errors import ConfigError
from podium.core.execution.sandbox import Limits, RunRequest, RunStatus
from podium.core.execution.sandbox.cgroups import _inside, _mounts, _own_paths, _V2Factory, detect
from podium.core.execution.sandbox.supervise import RlimitValues, _Stderr, _Stdout, box_directory, rlimit_args
from podium.core.execution.sandbox.verdict import Evidence, Stop, decide, split_status

LIMITS = Limits()


def evidence(stop: Stop = Stop.EXITED, code: int | None = 0, sig: int | None = None, **kw: object) -> Evidence:
    values: dict[str, object] = {"cpu_time_s": 0.1, "oom_kills": 0} | kw
    values.setdefault("memory_limit_reached", False)
    return Evidence(stop, code, sig, **values)  # type: ignore[arg-type]


def bwrap(code: int, **kw: object) -> Evidence:
    """An end as bubblewrap reports it: status 128 + N for a death by signal N, and for exit(128 + N) alike."""
    return evidence(code=code, shell_status=True, **kw)


@pytest.mark.parametrize(
    ("case", "status"),
    [
        (evidence(), RunStatus.OK),
        (evidence(Stop.LINES, None, 9, oom_kills=1), RunStatus.OK),
        (evidence(Stop.OUTPUT, None, 9), RunStatus.OUTPUT_LIMIT),
        (evidence(Stop.WALL, None, 9, cpu_time_s=0.2), RunStatus.TIME_LIMIT),
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=2.0), RunStatus.TIME_LIMIT),
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=1.85), RunStatus.TIME_LIMIT),  # rusage reads a bit short
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=1.75), RunStatus.RUNTIME_ERROR),
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=0.02), RunStatus.RUNTIME_ERROR),  # sent to itself
        (evidence(code=None, sig=signal.SIGKILL, cpu_time_s=3.0), RunStatus.TIME_LIMIT),  # RLIMIT_CPU's hard limit
        (evidence(code=None, sig=signal.SIGKILL, cpu_time_s=0.5), RunStatus.RUNTIME_ERROR),
        (evidence(code=None, sig=signal.SIGKILL, oom_kills=1), RunStatus.MEMORY_LIMIT),
        (evidence(code=0, oom_kills=1), RunStatus.OK),  # a child was OOM-killed, the program coped
        (evidence(code=None, sig=signal.SIGXCPU, cpu_time_s=2.0, memory_limit_reached=True), RunStatus.MEMORY_LIMIT),
        (evidence(Stop.WALL, None, 9, memory_limit_reached=True), RunStatus.MEMORY_LIMIT),
        (evidence(code=1, memory_limit_reached=True), RunStatus.RUNTIME_ERROR),  # reclaimed at the limit, then crashed
        (evidence(code=1, peak_memory_mib=300.0), RunStatus.MEMORY_LIMIT),  # no cgroup: the kernel's high-water mark
        (evidence(code=1, peak_memory_mib=12.0), RunStatus.RUNTIME_ERROR),  # MemoryError on one huge request
        (evidence(code=None, sig=signal.SIGXFSZ), RunStatus.RUNTIME_ERROR),  # no counter of /tmp's files
        (evidence(code=0, cpu_time_s=2.01), RunStatus.TIME_LIMIT),
        (evidence(code=3), RunStatus.RUNTIME_ERROR),
        (evidence(code=None, sig=signal.SIGSEGV), RunStatus.RUNTIME_ERROR),
        # bubblewrap's statuses: a limit's signal number counts only with the limit's evidence
        (bwrap(128 + signal.SIGXCPU, cpu_time_s=2.0), RunStatus.TIME_LIMIT),
        (bwrap(128 + signal.SIGXCPU, cpu_time_s=0.016), RunStatus.RUNTIME_ERROR),  # os._exit(152)
        (bwrap(128 + signal.SIGKILL, cpu_time_s=0.016), RunStatus.RUNTIME_ERROR),  # os._exit(137)
        (bwrap(128 + signal.SIGKILL, cpu_time_s=0.2, oom_kills=1), RunStatus.MEMORY_LIMIT),
        (bwrap(128 + signal.SIGXFSZ), RunStatus.RUNTIME_ERROR),  # os._exit(153)
        (evidence(code=128 + signal.SIGXCPU, cpu_time_s=2.0), RunStatus.RUNTIME_ERROR),  # an exact exit code 152
    ],
)
def test_decide(case: Evidence, status: RunStatus) -> None:
    decided, detail = decide(case, LIMITS)
    assert decided is status and detail and "\n" not in detail


def test_a_status_that_may_be_a_signal_is_named_as_a_status() -> None:
    assert decide(bwrap(152), LIMITS)[1] == "exited with status 152 (a death by SIGXCPU gives the same status)"
    assert decide(bwrap(3), LIMITS)[1] == "exited with code 3"
    assert decide(evidence(code=None, sig=signal.SIGSEGV), LIMITS)[1] == "killed by signal SIGSEGV"


def test_split_status_takes_only_negative_codes_for_signals() -> None:
    assert split_status(0) == (0, None)
    assert split_status(1) == (1, None)
    assert split_status(128 + 9) == (128 + 9, None)
    assert split_status(-24) == (None, 24)
    assert split_status(255) == (255, None)


def test_stdout_stops_at_the_nth_line_inside_one_chunk() -> None:
    out = _Stdout(limit=100, lines=3)
    assert out.feed(b"1\n2") is None
    assert out.feed(b"\n3\n4\n5\n") is Stop.LINES
    assert bytes(out.data) == b"1\n2\n3\n"


def test_stdout_lines_past_the_limit_are_an_output_limit() -> None:
    out = _Stdout(limit=5, lines=2)
    assert out.feed(b"1234\n56789\n") is Stop.OUTPUT
    assert bytes(out.data) == b"1234\n"


def test_stdout_without_a_line_count_stops_one_byte_past_the_limit() -> None:
    out = _Stdout(limit=4, lines=None)
    assert out.feed(b"1234") is None
    assert out.feed(b"5" * 1000) is Stop.OUTPUT
    assert bytes(out.data) == b"1234"


def test_stderr_keeps_its_head_and_its_tail() -> None:
    err = _Stderr(limit=10)
    for _ in range(1000):
        err.feed(b"x" * 100)
    err.feed(b"\nMemoryError\n")
    assert bytes(err.head) == b"x" * 10 and bytes(err.tail).endswith(b"MemoryError\n")
    assert len(err.tail) == 4096


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


@pytest.mark.parametrize(("group", "folder_mode", "file_mode"), [(None, 0o500, 0o400), (54321, 0o750, 0o440)])
def test_box_directory_holds_only_the_files_for_the_run_alone(
    group: int | None, folder_mode: int, file_mode: int
) -> None:
    if group is not None and os.geteuid() != 0:
        pytest.skip("only root gives the box to a slot's group")
    with box_directory({"solver.py": b"print(1)", "data/terms.txt": b"1\n2\n"}, group=group) as box:
        assert sorted(p.relative_to(box).as_posix() for p in box.rglob("*")) == [
            "data",
            "data/terms.txt",
            "solver.py",
        ]
        for path in (box, box / "data"):
            assert path.stat().st_mode & 0o777 == folder_mode
        for path in (box / "solver.py", box / "data" / "terms.txt"):
            assert path.stat().st_mode & 0o777 == file_mode
        if group is not None:
            assert {(p.stat().st_uid, p.stat().st_gid) for p in (box, *box.rglob("*"))} == {(0, group)}
    assert not box.exists()


@pytest.mark.parametrize("name", ["../escape.py", "/etc/passwd", "", "a/../../b"])
def test_box_directory_refuses_names_that_leave_it(name: str) -> None:
    with pytest.raises(ConfigError), box_directory({name: b""}):
        pass


def test_limits_and_requests_are_validated() -> None:
    with pytest.raises(ConfigError):
        Limits(memory_mib=0)
    with pytest.raises(ConfigError):
        RunRequest((), {})
    with pytest.raises(ConfigError):
        RunRequest(("python3",), {}, stop_after_lines=0)
    assert RunRequest(("python3",), {}, env={"PATH": "/bin", "X": "1"}).environment() == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "X": "1",
    }


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


def test_a_judge_without_a_uid_of_its_own_leaves_nproc_alone() -> None:
    # a raised NPROC is refused above the user's hard limit, and prlimit then fails before the program starts
    assert not any(arg.startswith("--nproc") for arg in rlimit_args("prlimit", RlimitValues.of(1.5, 64, 1, None)))
    assert "--nproc=18" in rlimit_args("prlimit", RlimitValues.of(1.5, 64, 1, 18))
