"""Assign: which annotator scores which video, fixed per episode and identical for every team.

The rule gives each team's task to three annotators with at most ten videos each (docs/rules/wmeval.md §1.1). We read
that as a partition (docs/rules/wmeval.md §1.5, A1): each GT episode of a task belongs to exactly one annotator, and
that annotator scores the episode's video for *every* team (A3), so an annotator's severity weighs on all teams alike.
Per task ``annotators_per_task`` annotators are taken in turn from the roster and the task's episodes are dealt to them
round-robin in a seeded random order; where a task has more episodes than they may score (``cap`` each), a seeded sample
of episodes is drawn once for all teams (A2) and the sample is the task's denominator.

Beside the scored (``primary``) items there are two kinds that never count towards a team's score:

- ``overlap``: for ``overlap`` episodes per task, every other annotator of the task scores the same videos too,
  so agreement (Krippendorff's alpha, exact and within-one) can be measured; the official score stays the
  primary annotator's;
- ``gold``: ``gold`` per annotator, videos of the imported gold set (``import_gold``: generated videos whose
  score is known), each against its episode's reference, made and served exactly as a team's videos are: from the
  episodes the annotator scores, where the set has some, so nothing tells a gold item from the others. Gold
  accuracy then measures how an annotator applies the rubric. (The reference shown as the generated video, as
  gold items once were, is always a 3 and measures nothing.)

Each annotator's queue is shuffled across teams and tasks; an item is named by a random key that says nothing of
its team. **Scores are facts; assignment never touches them.** ``assign`` is idempotent: a video that has a primary
item never gets another (whoever holds it), an annotator never gets a second item of one video, and running it
again after a late team is ingested keeps the mapping and shuffles the new items into what each annotator has
left to score, never as a block at the end. ``reassign`` hands an episode's unscored items to another annotator
(one who leaves half-way hands over the rest); what is scored stays with whoever scored it.

**Balance.** A task's sampled episodes are dealt so that its annotators differ by at most one; the extra episodes
go to whoever has the fewest primary episodes so far (so they rotate across tasks and annotators), and the
overlap episodes' primaries rotate the same way.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select, update

from podium.core.clock import Clock, utc_text
from podium.core.errors import ConfigError, NotFoundError
from podium.tracks.wmeval.kinds import ItemKind, Role, TeamKind
from podium.tracks.wmeval.schema import (
    audit_log,
    episode_map,
    gt,
    items,
    items_with_context,
    scores,
    teams,
    users,
    videos,
)
from podium.tracks.wmeval.store import ACCOUNTS, append_audit, transaction

ITEM_KEY_BYTES = 8  # 64 random bits: an item key cannot be guessed


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
    gold_videos: int = 0  # in the imported gold set (0: no gold items can be made)
    withheld: dict[str, int] = field(default_factory=dict)  # disabled annotator -> items not given to them


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
    cant_judge: str | None = None  # the annotator's reason for giving no score (a flag, not a 0)
    resolution: str | None = None  # the operator's answer to it ("broken": counts 0)
    note: str = ""
    answered_at: str | None = None  # UTC, the latest answer's time
    revision: int | None = None  # how many times the answer was given or changed


def plan_task(
    episodes: Sequence[str],
    annotators: Sequence[str],
    options: AssignOptions,
    rng: random.Random,
    load: Counter[str] | None = None,
    overlap_load: Counter[str] | None = None,
) -> dict[str, Slot]:
    """The episode -> annotator mapping of one task, given the annotators it was dealt.

    ``load`` and ``overlap_load`` count the primary and overlap-primary episodes each annotator already has (they
    are updated): the task's extra episodes, and its overlap episodes, go to the annotators with the fewest.
    """
    load = Counter() if load is None else load
    overlap_load = Counter() if overlap_load is None else overlap_load
    order = sorted(episodes)
    rng.shuffle(order)
    sample = order[: len(annotators) * options.cap]  # A2: one sample for all teams where the cap forces one
    base, extra = divmod(len(sample), len(annotators))
    rank = {name: i for i, name in enumerate(annotators)}  # the dealt order rotates from task to task
    fewest = sorted(annotators, key=lambda a: (load[a], rank[a]))
    share = {a: base + (a in fewest[:extra]) for a in annotators}
    overlap = sample[: options.overlap] if len(annotators) > 1 else []
    slots: dict[str, Slot] = {}
    for episode in overlap:
        open_ = [a for a in annotators if share[a] > 0]
        owner = min(open_, key=lambda a: (overlap_load[a], load[a], rank[a]))
        slots[episode], share[owner] = Slot(owner, True), share[owner] - 1
        overlap_load[owner] += 1
        load[owner] += 1
    rest = iter(sample[len(overlap) :])
    for annotator in annotators:
        for _ in range(share[annotator]):
            slots[next(rest)] = Slot(annotator, False)
            load[annotator] += 1
    return slots


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
    load: Counter[str] = Counter()
    overlap_load: Counter[str] = Counter()
    result = {}
    for index, task in enumerate(sorted(tasks, key=lambda t: int(t.removeprefix("task")))):
        dealt = [names[(index * k + j) % len(names)] for j in range(k)]
        result[task] = plan_task(tasks[task], dealt, options, rng, load, overlap_load)
    return result


def new_key() -> str:
    """A fresh opaque item key."""
    return secrets.token_hex(ITEM_KEY_BYTES)


def assign(engine: Engine, clock: Clock, options: AssignOptions) -> AssignSummary:
    """Map unmapped episodes, then add every missing item and shuffle it into its annotator's remaining queue.

    Each run draws from its own stream: the seed and how many runs came before (``run_stream``), so a late team's
    assign given the seed of the first does not repeat its draws.
    """
    at = utc_text(clock.now())
    with transaction(engine) as db:
        runs = select(func.count()).select_from(audit_log).where(audit_log.c.kind == "assigned")
        earlier = db.execute(runs).scalar_one()
        rng = run_stream(options.seed, earlier)
        annotators = db.execute(
            select(users.c.name, users.c.id, users.c.disabled_at).where(users.c.role == Role.ANNOTATOR)
        )
        everyone = {r.name: (r.id, r.disabled_at is not None) for r in annotators}
        roster = {name: ident for name, (ident, disabled) in everyone.items() if not disabled}  # who gets work
        disabled = {ident: name for name, (ident, off) in everyone.items() if off}
        gt_rows = db.execute(select(gt.c.id, gt.c.task, gt.c.episode).where(gt.c.playable)).all()
        gt_id = {(r.task, r.episode): r.id for r in gt_rows}
        left_out = _map_episodes(db, gt_id, roster, options, rng)
        mapping = {(r.task, r.episode): r for r in db.execute(select(episode_map))}
        group: dict[str, set[int]] = defaultdict(set)
        for (task, _), row in mapping.items():
            group[task].add(row.annotator_id)
        held = db.execute(select(items.c.video_id, items.c.annotator_id, items.c.kind)).all()
        has_primary = {r.video_id for r in held if r.kind == ItemKind.PRIMARY}
        has_item = {(r.video_id, r.annotator_id) for r in held}
        fresh: dict[int, list[dict[str, object]]] = defaultdict(list)
        playable = db.execute(
            select(videos.c.id, videos.c.task, videos.c.episode)
            .join(teams, teams.c.id == videos.c.team_id)
            .where(videos.c.playable, teams.c.kind == TeamKind.TEAM)  # a gold set's videos become gold items only
        ).all()
        for video in sorted(playable, key=lambda v: v.id):
            owner = mapping.get((video.task, video.episode))
            if owner is None:
                continue  # not in the task's sample (A2), or the GT episode cannot be shown
            scorers = [] if video.id in has_primary else [(owner.annotator_id, ItemKind.PRIMARY)]
            if owner.overlap:
                scorers += [(a, ItemKind.OVERLAP) for a in sorted(group[video.task] - {owner.annotator_id})]
            for annotator_id, kind in scorers:
                if (video.id, annotator_id) not in has_item:  # never two items of one video for one annotator
                    has_item.add((video.id, annotator_id))
                    fresh[annotator_id].append(
                        {"kind": kind, "video_id": video.id, "gt_id": gt_id[(video.task, video.episode)]}
                    )
        gold = _gold_items(db, mapping, gt_id, roster, options, rng)
        for annotator_id, new in gold.items():
            fresh[annotator_id] += new
        gold_videos = db.execute(
            select(func.count()).select_from(videos.join(teams, teams.c.id == videos.c.team_id))
            .where(teams.c.kind == TeamKind.GOLD)
        ).scalar_one()  # fmt: skip
        withheld = {disabled[a]: len(fresh.pop(a)) for a in sorted(set(fresh) & set(disabled))}  # no work for them
        added = 0
        for annotator_id, new in sorted(fresh.items()):
            keys = [new_key() for _ in new]
            for key, values in zip(keys, new, strict=True):
                db.execute(
                    insert(items).values(key=key, annotator_id=annotator_id, position=0, created_at=at, **values)
                )
            shuffle_into_queue(db, annotator_id, keys, rng)
            added += len(new)
        append_audit(
            db, at, "assigned",
            {"seed": options.seed, "run": earlier, "annotators_per_task": options.annotators_per_task,
             "cap": options.cap, "overlap": options.overlap, "gold": options.gold, "items_added": added,
             "episodes_left_out": left_out, "withheld_from_disabled": withheld},
        )  # fmt: skip
    return AssignSummary(options.seed, len(mapping), left_out, added, int(gold_videos), withheld)


def run_stream(seed: int, run: int) -> random.Random:
    """The random stream of assign run number ``run`` (0 for the first) under ``seed``; the first is ``seed``'s own."""
    return random.Random(seed if run == 0 else f"{seed}/{run}")


