"""Statistics beside the official scores: how sure the ranking is and how well the annotators agree.

- ``bootstrap``: per-team percentile intervals of the final score, resampling episodes within each task with the
  GT denominator kept (docs/rules/wmeval.md §2.5), through the core's paired bootstrap
  (``podium.core.ranking.bootstrap``). The same resampled episodes are used for every team in a replicate, because every
  team is scored on the same episodes by the same annotators (A3): that pairing is what lets us say which *neighbours*
  cannot be told apart — the interval of their difference contains 0.
- ``krippendorff_alpha``: ordinal Krippendorff's alpha from the coincidence matrix (Krippendorff 2011, "Computing
  Krippendorff's Alpha-Reliability"), any number of raters, missing ratings allowed; written with NumPy here
  rather than adding a dependency for forty lines.
- ``agreement``: exact and within-one agreement over all pairs of ratings of one video (the overlap set).
- ``pair_agreement``: the same per pair of annotators (the videos both scored, how often they gave the same score
  or one apart, their mean difference): which two people read the rubric differently.
- ``time_on_item``: per annotator, the median time from first opening an item to first answering it.
- ``annotator_quality``: each annotator's severity (mean of their score minus the other annotators' mean on the
  same overlap video; negative = harsher) and their accuracy on gold items.

The numbers come from the primary and overlap items (agreement) and gold items (accuracy) of ``collect_ratings``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from sqlalchemy import Engine, select

from podium.core.clock import parse_utc
from podium.core.ranking.bootstrap import Draws, Uncertainty, paired_bootstrap
from podium.tracks.wmeval.kinds import ItemKind, Role
from podium.tracks.wmeval.schema import item_times, items, scores, users
from podium.tracks.wmeval.score import Collected, EpisodeStatus, TeamScore

CONFIDENCE = 0.95
RESAMPLES = 2000


@dataclass(frozen=True, slots=True)
class Agreement:
    """Agreement on the videos scored by several annotators."""

    units: int
    pairs: int
    alpha: float | None  # None: too few ratings, or no variation at all
    exact: float | None
    within_one: float | None


@dataclass(frozen=True, slots=True)
class AnnotatorQuality:
    """One annotator: items scored, mean score, severity on shared videos, accuracy on gold items."""

    annotator: str
    scored: int
    mean: float | None
    severity: float | None
    gold_items: int
    gold_accuracy: float | None


def bootstrap(
    collected: Collected, ranked: Sequence[TeamScore], resamples: int = RESAMPLES, seed: int = 0
) -> Uncertainty:
    """Intervals of every team's final score and which neighbours differ (the core's paired bootstrap).

    Episodes are drawn within each task, and the exact rule scores each replicate: a task's mean over its GT
    episodes, the final the mean over every task.
    """
    names = [t.team for t in ranked]
    tasks = [t for t in collected.tasks if collected.episodes[t]]
    values = {
        task: np.array([[_value(collected, team, task, e) for e in collected.episodes[task]] for team in names],
                       dtype=float).reshape(len(names), len(collected.episodes[task]))
        for task in tasks
    }  # fmt: skip

    def finals(draws: Draws) -> npt.NDArray[np.float64]:
        total = np.zeros((resamples, len(names)))
        for task in tasks:
            total += values[task][:, draws[task]].mean(axis=2).T  # (resamples, teams): each replicate's task score
        return total / max(1, len(collected.tasks))

    strata = {task: len(collected.episodes[task]) for task in tasks}
    return paired_bootstrap(names, strata, finals, resamples=resamples, seed=seed, confidence=CONFIDENCE)


def _value(collected: Collected, team: str, task: str, episode: str) -> int:
    result = collected.results.get(team, {}).get(task, {}).get(episode)
    return result.value if result is not None and result.status is EpisodeStatus.SCORED else 0


def krippendorff_alpha(units: Sequence[Sequence[int]], values: Sequence[int] = (0, 1, 2, 3)) -> float | None:
    """Ordinal alpha of ``units`` (each the ratings one video got); units with fewer than two ratings are unpaired."""
    index = {v: i for i, v in enumerate(values)}
    coincidence = np.zeros((len(values), len(values)))
    for ratings in units:
        m = len(ratings)
        if m < 2:
            continue
        for a in range(m):
            for b in range(m):
                if a != b:
                    coincidence[index[ratings[a]], index[ratings[b]]] += 1 / (m - 1)
    marginals = coincidence.sum(axis=1)
    n = marginals.sum()
    if n <= 1:
        return None
    delta = np.zeros_like(coincidence)
    for c in range(len(values)):
        for k in range(len(values)):
            lo, hi = min(c, k), max(c, k)
            delta[c, k] = (marginals[lo : hi + 1].sum() - (marginals[c] + marginals[k]) / 2) ** 2
    expected = (np.outer(marginals, marginals) * delta).sum()
    if expected == 0:
        return None  # every rating the same: agreement is perfect but alpha is undefined
    return float(1 - (n - 1) * (coincidence * delta).sum() / expected)


def agreement(units: Sequence[Sequence[int]]) -> Agreement:
    """Alpha, exact and within-one agreement over every pair of ratings of one unit."""
    pairs = [(r[a], r[b]) for r in units for a in range(len(r)) for b in range(a + 1, len(r))]
    shared = [r for r in units if len(r) > 1]
    if not pairs:
        return Agreement(len(shared), 0, None, None, None)
    exact = sum(a == b for a, b in pairs) / len(pairs)
    within = sum(abs(a - b) <= 1 for a, b in pairs) / len(pairs)
    return Agreement(len(shared), len(pairs), krippendorff_alpha(shared), exact, within)


@dataclass(frozen=True, slots=True)
class Ratings:
    """Every stored score, by video (primary and overlap items) and by annotator (gold items apart)."""

    by_video: dict[int, dict[str, int]]  # video id -> annotator -> score
    gold: dict[str, list[tuple[int, int]]]  # annotator -> (score, expected)
    scored: dict[str, list[int]]  # annotator -> every score they gave


def collect_ratings(engine: Engine) -> Ratings:
    """Every score with its annotator and item kind; can't-judge answers are no rating and are left out."""
    query = (
        select(users.c.name, items.c.kind, items.c.video_id, items.c.expected, scores.c.score)
        .join(items, items.c.id == scores.c.item_id)
        .join(users, users.c.id == items.c.annotator_id)
        .where(scores.c.score.is_not(None))
    )
    by_video: dict[int, dict[str, int]] = defaultdict(dict)
    gold: dict[str, list[tuple[int, int]]] = defaultdict(list)
    scored: dict[str, list[int]] = defaultdict(list)
    with engine.connect() as db:
        for r in db.execute(query):
            scored[r.name].append(r.score)
            if r.kind == ItemKind.GOLD:
                gold[r.name].append((r.score, r.expected))
            else:
                by_video[r.video_id][r.name] = r.score
        for name in db.execute(select(users.c.name).where(users.c.role == Role.ANNOTATOR)).scalars():
            scored.setdefault(name, [])
    return Ratings(dict(by_video), dict(gold), dict(scored))


