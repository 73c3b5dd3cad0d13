"""Similarity (``images`` → ``similarity``): how much each level image looks like its target letter.

The official similarity script's format (``docs/rules/pcg.md`` §6), written with ``json.dumps(indent=2)``: ``count``,
``similarityRate`` (mean, unused downstream), ``trials`` [{id, label, similarity}], ``similarities`` [{id, raws:
26 × {id, label, softmax_prob}, and for 2025 ``cls_embedding``}]. Every file of ``images/<C>/`` except
``*_raw.png`` is classified; similarity is the probability of the folder's letter.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from PIL import Image

from podium.core.records import StageFailure
from podium.tracks.pcg.classifiers import LETTERS, ClassifierSpec, InputClassifier, LetterPrediction
from podium.tracks.pcg.handoff import ModelInput
from podium.tracks.pcg.official.jsontext import json_text
from podium.tracks.pcg.verdicts import PcgVerdict


@dataclass(frozen=True, slots=True)
class ClassifiedImage:
    """One image of a character folder and what the classifier said about it."""

    image_id: str  # the file name, e.g. team_A_1.png
    prediction: LetterPrediction


@dataclass(frozen=True, slots=True)
class ClassifyJob:
    """One character folder's images, classified together.

    Each image is its file name and either the bytes the caller read or, for an image simulate rendered in the same
    run (``handoff.py``), the model input made from it, so that its bytes are neither sent nor decoded.
    """

    team: str
    char: str
    images: tuple[tuple[str, bytes | ModelInput], ...]
    classifier: ClassifierSpec
    ledger_key: str  # what the similarity file is recorded under once written (the caller's resumability key)


@dataclass(frozen=True, slots=True)
class ImageOutcome:
    """One image of a job: its file name and its prediction, or why it is not an image."""

    name: str
    outcome: LetterPrediction | StageFailure


def classify_images(job: ClassifyJob) -> list[ImageOutcome]:
    """Each image's prediction, or why it is not an image, in the job's order."""
    outcomes: dict[str, LetterPrediction | StageFailure] = {}
    handed: dict[str, ModelInput] = {}
    images: dict[str, Image.Image] = {}
    for name, data in job.images:
        if not isinstance(data, bytes):
            handed[name] = data
            continue
        try:
            image = Image.open(io.BytesIO(data))
            image.load()
            images[name] = image
        except (OSError, SyntaxError, ValueError) as error:
            outcomes[name] = StageFailure(PcgVerdict.MALFORMED_INPUT, f"not an image: {error}")
    if handed:
        # only a classifier that takes inputs gets handed ones; every image goes through inputs, in the job's
        # order, so the batches are the ones ``predict`` would have made
        classifier = cast(InputClassifier, job.classifier.load())
        names = [name for name, _ in job.images if name in handed or name in images]
        inputs = np.stack([handed[n] if n in handed else classifier.image_input(images[n]) for n in names])
        outcomes.update(zip(names, classifier.predict_arrays(inputs), strict=True))
    elif images:
        outcomes.update(zip(images, job.classifier.load().predict(list(images.values())), strict=True))
    return [ImageOutcome(name, outcomes[name]) for name, _ in job.images]


def is_level_image(file_name: str) -> bool:
    """Whether the official script classifies this file (everything but the textured ``*_raw.png``)."""
    return not file_name.endswith("_raw.png")


def similarity_json(letter: str, images: Sequence[ClassifiedImage], with_embedding: bool) -> str:
    """The ``similarity/<C>.json`` text for the images of letter ``letter``."""
    index = LETTERS.index(letter)
    trials = [
        {"id": image.image_id, "label": letter, "similarity": image.prediction.probabilities[index]} for image in images
    ]
    similarities = []
    for image in images:
        entry: dict[str, object] = {
            "id": image.image_id,
            "raws": [
                {"id": image.image_id, "label": label, "softmax_prob": probability}
                for label, probability in zip(LETTERS, image.prediction.probabilities, strict=True)
            ],
        }
        if with_embedding and image.prediction.embedding is not None:
            entry["cls_embedding"] = list(image.prediction.embedding)
        similarities.append(entry)
    rate = sum(t["similarity"] for t in trials) / len(trials) if trials else 0.0  # type: ignore[misc]
    document = {"count": len(images), "similarityRate": rate, "trials": trials, "similarities": similarities}
    return json_text(document, 2)