def _gold_items(
    db: Connection, mapping: Mapping[tuple[str, str], Any], gt_id: Mapping[tuple[str, str], int],
    roster: Mapping[str, int], options: AssignOptions, rng: random.Random,
) -> dict[int, list[dict[str, object]]]:  # fmt: skip
    """Up to ``options.gold`` gold items per annotator, never a video they hold already.

    From the gold videos of the episodes the annotator scores, else of their tasks.
    """
    gold = db.execute(
        select(videos.c.id, videos.c.task, videos.c.episode, videos.c.expected)
        .join(teams, teams.c.id == videos.c.team_id)
        .where(teams.c.kind == TeamKind.GOLD, videos.c.playable)
        .order_by(videos.c.id)
    ).all()
    held = db.execute(select(items.c.annotator_id, items.c.video_id, items.c.kind)).all()
    fresh: dict[int, list[dict[str, object]]] = defaultdict(list)
    for annotator_id in sorted(set(roster.values())):
        own = {key for key, row in mapping.items() if row.annotator_id == annotator_id}
        have = {r.video_id for r in held if r.annotator_id == annotator_id}
        wanted = options.gold - sum(1 for r in held if r.annotator_id == annotator_id and r.kind == ItemKind.GOLD)
        if not own or wanted <= 0:
            continue
        tasks = {task for task, _ in own}
        fitting = [v for v in gold if (v.task, v.episode) in own and v.id not in have]
        fitting = fitting or [v for v in gold if v.task in tasks and v.id not in have and (v.task, v.episode) in gt_id]
        rng.shuffle(fitting)
        for video in fitting[:wanted]:
            fresh[annotator_id].append(
                {
                    "kind": ItemKind.GOLD,
                    "video_id": video.id,
                    "gt_id": gt_id[(video.task, video.episode)],
                    "expected": video.expected,
                }  # fmt: skip
            )
    return fresh


