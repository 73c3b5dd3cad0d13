"""Hand a leaver's queue on: every unscored item (primary, overlap, gold) of one annotator to the others.

``reassign`` moves one episode's primaries at a time; a person who leaves holds primaries of many episodes, overlap
items and gold items, which nothing else moves. ``handover`` moves each unscored item to an active annotator who
does not hold that video already (nobody scores a video twice), preferring the ``--to`` list, keeping each
annotator within the cap of episodes per task and each task with the rubric's number of distinct annotators (a
task that would fall short takes a newcomer first). The episode map then names the receiver for the leaver's
episodes, so a late team's items follow. Where an item cannot go anywhere under those rules the command refuses,
naming each; with ``allow_fewer`` it moves what it can and lists exactly what stayed. Scored items never move.
"""

from __future__ import annotations

import random
import secrets
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine, select, update

from podium.core.clock import Clock, utc_text
from podium.core.errors import ConfigError, ConflictError
from podium.tracks.wmeval.assign import shuffle_into_queue
from podium.tracks.wmeval.kinds import ItemKind, Role
from podium.tracks.wmeval.schema import episode_map, gt, items, scores, users
from podium.tracks.wmeval.store import ACCOUNTS, append_audit, transaction


@dataclass(frozen=True, slots=True)
class Handover:
    """What ``handover`` did: items moved per receiver, and each item that stayed with why."""

    moved: dict[str, int] = field(default_factory=dict)
    stayed: tuple[str, ...] = ()  # "KEY (task/episode, kind): why"


def handover(
    engine: Engine, clock: Clock, leaver: str, to: Sequence[str] = (), *, cap: int = 10,
    annotators_per_task: int = 3, allow_fewer: bool = False,
) -> Handover:  # fmt: skip
    """Move every unscored item of ``leaver`` to other active annotators (see the module's rules)."""
    at = utc_text(clock.now())
    with transaction(engine) as db:
        who = ACCOUNTS.by_name(db, leaver)
        if who.role != Role.ANNOTATOR:
            raise ConfigError(f"{leaver!r} is not an annotator")
        people = db.execute(select(users.c.id, users.c.name, users.c.disabled_at).where(users.c.role == Role.ANNOTATOR))
        active = {r.id: r.name for r in people if r.disabled_at is None and r.id != who.id}
        by_name = {name: ident for ident, name in active.items()}
        unknown = [name for name in to if name not in by_name]
        if unknown:
            raise ConfigError(f"--to names {', '.join(unknown)}: not an active annotator other than {leaver}")
        preferred = [by_name[name] for name in to]
        rows = db.execute(
            select(items.c.id, items.c.key, items.c.kind, items.c.video_id, items.c.annotator_id, gt.c.task,
                   gt.c.episode, items.c.id.in_(select(scores.c.item_id)).label("done"))
            .join(gt, gt.c.id == items.c.gt_id)
        ).all()  # fmt: skip
        holds: dict[int | None, set[int]] = defaultdict(set)  # video -> annotators with an item of it
        episodes: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))  # task -> annotator -> eps
        for r in rows:
            if r.video_id is not None:
                holds[r.video_id].add(r.annotator_id)
            if r.annotator_id != who.id:
                episodes[r.task][r.annotator_id].add(r.episode)
        moves: dict[int, int] = {}  # item -> receiver
        stayed = []
        for r in sorted(
            (r for r in rows if r.annotator_id == who.id and not r.done), key=lambda r: (r.task, r.episode)
        ):
            members = {a for a, held in episodes[r.task].items() if held and a in active}
            newcomers_first = len(members) < annotators_per_task
            fitting = [
                a for a in active
                if a not in holds[r.video_id] and (r.episode in episodes[r.task][a] or len(episodes[r.task][a]) < cap)
            ]  # fmt: skip
            if not fitting:
                why = "every other active annotator holds this video already or is at the cap"
                stayed.append(f"{r.key} ({r.task}/{r.episode}, {r.kind}): {why}")
                continue
            receiver = min(fitting, key=lambda a: (
                a not in preferred, newcomers_first and a in members, len(episodes[r.task][a]), active[a]))  # fmt: skip
            moves[r.id] = receiver
            holds[r.video_id].add(receiver)
            episodes[r.task][receiver].add(r.episode)
        if stayed and not allow_fewer:
            raise ConflictError(
                f"{len(stayed)} of {leaver}'s unscored item(s) cannot go anywhere: " + "; ".join(stayed[:10]),
                fix="add an annotator (podium wmeval annotator add NAME), raise --cap, or --allow-fewer to move the "
                "rest and leave these",
            )
        moved: dict[str, int] = defaultdict(int)
        receivers: dict[int, list[str]] = defaultdict(list)
        keys = {r.id: r for r in rows}
        for item_id, receiver in moves.items():
            db.execute(update(items).where(items.c.id == item_id).values(annotator_id=receiver))
            receivers[receiver].append(keys[item_id].key)
            moved[active[receiver]] += 1
            row = keys[item_id]
            if row.kind == ItemKind.PRIMARY:  # a late team's item of this episode follows
                mapped = (episode_map.c.task == row.task) & (episode_map.c.episode == row.episode)
                db.execute(update(episode_map).where(mapped, episode_map.c.annotator_id == who.id)
                           .values(annotator_id=receiver))  # fmt: skip
        rng = random.Random(secrets.randbits(32))
        for receiver, moved_keys in receivers.items():
            shuffle_into_queue(db, receiver, moved_keys, rng)
        append_audit(db, at, "handed_over",
                     {"from": leaver, "moved": dict(moved), "stayed": stayed, "preferred": list(to)})  # fmt: skip
    return Handover(dict(sorted(moved.items())), tuple(stayed))
