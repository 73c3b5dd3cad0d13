"""Blind for real: nothing an annotator can fetch tells one team from another.

A team writes its name into its files every way a real one could: the MP4 container's comment, the stream's
handler name, H.264 SEI user data (which once survived a stream copy), and its folder and ``concat_`` file names;
one of its videos is MPEG-4 Part 2. Then an annotator fetches everything they can reach (the queue, every item as
JSON and as a page, every video and last frame, with their headers) and none of it may hold the name, an encoder
string (x264's writes its version and settings), or a file time (``Last-Modified`` clustered videos by ingest run,
so by team). ``test_canonical_media.py`` checks that the served files' formats say nothing either.
"""

from __future__ import annotations

import io
from pathlib import Path

import av
import av.bitstream
import pytest
from fastapi.testclient import TestClient

from podium.core.execution.executor import SerialExecutor
from podium.tracks.wmeval.assign import AssignOptions, assign
from podium.tracks.wmeval.ingest import ingest_gt, ingest_team, media_root
from podium.tracks.wmeval.store import add_account
from podium.tracks.wmeval.track import TRACK
from podium.web.app import create_app
from tests.tracks.wmeval.conftest import Env, make_gt, make_team, write_clip

MARK = "Crimson-Robotics-Lab"
SEI_UUID = "086f3693-b7b3-4f2c-9653-21492feee5b8"


def plant(path: Path) -> None:
    """Rewrite an H.264 MP4 with the team's name in its SEI user data, stream handler and container comment."""
    planted = path.with_name("planted.mp4")
    with av.open(str(path)) as source, av.open(str(planted), "w", format="mp4") as output:
        stream = source.streams.video[0]
        copy = output.add_stream_from_template(stream)
        output.metadata["comment"] = f"made by {MARK}"
        copy.metadata["handler_name"] = f"{MARK} video"
        sei = av.bitstream.BitStreamFilterContext(f"h264_metadata=sei_user_data={SEI_UUID}+{MARK}", stream, copy)
        for packet in source.demux(stream):
            for kept in sei.filter(packet if packet.size else None):
                kept.stream = copy
                output.mux(kept)
    planted.replace(path)


def mp4v_with_comment(path: Path) -> None:
    write_clip(path, codec="mpeg4", size=(192, 48))
    with av.open(str(path)) as source, av.open(str(path.with_name("c.mp4")), "w", format="mp4") as output:
        stream = source.streams.video[0]
        copy = output.add_stream_from_template(stream)
        output.metadata["title"] = MARK
        for packet in source.demux(stream):
            if packet.size:
                packet.stream = copy
                output.mux(packet)
    path.with_name("c.mp4").replace(path)


@pytest.fixture
def fetched(env: Env) -> list[tuple[str, dict[str, str], bytes]]:
    """Everything the annotator can fetch: (what, headers, body)."""
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 3}), SerialExecutor(), env.clock, 48)
    folder = make_team(env.tmp / f"{MARK}-submission", {"task1/episode_0.mp4": "h264", "task1/episode_1.mp4": "h264",
                                                        f"task1/concat_{MARK}.mp4": "h264"})  # fmt: skip
    for episode in ("episode_0", "episode_1"):
        plant(folder / "evaluator_test" / "task1" / f"{episode}.mp4")
    assert MARK.encode() in (folder / "evaluator_test/task1/episode_0.mp4").read_bytes()  # the plant took
    mp4v_with_comment(folder / "evaluator_test" / "task1" / "episode_2.mp4")
    report = ingest_team(env.engine, root, MARK.lower(), folder, SerialExecutor(), env.clock)
    assert dict(report.methods) == {"transcoded": 3}
    _, token = add_account(env.engine, env.clock, "ann", "annotator")
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, gold=0, seed=1))
    got: list[tuple[str, dict[str, str], bytes]] = []
    with TestClient(create_app({"db": str(env.engine.url)}, {"wmeval": TRACK}),
                    headers={"origin": "http://testserver"}) as client:  # fmt: skip
        client.post("/wmeval/signin", data={"token": token})
        for url in ("/wmeval/api/queue", "/wmeval/queue"):
            answer = client.get(url)
            got.append((url, dict(answer.headers), answer.content))
        for entry in client.get("/wmeval/api/queue").json():
            key = entry["item"]
            for url in (f"/wmeval/api/items/{key}", f"/wmeval/items/{key}", *(
                f"/wmeval/media/{key}/{name}" for name in ("generated.mp4", "reference.mp4", "generated.png",
                                                           "reference.png"))):  # fmt: skip
                answer = client.get(url)
                assert answer.status_code == 200, url
                got.append((url, dict(answer.headers), answer.content))
    assert len([url for url, _, _ in got if url.endswith("generated.mp4")]) == 3
    return got


def test_nothing_an_annotator_fetches_names_the_team(fetched: list[tuple[str, dict[str, str], bytes]]) -> None:
    for url, headers, body in fetched:
        for needle in (MARK, MARK.lower(), "Crimson", "crimson"):
            assert needle.encode() not in body, (url, needle)
            assert needle not in str(headers), (url, needle)


def test_no_video_carries_an_encoder_string_or_metadata(fetched: list[tuple[str, dict[str, str], bytes]]) -> None:
    videos = [(url, body) for url, _, body in fetched if url.endswith(".mp4")]
    for url, body in videos:
        for encoder in (b"x264", b"Lavf", b"Lavc", b"libx264", b"FFmpeg"):
            assert encoder not in body, (url, encoder)
        with av.open(io.BytesIO(body)) as container:
            assert dict(container.metadata).keys() <= {"major_brand", "minor_version", "compatible_brands"}
            assert dict(container.streams.video[0].metadata).keys() <= {"language", "handler_name", "vendor_id"}
            assert container.streams.video[0].metadata.get("handler_name", "VideoHandler") == "VideoHandler"


def test_no_file_time_reaches_the_annotator(fetched: list[tuple[str, dict[str, str], bytes]]) -> None:
    for url, headers, _ in fetched:
        if "/media/" in url:
            assert "last-modified" not in headers and "etag" not in headers, (url, headers)