def _map_episodes(
    db: Connection, gt_id: Mapping[tuple[str, str], int], roster: Mapping[str, int], options: AssignOptions,
    rng: random.Random,
) -> int:  # fmt: skip
    """Map every GT episode not mapped yet; how many the cap left out.

    A task not mapped at all is planned whole (``plan``); an episode the GT gained in a task already mapped goes to
    the task's annotator with the fewest episodes of it, while one of them is under the cap.
    """
    mapped = {(r.task, r.episode): r for r in db.execute(select(episode_map))}
    by_id = {annotator_id: name for name, annotator_id in roster.items()}
    unmapped: dict[str, list[str]] = defaultdict(list)
    for task, episode in gt_id:
        if (task, episode) not in mapped:
            unmapped[task].append(episode)
    mapped_tasks = {task for task, _ in mapped}
    new_tasks = {task: episodes for task, episodes in unmapped.items() if task not in mapped_tasks}
    left_out = 0
    for task, slots in plan(new_tasks, list(roster), options, rng).items() if new_tasks else ():
        left_out += len(new_tasks[task]) - len(slots)
        for episode, slot in sorted(slots.items()):
            db.execute(
                insert(episode_map).values(
                    task=task, episode=episode, annotator_id=roster[slot.annotator], overlap=slot.overlap
                )
            )
    for task in sorted(set(unmapped) & mapped_tasks):
        count = Counter(row.annotator_id for (t, _), row in mapped.items() if t == task)
        for episode in sorted(unmapped[task]):
            open_ = [a for a in sorted(count) if count[a] < options.cap and a in by_id]
            if not open_:
                left_out += 1
                continue
            owner = min(open_, key=lambda a: (count[a], by_id[a]))
            count[owner] += 1
            db.execute(insert(episode_map).values(task=task, episode=episode, annotator_id=owner, overlap=False))
    return left_out


