"""A writable box: the program changes its own working folder, under a quota, and the judge reads back what it wrote.

Run for real on both backends. The attacks: growing the box past its quota (in bytes and in empty files), leaving
a link to a host file for the judge to read back, writing through a readable folder, and finding anything of one
run's box in the next.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from podium.core.errors import ConfigError
from podium.core.execution.sandbox import Limits, RunRequest, RunStatus, open_sandbox
from podium.core.execution.sandbox.records import Sandbox

PYTHON = ("python3", "-s", "-S", "-P", "-B")
QUICK = Limits(cpu_time_s=2.0, wall_time_s=5.0, box_mib=2)


@pytest.fixture(params=["bubblewrap", "rlimits"])
def backend(request: pytest.FixtureRequest, sandbox: Sandbox) -> Sandbox:
    """The isolated sandbox (the ``sandbox`` fixture, which skips where bubblewrap is missing) and the weaker one."""
    return sandbox if request.param == "bubblewrap" else open_sandbox("rlimits", allow_weaker=True)


def test_the_program_changes_and_adds_files_and_the_judge_gets_them_all(backend: Sandbox) -> None:
    source = b"""
import os, pathlib
pathlib.Path('results').mkdir()
pathlib.Path('results/config.json').write_text('{"seed": 1}')
with open('state.txt', 'a') as f:
    f.write('second\\n')
os.remove('old.txt')
print(sorted(os.listdir('.')))
"""
    result = backend.run(
        RunRequest(
            (*PYTHON, "main.py"),
            {"main.py": source, "state.txt": b"first\n", "old.txt": b"x"},
            limits=QUICK,
            writable=True,
        )
    )
    assert result.status is RunStatus.OK, result
    assert result.stdout == b"['main.py', 'results', 'state.txt']\n"
    assert result.box == {"main.py": source, "state.txt": b"first\nsecond\n", "results/config.json": b'{"seed": 1}'}


def test_a_read_only_box_stays_read_only_and_returns_nothing(backend: Sandbox) -> None:
    source = b"open('new.txt', 'w').write('x')"
    result = backend.run(RunRequest((*PYTHON, "main.py"), {"main.py": source}, limits=QUICK))
    assert result.status is RunStatus.RUNTIME_ERROR, result
    assert b"PermissionError" in result.stderr_tail or b"Read-only file system" in result.stderr_tail
    assert result.box is None


def test_the_program_starts_in_its_workdir_with_paths_relative_to_it(backend: Sandbox) -> None:
    files = {"tot/tot.py": b"import os\nprint(os.listdir('.'))\nopen('out.txt', 'w').write('here')", "x.txt": b""}
    result = backend.run(RunRequest((*PYTHON, "tot/tot.py"), files, limits=QUICK, writable=True, workdir=""))
    assert result.status is RunStatus.OK, result
    assert sorted(eval(result.stdout)) == ["tot", "x.txt"]
    assert result.box is not None and result.box["out.txt"] == b"here"
    inner = backend.run(RunRequest((*PYTHON, "tot.py"), files, limits=QUICK, writable=True, workdir="tot"))
    assert inner.status is RunStatus.OK and eval(inner.stdout) == ["tot.py"], inner
    assert inner.box is not None and inner.box["tot/out.txt"] == b"here"


@pytest.mark.parametrize(
    "flood",
    [
        "open('big', 'wb').write(b'x' * (1 << 20))\nopen('big2', 'wb').write(b'x' * (1 << 20))\n",
        "for i in range(5000): open(f'e{i}', 'w').close()\n",  # empty files cost a block each
    ],
    ids=["bytes", "files"],
)
def test_growing_the_box_past_its_quota_is_an_output_limit_and_nothing_comes_back(backend: Sandbox, flood: str) -> None:
    source = f"{flood}import time\ntime.sleep(10)\n".encode()
    result = backend.run(RunRequest((*PYTHON, "main.py"), {"main.py": source}, limits=QUICK, writable=True))
    assert result.status is RunStatus.OUTPUT_LIMIT, result
    assert "MiB written in its working folder" in result.detail
    assert result.box is None
    assert result.wall_time_s < 3


def test_a_box_over_quota_at_the_very_end_still_returns_nothing(backend: Sandbox) -> None:
    source = b"open('big', 'wb').write(b'x' * (3 << 20))"  # ends before any poll can see it
    limits = Limits(cpu_time_s=2.0, wall_time_s=5.0, box_mib=2, file_size_mib=8)
    result = backend.run(RunRequest((*PYTHON, "main.py"), {"main.py": source}, limits=limits, writable=True))
    assert result.box is None, result


@pytest.fixture
def secret() -> Iterator[Path]:
    path = Path("/root") / f"podium-secret-{uuid.uuid4().hex}"
    path.write_text("the judge's secret")
    path.chmod(0o600)
    yield path
    path.unlink()


def test_a_link_left_in_the_box_is_never_followed_when_the_judge_reads_it_back(backend: Sandbox, secret: Path) -> None:
    source = f"""
