"""How far podium's physics and the embedded classifier move the 2023 prompt ranking: the report's caveat figures.

On the 150 Unity levels of 2023 (``tests/data/pcg/unity-2023``: five prompts V1–V5 × I, L, U × 10 trials, with
the Unity evaluator's stability files and the 2023 ViT's similarity files), ``measure`` scores three ways with
podium's exact scoring: the organisers' files (their ranking), podium's Box2D physics with the ViT's files, and
podium's physics with the embedded classifier. ``benchmarks/bench_pcg_agreement.py`` prints the figures for
``docs/benchmarks.md``; ``test_agreement.py`` checks that ``src/podium/tracks/pcg/agreement.json`` quotes them.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.stages.classify import run_classify
from podium.tracks.pcg.stages.driver import StageSettings
from podium.tracks.pcg.stages.score import ScoreRun, run_score
from podium.tracks.pcg.stages.simulate import run_simulate

DATA = Path(__file__).resolve().parents[2] / "data" / "pcg" / "unity-2023"


def _copy(target: Path, folders: dict[str, str]) -> Path:
    """A competition root with, per team, the data folders ``folders`` maps (source name → official name)."""
    for team_dir in sorted(p for p in DATA.iterdir() if p.is_dir()):
        for source, name in folders.items():
            shutil.copytree(team_dir / source, target / team_dir.name / name)
    return target


def _ranks(values: list[float]) -> npt.NDArray[np.float64]:
    """Average ranks (1 = highest), ties sharing their mean rank."""
    array = np.asarray(values)
    order = (-array).argsort(kind="stable")
    ranks = np.empty(len(array))
    ranks[order] = np.arange(1, len(array) + 1)
    for value in set(values):
        tied = array == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation (Pearson's on average ranks)."""
    return pearson(list(_ranks(a)), list(_ranks(b)))


def pearson(a: list[float], b: list[float]) -> float:
    """Pearson's correlation."""
    return float(np.corrcoef(np.asarray(a, dtype=float), np.asarray(b, dtype=float))[0, 1])


def _prompts(run: ScoreRun) -> dict[str, float]:
    (scores,) = (run.scores or {}).values()
    return {p.team: float(p.prompt) for p in scores.prompts}


def _similarities(run: ScoreRun) -> dict[tuple[str, str, int], float]:
    """Per trial of the letters the data has (scoring lists all 26, the others as zeros)."""
    letters = {p.stem for p in DATA.glob("*/levels/*")}
    (scores,) = (run.scores or {}).values()
    return {(t.team, t.character, t.trial): float(t.similarity) for t in scores.trials if t.character in letters}


@dataclass(frozen=True, slots=True)
class Agreement:
    """Each scoring's ranking (best first) and Spearman with the organisers'; embedded-vs-ViT per-trial Pearson."""

    rankings: dict[str, list[str]]
    spearman: dict[str, float]
    similarity_pearson: float
    trials: int


def measure() -> Agreement:
    """Score three ways and compare (about 20 s)."""
    year = edition(2023)
    with tempfile.TemporaryDirectory() as tmp:
        official = _copy(Path(tmp) / "official", {"stability": "stability", "similarity-vit-base-letter": "similarity"})
        physics_vit = _copy(Path(tmp) / "physics-vit", {"levels": "levels", "similarity-vit-base-letter": "similarity"})
        run_simulate(open_competition(physics_vit, edition(2024)))
        embedded = _copy(Path(tmp) / "embedded", {"levels": "levels"})
        run_simulate(open_competition(embedded, edition(2024)))
        run_classify(open_competition(embedded, year), StageSettings(classifier=ClassifierSpec("embedded")))
        runs = {name: run_score(open_competition(root, year)) for name, root in
                (("official", official), ("physics+vit", physics_vit), ("physics+embedded", embedded))}  # fmt: skip
    teams = sorted(_prompts(runs["official"]))
    reference = [_prompts(runs["official"])[t] for t in teams]
    vit, cnn = _similarities(runs["physics+vit"]), _similarities(runs["physics+embedded"])
    keys = sorted(vit)
    return Agreement(
        rankings={name: [r.team for r in run.leaderboard] for name, run in runs.items()},
        spearman={name: spearman(reference, [_prompts(run)[t] for t in teams]) for name, run in runs.items()},
        similarity_pearson=pearson([vit[k] for k in keys], [cnn[k] for k in keys]),
        trials=len(keys),
    )