def shuffle_into_queue(db: Connection, annotator_id: int, keys: Sequence[str], rng: random.Random) -> None:
    """Put the items ``keys`` at random places among what the annotator has left to score, then number the queue.

    Answered items keep their order at the front; the rest (the new ones among them) is renumbered after them, so
    items added later never form a block at the end that would mark them as one late team's.
    """
    answered = select(scores.c.item_id)
    rows = db.execute(
        select(items.c.id, items.c.key, items.c.id.in_(answered).label("done"))
        .where(items.c.annotator_id == annotator_id)
        .order_by(items.c.position, items.c.id)
    ).all()
    new = set(keys)
    done = [r.id for r in rows if r.done]
    waiting = [r.id for r in rows if not r.done and r.key not in new]
    for item_id in [r.id for r in rows if r.key in new]:
        waiting.insert(rng.randint(0, len(waiting)), item_id)
    for position, item_id in enumerate([*done, *waiting]):
        db.execute(update(items).where(items.c.id == item_id).values(position=position))


@dataclass(frozen=True, slots=True)
class Reassignment:
    """What ``reassign`` did: items moved to the new annotator, and what stayed where it was and why."""

    moved: int
    kept_scored: dict[str, int]  # annotator -> items they scored already, which stay theirs
    kept_held: int  # unscored items the new annotator already scores as overlap, which stay with their holder


def reassign(engine: Engine, clock: Clock, task: str, episode: str, annotator: str) -> Reassignment:
    """Give a GT episode's unscored primary items (every team's) to ``annotator``; scored items stay put.

    The episode map names ``annotator`` for the episode's future items (a late team's). An unscored item the new
    annotator already scores as overlap stays where it is: nobody scores one video twice.
    """
    at = utc_text(clock.now())
    rng = random.Random(secrets.randbits(32))
    with transaction(engine) as db:
        target = ACCOUNTS.by_name(db, annotator)
        if target.role != Role.ANNOTATOR:
            raise ConfigError(f"{annotator!r} is not an annotator")
        if db.execute(select(users.c.disabled_at).where(users.c.id == target.id)).scalar() is not None:
            raise ConfigError(
                f"{annotator!r} is disabled: they would get work they cannot sign in to do",
                fix=f"pick an active annotator, or enable {annotator} first",
            )
        row = db.execute(
            select(episode_map).where(episode_map.c.task == task, episode_map.c.episode == episode)
        ).first()
        if row is None:
            raise NotFoundError(f"{task}/{episode} is not assigned", fix="see `podium wmeval assignments`")
        gt_row = db.execute(select(gt.c.id).where(gt.c.task == task, gt.c.episode == episode)).scalar_one()
        answered = select(scores.c.item_id)
        primaries = db.execute(
            select(items.c.id, items.c.key, items.c.video_id, items.c.id.in_(answered).label("done"), users.c.name)
            .join(users, users.c.id == items.c.annotator_id)
            .where(items.c.gt_id == gt_row, items.c.kind == ItemKind.PRIMARY)
        ).all()
        targets_videos = set(
            db.execute(
                select(items.c.video_id).where(items.c.annotator_id == target.id, items.c.gt_id == gt_row)
            ).scalars()
        )
        kept_scored = Counter(r.name for r in primaries if r.done)
        moving = [r for r in primaries if not r.done and r.name != target.name and r.video_id not in targets_videos]
        kept_held = sum(1 for r in primaries if not r.done and r.name != target.name and r.video_id in targets_videos)
        for item in moving:
            db.execute(update(items).where(items.c.id == item.id).values(annotator_id=target.id))
        shuffle_into_queue(db, target.id, [item.key for item in moving], rng)
        db.execute(update(episode_map).where(episode_map.c.id == row.id).values(annotator_id=target.id))
        append_audit(
            db, at, "reassigned",
            {"task": task, "episode": episode, "from": row.annotator_id, "to": target.id, "items": len(moving),
             "kept_scored": dict(kept_scored), "kept_held": kept_held},
        )  # fmt: skip
    return Reassignment(len(moving), dict(kept_scored), kept_held)


def assignments(engine: Engine) -> list[AssignmentRow]:
    """Every item with its annotator, team, task, episode, kind and current score (operators only)."""
    query = (
        select(
            users.c.name.label("annotator"), items.c.key, teams.c.name.label("team"), gt.c.task, gt.c.episode,
            items.c.kind, scores.c.score, items.c.position, scores.c.cant_judge, scores.c.resolution,
            scores.c.note, scores.c.updated_at, scores.c.revision,
        )
        .select_from(items_with_context())
        .order_by(users.c.name, items.c.position)
    )  # fmt: skip
    with engine.connect() as db:
        return [
            AssignmentRow(
                r.annotator,
                r.key,
                r.team or "(gold)",
                r.task,
                r.episode,
                r.kind,
                r.score,
                r.cant_judge,
                r.resolution,
                r.note or "",
                r.updated_at,
                r.revision,
            )  # fmt: skip
            for r in db.execute(query)
        ]
