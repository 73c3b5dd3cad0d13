"""Clean-room verification catches a pair of solvers that talk through the page cache by timing plain reads.

The writer prints the Fibonacci numbers and, on the way, reads the first byte of the standard-library files whose
bit of a 24-bit word is 1; the reader, judged later in another run, times a one-byte read of each file (cached:
a few microseconds; from the disk: tens) and prints the Fibonacci numbers only if the word came through. No system
call a filter could refuse is used. Judged live, both are Reward Correct (the positive control: where this kernel
and disk cannot show the channel, the test is skipped). Verification judges each again alone after evicting the
files its box can read: the reader prints other terms, and its row is withdrawn at reveal by an amendment; the
writer, an honest program, stays. An honest season's verification changes nothing. On both isolated backends, on
SQLite and a real PostgreSQL.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from podium.core.execution.sandbox import BASE_ENV, Sandbox
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.replay import replay_season
from podium.tracks.dojo.verification import Finding
from podium.tracks.dojo.worker import work
from tests.conftest import open_backend_or_skip
from tests.integration.tracks.dojo.test_published_boards import TUPLE_SHIFT, cli, csv_rows
from tests.tracks.dojo.test_platform import GOLF, STAGE_ONLY
from tests.tracks.dojo.test_users import open_season, url  # noqa: F401  the SQLite / PostgreSQL fixture

WORD = 0xA5C3E1
BITS = 24
# folders of the standard library nobody's program imports: no other process brings their files into the cache
QUIET_FOLDERS = ("lib2to3/fixes", "idlelib", "tkinter", "turtledemo", "ensurepip", "pydoc_data", "dbm")

# the static policy refuses os.open and its kin by name; a determined pair names them otherwise (the sandbox, not
# the policy, is the defence)
PICK = """import os,time
g=getattr;O=g(os,'o'+'pen');R=g(os,'p'+'read')
D=os.__file__[:-5]+'{folder}/'
F=sorted(f for f in g(os,'list'+'dir')(D) if f.endswith('.py'))[:{bits}]
"""
WRITER = (
    PICK
    + """for i,f in enumerate(F):
 if {word}>>i&1:R(O(D+f,0),1,0)
a,b=0,1
for _ in range(200):print(a);a,b=b,a+b
"""
)
READER = (
    PICK
    + """W=0
for i,f in enumerate(F):
 d=O(D+f,0);t=time.perf_counter_ns();R(d,1,0);W|=(time.perf_counter_ns()-t<20000)<<i
