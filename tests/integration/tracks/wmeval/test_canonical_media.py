"""Canonical media: nothing in a served file but its pictures tells one team's videos from another's.

A trial guessed a served video's team from one feature of the file 96 % of the time by frame rate, 96 % by frame
count, 97 % by the H.264 SPS/PPS and 72 % by time base. Here six teams send one task's episodes as real teams
do: the baseline's H.264 at 24 fps, OpenCV's ``mp4v`` at 16 fps, a variable-rate file, an odd-sized 4:4:4 file at
12 fps, a 30 fps High-profile file with B-frames and metadata, and a 60 fps file that cannot be served without
dropping frames; a gold set and the GT strips share the task. Every served video is probed (size, rate, time
base, stream headers, profile and level, keyframe positions, container brand, last-frame size) and must be the
same for all of them.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
from PIL import Image
from sqlalchemy import select

from podium.core.execution.executor import SerialExecutor
from podium.tracks.wmeval.ingest import import_gold, ingest_gt, ingest_team, media_root
from podium.tracks.wmeval.media import GOP_SECONDS
from podium.tracks.wmeval.schema import gt, teams, videos
from tests.tracks.wmeval.conftest import Env, make_gt
from tests.tracks.wmeval.videos import synthetic_frames

EPISODES = 3


def write(
    path: Path, fps: int, size: tuple[int, int], *, codec: str = "libx264", pix_fmt: str = "yuv420p",
    stamps: list[int] | None = None, options: dict[str, str] | None = None, title: str = "", seconds: int = 1,
) -> None:  # fmt: skip
    """A real video as some team writes it; ``stamps`` (ms) make it variable-rate."""
    count = len(stamps) if stamps else fps * seconds
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), mode="w", format="mp4") as container:
        if title:
            container.metadata["title"] = title
        stream = container.add_stream(codec, rate=fps, options=options or {})
        stream.width, stream.height, stream.pix_fmt = *size, pix_fmt
        if stamps:
            stream.codec_context.time_base = Fraction(1, 1000)
        for index, image in enumerate(synthetic_frames(count, *size, seed=len(str(path)))):
            frame = av.VideoFrame.from_ndarray(image, "rgb24")
            if stamps:
                frame.pts, frame.time_base = stamps[index], Fraction(1, 1000)
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))


TEAMS: dict[str, dict[str, Any]] = {
    "baseline": {"fps": 24, "size": (192, 48)},
    "opencv": {"fps": 16, "size": (192, 48), "codec": "mpeg4"},
    "variable": {"fps": 24, "size": (192, 48), "stamps": [0, 40, 80, 160, 200, 300, 340, 380, 420, 520, 560, 600]},
    "odd": {"fps": 12, "size": (65, 47), "pix_fmt": "yuv444p"},
    "fancy": {
        "fps": 30,
        "size": (256, 64),
        "options": {"profile": "high", "bf": "3", "g": "7"},
        "title": "fancy",
        "seconds": 3,
    },  # long enough for a second keyframe of the served grid
    "fast": {"fps": 60, "size": (192, 48)},
}


def submission(root: Path, name: str) -> Path:
    spec = TEAMS[name]
    for index in range(EPISODES):
        write(root / "evaluator_test" / "task1" / f"episode_{index}.mp4", spec["fps"], spec["size"],
              codec=spec.get("codec", "libx264"), pix_fmt=spec.get("pix_fmt", "yuv420p"), stamps=spec.get("stamps"),
              options=spec.get("options"), title=spec.get("title", ""), seconds=spec.get("seconds", 1))  # fmt: skip
    return root


def served_properties(path: Path) -> dict[str, object]:
    """Everything about a served file that is not its pictures or its length."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        context = stream.codec_context
        packets = [packet for packet in container.demux(stream) if packet.size]
        keys = [index for index, packet in enumerate(packets) if packet.is_keyframe]
        rate = stream.average_rate
        grid = GOP_SECONDS * int(rate)
        return {
            "format": container.format.name,
            "brand": dict(container.metadata),
            "stream metadata": dict(stream.metadata),
            "codec": context.name,
            "size": (context.width, context.height),
            "pix_fmt": context.format.name,
            "profile": context.profile,
            "level": context.level,
            "extradata": bytes(context.extradata or b""),
            "time base": stream.time_base,
            "rate": rate,
            "keyframes": "on the grid" if keys == list(range(0, len(packets), grid)) else keys,
            "sample aspect": context.sample_aspect_ratio,
            "colour": (context.color_range, context.color_primaries, context.color_trc, context.colorspace),
        }


def test_every_served_video_of_a_task_has_one_profile(env: Env) -> None:
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": EPISODES}), SerialExecutor(), env.clock, 48)
    reports = {
        name: ingest_team(env.engine, root, name, submission(env.tmp / name, name), SerialExecutor(), env.clock)
        for name in TEAMS
    }
    gold = submission(env.tmp / "gold", "baseline")
    answers = "task,episode,expected\n" + "".join(f"task1,episode_{i},2\n" for i in range(EPISODES))
    import_gold(env.engine, root, gold, answers, SerialExecutor(), env.clock)

    # the 60 fps team is told, per video, what to do; nothing of it is served with frames dropped
    assert reports["fast"].playable == 0
    assert [i.kind for i in reports["fast"].issues] == ["too_fast"] * EPISODES
    assert "--served-fps 60" in reports["fast"].issues[0].detail
    assert all(reports[name].playable == EPISODES for name in TEAMS if name != "fast")

    with env.engine.connect() as db:
        served = [(r.name, r.video_path, r.last_frame_path) for r in db.execute(
            select(teams.c.name, videos.c.video_path, videos.c.last_frame_path)
            .join(videos, videos.c.team_id == teams.c.id).where(videos.c.playable))]  # fmt: skip
        served += [("GT", r.video_path, r.last_frame_path) for r in db.execute(select(gt))]
        probes = [json.loads(p) for p in db.execute(select(videos.c.probe_json).where(videos.c.playable)).scalars()]
    assert {name for name, _, _ in served} == {"GT", "(gold set)", *(set(TEAMS) - {"fast"})}
    assert len(served) == 7 * EPISODES

    found = {name: served_properties(root / path) for name, path, _ in served}
    first = found["GT"]
    assert (first["size"], first["rate"], first["keyframes"]) == ((192, 48), 30, "on the grid")
    for name, properties in found.items():
        assert properties == first, name
    assert {Image.open(root / png).size for _, _, png in served} == {(192, 48)}
    # never dropped: each original frame is shown once or more at the served rate
    assert all(p["output"]["frames"] >= p["original"]["frames"] for p in probes)
    assert max(p["output"]["frames"] for p in probes) > GOP_SECONDS * 30  # two keyframes of the grid at least
