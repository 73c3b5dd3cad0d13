"""The season's served profile: chosen once, at the first GT ingest, and kept in ``wmeval_meta``.

Every video an annotator receives is made in it (``media.ServedProfile``), so it may never change under videos
already made: a later GT ingest that asks for another one is refused. The frame rate is the GT's camera rate, at
least ``SERVED_MIN_FPS``, unless the organiser names one (``--served-fps``) for teams expected to send faster
videos; a video faster than the profile is reported, never served with frames dropped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict

from sqlalchemy import Connection, insert, select

from podium.core.errors import ConfigError
from podium.tracks.wmeval.media import SERVED_MIN_FPS, ServedProfile
from podium.tracks.wmeval.schema import gt, meta

PROFILE_KEY = "served_profile"
STRIP_HEIGHT = 224  # the baseline letterboxes every view to 224x224


def stored_profile(db: Connection) -> ServedProfile | None:
    """The season's profile, or None before the first GT ingest."""
    value = db.execute(select(meta.c.value).where(meta.c.key == PROFILE_KEY)).scalar()
    if value is not None:
        return ServedProfile(**json.loads(value))
    return _from_strips(db)


def _from_strips(db: Connection) -> ServedProfile | None:
    """A store whose GT was ingested before profiles were kept: the profile its strips' size and rate imply."""
    outputs = [json.loads(p or "{}").get("output") or {} for p in db.execute(select(gt.c.probe_json)).scalars()]
    heights = [int(o["height"]) for o in outputs if o.get("height")]
    if not heights:
        return None
    fps = max([SERVED_MIN_FPS, *(math.ceil(float(o["fps"])) for o in outputs if o.get("fps"))])
    return ServedProfile.for_height(max(heights), fps)


def choose_profile(
    db: Connection, height: int | None, served_fps: int | None, camera_rates: Iterable[float]
) -> ServedProfile:
    """The profile a GT ingest makes its strips in: the stored one, else one from the options and the cameras.

    ``height`` and ``served_fps`` are the organiser's options (None: not given); asking a store for another
    profile than the one its videos are in is refused.
    """
    stored = stored_profile(db)
    if stored is not None:
        asked = ServedProfile.for_height(height or stored.height, served_fps or stored.fps)
        if asked != stored:
            raise ConfigError(
                f"this season's videos are served at {_text(stored)}, not {_text(asked)}",
                fix=f"drop --height/--served-fps, or pass --height {stored.height} --served-fps {stored.fps}",
            )
        return stored
    if served_fps is not None and not 1 <= served_fps <= 120:
        raise ConfigError(f"--served-fps {served_fps} is not a frame rate", fix="a whole number from 1 to 120")
    fps = served_fps or max([SERVED_MIN_FPS, *(math.ceil(rate) for rate in camera_rates)])
    return ServedProfile.for_height(height or STRIP_HEIGHT, fps)


def keep_profile(db: Connection, profile: ServedProfile) -> None:
    """Record ``profile`` as the season's (inside the GT ingest's transaction), unless one is recorded."""
    if db.execute(select(meta.c.value).where(meta.c.key == PROFILE_KEY)).scalar() is None:
        db.execute(insert(meta).values(key=PROFILE_KEY, value=json.dumps(asdict(profile), sort_keys=True)))


def _text(profile: ServedProfile) -> str:
    return f"{profile.width}x{profile.height} at {profile.fps} fps"
