"""Annotate: an annotator's queue, one item's view and media, scores from the pages, the API and CSV imports.

Everything an annotator reaches goes through ``item_for``, which finds the item by its key *and* its annotator:
another annotator's item is "no item" exactly as a made-up key is (spec: 404, not 403), and what an annotator is
shown of an item holds no team, no video id and no path. Media files are named by item key and side, resolved
from the database and checked to lie inside the media store, so no URL can name a file.

A score is 0-3; flagging a video unplayable records 0 with the flag (it counts 0, visibly). Every score and every
change of one is appended to the audit log in the transaction that stores it, with the previous value. A CSV
import is checked whole before anything is written: one bad row and none of the file is applied.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, insert, select, update

from podium.core.accounts import Account
from podium.core.clock import Clock, utc_text
from podium.core.errors import InputError, NotFoundError
from podium.core.storage.text import unstorable
from podium.tracks.wmeval.schema import gt, items, items_with_context, scores, teams, users, videos
from podium.tracks.wmeval.store import append_audit, transaction

SCORES = (0, 1, 2, 3)
NOTE_MAX_CHARS = 2000
MEDIA_NAMES = ("generated.mp4", "reference.mp4", "generated.png", "reference.png")


@dataclass(frozen=True, slots=True)
class QueueItem:
    """One line of an annotator's queue: no team, no kind (a gold item looks like any other)."""

    key: str
    task: str
    score: int | None
    unplayable: bool


@dataclass(frozen=True, slots=True)
class ItemView:
    """What the annotator's page shows of one item; the media paths stay on the server."""

    key: str
    task: str
    score: int | None
    note: str
    unplayable: bool
    media: dict[str, str]  # MEDIA_NAMES -> path relative to the media store


@dataclass(frozen=True, slots=True)
class Progress:
    """Scored and total items per annotator, and primary items per task and per team (operators only)."""

    annotators: dict[str, tuple[int, int]]
    tasks: dict[str, tuple[int, int]]
    teams: dict[str, tuple[int, int]]


def unknown_item(key: str) -> NotFoundError:
    """The one answer for an item the caller may not see or that does not exist."""
    return NotFoundError(f"no item {key!r}", fix="open your queue")


def queue(engine: Engine, annotator_id: int) -> list[QueueItem]:
    """The annotator's items in queue order."""
    query = (
        select(items.c.key, gt.c.task, scores.c.score, scores.c.unplayable)
        .join(gt, gt.c.id == items.c.gt_id)
        .outerjoin(scores, scores.c.item_id == items.c.id)
        .where(items.c.annotator_id == annotator_id)
        .order_by(items.c.position)
    )
    with engine.connect() as db:
        return [QueueItem(r.key, r.task, r.score, bool(r.unplayable)) for r in db.execute(query)]


def next_key(engine: Engine, annotator_id: int) -> str | None:
    """The first unscored item of the annotator's queue."""
    return next((item.key for item in queue(engine, annotator_id) if item.score is None), None)


def item_for(engine: Engine, annotator_id: int, key: str) -> ItemView:
    """The annotator's item ``key``; ``unknown_item`` for anyone else's or for no item at all."""
    query = (
        select(
            items.c.key, gt.c.task, gt.c.video_path.label("ref"), gt.c.last_frame_path.label("ref_last"),
            videos.c.video_path.label("gen"), videos.c.last_frame_path.label("gen_last"), items.c.video_id,
            scores.c.score, scores.c.note, scores.c.unplayable,
        )
        .join(gt, gt.c.id == items.c.gt_id)
        .outerjoin(videos, videos.c.id == items.c.video_id)
        .outerjoin(scores, scores.c.item_id == items.c.id)
        .where(items.c.key == key, items.c.annotator_id == annotator_id)
    )  # fmt: skip
    with engine.connect() as db:
        row = db.execute(query).first()
    if row is None:
        raise unknown_item(key)
    gold = row.video_id is None  # the reference shown against itself
    media = {
        "generated.mp4": row.ref if gold else row.gen,
        "reference.mp4": row.ref,
        "generated.png": row.ref_last if gold else row.gen_last,
        "reference.png": row.ref_last,
    }
    return ItemView(row.key, row.task, row.score, row.note or "", bool(row.unplayable), media)


def media_file(engine: Engine, root: Path, annotator_id: int, key: str, name: str) -> Path:
    """The file behind ``name`` of the annotator's item; never a path outside the media store."""
    if name not in MEDIA_NAMES:
        raise unknown_item(key)
    relative = item_for(engine, annotator_id, key).media.get(name)
    base = root.resolve()
    path = (base / relative).resolve() if relative else base
    if not relative or not path.is_relative_to(base) or not path.is_file():
        raise unknown_item(key)
    return path


