"""Diversity (``similarity`` → ``diversity``, where the edition has it): mean cosine distance between trials.

As the official script does it (``docs/rules/pcg.md`` §7): vectors are the 26 softmax probabilities sorted by label
(2024) or the CLS embedding (2025); every pair i < j by position counts, identical vectors included; distances
are SciPy 1.12's ``cosine`` (``1 - u·v/sqrt(u·u · v·v)`` with NumPy dot products, absolute value); their running sum is
divided by the fixed ``0.5*T*(T+1) - T`` pairs of T trials, so missing trials lower the score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from podium.tracks.pcg.editions import TRIALS_PER_CHARACTER, DiversityVector
from podium.tracks.pcg.official.jsontext import json_text


class SimilarityFormatError(ValueError):
    """A similarity file lacks what diversity needs; the message names the missing part."""


def cosine_distance(u: npt.NDArray[np.float64], v: npt.NDArray[np.float64]) -> float:
    """SciPy 1.12 ``scipy.spatial.distance.cosine`` for float64 vectors, bit for bit.

    1.12 computes ``1 - u·v / sqrt((u·u)(v·v))`` with NumPy dot products (later releases differ in the last
    bits), then takes the absolute value.
    """
    uv = np.dot(u, v)
    uu = np.dot(u, u)
    vv = np.dot(v, v)
    return abs(float(1.0 - uv / math.sqrt(uu * vv)))


def _trial_vector(entry: dict[str, Any], kind: DiversityVector) -> list[float]:
    if kind is DiversityVector.CLS_EMBEDDING:
        vector = entry.get("cls_embedding")
        if not isinstance(vector, list):
            raise SimilarityFormatError(
                f"trial {entry.get('id')!r} has no cls_embedding (2025 diversity needs the classifier's CLS vector)"
            )
        return [float(x) for x in vector]
    raws = entry.get("raws")
    if not isinstance(raws, list):
        raise SimilarityFormatError(f"trial {entry.get('id')!r} has no raws list")
    return [float(raw["softmax_prob"]) for raw in sorted(raws, key=lambda raw: raw["label"])]


@dataclass(frozen=True, slots=True)
class DiversityResult:
    """The diversity document of one character, ready to be written."""

    document: dict[str, Any]
    warnings: tuple[str, ...]

    @property
    def rate(self) -> float:
        """The ``diversityRate`` the scoring stage reads."""
        return float(self.document["diversityRate"])

    def json_text(self) -> str:
        """The file text, as Python's ``json.dumps(..., indent=2)`` writes it in the official script."""
        return json_text(self.document, 2)


def diversity_of(
    similarity: dict[str, Any], kind: DiversityVector, trials: int = TRIALS_PER_CHARACTER
) -> DiversityResult:
    """Compute the diversity document from one parsed ``similarity/<C>.json``."""
    warnings: list[str] = []
    try:
        count = int(similarity["count"])
        entries = similarity["similarities"]
    except (KeyError, TypeError, ValueError):
        raise SimilarityFormatError("needs a numeric 'count' and a 'similarities' list") from None
    if count > len(entries):
        warnings.append(f"count is {count} but only {len(entries)} similarities are listed; using those")
        count = len(entries)
    trial_rows = []
    vectors = []
    for entry in entries[:count]:
        vectors.append(np.asarray(_trial_vector(entry, kind), dtype=np.float64))
        trial_rows.append({"trial": str(entry.get("id", "")).split(".")[0], "vector": vectors[-1].tolist()})
    pairs = []
    rate = 0.0
    for i in range(count):
        for j in range(i + 1, count):
            distance = cosine_distance(vectors[i], vectors[j])
            pairs.append(
                {"pair": {"trial1": trial_rows[i]["trial"], "trial2": trial_rows[j]["trial"]}, "distance": distance}
            )
            rate += distance
    document = {
        "diversityRate": rate / (0.5 * trials * (trials + 1) - trials),
        "trials": trial_rows,
        "diversities": pairs,
        "count": count,
    }
    return DiversityResult(document, tuple(warnings))
