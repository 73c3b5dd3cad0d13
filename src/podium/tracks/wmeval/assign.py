"""Assign: which annotator scores which video, fixed per episode and identical for every team.

The rule gives each team's task to three annotators with at most ten videos each (spec wmeval.md 1.1). We read
that as a partition (spec A1): each GT episode of a task belongs to exactly one annotator, and that annotator
scores the episode's video for *every* team (A3), so an annotator's severity weighs on all teams alike. Per task
``annotators_per_task`` annotators are taken in turn from the roster and the task's episodes are dealt to them
round-robin in a seeded random order; where a task has more episodes than they may score (``cap`` each), a
seeded sample of episodes is drawn once for all teams (A2) and the sample is the task's denominator.

Beside the scored (``primary``) items there are two kinds that never count towards a team's score:

- ``overlap``: for ``overlap`` episodes per task, every other annotator of the task scores the same videos too,
  so agreement (Krippendorff's alpha, exact and within-one) can be measured; the official score stays the
  primary annotator's;
- ``gold``: the reference shown against itself, whose known answer is 3 (spec 2.4), ``gold`` per annotator, to
  measure attention.

Each annotator's queue is shuffled across teams and tasks; an item is named by a random key that says nothing of
its team. Running ``assign`` again after another team is ingested keeps the mapping and adds the new items.
"""

from __future__ import annotations

import random
import secrets
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, func, insert, select, update

from podium.core.clock import Clock, utc_text
from podium.core.errors import ConfigError, NotFoundError
from podium.tracks.wmeval.schema import episode_map, gt, items, items_with_context, scores, teams, users, videos
from podium.tracks.wmeval.store import ACCOUNTS, append_audit, transaction

ITEM_KEY_BYTES = 8  # 64 random bits: an item key cannot be guessed
GOLD_ANSWER = 3  # the reference against itself matches in action and final state


@dataclass(frozen=True, slots=True)
class AssignOptions:
    """The knobs of ``podium wmeval assign``."""

    annotators_per_task: int = 3
    cap: int = 10
    overlap: int = 0
    gold: int = 1
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Slot:
    """One sampled GT episode: its annotator, and whether it is in the overlap set."""

    annotator: str
    overlap: bool


@dataclass(frozen=True, slots=True)
class AssignSummary:
    """What one ``assign`` run did."""

    seed: int
    episodes_mapped: int
    episodes_left_out: int
    items_added: int


@dataclass(frozen=True, slots=True)
class AssignmentRow:
    """One item as the operator sees it."""

    annotator: str
    item: str
    team: str
    task: str
    episode: str
    kind: str
    score: int | None


def plan_task(
    episodes: Sequence[str], annotators: Sequence[str], options: AssignOptions, rng: random.Random
) -> dict[str, Slot]:
    """The episode -> annotator mapping of one task, given the annotators it was dealt."""
    order = sorted(episodes)
    rng.shuffle(order)
    sample = order[: len(annotators) * options.cap]  # A2: one sample for all teams where the cap forces one
    overlap = set(sample[: options.overlap]) if len(annotators) > 1 else set()
    return {episode: Slot(annotators[i % len(annotators)], episode in overlap) for i, episode in enumerate(sample)}


def plan(
    tasks: Mapping[str, Sequence[str]], roster: Sequence[str], options: AssignOptions, rng: random.Random
) -> dict[str, dict[str, Slot]]:
    """Every task's mapping: tasks take ``annotators_per_task`` annotators in turn from the sorted roster."""
    if options.annotators_per_task < 1 or options.cap < 1 or options.overlap < 0 or options.gold < 0:
        raise ConfigError("--annotators-per-task and --cap must be at least 1, --overlap and --gold at least 0")
    if not roster:
        raise ConfigError("no annotators", fix="add them: podium wmeval annotator add NAME")
    names = sorted(roster)
    k = min(options.annotators_per_task, len(names))
    result = {}
    for index, task in enumerate(sorted(tasks, key=lambda t: int(t.removeprefix("task")))):
        dealt = [names[(index * k + j) % len(names)] for j in range(k)]
        result[task] = plan_task(tasks[task], dealt, options, rng)
    return result


def new_key() -> str:
    """A fresh opaque item key."""
    return secrets.token_hex(ITEM_KEY_BYTES)


