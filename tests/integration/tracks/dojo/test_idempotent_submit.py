"""Idempotent submissions: a post repeated with its ``Idempotency-Key`` gets the first receipt and stores nothing.

A real ``podium serve`` is killed with SIGKILL in the middle of a burst of posts (some stored before their answer
was lost), started again, and every post that failed is sent again with its key: each key ends as exactly one
submission. ``podium dojo submit --server`` retries by itself with one key per submission, so a server that comes
back within its retries costs nothing. On SQLite and a real PostgreSQL.
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from podium.core.clock import SystemClock
from podium.core.errors import ConflictError, InputError
from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.client import submit_over_http
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import load_problem
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import submissions
from podium.tracks.dojo.store import open_store
from tests.needs import need_module
from tests.tracks.dojo.serving import free_port, wait_until_up
from tests.tracks.dojo.test_users import url  # noqa: F401  the SQLite / PostgreSQL fixture

CORPUS = Path(__file__).parents[3] / "tracks" / "dojo" / "corpus"  # tests/tracks/dojo/corpus
POSTS = 60


def open_dojo(url: str, sandbox: Sandbox, rules: ScoringRules | None = None) -> tuple[Dojo, dict[str, str]]:  # noqa: F811
    dojo = Dojo(open_store(url), SystemClock(), lambda: sandbox)
    dojo.add_user("sam", Role.SETTER)
    tokens = {name: dojo.add_user(name, Role.SOLVER)[1] for name in ("ann", "bob", "cat")}
    dojo.create_season("s1", rules)
    dojo.add_problem("s1", "fib", "sam", load_problem(CORPUS / "problem"))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    return dojo, tokens


def stored(dojo: Dojo) -> int:
    with dojo.engine.connect() as db:
        return int(db.execute(select(func.count()).select_from(submissions)).scalar_one())


def test_a_repeated_key_gets_the_first_receipt_and_spends_nothing(url: str, bubblewrap: Sandbox) -> None:  # noqa: F811
    dojo, _ = open_dojo(url, bubblewrap, ScoringRules(max_submissions_per_window=1))
    ann = dojo.user("ann")
    first = dojo.submit(ann, "fib", b"print(1)\n", None, "key-1")
    again = dojo.submit(ann, "fib", b"print(1)\n", None, "key-1")  # the rate limit (1) is not spent again
    assert again == first and stored(dojo) == 1
    with pytest.raises(ConflictError, match="was used for submission 1"):
        dojo.submit(ann, "fib", b"print(2)\n", None, "key-1")
    bob = dojo.submit(dojo.user("bob"), "fib", b"print(1)\n", None, "key-1")  # keys are per user
    assert bob.submission_id != first.submission_id
    for bad in ("", "a b", "x" * 65, "é"):
        with pytest.raises(InputError, match="printable ASCII"):
            dojo.submit(ann, "fib", b"print(3)\n", None, bad)


def serve(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:  # noqa: F811
    with log.open("ab") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "podium", "serve", "--db", url, "--port", str(port)], stdout=sink, stderr=sink
        )
    wait_until_up(f"http://127.0.0.1:{port}/healthz", server, log)
    return server


def test_posts_that_failed_when_the_server_was_killed_land_once_when_sent_again(
    url: str,  # noqa: F811
    bubblewrap: Sandbox,
    tmp_path: Path,
) -> None:
    need_module("fastapi", "web")
    dojo, tokens = open_dojo(url, bubblewrap, ScoringRules(max_submissions_per_window=0))
    port, log = free_port(), tmp_path / "serve.log"
    target = f"http://127.0.0.1:{port}/dojo/api/problems/fib/submissions"
    posts = [(str(uuid.uuid4()), list(tokens)[n % 3], f"print({n})\n") for n in range(POSTS)]
    receipts: dict[str, int] = {}
    failed: list[tuple[str, str, str]] = []
    lock = threading.Lock()

    def post(key: str, user: str, source: str) -> None:
        headers = {"authorization": f"Bearer {tokens[user]}", "idempotency-key": key}
        try:
            answer = httpx.post(target, json={"source": source}, headers=headers, timeout=10)
            answer.raise_for_status()
            with lock:
                receipts[key] = answer.json()["id"]
        except httpx.HTTPError:
            with lock:
                failed.append((key, user, source))

    server = serve(url, port, log)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(post, *entry) for entry in posts]
        while len(receipts) < POSTS // 4:
            time.sleep(0.01)
        os.kill(server.pid, signal.SIGKILL)  # mid-burst: some posts stored, their answers never sent
        server.wait()
        concurrent.futures.wait(futures)
    assert failed, "the kill came too late to interrupt any post"
    server = serve(url, port, log)
    try:
        answered = dict(receipts)
        failed_now, failed[:] = list(failed), []
        for entry in failed_now:  # every failed post again, with its own key
            post(*entry)
        for key, user, source in posts[:5]:  # and some that had succeeded, as a client that lost the answer would
            post(key, user, source)
        assert not failed, failed
        assert all(receipts[key] == answered[key] for key in answered)  # a repeat gets the first receipt
    finally:
        server.terminate()
        server.wait(timeout=30)
    with dojo.engine.connect() as db:
        rows = db.execute(select(submissions.c.idempotency_key, submissions.c.id)).all()
    assert sorted(key for key, _ in rows) == sorted(key for key, _, _ in posts)  # each key exactly once
    assert {key: sid for key, sid in rows} == receipts


def test_the_command_lines_client_retries_with_one_key_until_the_server_is_back(
    url: str,  # noqa: F811
    bubblewrap: Sandbox,
    tmp_path: Path,
) -> None:
    need_module("fastapi", "web")
    dojo, tokens = open_dojo(url, bubblewrap)
    port, log = free_port(), tmp_path / "serve.log"
    started: list[subprocess.Popen[bytes]] = []
    later = threading.Timer(0.5, lambda: started.append(serve(url, port, log)))
    later.start()  # the server comes up while the client is between its attempts
    try:
        receipt = submit_over_http(f"http://127.0.0.1:{port}", tokens["ann"], "fib", "print(1)\n", None, pause_s=1.0,
                                   attempts=6)  # fmt: skip
    finally:
        later.join()
        for server in started:
            server.terminate()
            server.wait(timeout=30)
    assert receipt["id"] == 1 and stored(dojo) == 1
