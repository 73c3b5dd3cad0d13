"""An automatic column for operators: SSIM and PSNR of each team video against its reference, never a score.

The rubric is human judgement (docs/rules/wmeval.md); these figures only help an operator give a second look to a
rating far from what the pixels say. Per video, on the CPU with no model weights: the served generated video and the
GT strip are decoded in grey, each cut to where its picture lies in the served frame (the padding is not the
team's); the GT strip is laid out like the team's (scaled to the same size: both are the cameras side by side, and
both are served at one frame rate, so frame ``i`` of each is the same moment); then SSIM (Wang et al. 2004, on 7×7
uniform windows) and PSNR are taken on the final frame and averaged over ``k`` evenly spaced frames, for the whole
strip and for each camera's view (the strip in equal thirds). ``podium wmeval metrics`` writes them to
``metrics.json`` in the media store; the report reads it when there is one and says how the metric ranks the teams
against the human scores (Spearman), and which ratings are far from it, labelled as outside the rubric.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import Engine, select

from podium.tracks.wmeval.kinds import TeamKind
from podium.tracks.wmeval.media import pyav
from podium.tracks.wmeval.schema import gt, teams, videos
from podium.tracks.wmeval.submission_folders import CAMERAS

METRICS_FILE = "metrics.json"
WINDOW = 7
_C1, _C2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2

Grey = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Pair:
    """SSIM (0-1) and PSNR (dB, capped at 100 for identical pictures) of one comparison, whole and per view."""

    ssim: float
    psnr: float
    views_ssim: tuple[float, ...]
    views_psnr: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class VideoMetrics:
    """One team video against its reference: the final frame, and the mean over the sampled frames."""

    final: Pair
    sampled: Pair
    frames: int


def psnr(a: Grey, b: Grey) -> float:
    """Peak signal-to-noise ratio of two 8-bit grey pictures, dB (100 for identical ones)."""
    mse = float(np.mean((a - b) ** 2))
    return 100.0 if mse == 0 else float(min(100.0, 10 * np.log10(255.0**2 / mse)))


def ssim(a: Grey, b: Grey) -> float:
    """Mean structural similarity of two grey pictures over every ``WINDOW``×``WINDOW`` window."""
    if min(a.shape) < WINDOW:
        return 1.0 if np.array_equal(a, b) else float(1 - min(1.0, np.mean(np.abs(a - b)) / 255))
    mean_a, mean_b = _box(a), _box(b)
    var_a, var_b = _box(a * a) - mean_a**2, _box(b * b) - mean_b**2
    cov = _box(a * b) - mean_a * mean_b
    top = (2 * mean_a * mean_b + _C1) * (2 * cov + _C2)
    bottom = (mean_a**2 + mean_b**2 + _C1) * (var_a + var_b + _C2)
    return float(np.mean(top / bottom))


def _box(x: Grey) -> Grey:
    """The mean of every ``WINDOW``×``WINDOW`` window (valid positions only), by summed-area table."""
    table = np.pad(x, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    w = WINDOW
    sums = table[w:, w:] - table[:-w, w:] - table[w:, :-w] + table[:-w, :-w]
    return sums / (w * w)  # type: ignore[no-any-return]


def compare(a: Grey, b: Grey) -> Pair:
    """``a`` against ``b`` (same size), whole and in ``CAMERAS`` equal views side by side."""
    width = a.shape[1] // len(CAMERAS)
    views = [(a[:, i * width : (i + 1) * width], b[:, i * width : (i + 1) * width]) for i in range(len(CAMERAS))]
    return Pair(
        round(ssim(a, b), 4),
        round(psnr(a, b), 2),
        tuple(round(ssim(x, y), 4) for x, y in views),
        tuple(round(psnr(x, y), 2) for x, y in views),
    )


Box = tuple[int, int, int, int]  # x, y, width, height of the picture in a served frame


def grey_frames(path: Path, box: Box | None = None, size: tuple[int, int] | None = None) -> list[Grey]:
    """Every frame of ``path`` in grey, cut to ``box`` and then scaled to ``size`` (width, height) where given."""
    av = pyav()
    frames = []
    with av.open(str(path)) as container:
        for frame in container.decode(container.streams.video[0]):
            grey = frame.to_ndarray(format="gray")
            if box is not None:
                x, y, w, h = box
                grey = grey[y : y + h, x : x + w]
            if size is not None and grey.shape[::-1] != size:
                grey = av.VideoFrame.from_ndarray(np.ascontiguousarray(grey), "gray").reformat(*size).to_ndarray()
            frames.append(grey.astype(np.float64))
    return frames


def video_metrics(
    generated: Path, reference: Path, k: int = 8, boxes: tuple[Box | None, Box | None] = (None, None)
) -> VideoMetrics:
    """The team's video against the GT strip laid out like it, final frame and ``k`` evenly spaced frames.

    ``boxes``: where the picture lies in each served file (from its probe), None for the whole frame.
    """
    team = grey_frames(generated, boxes[0])
    height, width = team[0].shape
    gt = grey_frames(reference, boxes[1], (width, height))
    count = min(len(team), len(gt))
    picks = sorted({round(i * (count - 1) / max(k - 1, 1)) for i in range(min(k, count))})
    sampled = [compare(team[i], gt[i]) for i in picks]
    mean = Pair(
        round(float(np.mean([p.ssim for p in sampled])), 4),
        round(float(np.mean([p.psnr for p in sampled])), 2),
        tuple(round(float(np.mean(v)), 4) for v in zip(*(p.views_ssim for p in sampled), strict=True)),
        tuple(round(float(np.mean(v)), 2) for v in zip(*(p.views_psnr for p in sampled), strict=True)),
    )
    return VideoMetrics(compare(team[-1], gt[-1]), mean, len(picks))


def write_metrics(path: Path, found: Mapping[str, VideoMetrics]) -> None:
    """``found`` (by ``team/task/episode``) as JSON."""
    path.write_text(json.dumps({key: asdict(m) for key, m in sorted(found.items())}, indent=1), "utf-8")


def read_metrics(path: Path) -> dict[str, dict[str, Any]]:
    """What ``write_metrics`` wrote, or nothing where there is no such file (or not one podium wrote)."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties ranked by their mean place); None for fewer than 3 pairs or no spread."""
    if len(xs) < 3:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    if np.std(rx) == 0 or np.std(ry) == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def _ranks(values: Sequence[float]) -> npt.NDArray[np.float64]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = np.zeros(len(values))
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        ranks[[order[n] for n in range(i, j + 1)]] = (i + j) / 2
        i = j + 1
    return ranks


