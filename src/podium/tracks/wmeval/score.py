"""Score: each team's exact per-task and final scores under the rubric's rule, and the leaderboard.

Per task, (3·N3 + 2·N2 + 1·N1) / N_total with N_total the GT's count of videos in the task (its sample, where the cap
forced one: docs/rules/wmeval.md §1.5, A2). A video that is missing, that FFmpeg could not decode at ingest
(unplayable), that its annotator could not judge (waiting for the operator) or that the operator found broken, or that
is not scored yet adds nothing to the numerator and still counts in the denominator; the report says how many of each,
so a 0 is never silent. Only ``primary`` items count: overlap and gold items are for quality control. The final score is
the mean over every GT task (a task a team did not submit scores 0). Values are ``Fraction``: exact, and two teams with
equal means tie exactly (ties share a rank, docs/rules/wmeval.md §1.5, A9).
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from sqlalchemy import Engine, select

from podium.core.ranking.leaderboard import Ranked, rank_entries
from podium.tracks.wmeval.kinds import ItemKind, Resolution, TeamKind
from podium.tracks.wmeval.schema import episode_map, gt, items, scores, teams, videos


class EpisodeStatus(enum.StrEnum):
    """Why an episode of a team has its value (closed set): only SCORED adds to the numerator."""

    SCORED = "scored"
    PENDING = "pending"  # not answered yet
    CANT_JUDGE = "cant_judge"  # its annotator could not judge it; waiting for the operator
    BROKEN = "broken"  # the operator found the video broken: 0
    MISSING = "missing"  # the team sent no video for it
    UNPLAYABLE = "unplayable"  # the video could not be decoded at ingest


STATUSES = tuple(EpisodeStatus)


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """One GT episode of one team: the value it adds (0-3) and why."""

    value: int
    status: EpisodeStatus


@dataclass(frozen=True, slots=True)
class TaskScore:
    """A team's task: the exact score, the counts N0..N3, and how many episodes were not scored and why."""

    value: Fraction
    counts: tuple[int, int, int, int]
    denominator: int
    statuses: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TeamScore:
    """A team's final score and each task's."""

    team: str
    final: Fraction
    tasks: dict[str, TaskScore]


@dataclass(frozen=True, slots=True)
class Collected:
    """What scoring needs from the database: each team's per-episode results in each task's denominator."""

    tasks: tuple[str, ...]
    episodes: dict[str, tuple[str, ...]]  # task -> the episodes in its denominator
    results: dict[str, dict[str, dict[str, EpisodeResult]]]  # team -> task -> episode -> result


def task_score(values: Sequence[int], denominator: int) -> Fraction:
    """(3·N3 + 2·N2 + 1·N1) / denominator over the scored ``values``; the GT count is the denominator."""
    if any(v not in (0, 1, 2, 3) for v in values):
        raise ValueError(f"scores must be 0-3: {values}")
    if len(values) > denominator:
        raise ValueError("more scored videos than GT videos")  # A5: only GT-matched videos are ever scored
    if denominator == 0:
        return Fraction(0)
    counts = [values.count(k) for k in (1, 2, 3)]
    return Fraction(1 * counts[0] + 2 * counts[1] + 3 * counts[2], denominator)


def final_score(per_task: Mapping[str, Fraction], tasks: Sequence[str]) -> Fraction:
    """The mean of the task scores over every task in ``tasks`` (a task missing from ``per_task`` is 0)."""
    if not tasks:
        return Fraction(0)
    return sum((per_task.get(task, Fraction(0)) for task in tasks), Fraction(0)) / len(tasks)


def team_score(team: str, collected: Collected) -> TeamScore:
    """One team's scores from the collected results."""
    per_task = {}
    for task in collected.tasks:
        episodes = collected.episodes[task]
        results = [
            collected.results.get(team, {}).get(task, {}).get(e, EpisodeResult(0, EpisodeStatus.MISSING))
            for e in episodes
        ]
        scored = [r.value for r in results if r.status is EpisodeStatus.SCORED]
        statuses = {s: sum(1 for r in results if r.status == s) for s in STATUSES}
        counts = tuple(scored.count(k) for k in (0, 1, 2, 3))
        per_task[task] = TaskScore(task_score(scored, len(episodes)), counts, len(episodes), statuses)  # type: ignore[arg-type]
    return TeamScore(team, final_score({t: s.value for t, s in per_task.items()}, collected.tasks), per_task)


def leaderboard(collected: Collected) -> list[Ranked[TeamScore]]:
    """Every team ranked by final score through the core's ranking; equal exact scores share a rank."""
    return rank_entries([team_score(team, collected) for team in sorted(collected.results)], lambda s: s.final)


def _result(score: int | None, cant_judge: str | None, resolution: str | None) -> EpisodeResult:
    if score is not None:
        return EpisodeResult(int(score), EpisodeStatus.SCORED)
    if cant_judge is None:
        return EpisodeResult(0, EpisodeStatus.PENDING)
    return EpisodeResult(0, EpisodeStatus.BROKEN if resolution == Resolution.BROKEN else EpisodeStatus.CANT_JUDGE)


def collect(engine: Engine) -> Collected:
    """Per team, task and episode in the denominator: the primary score, or why there is none."""
    with engine.connect() as db:
        gt_rows = db.execute(select(gt.c.task, gt.c.episode)).all()
        mapped = db.execute(select(episode_map.c.task, episode_map.c.episode)).all()
        mapped_tasks = {r.task for r in mapped}
        denominator: dict[str, list[str]] = defaultdict(list)
        for r in mapped:
            denominator[r.task].append(r.episode)
        for r in gt_rows:
            if r.task not in mapped_tasks:
                denominator[r.task].append(r.episode)  # not assigned yet: every GT episode counts
        team_names = {
            r.id: r.name for r in db.execute(select(teams.c.id, teams.c.name).where(teams.c.kind == TeamKind.TEAM))
        }
        primary: dict[int, EpisodeResult] = {}
        answers = select(items.c.video_id, scores.c.score, scores.c.cant_judge, scores.c.resolution).outerjoin(
            scores, scores.c.item_id == items.c.id
        )
        for answer in db.execute(answers.where(items.c.kind == ItemKind.PRIMARY).order_by(items.c.id)):
            # one primary item per video (``assign``); a database from before that rule may hold a second,
            # unscored one: the scored item is the fact and is never shadowed by it
            if answer.video_id not in primary or primary[answer.video_id].status is not EpisodeStatus.SCORED:
                primary[answer.video_id] = _result(answer.score, answer.cant_judge, answer.resolution)
        results: dict[str, dict[str, dict[str, EpisodeResult]]] = {name: {} for name in team_names.values()}
        for v in db.execute(select(videos.c.id, videos.c.team_id, videos.c.task, videos.c.episode, videos.c.playable)):
            result = (
                primary.get(v.id, EpisodeResult(0, EpisodeStatus.PENDING))
                if v.playable
                else EpisodeResult(0, EpisodeStatus.UNPLAYABLE)
            )
            if v.team_id in team_names:  # not the gold set's
                results[team_names[v.team_id]].setdefault(v.task, {})[v.episode] = result
    tasks = tuple(sorted(denominator, key=lambda t: int(t.removeprefix("task"))))
    episodes = {task: tuple(sorted(denominator[task])) for task in tasks}
    return Collected(tasks, episodes, results)
