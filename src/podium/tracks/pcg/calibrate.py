"""Calibration against the Unity oracle: our stability scores and images next to Unity's, level by level.

Given a folder in the layout of ``data/pcg/unity-2023`` (``<TEAM>/levels``, ``<TEAM>/stability``,
``<TEAM>/images`` as Unity wrote them), evaluate every level with podium and report, per level, Unity's score and
ours and the black-pixel IoU of the two images, then the summary figures the acceptance thresholds are stated in.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from podium.core.errors import InputError
from podium.tracks.pcg.official.levelxml import parse_level
from podium.tracks.pcg.rules.physics import PhysicsParameters, evaluate_stability
from podium.tracks.pcg.rules.render import level_png


@dataclass(frozen=True, slots=True)
class LevelComparison:
    """One level: Unity's stability score and ours, and how alike the two images are."""

    team: str
    character: str
    level: str
    unity_score: float
    our_score: float
    image_iou: float
    image_format_equal: bool  # size, mode and the two colours are the same

    @property
    def exact(self) -> bool:
        """Whether the two scores are the same float32 value."""
        return self.unity_score == self.our_score


@dataclass(frozen=True, slots=True)
class CalibrationSummary:
    """The figures the acceptance thresholds are stated in."""

    levels: int
    stable_agreement: int  # both call it stable (score 1) or both not
    unity_unstable: int
    unity_unstable_found: int
    false_unstable: int
    exact_scores: int
    mean_abs_error: float
    both_stable_iou_median: float
    both_stable_iou_min: float
    collapsed_iou_median: float
    image_format_equal: int


@dataclass(frozen=True, slots=True)
class ImageMask:
    """The black pixels of an evaluator image, and whether it has the evaluator's exact format."""

    black: npt.NDArray[np.bool_]
    well_formed: bool


def black_mask(png: bytes | Path) -> ImageMask:
    """The black pixels of an evaluator image, and whether it has the evaluator's exact format."""
    image = Image.open(io.BytesIO(png) if isinstance(png, bytes) else png)
    pixels = np.asarray(image.convert("RGBA"))
    red = pixels[..., 0]
    pure = bool(
        np.all((red == 0) | (red == 255))
        and np.all(pixels[..., 1] == red)
        and np.all(pixels[..., 2] == red)
        and np.all(pixels[..., 3] == 255)
    )
    well_formed = image.size == (1024, 1024) and image.mode == "RGBA" and pure
    return ImageMask(red == 0, well_formed)


def iou(a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]) -> float:
    """Intersection over union of two masks (1.0 when both are empty)."""
    union = int(np.count_nonzero(a | b))
    return 1.0 if union == 0 else int(np.count_nonzero(a & b)) / union


def compare_with_unity(oracle: Path, params: PhysicsParameters | None = None) -> Iterator[LevelComparison]:
    """Evaluate every level of ``oracle`` and compare it with Unity's outputs."""
    params = params or PhysicsParameters()
    files = sorted(oracle.glob("*/stability/*.json"))
    if not files:
        raise InputError(
            "no <TEAM>/stability/<C>.json files", path=oracle, fix="pass a folder like data/pcg/unity-2023"
        )
    for stability_file in files:
        team, character = stability_file.parent.parent.name, stability_file.stem
        for raw in json.loads(stability_file.read_text("utf-8"))["raws"]:
            name = raw["tag"].replace("\\", "/").rsplit("/", 1)[-1]
            level_path = oracle / team / "levels" / character / name
            result = evaluate_stability(parse_level(level_path.read_bytes()), params)
            ours_mask = black_mask(level_png(result.image_poses))
            unity_mask = black_mask(oracle / team / "images" / character / f"{name.rsplit('.', 1)[0]}.png")
            ours, ours_ok = ours_mask.black, ours_mask.well_formed
            unity, unity_ok = unity_mask.black, unity_mask.well_formed
            yield LevelComparison(
                team, character, name, float(raw["score"]), result.score, iou(ours, unity), ours_ok and unity_ok
            )


def summarize(rows: list[LevelComparison]) -> CalibrationSummary:
    """The acceptance figures of a calibration run."""
    both_stable = [r.image_iou for r in rows if r.unity_score == 1.0 and r.our_score == 1.0]
    collapsed = [r.image_iou for r in rows if r.unity_score < 1.0]
    return CalibrationSummary(
        levels=len(rows),
        stable_agreement=sum((r.unity_score == 1.0) == (r.our_score == 1.0) for r in rows),
        unity_unstable=len(collapsed),
        unity_unstable_found=sum(r.unity_score < 1.0 and r.our_score < 1.0 for r in rows),
        false_unstable=sum(r.unity_score == 1.0 and r.our_score < 1.0 for r in rows),
        exact_scores=sum(r.exact for r in rows),
        mean_abs_error=float(np.mean([abs(r.unity_score - r.our_score) for r in rows])) if rows else 0.0,
        both_stable_iou_median=float(np.median(both_stable)) if both_stable else float("nan"),
        both_stable_iou_min=min(both_stable, default=float("nan")),
        collapsed_iou_median=float(np.median(collapsed)) if collapsed else float("nan"),
        image_format_equal=sum(r.image_format_equal for r in rows),
    )