def overlap_agreement(ratings: Ratings) -> Agreement:
    """Agreement on the videos that several annotators scored."""
    return agreement([list(r.values()) for r in ratings.by_video.values() if len(r) > 1])


@dataclass(frozen=True, slots=True)
class PairAgreement:
    """Two annotators on the videos both scored."""

    first: str
    second: str
    shared: int
    exact: float
    within_one: float
    mean_difference: float  # first's score minus second's: positive when the first is the more lenient


def pair_agreement(ratings: Ratings) -> list[PairAgreement]:
    """Every pair of annotators that share a video, by name."""
    shared: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for by in ratings.by_video.values():
        names = sorted(by)
        for i, first in enumerate(names):
            for second in names[i + 1 :]:
                shared[(first, second)].append((by[first], by[second]))
    return [
        PairAgreement(
            first, second, len(scored),
            sum(a == b for a, b in scored) / len(scored),
            sum(abs(a - b) <= 1 for a, b in scored) / len(scored),
            sum(a - b for a, b in scored) / len(scored),
        )
        for (first, second), scored in sorted(shared.items())
    ]  # fmt: skip


def annotator_quality(ratings: Ratings) -> list[AnnotatorQuality]:
    """Severity and gold accuracy of every annotator."""
    offsets: dict[str, list[float]] = defaultdict(list)
    for by in ratings.by_video.values():
        if len(by) < 2:
            continue
        for name, score in by.items():
            others = [s for n, s in by.items() if n != name]
            offsets[name].append(score - sum(others) / len(others))
    result = []
    for name in sorted(ratings.scored):
        given = ratings.scored[name]
        gold = ratings.gold.get(name, [])
        shifts = offsets.get(name, [])
        result.append(
            AnnotatorQuality(
                name,
                len(given),
                sum(given) / len(given) if given else None,
                sum(shifts) / len(shifts) if shifts else None,
                len(gold),
                sum(s == e for s, e in gold) / len(gold) if gold else None,
            )
        )
    return result


def time_on_item(engine: Engine) -> dict[str, tuple[int, float]]:
    """Per annotator: how many items were opened and answered in the page, and the median seconds between."""
    query = (
        select(users.c.name, item_times.c.opened_at, item_times.c.answered_at)
        .join(users, users.c.id == item_times.c.annotator_id)
        .where(item_times.c.answered_at.is_not(None))
    )
    spent: dict[str, list[float]] = defaultdict(list)
    with engine.connect() as db:
        for r in db.execute(query):
            spent[r.name].append((parse_utc(r.answered_at) - parse_utc(r.opened_at)).total_seconds())
    return {name: (len(times), float(np.median(times))) for name, times in sorted(spent.items())}