def far_from_metric(ratings: Iterable[tuple[str, str, int, float]], gap: int = 2) -> list[tuple[str, str, int, int]]:
    """Ratings ``(key, task, score, ssim)`` whose score is ``gap`` or more from the metric's, per task.

    The metric's score is the SSIM's place among the task's ratings, spread over 0-3 (lowest 0, highest 3).
    """
    by_task: dict[str, list[tuple[str, int, float]]] = {}
    for key, task, score, value in ratings:
        by_task.setdefault(task, []).append((key, score, value))
    far = []
    for task, rows in sorted(by_task.items()):
        if len(rows) < 4:
            continue  # too few to place anything
        places = _ranks([value for _, _, value in rows]) / (len(rows) - 1)
        for (key, score, _), place in zip(rows, places, strict=True):
            expected = int(round(3 * place))
            if abs(score - expected) >= gap:
                far.append((key, task, score, expected))
    return far


def measure_all(engine: Engine, root: Path, k: int = 8) -> dict[str, VideoMetrics]:
    """Every playable team video against its GT strip, by ``team/task/episode`` (gold sets are not teams)."""
    query = (
        select(
            teams.c.name,
            videos.c.task,
            videos.c.episode,
            videos.c.video_path,
            gt.c.video_path.label("ref"),
            videos.c.probe_json,
            gt.c.probe_json.label("ref_probe"),
        )  # fmt: skip
        .join(teams, teams.c.id == videos.c.team_id)
        .join(gt, (gt.c.task == videos.c.task) & (gt.c.episode == videos.c.episode))
        .where(videos.c.playable, gt.c.playable, teams.c.kind == TeamKind.TEAM)
    )
    with engine.connect() as db:
        rows = db.execute(query).all()
    return {
        f"{r.name}/{r.task}/{r.episode}": video_metrics(
            root / r.video_path, root / r.ref, k, (_picture_box(r.probe_json), _picture_box(r.ref_probe))
        )
        for r in rows
    }


def _picture_box(probe_json: str | None) -> Box | None:
    box = (json.loads(probe_json or "{}").get("output") or {}).get("box")
    return None if box is None else (int(box[0]), int(box[1]), int(box[2]), int(box[3]))
