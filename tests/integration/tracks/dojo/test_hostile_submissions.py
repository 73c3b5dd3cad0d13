"""Submissions built to stop the judging of everyone else, and strings built to break the database.

- a solver whose dead code nests 1,500 levels deep, tagged ``closed_form``, once made the tag review raise
  ``RecursionError`` in every worker thread that claimed it (released jobs never counted toward giving up), so a
  fresh worker exited 1 within seconds and ``reveal`` refused with no way to skip the one submission;
- a NUL in ``method_tag`` or ``notes`` was a 500 on PostgreSQL (and a traceback from the command line).
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from podium.core.clock import ManualClock
from podium.core.errors import InputError, NotFoundError
from podium.core.execution.sandbox import RunRequest, RunResult, Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.lifecycle import LifecycleError
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.schema import submissions
from podium.tracks.dojo.store import audit_entries, open_store
from podium.tracks.dojo.worker import MAX_ATTEMPTS, work
from tests.databases import new_postgres_database
from tests.needs import need_module

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
SQUARES = b"n=0\nwhile 1:print(n*n);n+=1\n"
# a closed form (each term from n alone) whose dead code nests 1,500 levels deep
DEEP_CLOSED_FORM = b"for n in range(200):\n print(n*n)\n if 0:x=y" + b".z" * 1500 + b"\n"
CLOSED_FORM = json.dumps({"method_tag": "closed_form"}).encode()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


def open_season(url: str, clock: ManualClock, sandbox: Sandbox) -> Dojo:
    dojo = Dojo(open_store(url), clock, lambda: sandbox)
    dojo.add_user("sam", Role.SETTER)
    dojo.add_user("ann", Role.SOLVER)
    dojo.add_user("bob", Role.SOLVER)
    dojo.create_season("s1")
    dojo.add_problem("s1", "squares", "sam", ProblemFiles(Path("squares"), SQUARES, "Squares", "", 0, 10))
    assert dojo.validate("squares").accepted
    dojo.open("squares")
    return dojo


@pytest.fixture
def dojo(tmp_path: Path, clock: ManualClock, bubblewrap: Sandbox) -> Dojo:
    return open_season(sqlite_url(tmp_path / "dojo.sqlite3"), clock, bubblewrap)


def row_of(dojo: Dojo, submission_id: int):  # type: ignore[no-untyped-def]
    with dojo.engine.connect() as db:
        return db.execute(select(submissions).where(submissions.c.id == submission_id)).one()


def test_a_tag_review_too_deep_to_read_counts_the_tag_as_unspecified(dojo: Dojo) -> None:
    deep = dojo.submit(dojo.user("ann"), "squares", DEEP_CLOSED_FORM, CLOSED_FORM)
    plain = dojo.submit(dojo.user("bob"), "squares", SQUARES)
    assert work(dojo, dojo._sandbox()) == 2  # the worker judged both; before, every thread that claimed it died
    judged = row_of(dojo, deep.submission_id)
    assert (judged.verdict, judged.reward_correct, judged.attempts) == ("OK", True, 1)
    assert "nests 1506 levels deep" in judged.tag_override and "unspecified" in judged.tag_override
    assert row_of(dojo, plain.submission_id).reward_correct


def test_a_fresh_worker_process_judges_past_the_deep_submission(dojo: Dojo, tmp_path: Path) -> None:
    dojo.submit(dojo.user("ann"), "squares", DEEP_CLOSED_FORM, CLOSED_FORM)
    dojo.submit(dojo.user("bob"), "squares", SQUARES)
    url = str(dojo.engine.url)
    done = subprocess.run(
        [sys.executable, "-m", "podium", "dojo", "worker", "--threads", "2", "--db", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "judged 2 submission(s)" in done.stdout, done.stderr


class RaisingSandbox:
    """The real sandbox, except that judging a source holding ``POISON`` raises (a bug nobody foresaw)."""

    def __init__(self, real: Sandbox) -> None:
        self.real, self.name, self.isolated = real, real.name, real.isolated
        self.poisoned = 0

    def run(self, request: RunRequest) -> RunResult:
        if b"POISON" in request.files.get("solver.py", b""):
            self.poisoned += 1
            raise RuntimeError("judging this one always fails \x00 here")
        return self.real.run(request)


def test_any_exception_while_judging_ends_that_submission_alone_as_an_internal_error(dojo: Dojo) -> None:
    poison = dojo.submit(dojo.user("ann"), "squares", b"'POISON'\n" + SQUARES)
    plain = dojo.submit(dojo.user("bob"), "squares", SQUARES)
    sandbox = RaisingSandbox(dojo._sandbox())
    assert work(dojo, sandbox) == 2
    failed = row_of(dojo, poison.submission_id)
    assert sandbox.poisoned == MAX_ATTEMPTS  # released after each failure, counted, then given up
    assert (failed.status, failed.verdict, failed.attempts) == ("judged", "INTERNAL_ERROR", MAX_ATTEMPTS)
    assert failed.reason == "the judge failed: RuntimeError: judging this one always fails   here"  # no NUL kept
    assert row_of(dojo, plain.submission_id).reward_correct
    with dojo.engine.connect() as db:
        audited = [json.loads(e.payload) for e in audit_entries(db) if e.kind == "judged"]
    poisoned = [entry for entry in audited if entry["submission"] == poison.submission_id]
    assert [(entry["verdict"], entry["reason"]) for entry in poisoned] == [("INTERNAL_ERROR", failed.reason)]


def test_reveal_names_the_submission_that_blocks_it_and_skip_ends_it(dojo: Dojo, clock: ManualClock) -> None:
    stuck = dojo.submit(dojo.user("ann"), "squares", SQUARES)
    dojo.freeze("squares")
    with pytest.raises(LifecycleError) as refused:
        dojo.reveal("squares")
    assert f"not judged yet: {stuck.submission_id}" in refused.value.message
    assert refused.value.fix is not None and "podium dojo skip ID --reason TEXT" in refused.value.fix
    with pytest.raises(InputError):
        dojo.skip(stuck.submission_id, "   ")
    with pytest.raises(InputError, match="NUL"):
        dojo.skip(stuck.submission_id, "kills\x00workers")
    skipped = dojo.skip(stuck.submission_id, "kills every worker")
    assert (skipped.verdict, skipped.reason) == ("INTERNAL_ERROR", "skipped by the operator: kills every worker")
    with pytest.raises(LifecycleError, match="judged already"):
        dojo.skip(stuck.submission_id, "again")
    with pytest.raises(NotFoundError):
        dojo.skip(stuck.submission_id + 100, "no such submission")
    dojo.reveal("squares")
    with dojo.engine.connect() as db:
        entries = [e for e in audit_entries(db) if e.kind == "skipped"]
    assert [json.loads(e.payload)["reason"] for e in entries] == ["kills every worker"]


def test_skip_from_the_command_line(dojo: Dojo, capsys: pytest.CaptureFixture[str]) -> None:
    from podium.cli.main import main

    stuck = dojo.submit(dojo.user("ann"), "squares", SQUARES)
    with pytest.raises(SystemExit) as stop:
        main(["dojo", "skip", str(stuck.submission_id), "--reason", "crashes", "--db", str(dojo.engine.url)])
    assert stop.value.code in (0, None)
    assert (
        capsys.readouterr().out.strip()
        == f"submission {stuck.submission_id}: INTERNAL_ERROR: skipped by the operator: crashes"
    )


@pytest.mark.parametrize("field", ["method_tag", "notes"])
def test_a_nul_in_solution_json_is_refused_before_anything_is_stored(dojo: Dojo, field: str) -> None:
    claims = json.dumps({"method_tag": "closed_form", "notes": "ok", field: "bad\x00text"}).encode()
    with pytest.raises(InputError, match=f"{field} holds a NUL character"):
        dojo.submit(dojo.user("ann"), "squares", SQUARES, claims)
    assert dojo.submissions() == []


def test_a_nul_in_problem_json_is_refused_with_the_file(tmp_path: Path) -> None:
    from podium.tracks.dojo.problem import load_problem

    (tmp_path / "setter.py").write_bytes(SQUARES)
    (tmp_path / "problem.json").write_text(json.dumps({"title": "Squ\x00ares"}))
    with pytest.raises(InputError, match="NUL") as refused:
        load_problem(tmp_path)
    assert refused.value.path == tmp_path / "problem.json"


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_nul_anywhere_in_the_solution_is_422_on_every_database(
    database: str, request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock, bubblewrap: Sandbox
) -> None:
    need_module("fastapi", "web")
    from fastapi.testclient import TestClient

    from podium.web.app import create_app

    if database == "sqlite":
        url = sqlite_url(tmp_path / "dojo.sqlite3")
    else:
        url = new_postgres_database(str(request.getfixturevalue("postgres_url")), "dojo_nul")
    dojo = open_season(url, clock, bubblewrap)
    token = dojo.add_user("cat", Role.SOLVER)[1]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    bodies = [
        '{"source": "print(1)", "solution": {"method_tag": "closed\\u0000form"}}',
        '{"source": "print(1)", "solution": {"notes": "\\u0000"}}',
        '{"source": "print(1)", "solution": {"extra": ["\\u0000"]}}',
    ]
    with TestClient(create_app({"db": url}), base_url="http://testserver/dojo") as client:
        for body in bodies:
            answer = client.post("/api/problems/squares/submissions", content=body.encode(), headers=headers)
            assert answer.status_code == 422 and "NUL character" in answer.text, answer.text
        # a NUL byte in the source is stored (as bytes) and judged: Python refuses such a source
        answer = client.post(
            "/api/problems/squares/submissions", content=b'{"source": "print(1)\\u0000"}', headers=headers
        )
        assert answer.status_code == 202, answer.text
    assert work(dojo, bubblewrap) == 1
    judged = dojo.submissions()
    assert [(s.verdict, s.method_tag, s.notes) for s in judged] == [("POLICY_REJECT", "unspecified", "")]
