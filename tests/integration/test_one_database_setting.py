"""Every entry point of a track opens the database that one order names: ``--db`` > ``PODIUM_<TRACK>_DB`` >
``PODIUM_DB`` > ``./podium.sqlite3``.

A host that serves several tracks sets all three variables at once, each to another database. The dojo's
commands, its worker and ``podium serve`` must then all use ``PODIUM_DOJO_DB``, wmeval's commands and the server
``PODIUM_WMEVAL_DB``, and each says which one it used and which it passed over, with passwords masked. Real
processes, on SQLite files and on a real PostgreSQL server (whose trust login ignores the password the URLs carry,
so a leaked password would show in the output).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, inspect

from podium.core.storage.database_choice import masked
from tests.databases import new_database
from tests.tracks.dojo.conftest import postgres_url  # noqa: F401  the dojo's real PostgreSQL server, reused
from tests.tracks.dojo.serving import free_port, wait_until_up

PASSWORD = "pw-that-must-not-show"


def with_password(url: str) -> str:
    """``url`` with a password for its user (PostgreSQL), or unchanged (SQLite has none)."""
    head, at, tail = url.partition("@")
    return f"{head}:{PASSWORD}{at}{tail}" if at else url


def podium(environ: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "podium", *args], env=environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    return done


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def tables_in(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        return inspect(engine).get_table_names()
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_every_entry_point_of_a_track_uses_the_same_database(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    shared, dojo, wmeval, given = (
        with_password(new_database(kind, name, request, tmp_path)) for name in ("shared", "dojo", "wmeval", "given")
    )
    environ = {**os.environ, "PODIUM_DB": shared, "PODIUM_DOJO_DB": dojo, "PODIUM_WMEVAL_DB": wmeval}
    passed_over = f"not used: PODIUM_DB={masked(shared)}"

    made = podium(environ, "dojo", "init")
    assert made.stdout == f"database ready: {masked(dojo)}\n"
    assert f"note: dojo uses the database {masked(dojo)} from PODIUM_DOJO_DB; {passed_over}" in made.stderr
    token = podium(environ, "dojo", "user", "add", "bob", "--role", "solver").stdout.split("token: ")[1].strip()
    worker = podium(environ, "dojo", "worker", "--threads", "1")
    assert f"worker: judging the queue of {masked(dojo)}" in worker.stderr and "judged 0" in worker.stdout
    assert podium(environ, "wmeval", "init").stdout == f"database ready: {masked(wmeval)}\n"
    added = podium(environ, "wmeval", "annotator", "add", "ann")
    annotator_token = added.stdout.split("token: ")[1].strip()
    assert f"note: wmeval uses the database {masked(wmeval)} from PODIUM_WMEVAL_DB; {passed_over}" in added.stderr

    explicit = podium(environ, "dojo", "init", "--db", given)
    assert explicit.stdout == f"database ready: {masked(given)}\n"
    assert f"from --db; not used: PODIUM_DOJO_DB={masked(dojo)}, PODIUM_DB={masked(shared)}" in explicit.stderr
    assert tables_in(shared) == []  # nothing went to the general database

    port, log = free_port(), tmp_path / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen([sys.executable, "-m", "podium", "serve", "--port", str(port)], env=environ,
                                  stdout=sink, stderr=sink)  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(f"{base}/healthz", server, log)
        # bob and ann exist only in the databases their commands wrote: the server reads the same ones
        mine = httpx.get(f"{base}/dojo/api/me/submissions", headers=bearer(token), timeout=30)
        assert mine.status_code == 200 and mine.json() == []
        assert httpx.get(f"{base}/wmeval/api/queue", headers=bearer(annotator_token), timeout=30).status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    said = log.read_text()
    assert f"serving /dojo/ on {masked(dojo)} (from PODIUM_DOJO_DB)" in said
    assert f"serving /wmeval/ on {masked(wmeval)} (from PODIUM_WMEVAL_DB)" in said
    assert PASSWORD not in said