import os
os.symlink({str(secret)!r}, 'stolen')
os.mkdir('folder')
os.symlink('/root', 'folder/home')
os.symlink('/etc/passwd', 'passwd')
""".encode()
    result = backend.run(RunRequest((*PYTHON, "main.py"), {"main.py": source}, limits=QUICK, writable=True))
    assert result.status is RunStatus.OK, result
    assert result.box == {"main.py": source}
    assert secret.read_text() == "the judge's secret"


def test_nothing_of_one_runs_box_is_in_the_next(backend: Sandbox) -> None:
    writer = b"import os\nopen('left.txt', 'w').write('data')\nopen('/tmp/left.txt', 'w').write('data')"
    assert backend.run(RunRequest((*PYTHON, "main.py"), {"main.py": writer}, limits=QUICK, writable=True)).box
    reader = b"import os\nprint(sorted(os.listdir('.')), os.path.exists('/tmp/left.txt'))"
    result = backend.run(RunRequest((*PYTHON, "main.py"), {"main.py": reader}, limits=QUICK, writable=True))
    # the weaker backend shares the host's /tmp (it isolates nothing); its boxes are still fresh per run
    assert result.stdout == (b"['main.py'] False\n" if backend.isolated else b"['main.py'] True\n"), result


def test_a_readable_folder_is_seen_at_its_own_path_and_cannot_be_written(
    sandbox: Sandbox, world_readable: Path
) -> None:
    shared = world_readable / "requirements"
    (shared / "dotenv").mkdir(parents=True)
    (shared / "dotenv" / "__init__.py").write_text("VALUE = 42\n")
    (shared / "dotenv").chmod(0o777)  # only the read-only bind can stop the write
    source = f"""
import errno, sys
sys.path.append({str(shared)!r})
import dotenv
print(dotenv.VALUE)
try:
    open({str(shared / "dotenv" / "evil.py")!r}, 'w')
except OSError as error:
    print(errno.errorcode[error.errno])
""".encode()
    result = sandbox.run(
        RunRequest((*PYTHON, "main.py"), {"main.py": source}, limits=QUICK, writable=True, readable=(shared,))
    )
    assert result.status is RunStatus.OK, result
    assert result.stdout == b"42\nEROFS\n", result
    assert not (shared / "dotenv" / "evil.py").exists()


def test_a_readable_folder_the_slot_cannot_reach_is_an_internal_error_saying_so(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    result = sandbox.run(RunRequest((*PYTHON, "-c", "pass"), {}, limits=QUICK, readable=(tmp_path,)))
    assert result.status is RunStatus.INTERNAL_ERROR, result
    assert f"readable folder {tmp_path} is not readable by every user" in result.detail


@pytest.mark.parametrize("workdir", ["/abs", "../up", "a/../../b"])
def test_a_workdir_outside_the_box_is_refused(workdir: str) -> None:
    with pytest.raises(ConfigError, match="workdir"):
        RunRequest(PYTHON, {}, workdir=workdir)


@pytest.mark.parametrize("folder", ["relative", "/box/x", "/proc", "/dev/shm", "/"])
def test_a_readable_folder_over_the_sandboxes_own_mounts_is_refused(folder: str) -> None:
    with pytest.raises(ConfigError, match="readable folder"):
        RunRequest(PYTHON, {}, readable=(Path(folder),))