def _check(score: object, note: str) -> int:
    if isinstance(score, bool) or not isinstance(score, int) or score not in SCORES:
        raise InputError(f"score must be 0, 1, 2 or 3, not {score!r}")
    if len(note) > NOTE_MAX_CHARS:
        raise InputError(f"note longer than {NOTE_MAX_CHARS} characters")
    if problem := unstorable(note):
        raise InputError(f"the note holds {problem}", fix="remove it")
    return score


def _store_score(
    db: Connection, item_id: int, key: str, annotator: str, score: int, note: str, unplayable: bool, at: str
) -> int:
    old = db.execute(select(scores).where(scores.c.item_id == item_id)).first()
    values = {"score": score, "note": note, "unplayable": unplayable, "updated_at": at}
    if old is None:
        revision = 1
        db.execute(insert(scores).values(item_id=item_id, revision=revision, **values))
    else:
        revision = old.revision + 1
        db.execute(update(scores).where(scores.c.item_id == item_id).values(revision=revision, **values))
    append_audit(
        db, at, "score_set" if old is None else "score_changed",
        {"item": key, "annotator": annotator, "score": score, "unplayable": unplayable, "note": note,
         "previous": None if old is None else old.score, "revision": revision},
    )  # fmt: skip
    return revision


def record_score(
    engine: Engine, clock: Clock, annotator: Account, key: str, score: object, note: str = "", unplayable: bool = False
) -> int:
    """Store the annotator's score of their item (0 when flagged unplayable); returns the score's revision."""
    value = 0 if unplayable else _check(score, note)
    _check(value, note)
    at = utc_text(clock.now())
    with transaction(engine) as db:
        item_id = db.execute(
            select(items.c.id).where(items.c.key == key, items.c.annotator_id == annotator.id)
        ).scalar()
        if item_id is None:
            raise unknown_item(key)
        return _store_score(db, item_id, key, annotator.name, value, note, unplayable, at)


def import_scores(engine: Engine, clock: Clock, text: str) -> int:
    """Apply a CSV of ``annotator,item,score[,note]``: every row checked first, all applied or none."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or [h.strip() for h in header[:3]] != ["annotator", "item", "score"] or len(header) > 4:
        raise InputError("the first line must be: annotator,item,score[,note]")
    with engine.connect() as db:
        owner = {
            r.key: (r.id, r.name)
            for r in db.execute(
                select(items.c.key, items.c.id, users.c.name).join(users, users.c.id == items.c.annotator_id)
            )
        }
    rows: list[tuple[int, str, str, int, str]] = []
    problems: list[str] = []
    seen: set[str] = set()
    for line, fields in enumerate(reader, start=2):
        if not fields:
            continue
        if len(fields) not in (3, len(header)):
            problems.append(f"line {line}: {len(fields)} fields, expected {len(header)}")
            continue
        name, key, raw = (f.strip() for f in fields[:3])
        note = fields[3] if len(fields) > 3 else ""
        found = owner.get(key)
        if found is None or found[1] != name:
            problems.append(f"line {line}: item {key!r} is not {name!r}'s")
            continue
        if key in seen:
            problems.append(f"line {line}: item {key!r} appears twice")
            continue
        seen.add(key)
        try:
            score = _check(int(raw) if raw.lstrip("-").isdigit() else raw, note)
        except InputError as error:
            problems.append(f"line {line}: {error.message}")
            continue
        rows.append((found[0], key, name, score, note))
    if problems:
        raise InputError(
            f"{len(problems)} bad row(s), nothing applied: " + "; ".join(problems),
            fix="correct the rows and import again",
        )
    at = utc_text(clock.now())
    with transaction(engine) as db:
        for item_id, key, name, score, note in rows:
            _store_score(db, item_id, key, name, score, note, False, at)
        append_audit(db, at, "scores_imported", {"rows": len(rows)})
    return len(rows)


def progress(engine: Engine) -> Progress:
    """Done and total per annotator (every kind), per task and per team (scored items only)."""
    query = select(
        users.c.name.label("annotator"), items.c.kind, gt.c.task, teams.c.name.label("team"), scores.c.score
    ).select_from(items_with_context())
    counts: dict[str, dict[str, list[int]]] = {"a": defaultdict(lambda: [0, 0]), "k": defaultdict(lambda: [0, 0]),
                                               "t": defaultdict(lambda: [0, 0])}  # fmt: skip
    with engine.connect() as db:
        for r in db.execute(query):
            done = int(r.score is not None)
            targets = [("a", r.annotator)] + ([("k", r.task), ("t", r.team)] if r.kind == "primary" else [])
            for table, name in targets:
                counts[table][name][0] += done
                counts[table][name][1] += 1
        for name in db.execute(select(users.c.name).where(users.c.role == "annotator")).scalars():
            counts["a"].setdefault(name, [0, 0])
    as_tuples = {k: {n: (v[0], v[1]) for n, v in sorted(c.items())} for k, c in counts.items()}
    return Progress(as_tuples["a"], as_tuples["k"], as_tuples["t"])
