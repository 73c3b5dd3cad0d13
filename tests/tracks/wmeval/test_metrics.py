"""SSIM and PSNR for operators: right on known pictures, per view, and written where the report finds them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from podium.tracks.wmeval.cli import wmeval
from podium.tracks.wmeval.metrics import compare, far_from_metric, psnr, spearman, ssim

from .conftest import make_gt, make_team

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
