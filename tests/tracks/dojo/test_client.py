"""``podium dojo submit --server URL``: a contestant submits through a real ``podium serve``, as from their machine.

The submission must land as the database path would store it, the server's refusals must come back as one line
with the error tree's exit code, and the command must not import SQLAlchemy (that is what makes it start fast).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from podium.cli.main import main
from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import load_problem
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import open_store
from tests.needs import need_module

from .serving import podium_serve

CORPUS = Path(__file__).parent / "corpus"
SOLVER = "a,b=0,1\nfor _ in range(200):print(a);a,b=b,a+b\n"


@dataclass
class Server:
    url: str
    dojo: Dojo
    ann: str  # a solver's token
    sam: str  # the setter's token


@pytest.fixture(scope="module")
def server(bubblewrap: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    need_module("fastapi", "web")
    folder = tmp_path_factory.mktemp("dojo-client")
    url = sqlite_url(folder / "dojo.sqlite3")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    sam = dojo.add_user("sam", Role.SETTER)[1]
    ann = dojo.add_user("ann", Role.SOLVER)[1]
    dojo.create_season("s1")
    dojo.add_problem("s1", "fib", "sam", load_problem(CORPUS / "problem"))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    with podium_serve(url, folder) as base:
        yield Server(base, dojo, ann, sam)


def submit(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(["dojo", "submit", *args])
    out = capsys.readouterr()
    return int(stop.value.code or 0), out.out, out.err


def test_a_submission_through_the_server_lands_like_one_into_the_database(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solver = tmp_path / "solver.py"
    solver.write_text(SOLVER)
    claims = tmp_path / "solution.json"
    claims.write_text(json.dumps({"method_tag": "iterative"}))
    code, out, err = submit(
        [str(solver), "--problem", "fib", "--token", server.ann, "--solution", str(claims), "--server", server.url],
        capsys,
    )
    assert code == 0, err
    receipt = json.loads(out)
    assert receipt["length"] == len(SOLVER) and receipt["practice"] is False
    # a name the scoring rules do not give counts as "other", and the submitter is told
    assert receipt["method_tag"] == "other" and "'iterative' is none of closed_form" in receipt["warnings"][0]
    stored = server.dojo.submission(receipt["id"])
    assert stored.source.decode() == SOLVER and stored.method_tag == "other"
    # the pages' address, /dojo, works as well as the server's
    code, out, _ = submit([str(solver), "--problem", "fib", "--token", server.ann, "--server", server.url + "/dojo/"],
                          capsys)  # fmt: skip
    assert code == 0 and json.loads(out)["id"] == receipt["id"] + 1


@pytest.mark.parametrize(
    ("who", "problem", "code", "says"),
    [
        ("nobody", "fib", 4, "HTTP 401"),
        ("sam", "fib", 5, "HTTP 403"),  # setters do not compete
        ("ann", "no-such-problem", 2, "HTTP 404"),
    ],
)
def test_the_servers_refusals_are_one_line_with_the_error_trees_code(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], who: str, problem: str, code: int, says: str
) -> None:
    solver = tmp_path / "solver.py"
    solver.write_text(SOLVER)
    token = {"nobody": "not-a-token", "sam": server.sam, "ann": server.ann}[who]
    exit_code, out, err = submit([str(solver), "--problem", problem, "--token", token, "--server", server.url], capsys)
    assert exit_code == code and out == ""
    assert err.startswith(f"error: the server refused the submission ({says}): "), err
    assert "Traceback" not in err


def test_an_unreachable_server_is_one_line_with_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    solver = tmp_path / "solver.py"
    solver.write_text(SOLVER)
    code, _, err = submit([str(solver), "--problem", "fib", "--token", "t", "--server", closed], capsys)
    assert code == 1
    assert err.splitlines()[0].startswith(f"error: cannot reach the dojo server at {closed} (4 attempt(s)): ")
    assert "podium serve" in err.splitlines()[1]


def test_submitting_through_a_server_imports_no_database_code(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from podium.cli.main import main\n"
        "try:\n"
        "    main(['dojo', 'submit', sys.argv[1], '--problem', 'fib', '--token', 't', '--server', sys.argv[2]])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('sqlalchemy' in sys.modules)\n"
    )
    solver = tmp_path / "solver.py"
    solver.write_text(SOLVER)
    done = subprocess.run([sys.executable, "-c", probe, str(solver), "http://127.0.0.1:9"], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.stdout.strip().splitlines()[-1] == "False", done.stdout + done.stderr


def test_a_solver_that_is_not_utf8_is_refused_here_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solver = tmp_path / "solver.py"
    solver.write_bytes(b"print('caf\xe9')\n")  # Latin-1, as an old editor saves it
    code, out, err = submit([str(solver), "--problem", "fib", "--token", "t", "--server", "http://127.0.0.1:9"], capsys)
    assert code == 2 and out == "" and "Traceback" not in err  # refused before any connection: no 422 dump
    assert "the solver is not UTF-8 (byte 10" in err and str(solver) in err and "save it as UTF-8" in err
