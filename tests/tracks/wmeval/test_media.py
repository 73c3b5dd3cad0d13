"""Media: views of different lengths composed into one strip, browser-playable H.264 remuxed byte for byte,
and what cannot be remuxed transcoded or refused.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

from podium.tracks.wmeval.media import (
    StripJob,
    TranscodeJob,
    compose_strip,
    probe,
    remux,
    synthetic_frames,
    transcode_job,
)

from .conftest import Env, write_clip


def test_views_of_different_lengths_and_rates_are_aligned_by_time(env: Env) -> None:
    views = env.tmp / "views"
    write_clip(views / "high.mp4", frames=24)  # 1 s at 24 fps: the strip's rate and clock
    write_clip(views / "left.mp4", codec="mpeg4", frames=8)  # 0.5 s at 16 fps: holds its last frame afterwards
    write_clip(views / "right.mp4", frames=12)
    job = StripJob(
        (views / "high.mp4", views / "left.mp4", views / "right.mp4"), env.tmp / "s.mp4", env.tmp / "s.png", 48
    )
    result = compose_strip(job)
    assert result.playable and result.output is not None
    made = probe(env.tmp / "s.mp4")
    assert (made.width, made.height, made.fps) == (192, 48, 24.0)
    assert abs(made.frames - 24) <= 1  # the longest view's second, at cam_high's rate
    broken = env.tmp / "broken.mp4"
    broken.write_bytes(b"not a video")
    bad = compose_strip(
        StripJob((views / "high.mp4", broken, views / "right.mp4"), env.tmp / "b.mp4", env.tmp / "b.png", 48)
    )
    assert not bad.playable and not (env.tmp / "b.mp4").exists() and not (env.tmp / "b.mp4.part").exists()


def write_h264(
    path: Path, stamps: list[int], time_base: Fraction, gop: int = 12, size: tuple[int, int] = (96, 64)
) -> None:
    """H.264 yuv420p with B-frames and a keyframe every ``gop`` frames, each frame shown at ``stamps[i]`` ticks."""
    with av.open(str(path), mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=24, options={"bf": "2", "g": str(gop), "keyint_min": str(gop)})
        stream.width, stream.height, stream.pix_fmt = *size, "yuv420p"
        stream.codec_context.time_base = time_base
        for stamp, image in zip(stamps, synthetic_frames(len(stamps), *size, seed=5), strict=True):
            frame = av.VideoFrame.from_ndarray(image, "rgb24")
            frame.pts, frame.time_base = stamp, time_base
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))


def packets(path: Path) -> list[bytes]:
    with av.open(str(path)) as container:
        return [bytes(p) for p in container.demux(video=0) if p.size]


def without_sei(packet: bytes) -> bytes:
    """An MP4 H.264 packet (NAL units, each after its 4-byte length) without its SEI units (type 6)."""
    kept, at = b"", 0
    while at < len(packet):
        size = int.from_bytes(packet[at : at + 4], "big")
        unit = packet[at : at + 4 + size]
        if unit[4] & 0x1F != 6:
            kept += unit
        at += 4 + size
    return kept


def test_a_browser_playable_h264_file_is_remuxed_byte_for_byte_with_its_true_last_frame(tmp_path: Path) -> None:
    source = tmp_path / "cfr.mp4"
    write_h264(source, list(range(40)), Fraction(1, 24))  # 40 frames, keyframes every 12: the last group is 4
    head = source.read_bytes()
    assert head.index(b"mdat") < head.index(b"moov")  # as written: not faststart
    result = transcode_job(TranscodeJob(source, tmp_path / "out.mp4", tmp_path / "last.png"))
    assert (result.playable, result.method) == (True, "remuxed")
    # the stream copied, not re-encoded: every coded picture as sent, only the SEI (x264's version string) gone
    assert packets(tmp_path / "out.mp4") == [without_sei(packet) for packet in packets(source)]
    assert b"x264" in packets(source)[0] and not any(b"x264" in packet for packet in packets(tmp_path / "out.mp4"))
    made = (tmp_path / "out.mp4").read_bytes()
    assert made.index(b"moov") < made.index(b"mdat")  # faststart
    copy = probe(tmp_path / "out.mp4")
    assert (copy.codec, copy.width, copy.height, copy.fps, copy.frames) == ("h264", 96, 64, 24.0, 40)
    with av.open(str(source)) as container:
        true_last = list(container.decode(video=0))[-1].to_ndarray(format="rgb24")
    assert np.array_equal(np.asarray(Image.open(tmp_path / "last.png").convert("RGB")), true_last)
    assert result.output is not None and (result.output.frames, result.output.duration_s) == (40, 1.667)


def test_a_variable_rate_h264_file_is_transcoded_to_a_constant_rate(tmp_path: Path) -> None:
    source = tmp_path / "vfr.mp4"
    stamps = [0, 40, 80, 160, 200, 300, 340, 380, 420, 520, 560, 600]  # ms: declared 24 fps, steps of 40 and 100
    write_h264(source, stamps, Fraction(1, 1000))
    assert remux(source, tmp_path / "r.mp4", tmp_path / "r.png") is None
    assert not (tmp_path / "r.mp4").exists() and not (tmp_path / "r.mp4.part").exists()
    result = transcode_job(TranscodeJob(source, tmp_path / "out.mp4", tmp_path / "last.png"))
    assert (result.playable, result.method) == (True, "transcoded")
    with av.open(str(tmp_path / "out.mp4")) as container:
        pts = sorted(p.pts for p in container.demux(video=0) if p.size)
    assert len({b - a for a, b in zip(pts, pts[1:], strict=False)}) == 1  # now a constant rate
    assert (tmp_path / "last.png").read_bytes().startswith(b"\x89PNG")


def test_mp4v_and_corrupt_files_are_not_remuxed(tmp_path: Path) -> None:
    mp4v = write_clip(tmp_path / "mp4v.mp4", codec="mpeg4")
    assert remux(mp4v, tmp_path / "a.mp4", tmp_path / "a.png") is None
    assert transcode_job(TranscodeJob(mp4v, tmp_path / "b.mp4", tmp_path / "b.png")).method == "transcoded"
    cut = tmp_path / "cut.mp4"
    write_h264(cut, list(range(40)), Fraction(1, 24))
    cut.write_bytes(cut.read_bytes()[:-2000])  # moov at the end, lost
    result = transcode_job(TranscodeJob(cut, tmp_path / "c.mp4", tmp_path / "c.png"))
    assert (result.playable, result.method) == (False, "") and "cannot decode" in result.reason
    assert not (tmp_path / "c.mp4").exists() and not (tmp_path / "c.mp4.part").exists()
