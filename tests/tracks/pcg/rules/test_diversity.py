from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import cosine  # scipy==1.12.0, the version the official script pins

from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import DiversityVector, edition
from podium.tracks.pcg.rules.diversity import SimilarityFormatError, cosine_distance, diversity_of
from podium.tracks.pcg.stages.diversity import run_diversity

LETTERS = [chr(65 + i) for i in range(26)]


def similarity_document(vectors: list[list[float]], with_cls: bool = False) -> dict[str, object]:
    entries = []
    for n, vector in enumerate(vectors, start=1):
        raws = [
            {"id": f"t_A_{n}.png", "label": label, "softmax_prob": p} for label, p in zip(LETTERS, vector, strict=True)
        ]
        random.Random(n).shuffle(raws)  # the script sorts raws by label itself
        entry: dict[str, object] = {"id": f"t_A_{n}.png", "raws": raws}
        if with_cls:
            entry["cls_embedding"] = [x * 3 - 1 for x in vector]
        entries.append(entry)
    return {"count": len(vectors), "similarityRate": 0, "trials": [], "similarities": entries}


def softmax_vectors(count: int, seed: int) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        logits = rng.normal(size=26) * 3
        out.append((np.exp(logits) / np.exp(logits).sum()).tolist())
    return out


def test_cosine_is_scipy_1_12_bit_for_bit() -> None:
    rng = np.random.default_rng(7)
    for size in (2, 7, 26, 768):
        for _ in range(200):
            u, v = rng.random(size), rng.normal(size=size)
            assert cosine_distance(u, v) == cosine(u, v)
    same = rng.random(26)
    assert cosine_distance(same, same) == cosine(same, same)


def test_diversity_sums_pairs_and_divides_by_45() -> None:
    vectors = softmax_vectors(10, seed=1)
    result = diversity_of(similarity_document(vectors), DiversityVector.SOFTMAX)
    expected = 0.0
    for i in range(10):
        for j in range(i + 1, 10):
            expected += cosine(vectors[i], vectors[j])
    assert result.rate == expected / 45
    document = result.document
    assert list(document) == ["diversityRate", "trials", "diversities", "count"]
    assert len(document["diversities"]) == 45 and document["count"] == 10
    assert document["diversities"][0]["pair"] == {"trial1": "t_A_1", "trial2": "t_A_2"}
    assert document["trials"][0]["vector"] == vectors[0]


def test_missing_trials_lower_diversity_and_identical_trials_count() -> None:
    vectors = softmax_vectors(4, seed=2)
    four = diversity_of(similarity_document(vectors), DiversityVector.SOFTMAX)
    assert len(four.document["diversities"]) == 6
    assert four.rate == sum(cosine(vectors[i], vectors[j]) for i in range(4) for j in range(i + 1, 4)) / 45
    assert diversity_of(similarity_document(vectors[:1]), DiversityVector.SOFTMAX).rate == 0
    twins = diversity_of(similarity_document([vectors[0], vectors[0]]), DiversityVector.SOFTMAX)
    assert len(twins.document["diversities"]) == 1 and twins.rate == 0


def test_2025_uses_the_cls_embedding_and_says_when_it_is_missing() -> None:
    vectors = softmax_vectors(3, seed=3)
    result = diversity_of(similarity_document(vectors, with_cls=True), DiversityVector.CLS_EMBEDDING)
    cls = [[x * 3 - 1 for x in v] for v in vectors]
    assert result.rate == sum(cosine(cls[i], cls[j]) for i in range(3) for j in range(i + 1, 3)) / 45
    with pytest.raises(SimilarityFormatError, match="cls_embedding"):
        diversity_of(similarity_document(vectors), DiversityVector.CLS_EMBEDDING)


def test_diversity_stage_on_the_unity_similarity_files(pcg_data: Path, tmp_path: Path) -> None:
    root = tmp_path / "competition"
    for team_dir in sorted((pcg_data / "unity-2023").glob("v*")):
        target = root / team_dir.name / "similarity"
        target.mkdir(parents=True)
        for source in (team_dir / "similarity-vit-base-letter").iterdir():
            (target / source.name).write_bytes(source.read_bytes())
    (root / "v1" / "similarity" / "L.json").write_text("{broken")
    summary = run_diversity(open_competition(root, edition(2024)))
    verdicts = [e.verdict for e in summary.events]
    assert verdicts.count("ok") == 14 and verdicts.count("malformed_input") == 1
    rate = json.loads((root / "v2" / "diversity" / "U.json").read_text())["diversityRate"]
    assert 0 < rate < 1
    again = run_diversity(open_competition(root, edition(2024)))
    assert [e.verdict for e in again.events].count("skipped") == 14