def assign(engine: Engine, clock: Clock, options: AssignOptions) -> AssignSummary:
    """Map unmapped tasks, then add every missing item and shuffle it into its annotator's queue."""
    rng = random.Random(options.seed)
    at = utc_text(clock.now())
    with transaction(engine) as db:
        roster = {r.name: r.id for r in db.execute(select(users.c.name, users.c.id).where(users.c.role == "annotator"))}
        gt_rows = db.execute(select(gt.c.id, gt.c.task, gt.c.episode).where(gt.c.playable)).all()
        gt_id = {(r.task, r.episode): r.id for r in gt_rows}
        mapped = {(r.task, r.episode): r for r in db.execute(select(episode_map))}
        mapped_tasks = {task for task, _ in mapped}
        unmapped: dict[str, list[str]] = defaultdict(list)
        for task, episode in gt_id:
            if task not in mapped_tasks:
                unmapped[task].append(episode)
        left_out = 0
        for task, slots in plan(unmapped, list(roster), options, rng).items() if unmapped else ():
            left_out += len(unmapped[task]) - len(slots)
            for episode, slot in sorted(slots.items()):
                db.execute(
                    insert(episode_map).values(
                        task=task, episode=episode, annotator_id=roster[slot.annotator], overlap=slot.overlap
                    )
                )
        mapping = {(r.task, r.episode): r for r in db.execute(select(episode_map))}
        group: dict[str, set[int]] = defaultdict(set)
        for (task, _), row in mapping.items():
            group[task].add(row.annotator_id)
        have = {(r.video_id, r.annotator_id) for r in db.execute(select(items.c.video_id, items.c.annotator_id))}
        fresh: dict[int, list[dict[str, object]]] = defaultdict(list)
        playable = db.execute(select(videos.c.id, videos.c.task, videos.c.episode).where(videos.c.playable)).all()
        for video in sorted(playable, key=lambda v: v.id):
            owner = mapping.get((video.task, video.episode))
            if owner is None:
                continue  # not in the task's sample (A2), or the GT episode cannot be shown
            scorers = [(owner.annotator_id, "primary")]
            if owner.overlap:
                scorers += [(a, "overlap") for a in sorted(group[video.task] - {owner.annotator_id})]
            for annotator_id, kind in scorers:
                if (video.id, annotator_id) not in have:
                    fresh[annotator_id].append(
                        {"kind": kind, "video_id": video.id, "gt_id": gt_id[(video.task, video.episode)]}
                    )
        gold_have: dict[int, int] = dict(
            db.execute(
                select(items.c.annotator_id, func.count()).where(items.c.kind == "gold").group_by(items.c.annotator_id)
            ).all()
        )
        for annotator_id in sorted(set(roster.values())):
            own = sorted(key for key, row in mapping.items() if row.annotator_id == annotator_id)
            for _ in range(options.gold - gold_have.get(annotator_id, 0) if own else 0):
                task, episode = rng.choice(own)
                fresh[annotator_id].append(
                    {"kind": "gold", "video_id": None, "gt_id": gt_id[(task, episode)], "expected": GOLD_ANSWER}
                )
        added = _append_to_queues(db, fresh, rng, at)
        append_audit(
            db, at, "assigned",
            {"seed": options.seed, "annotators_per_task": options.annotators_per_task, "cap": options.cap,
             "overlap": options.overlap, "gold": options.gold, "items_added": added, "episodes_left_out": left_out},
        )  # fmt: skip
    return AssignSummary(options.seed, len(mapping), left_out, added)


def _append_to_queues(db: Connection, fresh: Mapping[int, list[dict[str, object]]], rng: random.Random, at: str) -> int:
    added = 0
    for annotator_id, new in sorted(fresh.items()):
        rng.shuffle(new)  # interleaves teams and tasks, so no run of one team's videos is recognisable
        last = db.execute(select(func.max(items.c.position)).where(items.c.annotator_id == annotator_id)).scalar()
        start = 0 if last is None else last + 1
        for offset, values in enumerate(new):
            db.execute(
                insert(items).values(
                    key=new_key(), annotator_id=annotator_id, position=start + offset, created_at=at, **values
                )
            )
            added += 1
    return added


def reassign(engine: Engine, clock: Clock, task: str, episode: str, annotator: str) -> int:
    """Give a GT episode, with its unscored items of every team, to ``annotator``; the number of items moved."""
    at = utc_text(clock.now())
    with transaction(engine) as db:
        target = ACCOUNTS.by_name(db, annotator)
        if target.role != "annotator":
            raise ConfigError(f"{annotator!r} is not an annotator")
        row = db.execute(
            select(episode_map).where(episode_map.c.task == task, episode_map.c.episode == episode)
        ).first()
        if row is None:
            raise NotFoundError(f"{task}/{episode} is not assigned", fix="see `podium wmeval assignments`")
        gt_row = db.execute(select(gt.c.id).where(gt.c.task == task, gt.c.episode == episode)).scalar_one()
        scored = select(scores.c.item_id)
        moving = [
            r.id
            for r in db.execute(
                select(items.c.id).where(
                    items.c.gt_id == gt_row,
                    items.c.annotator_id == row.annotator_id,
                    items.c.kind == "primary",
                    items.c.id.not_in(scored),
                )
            )
        ]
        last = db.execute(select(func.max(items.c.position)).where(items.c.annotator_id == target.id)).scalar()
        for offset, item_id in enumerate(moving):
            position = (0 if last is None else last + 1) + offset
            db.execute(update(items).where(items.c.id == item_id).values(annotator_id=target.id, position=position))
        db.execute(update(episode_map).where(episode_map.c.id == row.id).values(annotator_id=target.id))
        append_audit(
            db, at, "reassigned",
            {"task": task, "episode": episode, "from": row.annotator_id, "to": target.id, "items": len(moving)},
        )  # fmt: skip
    return len(moving)


def assignments(engine: Engine) -> list[AssignmentRow]:
    """Every item with its annotator, team, task, episode, kind and current score (operators only)."""
    query = (
        select(
            users.c.name.label("annotator"), items.c.key, teams.c.name.label("team"), gt.c.task, gt.c.episode,
            items.c.kind, scores.c.score, items.c.position,
        )
        .select_from(items_with_context())
        .order_by(users.c.name, items.c.position)
    )  # fmt: skip
    with engine.connect() as db:
        return [
            AssignmentRow(r.annotator, r.key, r.team or "(gold)", r.task, r.episode, r.kind, r.score)
            for r in db.execute(query)
        ]
