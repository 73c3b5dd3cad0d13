"""``podium dojo judge`` as a solver uses it, and the operator commands end to end on a database file."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

from podium.cli.main import main
from podium.core.execution.sandbox import Sandbox

CORPUS = Path(__file__).parent / "corpus"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    captured = capsys.readouterr()
    return int(stop.value.code or 0), captured.out, captured.err


def test_judge_prints_verdict_gates_length_and_score(bubblewrap: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    solver = str(CORPUS / "accepted" / "golf_endless.py")
    code, out, _ = run(["dojo", "judge", solver, "--problem", str(CORPUS / "problem")], capsys)
    assert code == 0
    assert "verdict: OK (accepted)" in out and "Stage Pass: yes   Reward Correct: yes" in out
    assert "L: 35 bytes   brevity bonus: 191   score: 1191" in out
    # --sandbox auto: the fork-server where podium runs as root, else bubblewrap
    assert f"sandbox: {'forkserver' if os.geteuid() == 0 else 'bubblewrap'} (isolated)" in out
    code, out, _ = run(["dojo", "judge", solver, "--problem", str(CORPUS / "problem"), "--json"], capsys)
    data = json.loads(out)
    assert (data["verdict"], data["score"], data["length"], data["isolated"]) == ("OK", 1191, 35, True)


@pytest.mark.parametrize(
    ("solver", "code", "first_line"),
    [
        ("stage_only/first_150.py", 10, "verdict: OK (stage_only)"),
        ("wrong_answer/squares.py", 11, "verdict: OK (wrong_answer)"),
        ("runtime_error/name_error.py", 13, "verdict: RUNTIME_ERROR (runtime_error)"),
        ("policy_reject/socket.py", 17, "verdict: POLICY_REJECT (policy_reject): imports 'socket'"),
    ],
)
def test_judge_exits_non_zero_unless_accepted(
    bubblewrap: Sandbox, capsys: pytest.CaptureFixture[str], solver: str, code: int, first_line: str
) -> None:
    judge = ["dojo", "judge", str(CORPUS / solver), "--problem", str(CORPUS / "problem")]
    for as_json in ([], ["--json"]):  # the same code for people and for machines
        got, out, _ = run([*judge, *as_json], capsys)
        assert got == code, out
    assert out and json.loads(out)["outcome"] == solver.split("/")[0]
    _, out, _ = run(judge, capsys)
    assert out.splitlines()[0].startswith(first_line)


def test_no_screen_says_so_and_lets_the_sandbox_answer(bubblewrap: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    solver = str(CORPUS / "policy_reject" / "socket.py")
    _, out, _ = run(["dojo", "judge", solver, "--problem", str(CORPUS / "problem")], capsys)
    assert "POLICY_REJECT" in out and "imports 'socket'" in out
    _, out, _ = run(["dojo", "judge", solver, "--problem", str(CORPUS / "problem"), "--no-screen"], capsys)
    assert "RUNTIME_ERROR" in out and "static policy: SKIPPED (--no-screen)" in out  # no network in the sandbox


def test_missing_setter_names_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["dojo", "judge", str(tmp_path / "s.py"), "--problem", str(tmp_path)], capsys)
    assert code == 2 and "no setter.py" in err and str(tmp_path) in err


def test_operator_commands_on_a_database_file(
    bubblewrap: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'd.sqlite3'}"]
    assert run(["dojo", "init", *db], capsys)[0] == 0
    run(["dojo", "user", "add", "sam", "--role", "setter", *db], capsys)
    _, out, _ = run(["dojo", "user", "add", "ann", "--role", "solver", *db], capsys)
    token = out.split("token: ")[1].strip()
    run(["dojo", "season", "create", "s1", *db], capsys)
    run(
        ["dojo", "problem", "add", str(CORPUS / "problem"), "--slug", "fib", "--season", "s1", "--setter", "sam", *db],
        capsys,
    )
    _, out, _ = run(["dojo", "validate", "fib", *db], capsys)
    assert "fib: accepted (200 terms)" in out and "warning: too easy" in out
    _, out, _ = run(["dojo", "open", "fib", *db], capsys)
    assert "fib: OPEN, seq_commit " in out
    solver = str(CORPUS / "accepted" / "loop_exactly_200.py")
    _, out, _ = run(["dojo", "submit", solver, "--problem", "fib", "--token", token, *db], capsys)
    assert json.loads(out)["practice"] is False
    assert "judged 1 submission(s)" in run(["dojo", "worker", "--threads", "1", *db], capsys)[1]
    run(["dojo", "freeze", "fib", *db], capsys)
    run(["dojo", "reveal", "fib", *db], capsys)
    _, out, _ = run(["dojo", "leaderboard", "--season", "s1", "--format", "csv", *db], capsys)
    assert out.splitlines()[1].startswith("1,ann,1")
    assert "audit log intact" in run(["dojo", "verify-audit", *db], capsys)[1]
    code, out, _ = run(["dojo", "replay", "--season", "s1", *db], capsys)
    assert code == 0 and "replay matches the published results" in out


def test_the_database_is_the_dojo_variable_then_podium_db_then_podium_sqlite3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PODIUM_DB", raising=False)
    monkeypatch.delenv("PODIUM_DOJO_DB", raising=False)
    assert run(["dojo", "init"], capsys)[1] == "database ready: sqlite:///./podium.sqlite3\n"
    assert (tmp_path / "podium.sqlite3").exists()
    own, shared = f"sqlite:///{tmp_path / 'dojo.sqlite3'}", f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    monkeypatch.setenv("PODIUM_DB", shared)
    assert run(["dojo", "init"], capsys)[1] == f"database ready: {shared}\n"
    monkeypatch.setenv("PODIUM_DOJO_DB", own)
    assert run(["dojo", "init"], capsys)[1] == f"database ready: {own}\n"


def _closed_port() -> int:
    with socket.socket() as probe:  # bound, never listening: a connection to it is refused at once
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("url", "code", "error", "fix"),
    [
        (
            "postgresql+psycopg://x:secret@127.0.0.1:{port}/x",
            1,
            "error: cannot connect to the database postgresql+psycopg://x:***@127.0.0.1:{port}/x: connection failed: "
            'connection to server at "127.0.0.1", port {port} failed: Connection refused',
            "fix: start PostgreSQL there, or correct the host, port, user, password and database in --db "
            "(or in PODIUM_<TRACK>_DB, else PODIUM_DB)",
        ),
        (
            "mysql://x@127.0.0.1:{port}/x",
            2,
            "error: podium stores its data in SQLite or PostgreSQL; mysql is not supported",
            "fix: use sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DB",
        ),
        (
            "sqlite:////nonexistent-podium-folder/d.sqlite3",
            1,
            "error: cannot connect to the database sqlite:////nonexistent-podium-folder/d.sqlite3: unable to open "
            "database file",
            "fix: check that the file's folder exists and is writable, or give another --db sqlite:///PATH",
        ),
    ],
)
def test_a_database_podium_cannot_use_is_one_line_with_the_fix(
    capsys: pytest.CaptureFixture[str], url: str, code: int, error: str, fix: str
) -> None:
    pytest.importorskip("psycopg")  # the postgres extra: without it the first case is a missing driver
    port = _closed_port()
    started = time.monotonic()
    got, out, err = run(["dojo", "init", "--db", url.format(port=port)], capsys)
    assert (got, out, err.splitlines()) == (code, "", [error.format(port=port), fix])
    assert time.monotonic() - started < 10


def test_judge_shows_the_solver_its_own_stderr_and_says_when_it_printed_nothing(
    bubblewrap: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    problem = ["--problem", str(CORPUS / "problem")]
    _, out, _ = run(["dojo", "judge", str(CORPUS / "runtime_error" / "name_error.py"), *problem], capsys)
    shown = out.split("stderr (its last 2048 bytes at most):\n", 1)[1]
    assert "Traceback (most recent call last):" in shown and shown.rstrip().endswith("is not defined"), out
    _, out, _ = run(["dojo", "judge", str(CORPUS / "runtime_error" / "name_error.py"), *problem, "--json"], capsys)
    assert "NameError" in json.loads(out)["stderr"]
    _, out, _ = run(["dojo", "judge", str(CORPUS / "wrong_answer" / "silent.py"), *problem], capsys)
    assert out.splitlines()[0] == "verdict: OK (wrong_answer): no output: printed no terms", out
    assert "stderr" not in out  # nothing written there, nothing shown
