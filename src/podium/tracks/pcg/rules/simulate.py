"""Simulation (``levels`` → ``stability`` and ``images``): the Science Birds evaluator without Unity.

One job per distinct level, self-contained so it can run on any worker: parse the level, measure its stability
(best of up to three Box2D runs, ``physics.py``), render the black-and-white image of the first run's final state
(``render.py``) and write it as the evaluator's PNG. The stability record goes back to the caller, which writes one
``stability/<C>.json`` per character folder in Unity's format; so does, when the job asks for it, the classifier's
input made from the rendered image (``handoff.py``) and the report's thumbnail of it (``thumbnails.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import numpy.typing as npt
from PIL import Image

from podium.core.records import StageFailure
from podium.core.storage.files import write_atomic
from podium.tracks.pcg.classifiers import ClassifierSpec, InputClassifier
from podium.tracks.pcg.handoff import InputMaker, RenderedInput, png_digest
from podium.tracks.pcg.official.jsontext import json_text
from podium.tracks.pcg.official.levelxml import LevelParseError, parse_level
from podium.tracks.pcg.official.png import encode_gray_as_rgba_png
from podium.tracks.pcg.rules.physics import PhysicsParameters, UnsupportedLevel, evaluate_stability
from podium.tracks.pcg.rules.render import render_level
from podium.tracks.pcg.thumbnails import source_digest, thumbnail_of_grey
from podium.tracks.pcg.verdicts import PcgVerdict


@dataclass(frozen=True, slots=True)
class SimulationJob:
    """One level to evaluate: its bytes, where its image goes, the physics to use, and what to hand to classify."""

    tag: str  # the level's path as the stability file names it
    level: bytes
    image_paths: tuple[Path, ...]  # the image of every level file with these bytes (identical levels, one job)
    params: PhysicsParameters
    make_input: InputMaker | None = None  # when set, the classifier's input from the rendered image comes back too
    thumbnail: bool = False  # when set, the report's thumbnail of the image comes back too (keyed by its digest)
    classifier: ClassifierSpec | None = None  # with make_input: that classifier's prediction for the input too


@dataclass(frozen=True, slots=True)
class StabilityRecord:
    """One entry of a stability file's ``raws``."""

    tag: str
    score: float  # float32 value
    starting: int
    moving: int
    runs: int


@dataclass(frozen=True, slots=True)
class SimulatedLevel:
    """One level's stability (or why there is none) and, if asked for, its image's prediction or else its input."""

    outcome: StabilityRecord | StageFailure
    rendered: RenderedInput | None = None
    thumbnail: tuple[str, bytes] | None = None  # (source_digest of the PNG, thumbnail PNG)


def simulate_level(job: SimulationJob) -> SimulatedLevel:
    """Evaluate one level: write its image (to each of its paths), return its stability (or why it has none)."""
    try:
        level = parse_level(job.level)
        result = evaluate_stability(level, job.params)
    except (LevelParseError, UnsupportedLevel) as error:
        return SimulatedLevel(StageFailure(PcgVerdict.MALFORMED_INPUT, str(error)))
    gray = render_level(result.image_poses)
    png = encode_gray_as_rgba_png(gray)
    for image_path in job.image_paths:
        write_atomic(image_path, png)
    rendered = None if job.make_input is None else _rendered_input(job, png, gray)
    # The PNG is opaque grey (R = G = B), so the picture Pillow would decode from it, in grey, is ``gray`` itself.
    thumbnail = (source_digest(png), thumbnail_of_grey(Image.fromarray(gray, "L"))) if job.thumbnail else None
    if math.isnan(result.score):
        # Unity would store NaN and poison every weight; the white image is still written as Unity does.
        failure = StageFailure(PcgVerdict.EMPTY_LEVEL, "the level has no blocks; no stability score (image is blank)")
        return SimulatedLevel(failure, rendered, thumbnail)
    record = StabilityRecord(job.tag, result.score, result.starting, result.moving, result.runs)
    return SimulatedLevel(record, rendered, thumbnail)


def _rendered_input(job: SimulationJob, png: bytes, gray: npt.NDArray[np.uint8]) -> RenderedInput:
    """The classifier's input made from the rendered image and, when the job asks, its prediction."""
    assert job.make_input is not None
    model_input = job.make_input(gray)
    if job.classifier is None:
        return RenderedInput(png_digest(png), model_input)
    classifier = cast(InputClassifier, job.classifier.load())
    (prediction,) = classifier.predict_arrays(model_input[None])
    return RenderedInput(png_digest(png), None, prediction)


def stability_json(records: Sequence[StabilityRecord]) -> str:
    """A ``stability/<C>.json`` as Unity's JsonUtility writes it (4-space indent; ``rate`` = float32 mean)."""
    total = np.float32(0)
    for record in records:
        total = np.float32(total + np.float32(record.score))
    rate = float(np.float32(total / np.float32(len(records)))) if records else 0.0
    document = {
        "dataCount": len(records),
        "rate": rate,
        "raws": [
            {"tag": r.tag, "score": r.score, "startingObjects": r.starting, "movingObjects": r.moving} for r in records
        ],
    }
    return json_text(document, 4)
