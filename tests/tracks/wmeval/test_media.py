"""Media: every video served in one profile (size, rate, encoder), frames repeated but never dropped, visually
lossless; views of different lengths composed into one strip; what cannot be served refused with the reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

from podium.tracks.wmeval.media import (
    ServedProfile,
    StripJob,
    TranscodeJob,
    compose_strip,
    probe,
    transcode_job,
)
from podium.tracks.wmeval.staging import result_from_json

from .conftest import Env, write_clip
from .videos import synthetic_frames

PROFILE = ServedProfile.for_height(48, 30)  # 192x48 at 30 fps


def test_views_of_different_lengths_and_rates_are_aligned_by_time(env: Env) -> None:
    views = env.tmp / "views"
    write_clip(views / "high.mp4", frames=24)  # 1 s at 24 fps: the strip's rate and clock
    write_clip(views / "left.mp4", codec="mpeg4", frames=8)  # 0.5 s at 16 fps: holds its last frame afterwards
    write_clip(views / "right.mp4", frames=12)
    job = StripJob(
        (views / "high.mp4", views / "left.mp4", views / "right.mp4"), env.tmp / "s.mp4", env.tmp / "s.png", PROFILE
    )
    result = compose_strip(job)
    assert result.playable and result.output is not None
    made = probe(env.tmp / "s.mp4")
    assert (made.width, made.height, made.fps) == (192, 48, 30.0)
    assert abs(made.frames - 30) <= 1  # the longest view's second, at the served rate
    broken = env.tmp / "broken.mp4"
    broken.write_bytes(b"not a video")
    bad = compose_strip(
        StripJob((views / "high.mp4", broken, views / "right.mp4"), env.tmp / "b.mp4", env.tmp / "b.png", PROFILE)
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


def textured(count: int, size: tuple[int, int]) -> list[np.ndarray]:
    """Frames with texture and motion, each different from the last (flat test cards would flatter the encoder)."""
    width, height = size
    rng = np.random.default_rng(7)
    ys, xs = np.mgrid[0:height, 0:width]
    base = np.stack([xs * 255 // width, ys * 255 // height, (xs + ys) % 256], -1)
    base = (base + rng.integers(0, 255, (height // 4, width // 4, 3)).repeat(4, 0).repeat(4, 1)) // 2
    frames = []
    for index in range(count):
        image = base.copy()
        image[60:140, 12 * index : 12 * index + 40] = (200, 50, 50)
        frames.append(np.clip(image + rng.integers(-2, 3, image.shape), 0, 255).astype(np.uint8))
    return frames


def write_frames(path: Path, frames: list[np.ndarray], fps: int) -> None:
    with av.open(str(path), mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=fps, options={"crf": "10"})
        stream.height, stream.width = frames[0].shape[:2]
        stream.pix_fmt = "yuv420p"
        for image in frames:
            container.mux(stream.encode(av.VideoFrame.from_ndarray(image, "rgb24")))
        container.mux(stream.encode(None))


def decoded(path: Path, pixels: str = "rgb24") -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [frame.to_ndarray(format=pixels) for frame in container.decode(video=0)]


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    error = float(np.mean((a.astype(float) - b.astype(float)) ** 2))
    return 99.0 if error == 0 else 10 * float(np.log10(255**2 / error))


def test_a_video_reaches_the_served_rate_by_repeating_frames_never_dropping_one(tmp_path: Path) -> None:
    source = tmp_path / "team.mp4"
    write_frames(source, textured(36, (672, 224)), 24)  # 1.5 s of the baseline's size and rate
    profile = ServedProfile.for_height(224, 30)  # 896x224: the video keeps its size, centred
    result = transcode_job(TranscodeJob(source, tmp_path / "out.mp4", tmp_path / "last.png", profile))
    assert (result.playable, result.method) == (True, "transcoded")
    originals = decoded(source, "gray")  # luma: what PSNR is quoted on
    served = [frame[:, 112:784] for frame in decoded(tmp_path / "out.mp4", "gray")]  # the picture, not the padding
    assert len(served) == 45  # 1.5 s at 30 fps
    shown = [max(range(len(originals)), key=lambda i: psnr(frame, originals[i])) for frame in served]
    assert shown == sorted(shown) and set(shown) == set(range(36))  # in order, every frame at least once
    assert max(Counter(shown).values()) == 2  # 24 -> 30: one frame in four shown twice
    floor = min(psnr(frame, originals[index]) for frame, index in zip(served, shown, strict=True))
    assert floor >= 40, floor  # visually lossless against what the team sent
    assert result.original is not None and (result.original.fps, result.original.frames) == (24.0, 36)
    assert result.output is not None and (result.output.fps, result.output.frames) == (30, 45)
    last = np.asarray(Image.open(tmp_path / "last.png").convert("RGB"))
    as_served = decoded(tmp_path / "out.mp4")[-1]
    assert last.shape == (224, 896, 3) and psnr(last, as_served) >= 40  # the last frame as served


def test_another_shape_is_scaled_to_fit_and_padded_never_stretched(tmp_path: Path) -> None:
    source = tmp_path / "narrow.mp4"
    frames = [np.full((48, 96, 3), 200, np.uint8)] * 3  # 2:1 into the profile's 4:1: centred, black each side
    write_frames(source, frames, 24)
    assert transcode_job(TranscodeJob(source, tmp_path / "out.mp4", tmp_path / "last.png", PROFILE)).playable
    first = decoded(tmp_path / "out.mp4")[0].mean(axis=(0, 2))  # brightness by column
    assert first[:46].max() < 20 and first[146:].max() < 20  # the padding
    assert first[50:142].min() > 180  # the picture, at its own aspect: 96x48 fills the height exactly


def test_a_variable_rate_file_is_served_at_the_constant_rate(tmp_path: Path) -> None:
    source = tmp_path / "vfr.mp4"
    stamps = [0, 40, 80, 160, 200, 300, 340, 380, 420, 520, 560, 600]  # ms: declared 24 fps, steps of 40 and 100
    write_h264(source, stamps, Fraction(1, 1000))
    result = transcode_job(TranscodeJob(source, tmp_path / "out.mp4", tmp_path / "last.png", PROFILE))
    assert (result.playable, result.method) == (True, "transcoded")
    with av.open(str(tmp_path / "out.mp4")) as container:
        pts = sorted(p.pts for p in container.demux(video=0) if p.size)
    assert len({b - a for a, b in zip(pts, pts[1:], strict=False)}) == 1  # now a constant rate
    assert (tmp_path / "last.png").read_bytes().startswith(b"\x89PNG")


def test_a_video_faster_than_the_profile_is_refused_with_the_fix(tmp_path: Path) -> None:
    source = tmp_path / "fast.mp4"
    write_frames(source, textured(10, (192, 48)), 60)
    result = transcode_job(TranscodeJob(source, tmp_path / "out.mp4", tmp_path / "last.png", PROFILE))
    assert (result.playable, result.issue) == (False, "too_fast")
    assert "60 fps is above the served 30 fps" in result.reason and "--served-fps 60" in result.reason
    assert not list(tmp_path.glob("out.mp4*"))
    assert result_from_json(asdict(result)) == result  # a resumed ingest reports it the same way


def test_mp4v_is_served_and_a_cut_file_is_not(tmp_path: Path) -> None:
    mp4v = write_clip(tmp_path / "mp4v.mp4", codec="mpeg4")
    assert transcode_job(TranscodeJob(mp4v, tmp_path / "b.mp4", tmp_path / "b.png", PROFILE)).playable
    cut = tmp_path / "cut.mp4"
    write_h264(cut, list(range(40)), Fraction(1, 24))
    cut.write_bytes(cut.read_bytes()[:-2000])  # moov at the end, lost
    result = transcode_job(TranscodeJob(cut, tmp_path / "c.mp4", tmp_path / "c.png", PROFILE))
    assert (result.playable, result.method, result.issue) == (False, "", "undecodable")
    assert "cannot decode" in result.reason
    assert not (tmp_path / "c.mp4").exists() and not (tmp_path / "c.mp4.part").exists()


def test_a_strip_whose_camera_is_faster_than_the_profile_is_refused(env: Env) -> None:
    views = env.tmp / "views"
    for name in ("high", "left", "right"):
        write_clip(views / f"{name}.mp4")
    job = StripJob(tuple(views / f"{n}.mp4" for n in ("high", "left", "right")), env.tmp / "s.mp4",
                   env.tmp / "s.png", ServedProfile.for_height(48, 20))  # fmt: skip
    result = compose_strip(job)
    assert (result.playable, result.issue) == (False, "too_fast") and not (env.tmp / "s.mp4").exists()
