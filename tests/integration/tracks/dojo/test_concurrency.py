"""500 submissions from 50 users through the real HTTP server, judged by 2 worker processes: each exactly once.

Runs on SQLite and on a real PostgreSQL server that the test starts (``postgres_url`` fixture).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.audit import audit_payload
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.schema import audit_log, submissions
from podium.tracks.dojo.store import audit_entries, open_store
from tests.needs import need_module
from tests.tracks.dojo.serving import free_port, wait_until_up

USERS, PER_USER = 50, 10
PODIUM = [sys.executable, "-m", "podium"]
SQUARES = b"n=0\nwhile 1:print(n*n);n+=1\n"


def season_with_open_problem(url: str, bubblewrap: Sandbox) -> list[str]:
    """Users (returns their tokens) and one open problem 'squares'."""
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    tokens = [dojo.add_user(f"u{i:02d}", Role.SOLVER)[1] for i in range(USERS)]
    dojo.create_season("load")
    dojo.add_problem("load", "squares", "sam", ProblemFiles(Path("squares"), SQUARES, "Squares", "", 0, 10))
    assert dojo.validate("squares").accepted
    dojo.open("squares")
    return tokens


def solver(user: int, attempt: int) -> str:
    if attempt % 3 == 0:
        return f"# {user}/{attempt}\nfor n in range(50):print(n)\n"  # wrong answer
    return f"# {user}/{attempt}\nn=0\nwhile 1:print(n*n);n+=1\n"


def run_load(url: str, bubblewrap: Sandbox, tmp_path: Path) -> None:
    need_module("fastapi", "web")  # podium serve
    tokens = season_with_open_problem(url, bubblewrap)
    env = {**os.environ, "PODIUM_DOJO_DB": url}
    port, log = free_port(), tmp_path / "processes.log"
    with log.open("wb") as sink:  # a file, not a pipe nobody reads: a chatty process must never block on it
        server = subprocess.Popen([*PODIUM, "serve", "--port", str(port)], env=env, stdout=sink, stderr=sink)
        workers = [
            subprocess.Popen(
                [*PODIUM, "dojo", "worker", "--forever", "--threads", "4"], env=env, stdout=sink, stderr=sink
            )
            for _ in range(2)
        ]
    try:
        base = f"http://127.0.0.1:{port}/dojo"
        wait_until_up(f"http://127.0.0.1:{port}/healthz", server, log)

        def submit_all(user: int) -> list[int]:
            ids = []
            with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {tokens[user]}"}, timeout=60) as client:
                for attempt in range(PER_USER):
                    body = {"source": solver(user, attempt), "solution": {"method_tag": f"tag{attempt % 2}"}}
                    response = client.post("/api/problems/squares/submissions", json=body)
                    assert response.status_code == 202, response.text
                    ids.append(response.json()["id"])
            return ids

        with ThreadPoolExecutor(16) as pool:
            ids = [i for batch in pool.map(submit_all, range(USERS)) for i in batch]
        assert len(ids) == len(set(ids)) == USERS * PER_USER

        engine = open_store(url)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            with engine.connect() as db:
                left = db.execute(
                    select(func.count()).select_from(submissions).where(submissions.c.status != "judged")
                ).scalar_one()
            if left == 0:
                break
            time.sleep(0.5)
        assert left == 0, f"{left} submissions not judged"
        with engine.connect() as db:
            rows = db.execute(select(submissions.c.id, submissions.c.attempts, submissions.c.verdict)).all()
            judged = [audit_payload(e)["submission"] for e in audit_entries(db) if e.kind == "judged"]
            received = db.execute(select(func.count()).select_from(audit_log).where(audit_log.c.kind == "submission"))
            assert received.scalar_one() == USERS * PER_USER
        assert sorted(judged) == sorted(r.id for r in rows)  # every submission judged exactly once
        assert all(r.attempts == 1 and r.verdict == "OK" for r in rows)
        # one of my own submissions, through the API: verdict and Stage Pass only while the problem is open
        mine = httpx.get(f"{base}/api/submissions/{ids[1]}", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
        assert mine["stage_pass"] is True and "reward_correct" not in mine
        # someone else's submission is answered exactly as one that does not exist
        other = httpx.get(f"{base}/api/submissions/{ids[-1]}", headers={"Authorization": f"Bearer {tokens[0]}"})
        assert other.status_code == 404 and json.loads(other.text)["error"] == f"no submission {ids[-1]}"
        listed = httpx.get(f"{base}/api/me/submissions", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
        assert sorted(s["id"] for s in listed) == sorted(ids[:PER_USER])  # pool.map keeps user 0's batch first
        assert {s["problem"] for s in listed} == {"squares"}
    finally:
        for process in (server, *workers):
            process.terminate()
        for process in (server, *workers):
            process.wait(timeout=30)


@pytest.mark.slow
def test_http_load_on_sqlite(bubblewrap: Sandbox, tmp_path: Path) -> None:
    run_load(sqlite_url(tmp_path / "dojo.sqlite3"), bubblewrap, tmp_path)


@pytest.mark.slow
def test_http_load_on_postgresql(bubblewrap: Sandbox, postgres_url: str, tmp_path: Path) -> None:
    run_load(postgres_url, bubblewrap, tmp_path)