a,b=W-{word},1
for _ in range(200):print(a);a,b=b,a+b
"""
)


@functools.cache
def box_stdlib() -> Path:
    """The standard library of the interpreter a run gets (the host's ``python3``, not this test's)."""
    python = shutil.which("python3", path=BASE_ENV["PATH"])
    assert python is not None
    query = "import sysconfig; print(sysconfig.get_path('stdlib'))"
    return Path(subprocess.run([python, "-S", "-c", query], capture_output=True, text=True, check=True).stdout.strip())


def quiet_folder() -> str:
    """A folder of the standard library with at least ``BITS`` files, one per bit of the word."""
    stdlib = box_stdlib()
    for folder in QUIET_FOLDERS:
        if (stdlib / folder).is_dir() and len(list((stdlib / folder).glob("*.py"))) >= BITS:
            return folder
    pytest.skip("this Python's standard library has no quiet folder of 24 files for the channel")


def evict(folder: str) -> None:
    for path in (box_stdlib() / folder).glob("*.py"):
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


@pytest.fixture(params=("forkserver", "bubblewrap"))
def backend(request: pytest.FixtureRequest) -> Sandbox:
    return open_backend_or_skip(request.param)


@pytest.fixture
def frozen_pair(url: str, backend: Sandbox) -> Iterator[tuple[Dojo, dict[str, int]]]:  # noqa: F811
    dojo, clock = open_season(url, backend)
    folder = quiet_folder()
    ids = {}
    evict(folder)  # every bit starts at 0, as it would on a host nobody disturbed
    for name, source in (
        ("wri", WRITER.format(folder=folder, bits=BITS, word=WORD)),
        ("rea", READER.format(folder=folder, bits=BITS, word=WORD)),
        ("ann", GOLF.decode()),
    ):
        user, _ = dojo.add_user(name, Role.SOLVER)
        clock.set(clock.now() + timedelta(minutes=1))
        ids[name] = dojo.submit(user, "fib", source.encode()).submission_id
        assert work(dojo, backend) == 1  # one at a time: the writer's run ends before the reader's starts
    judged = {name: dojo.submission(number) for name, number in ids.items()}
    assert judged["wri"].reward_correct, judged["wri"].reason
    if not judged["rea"].reward_correct:
        pytest.skip(f"the page cache's timing channel does not show on this host: {judged['rea'].reason}")
    dojo.freeze("fib")
    yield dojo, ids


def test_a_pair_talking_through_the_page_cache_is_caught_and_withdrawn_at_reveal(
    frozen_pair: tuple[Dojo, dict[str, int]],
    url: str,  # noqa: F811
) -> None:
    dojo, ids = frozen_pair
    live = csv_rows(cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output)
    assert {row[1] for row in live} == {"wri", "rea", "ann"}  # live, the reader is on the board

    answer = cli("verify", "fib", "--db", url)
    assert answer.exit_code == 0, answer.output
    assert f"submission {ids['rea']} (rea): UNVERIFIED: printed other terms" in answer.output
    assert f"withdrawn at reveal: submission(s) [{ids['rea']}]" in answer.output
    [verification] = dojo.verifications(dojo.problem("fib"))
    findings = {c.user: c.finding for c in verification.checks}
    assert findings == {"wri": Finding.VERIFIED, "rea": Finding.UNVERIFIED, "ann": Finding.VERIFIED}
    assert all(c.evicted_files > 100 and c.cost_s > 0 for c in verification.checks)  # the cost, per run

    dojo.reveal("fib")  # verified since the freeze: not again
    assert len(dojo.verifications(dojo.problem("fib"))) == 1
    versions = dojo.board_versions(dojo.problem("fib"))
    assert [len(v.records) for v in versions] == [3, 2]
    assert versions[1].removed == ({"user": "rea", "submission": ids["rea"]},)
    assert "unverified by clean-room verification" in versions[1].reason
    board = csv_rows(cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output)
    assert [row[1] for row in board] == [row[1] for row in live if row[1] != "rea"]
    assert [row[2] for row in board] == [row[2] for row in live if row[1] != "rea"]  # no other score moved
    assert replay_season(dojo, "s1").ok
    assert cli("verify-audit", "--db", url).exit_code == 0


def test_an_honest_season_is_verified_at_reveal_and_nothing_changes(url: str, backend: Sandbox) -> None:  # noqa: F811
    dojo, clock = open_season(url, backend)
    for name, source in (("ann", GOLF), ("cat", TUPLE_SHIFT), ("dan", STAGE_ONLY)):
        user, _ = dojo.add_user(name, Role.SOLVER)
        clock.set(clock.now() + timedelta(minutes=1))
        dojo.submit(user, "fib", source)
    assert work(dojo, backend) == 3
    dojo.freeze("fib")
    computed = cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output
    dojo.reveal("fib")  # not verified since the freeze: reveal verifies first
    [verification] = dojo.verifications(dojo.problem("fib"))
    assert [(c.user, c.finding) for c in verification.checks] == [("ann", Finding.VERIFIED), ("cat", Finding.VERIFIED)]
    assert len(dojo.board_versions(dojo.problem("fib"))) == 1
    assert cli("leaderboard", "--problem", "fib", "--format", "csv", "--db", url).output == computed

    answer = cli("verify", "fib", "--db", url)  # again, after reveal: still nothing to amend
    assert answer.exit_code == 0 and "version" not in answer.output and "withdrawn" not in answer.output
    assert len(dojo.board_versions(dojo.problem("fib"))) == 1
