"""The supervisor's pure logic: the capped readers' buffers, the box folder's files and the rlimit arguments."""

from __future__ import annotations

import os

import pytest

from podium.core.errors import ConfigError
from podium.core.execution.sandbox.supervise import RlimitValues, _Stderr, _Stdout, box_directory, rlimit_args
from podium.core.execution.sandbox.verdict import Stop


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


def test_a_judge_without_a_uid_of_its_own_leaves_nproc_alone() -> None:
    # a raised NPROC is refused above the user's hard limit, and prlimit then fails before the program starts
    assert not any(arg.startswith("--nproc") for arg in rlimit_args("prlimit", RlimitValues.of(1.5, 64, 1, None)))
    assert "--nproc=18" in rlimit_args("prlimit", RlimitValues.of(1.5, 64, 1, 18))
