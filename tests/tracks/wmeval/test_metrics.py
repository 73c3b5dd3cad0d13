"""SSIM and PSNR for operators: right on known pictures, per view, and written where the report finds them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from podium.tracks.wmeval.cli import wmeval
from podium.tracks.wmeval.media import ServedProfile, StripJob, TranscodeJob, compose_strip, transcode_job
from podium.tracks.wmeval.metrics import compare, far_from_metric, grey_frames, psnr, spearman, ssim, video_metrics

from .conftest import make_gt, make_team, write_clip
from .videos import write_video

RNG = np.random.default_rng(7)
PICTURE = RNG.integers(0, 256, (48, 192)).astype(np.float64)


def test_identical_pictures_are_perfect_and_noise_lowers_both_figures_in_order() -> None:
    assert ssim(PICTURE, PICTURE) == 1.0 and psnr(PICTURE, PICTURE) == 100.0
    light = np.clip(PICTURE + RNG.normal(0, 5, PICTURE.shape), 0, 255)
    heavy = np.clip(PICTURE + RNG.normal(0, 40, PICTURE.shape), 0, 255)
    assert 1.0 > ssim(PICTURE, light) > ssim(PICTURE, heavy) > 0
    assert 100.0 > psnr(PICTURE, light) > psnr(PICTURE, heavy) > 10
    assert abs(psnr(PICTURE, PICTURE + 1) - 48.13) < 0.01  # MSE 1: 10·log10(255²)


def test_a_change_in_one_camera_view_shows_in_that_view_only() -> None:
    changed = PICTURE.copy()
    changed[:, 64:128] = 255 - changed[:, 64:128]  # the left wrist view, inverted
    pair = compare(PICTURE, changed)
    assert pair.views_ssim[0] == pair.views_ssim[2] == 1.0 and pair.views_ssim[1] < 0.5
    assert pair.views_psnr[0] == 100.0 and pair.views_psnr[1] < 20


def test_the_padding_of_a_served_frame_is_left_out(tmp_path: Path) -> None:
    profile = ServedProfile.for_height(48, 24)  # 192x48
    views = [write_clip(tmp_path / f"view{n}.mp4", seed=n, frames=24) for n in range(3)]
    strip = compose_strip(StripJob(tuple(views), tmp_path / "gt.mp4", tmp_path / "gt.png", profile))
    # a team whose video is the reference itself at 2:1, so it is served inside a box of the 4:1 frame
    narrow = [frame.astype(np.uint8) for frame in grey_frames(tmp_path / "gt.mp4", size=(96, 48))]
    write_video(tmp_path / "team.mp4", [np.repeat(f[:, :, None], 3, axis=2) for f in narrow], fps=24)
    team = transcode_job(TranscodeJob(tmp_path / "team.mp4", tmp_path / "served.mp4", tmp_path / "s.png", profile))
    assert team.output is not None and team.output.box == (48, 0, 96, 48)
    assert strip.output is not None and strip.output.box == (0, 0, 192, 48)
    boxed = video_metrics(tmp_path / "served.mp4", tmp_path / "gt.mp4", 4, (team.output.box, strip.output.box))
    whole = video_metrics(tmp_path / "served.mp4", tmp_path / "gt.mp4", 4)
    assert boxed.sampled.ssim > 0.8 > whole.sampled.ssim  # the same pictures, once the black bars are not compared


def test_rank_correlation_and_ratings_far_from_the_metric() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert spearman([1, 2], [1, 2]) is None  # too few to say
    ratings = [("a", "task1", 3, 0.1), ("b", "task1", 1, 0.2), ("c", "task1", 2, 0.6), ("d", "task1", 3, 0.9)]
    assert far_from_metric(ratings) == [("a", "task1", 3, 0)]  # a 3 where the pixels are the task's worst


def test_the_metrics_command_measures_every_team_video_and_the_report_shows_them(tmp_path: Path) -> None:
    db, media = f"sqlite:///{tmp_path / 'w.sqlite3'}", str(tmp_path / "media")

    def run(*args: str) -> str:
        result = CliRunner().invoke(wmeval, [*args, "--db", db], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    run("ingest-gt", str(make_gt(tmp_path / "gt", {"task1": 2})), "--height", "48", "--media", media, "--workers", "1")
    files = {"task1/episode_0.mp4": "h264", "task1/episode_1.mp4": "mp4v"}
    run("ingest-team", "red", str(make_team(tmp_path / "red", files)), "--media", media, "--workers", "1")
    assert "2 video(s) measured" in run("metrics", "--frames", "3", "--media", media)
    measured = json.loads((tmp_path / "media" / "metrics.json").read_text())
    assert sorted(measured) == ["red/task1/episode_0", "red/task1/episode_1"]
    for value in measured.values():
        assert 0 <= value["sampled"]["ssim"] <= 1 and len(value["final"]["views_psnr"]) == 3 and value["frames"] == 3
    run("report", str(tmp_path / "report.html"))
    assert "Automatic metrics: outside the rubric" in (tmp_path / "report.html").read_text()
