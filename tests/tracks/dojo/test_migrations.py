"""The dojo migrations carry queued submissions over, on SQLite and on a real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import insert, select

from podium.core.clock import ManualClock, parse_utc
from podium.core.storage.sql import inserted_id
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.queueing import judge_queue
from podium.tracks.dojo.schema import problems, seasons, submissions, users
from podium.tracks.dojo.store import STORE, open_store
from tests.databases import new_database, upgrade_to

AT = "2026-11-01T09:00:00.000000+00:00"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return new_database(request.param, "dojo_migrate", request, tmp_path)


def test_0007_gives_each_queued_submission_its_solvers_rank_as_its_turn(url: str) -> None:
    engine = upgrade_to(STORE, url, "0006")
    with engine.begin() as db:
        ann, bob = (
            inserted_id(db, insert(users).values(name=name, role="solver", token_sha256=name * 16, created_at=AT))
            for name in ("ann0", "bob0")
        )
        season = inserted_id(db, insert(seasons).values(name="old", rules_json="{}", created_at=AT))
        problem = inserted_id(db, insert(problems).values(
            season_id=season, slug="p", title="p", statement="", offset=0, n_visible=10, state="OPEN",
            setter_id=ann, setter_source=b"", created_at=AT))  # fmt: skip
        # ann's judged and running ones are no longer waiting: they take no turn
        for user, status in ((ann, "queued"), (ann, "judged"), (ann, "queued"), (bob, "queued"), (ann, "running"),
                             (ann, "queued"), (bob, "queued")):  # fmt: skip
            db.execute(insert(submissions).values(
                problem_id=problem, user_id=user, source=b"print(1)\n", length=8, method_tag="unspecified",
                notes="", created_at=AT, practice=False, status=status, attempts=0 if status == "queued" else 1,
                verdict="OK" if status == "judged" else None))  # fmt: skip
    engine.dispose()
    engine = open_store(url)  # upgrades to the newest revision
    with engine.connect() as db:
        rows = db.execute(select(submissions).order_by(submissions.c.id)).all()
    assert [(r.user_id == ann, r.status, r.turn) for r in rows] == [
        (True, "queued", 0), (True, "judged", 0), (True, "queued", 1), (False, "queued", 0), (True, "running", 0),
        (True, "queued", 2), (False, "queued", 1),
    ]  # fmt: skip
    platform = Dojo(engine, ManualClock(parse_utc(AT)), lambda: pytest.fail("nothing runs here"))
    queue = judge_queue(platform)
    ids = [r.id for r in rows]
    assert queue.waiting() == [ids[4], ids[0], ids[3], ids[2], ids[6], ids[5]]  # running first, then in turn
    taken = [claim.id for claim in iter(lambda: queue.claim("w1"), None)]
    assert taken == [ids[0], ids[3], ids[2], ids[6], ids[5]]
    engine.dispose()
