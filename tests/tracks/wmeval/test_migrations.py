"""The wmeval migrations carry stored answers over, on SQLite and on a real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, text

from podium.tracks.wmeval.schema import items, scores, teams
from podium.tracks.wmeval.store import STORE, open_store
from tests.databases import new_database, upgrade_to
from tests.tracks.dojo.conftest import postgres_url  # noqa: F401  the dojo's real PostgreSQL server, reused

AT = "2026-06-01T00:00:00.000000+00:00"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return new_database(request.param, "wmeval_migrate", request, tmp_path)


def test_0002_turns_the_unplayable_flag_into_a_cant_judge_0003_drops_the_reference_as_gold(url: str) -> None:
    engine = upgrade_to(STORE, url, "0001")
    with engine.begin() as db:
        db.execute(text("INSERT INTO wmeval_users (id, name, role, token_sha256, created_at) "
                        f"VALUES (1, 'ann', 'annotator', '{'0' * 64}', '{AT}')"))  # fmt: skip
        db.execute(text("INSERT INTO wmeval_gt (id, task, episode, playable, reason, probe_json, created_at) "
                        f"VALUES (1, 'task1', 'episode_0', true, '', '{{}}', '{AT}')"))  # fmt: skip
        for item, key in ((1, "a" * 16), (2, "b" * 16)):
            db.execute(text("INSERT INTO wmeval_items (id, key, kind, annotator_id, gt_id, position, created_at) "
                            f"VALUES ({item}, '{key}', 'gold', 1, 1, {item}, '{AT}')"))  # fmt: skip
        db.execute(text("INSERT INTO wmeval_scores (item_id, score, note, unplayable, revision, updated_at) "
                        f"VALUES (1, 0, 'frozen', true, 1, '{AT}'), (2, 2, '', false, 1, '{AT}')"))  # fmt: skip
        db.execute(text(f"INSERT INTO wmeval_teams (id, name, created_at) VALUES (1, 'red', '{AT}')"))
        db.execute(text("INSERT INTO wmeval_videos (id, team_id, task, episode, original_path, playable, reason, "
                        f"probe_json, created_at) VALUES (1, 1, 'task1', 'episode_0', 'o.mp4', true, '', '{{}}', "
                        f"'{AT}')"))  # fmt: skip
        db.execute(text("INSERT INTO wmeval_items (id, key, kind, annotator_id, video_id, gt_id, position, "
                        f"created_at) VALUES (3, '{'c' * 16}', 'primary', 1, 1, 1, 3, '{AT}')"))  # fmt: skip
        db.execute(text("INSERT INTO wmeval_scores (item_id, score, note, unplayable, revision, updated_at) "
                        f"VALUES (3, 1, 'slow', false, 1, '{AT}')"))  # fmt: skip
    engine.dispose()
    engine = upgrade_to(STORE, url, "0002")
    with engine.connect() as db:
        rows = db.execute(select(scores).order_by(scores.c.item_id)).all()
    assert [(r.item_id, r.score, r.cant_judge, r.resolution, r.note) for r in rows] == [
        (1, None, "video", "broken", "frozen"),
        (2, 2, None, None, ""),
        (3, 1, None, None, "slow"),
    ]
    engine.dispose()
    engine = open_store(url)  # on to the newest revision: the reference shown as gold goes, answers and all
    with engine.connect() as db:
        assert [(r.item_id, r.score) for r in db.execute(select(scores))] == [(3, 1)]
        assert [(r.id, r.kind) for r in db.execute(select(items))] == [(3, "primary")]
        assert [(r.name, r.kind) for r in db.execute(select(teams))] == [("red", "team")]
