"""The served profile: chosen at the first GT ingest, kept, never changed under videos already made."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import delete, insert

from podium.core.errors import ConfigError
from podium.tracks.wmeval.media import ServedProfile
from podium.tracks.wmeval.schema import gt, meta
from podium.tracks.wmeval.served import choose_profile, keep_profile, stored_profile
from podium.tracks.wmeval.store import transaction

from .conftest import Env


def test_the_first_choice_follows_the_cameras_and_is_kept(env: Env) -> None:
    with transaction(env.engine) as db:
        assert stored_profile(db) is None
        assert choose_profile(db, None, None, [24.0, 25.0]) == ServedProfile(896, 224, 30)  # 30 at least
        chosen = choose_profile(db, 120, None, [29.97, 50.0])
        assert chosen == ServedProfile(480, 120, 50)  # a faster camera sets the rate
        keep_profile(db, chosen)
        keep_profile(db, ServedProfile(896, 224, 30))  # the first one kept stays
        assert stored_profile(db) == chosen
        assert choose_profile(db, None, None, [60.0]) == chosen  # no option: the stored profile, whatever comes
        assert choose_profile(db, 120, 50, []) == chosen  # the same, named


@pytest.mark.parametrize(("height", "fps"), [(224, None), (None, 60)])
def test_asking_for_another_profile_later_is_refused_with_the_fix(
    env: Env, height: int | None, fps: int | None
) -> None:
    with transaction(env.engine) as db:
        keep_profile(db, ServedProfile.for_height(96, 30))
    with env.engine.connect() as db, pytest.raises(ConfigError) as refused:
        choose_profile(db, height, fps, [])
    assert "served at 384x96 at 30 fps" in refused.value.message and "--height 96 --served-fps 30" in (
        refused.value.fix or ""
    )


def test_a_store_from_before_profiles_takes_the_one_its_strips_imply(env: Env) -> None:
    with transaction(env.engine) as db:
        for episode, output in (
            ("episode_0", {"height": 224, "fps": 30.0}),
            ("episode_1", {"height": 224, "fps": 24.0}),
        ):
            db.execute(insert(gt).values(task="task1", episode=episode, playable=True, reason="",
                                         probe_json=json.dumps({"output": output}), created_at="t"))  # fmt: skip
        db.execute(delete(meta))
        assert stored_profile(db) == ServedProfile(896, 224, 30)
