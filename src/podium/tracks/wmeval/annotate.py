"""Annotate: an annotator's queue, one item's view and media, scores from the pages, the API and CSV imports.

Everything an annotator reaches goes through ``item_for``, which finds the item by its key *and* its annotator: another
annotator's item is "no item" exactly as a made-up key is (404, not 403: docs/design/wmeval.md), and what an annotator
is shown of an item holds no team, no video id and no path. Media files are named by item key and side, resolved from
the database and checked to lie inside the media store, so no URL can name a file.

An answer is a score 0-3, or **can't judge** (the reference is broken, the generated video is broken, or another
reason, with a note): an item answered so stays pending (it counts 0 against the GT count, like any unscored one,
and N_GT never changes) until an operator resolves it: ``rescore`` hands it to another annotator, ``broken`` makes
it count 0 as the rubric scores a broken video. Can't-judge answers never enter the agreement statistics. Every
answer, every change of one and every resolution is appended to the audit log in the transaction that stores it,
with the previous value. A CSV import is checked whole before anything is written: one bad row and none of the
file is applied.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Connection, Engine, func, insert, select, update

from podium.core.accounts import Account
from podium.core.clock import Clock, utc_text
from podium.core.errors import InputError, NotFoundError
from podium.core.storage.text import unstorable
from podium.tracks.wmeval.freeze import check_open
from podium.tracks.wmeval.kinds import CantJudgeReason, ItemKind, Resolution, Role
from podium.tracks.wmeval.schema import gt, item_times, items, items_with_context, scores, teams, users, videos
from podium.tracks.wmeval.store import append_audit, transaction

SCORES = (0, 1, 2, 3)
CANT_JUDGE = {reason.value: reason.label for reason in CantJudgeReason}
"""Why an annotator could not judge an item (``POST .../score`` with ``{"cant_judge": REASON}``)."""
BROKEN = Resolution.BROKEN  # the operator's resolution of a can't-judge answer: the video counts 0
NOTE_MAX_CHARS = 2000
MEDIA_NAMES = ("generated.mp4", "reference.mp4", "generated.png", "reference.png")


@dataclass(frozen=True, slots=True)
class QueueItem:
    """One line of an annotator's queue: no team, no kind (a gold item looks like any other)."""

    key: str
    task: str
    score: int | None
    cant_judge: str | None  # the reason the annotator gave instead of a score

    @property
    def answered(self) -> bool:
        """Whether the annotator gave a score or said why they could not."""
        return self.score is not None or self.cant_judge is not None


DEFAULT_FPS = 30.0  # the track's videos' usual rate, where a probe does not say


@dataclass(frozen=True, slots=True)
class ItemView:
    """What the annotator's page shows of one item; the media paths stay on the server."""

    key: str
    task: str
    score: int | None
    note: str
    cant_judge: str | None
    media: dict[str, str]  # MEDIA_NAMES -> path relative to the media store
    fps: float = DEFAULT_FPS  # the served generated video's frame rate: a frame step is one of its frames


@dataclass(frozen=True, slots=True)
class Progress:
    """Scored and total items per annotator, and primary items per task and per team (operators only)."""

    annotators: dict[str, tuple[int, int]]
    tasks: dict[str, tuple[int, int]]
    teams: dict[str, tuple[int, int]]
    disabled_pending: dict[str, int] = field(default_factory=dict)  # disabled annotator -> items they left unscored


def unknown_item(key: str) -> NotFoundError:
    """The one answer for an item the caller may not see or that does not exist."""
    return NotFoundError(f"no item {key!r}", fix="open your queue")


def queue(engine: Engine, annotator_id: int) -> list[QueueItem]:
    """The annotator's items in queue order."""
    query = (
        select(items.c.key, gt.c.task, scores.c.score, scores.c.cant_judge)
        .join(gt, gt.c.id == items.c.gt_id)
        .outerjoin(scores, scores.c.item_id == items.c.id)
        .where(items.c.annotator_id == annotator_id)
        .order_by(items.c.position)
    )
    with engine.connect() as db:
        return [QueueItem(r.key, r.task, r.score, r.cant_judge) for r in db.execute(query)]


def next_key(engine: Engine, annotator_id: int) -> str | None:
    """The first unanswered item of the annotator's queue."""
    return next((item.key for item in queue(engine, annotator_id) if not item.answered), None)


def item_for(engine: Engine, annotator_id: int, key: str) -> ItemView:
    """The annotator's item ``key``; ``unknown_item`` for anyone else's or for no item at all."""
    query = (
        select(
            items.c.key, gt.c.task, gt.c.video_path.label("ref"), gt.c.last_frame_path.label("ref_last"),
            videos.c.video_path.label("gen"), videos.c.last_frame_path.label("gen_last"), items.c.video_id,
            videos.c.probe_json, scores.c.score, scores.c.note, scores.c.cant_judge,
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
    media = {
        "generated.mp4": row.gen,
        "reference.mp4": row.ref,
        "generated.png": row.gen_last,
        "reference.png": row.ref_last,
    }
    return ItemView(row.key, row.task, row.score, row.note or "", row.cant_judge, media, served_fps(row.probe_json))


def served_fps(probe_json: str | None) -> float:
    """The frame rate of the video as served (its probe's output), else ``DEFAULT_FPS``."""
    try:
        fps = float(json.loads(probe_json or "{}").get("output", {}).get("fps") or 0)
    except (ValueError, TypeError, AttributeError):
        fps = 0.0
    return fps if 1 <= fps <= 240 else DEFAULT_FPS


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
    _check_note(note)
    return score


def _check_note(note: str) -> None:
    if len(note) > NOTE_MAX_CHARS:
        raise InputError(f"note longer than {NOTE_MAX_CHARS} characters")
    if problem := unstorable(note):
        raise InputError(f"the note holds {problem}", fix="remove it")


def _store_answer(
    db: Connection, item_id: int, key: str, annotator: str, score: int | None, cant_judge: str | None, note: str,
    at: str,
) -> int:  # fmt: skip
    """Store a score or a can't-judge answer (an answer anew clears any resolution), audited with the previous one."""
    check_open(db)
    old = db.execute(select(scores).where(scores.c.item_id == item_id)).first()
    owner = select(items.c.annotator_id).where(items.c.id == item_id).scalar_subquery()
    db.execute(
        update(item_times)
        .where(item_times.c.item_id == item_id, item_times.c.annotator_id == owner, item_times.c.answered_at.is_(None))
        .values(answered_at=at)
    )
    values = {"score": score, "cant_judge": cant_judge, "resolution": None, "note": note, "updated_at": at}
    if old is None:
        revision = 1
        db.execute(insert(scores).values(item_id=item_id, revision=revision, **values))
    else:
        revision = old.revision + 1
        db.execute(update(scores).where(scores.c.item_id == item_id).values(revision=revision, **values))
    append_audit(
        db, at, "score_set" if old is None else "score_changed",
        {"item": key, "annotator": annotator, "score": score, "cant_judge": cant_judge, "note": note,
         "previous": None if old is None else old.score,
         "previous_cant_judge": None if old is None else old.cant_judge, "revision": revision},
    )  # fmt: skip
    return revision


def _own_item(db: Connection, annotator: Account, key: str) -> int:
    item_id = db.execute(select(items.c.id).where(items.c.key == key, items.c.annotator_id == annotator.id)).scalar()
    if item_id is None:
        raise unknown_item(key)
    return int(item_id)


def record_score(engine: Engine, clock: Clock, annotator: Account, key: str, score: object, note: str = "") -> int:
    """Store the annotator's score of their item; returns the answer's revision."""
    value = _check(score, note)
    at = utc_text(clock.now())
    with transaction(engine) as db:
        return _store_answer(db, _own_item(db, annotator, key), key, annotator.name, value, None, note, at)


def item_opened(engine: Engine, clock: Clock, annotator: Account, key: str) -> None:
    """Note when ``annotator`` first opened their item ``key`` (time on item starts there)."""
    at = utc_text(clock.now())

    def seen(db: Connection) -> tuple[int, bool]:
        item_id = _own_item(db, annotator, key)
        mine = (item_times.c.item_id == item_id) & (item_times.c.annotator_id == annotator.id)
        return item_id, db.execute(select(item_times.c.item_id).where(mine)).first() is not None

    with engine.connect() as db:  # every later opening only reads: the write lock is taken once per item
        if seen(db)[1]:
            return
    with transaction(engine) as db:
        item_id, opened = seen(db)  # again under the lock: two tabs opening it at once record it once
        if not opened:
            db.execute(insert(item_times).values(item_id=item_id, annotator_id=annotator.id, opened_at=at))


def record_cant_judge(engine: Engine, clock: Clock, annotator: Account, key: str, reason: str, note: str = "") -> int:
    """Store that the annotator cannot judge their item, and why (``CANT_JUDGE``); returns the answer's revision."""
    if reason not in CANT_JUDGE:
        raise InputError(f"can't judge must say why: one of {', '.join(CANT_JUDGE)}, not {reason!r}")
    _check_note(note)
    at = utc_text(clock.now())
    with transaction(engine) as db:
        return _store_answer(db, _own_item(db, annotator, key), key, annotator.name, None, reason, note, at)


IMPORT_COLUMNS = ("annotator", "item", "score", "note", "cant_judge")
IMPORT_FIX = (
    "write a header of annotator,item,score and any of note,cant_judge; a score is 0-3, or empty with cant_judge "
    f"one of {', '.join(CANT_JUDGE)}"
)
WHOLE_NUMBER = re.compile(r"-?[0-9]+")  # ASCII digits only: "³" or "٣" is not a score


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import did: answers stored, and rows that matched what was already there."""

    applied: int
    unchanged: int


def import_scores(
    engine: Engine, clock: Clock, text: str, *, source: Path | None = None, replace: bool = False
) -> ImportResult:
    """Apply a CSV of ``annotator,item,score[,note][,cant_judge]``: every row checked first, all applied or none.

    An item already answered (in the page, or by an earlier import) with another answer is a bad row unless
    ``replace``: an import never overwrites an annotator's work silently. A row equal to the stored answer is left
    as it is, so importing the same file twice changes nothing. Errors name ``source`` and the line.
    """
    reader = csv.reader(io.StringIO(text))
    header = [h.strip().lower() for h in next(reader, None) or []]
    if (
        header[:3] != ["annotator", "item", "score"]
        or len(set(header)) != len(header)
        or not set(header) <= set(IMPORT_COLUMNS)
    ):
        raise InputError(f"the first line is {','.join(header) or 'empty'}", path=source, fix=IMPORT_FIX)
    column = {name: index for index, name in enumerate(header)}
    with engine.connect() as db:
        owner = {
            r.key: (r.id, r.name)
            for r in db.execute(
                select(items.c.key, items.c.id, users.c.name).join(users, users.c.id == items.c.annotator_id)
            )
        }
        stored = {r.item_id: (r.score, r.cant_judge, r.note) for r in db.execute(select(scores))}
    rows: list[tuple[int, str, str, int | None, str | None, str]] = []
    problems: list[str] = []
    seen: set[str] = set()
    unchanged = 0
    for line, fields in enumerate(reader, start=2):
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            problems.append(f"line {line}: {len(fields)} fields, expected {len(header)}")
            continue
        name, key, raw = (fields[column[c]].strip() for c in ("annotator", "item", "score"))
        note = fields[column["note"]] if "note" in column else ""
        reason = fields[column["cant_judge"]].strip() if "cant_judge" in column else ""
        found = owner.get(key)
        if found is None or found[1] != name:
            problems.append(f"line {line}: item {key!r} is not {name!r}'s")
            continue
        if key in seen:
            problems.append(f"line {line}: item {key!r} appears twice")
            continue
        seen.add(key)
        try:
            score, cant_judge = _imported_answer(raw, reason, note)
        except InputError as error:
            problems.append(f"line {line}: {error.message}")
            continue
        before = stored.get(found[0])
        if before is not None and before[:2] == (score, cant_judge) and (before[2] == note or "note" not in column):
            unchanged += 1
            continue
        if before is not None and not replace and before[:2] != (None, None):
            was = f"score {before[0]}" if before[0] is not None else f"can't judge ({before[1]})"
            problems.append(f"line {line}: item {key!r} is already answered ({was}); --replace to overwrite it")
            continue
        rows.append((found[0], key, name, score, cant_judge, note))
    if problems:
        shown = "; ".join(problems[:20]) + (f"; and {len(problems) - 20} more" if len(problems) > 20 else "")
        raise InputError(f"{len(problems)} bad row(s), nothing applied: {shown}", path=source,
                         fix="correct the rows and import again")  # fmt: skip
    at = utc_text(clock.now())
    with transaction(engine) as db:
        for item_id, key, name, score, cant_judge, note in rows:
            _store_answer(db, item_id, key, name, score, cant_judge, note, at)
        append_audit(db, at, "scores_imported", {"rows": len(rows), "unchanged": unchanged, "replace": replace,
                                                  "file": None if source is None else source.name})  # fmt: skip
    return ImportResult(len(rows), unchanged)


def _imported_answer(raw: str, reason: str, note: str) -> tuple[int | None, str | None]:
    """A row's score or can't-judge reason, checked as the page checks them."""
    if reason:
        if raw:
            raise InputError("a score or cant_judge, not both")
        if reason not in CANT_JUDGE:
            raise InputError(f"cant_judge must be one of {', '.join(CANT_JUDGE)}, not {reason!r}")
        _check_note(note)
        return None, reason
    return _check(int(raw) if WHOLE_NUMBER.fullmatch(raw) else raw, note), None


def progress(engine: Engine) -> Progress:
    """Done and total per annotator (every kind), per task and per team (scored items only)."""
    query = select(
        users.c.name.label("annotator"), items.c.kind, gt.c.task, teams.c.name.label("team"), scores.c.score,
        scores.c.cant_judge, scores.c.resolution, users.c.disabled_at,
    ).select_from(items_with_context())  # fmt: skip
    pending: Counter[str] = Counter()
    counts: dict[str, dict[str, list[int]]] = {"a": defaultdict(lambda: [0, 0]), "k": defaultdict(lambda: [0, 0]),
                                               "t": defaultdict(lambda: [0, 0])}  # fmt: skip
    with engine.connect() as db:
        for r in db.execute(query):
            # an annotator is done with an answered item; a team's video only once it counts (scored, or broken)
            answered = r.score is not None or r.cant_judge is not None
            counts_now = r.score is not None or r.resolution == BROKEN
            done = int(answered)
            if not answered and r.disabled_at is not None:
                pending[r.annotator] += 1  # work nobody will do until it is handed on
            targets = [("a", r.annotator)] + ([("k", r.task), ("t", r.team)] if r.kind == ItemKind.PRIMARY else [])
            for table, name in targets:
                counts[table][name][0] += done if table == "a" else int(counts_now)
                counts[table][name][1] += 1
        for name in db.execute(select(users.c.name).where(users.c.role == Role.ANNOTATOR)).scalars():
            counts["a"].setdefault(name, [0, 0])
    as_tuples = {k: {n: (v[0], v[1]) for n, v in sorted(c.items())} for k, c in counts.items()}
    return Progress(as_tuples["a"], as_tuples["k"], as_tuples["t"], dict(sorted(pending.items())))


@dataclass(frozen=True, slots=True)
class CantJudge:
    """A can't-judge answer waiting for the operator (operators only: it names the team)."""

    item: str
    annotator: str
    team: str
    task: str
    episode: str
    kind: str
    reason: str
    note: str


def cant_judge_pending(engine: Engine) -> list[CantJudge]:
    """Every can't-judge answer no operator has resolved yet, oldest item first."""
    query = (
        select(
            items.c.key, users.c.name.label("annotator"), teams.c.name.label("team"), gt.c.task, gt.c.episode,
            items.c.kind, scores.c.cant_judge, scores.c.note,
        )
        .select_from(items_with_context())
        .where(scores.c.cant_judge.is_not(None), scores.c.resolution.is_(None))
        .order_by(items.c.id)
    )  # fmt: skip
    with engine.connect() as db:
        return [
            CantJudge(r.key, r.annotator, r.team or "(gold)", r.task, r.episode, r.kind, r.cant_judge, r.note)
            for r in db.execute(query)
        ]


def resolve(engine: Engine, clock: Clock, key: str, *, broken: bool = False, rescore_by: str | None = None) -> str:
    """The operator's answer to a can't-judge: ``broken`` (counts 0) or ``rescore_by`` another annotator.

    Rescoring moves the item, unanswered, to the end of the other annotator's queue (the can't-judge answer is kept
    in the audit log); nobody gets a second item of one video. Returns what was done, in words.
    """
    if broken == (rescore_by is not None):
        raise InputError("resolve with exactly one of --broken or --rescore ANNOTATOR")
    at = utc_text(clock.now())
    with transaction(engine) as db:
        check_open(db)
        row = db.execute(
            select(
                items.c.id,
                items.c.video_id,
                items.c.annotator_id,
                scores.c.cant_judge,
                scores.c.resolution,
                scores.c.note,
                users.c.name,
            )  # fmt: skip
            .join(scores, scores.c.item_id == items.c.id)
            .join(users, users.c.id == items.c.annotator_id)
            .where(items.c.key == key)
        ).first()
        if row is None or row.cant_judge is None:
            raise NotFoundError(f"item {key!r} has no can't-judge answer", fix="see `podium wmeval cant-judge`")
        if rescore_by is None:
            # the answer's time stays the annotator's; when the operator resolved it is in the audit entry
            db.execute(update(scores).where(scores.c.item_id == row.id).values(resolution=BROKEN))
            append_audit(db, at, "cant_judge_resolved", {"item": key, "resolution": BROKEN, "reason": row.cant_judge})
            return f"{key}: broken, counts 0"
        target = db.execute(select(users.c.id, users.c.role).where(users.c.name == rescore_by)).first()
        if target is None or target.role != Role.ANNOTATOR:
            raise InputError(f"{rescore_by!r} is not an annotator", fix="name one: podium wmeval assignments")
        if target.id == row.annotator_id:
            raise InputError(f"{rescore_by!r} already could not judge it", fix="choose another annotator")
        if (
            row.video_id is not None
            and db.execute(
                select(items.c.id).where(items.c.video_id == row.video_id, items.c.annotator_id == target.id)
            ).first()
        ):
            raise InputError(f"{rescore_by!r} scores this video already (nobody scores a video twice)")
        last = db.execute(select(func.max(items.c.position)).where(items.c.annotator_id == target.id)).scalar()
        db.execute(scores.delete().where(scores.c.item_id == row.id))
        db.execute(update(items).where(items.c.id == row.id).values(annotator_id=target.id, position=(last or 0) + 1))
        append_audit(
            db, at, "cant_judge_resolved",
            {"item": key, "resolution": Resolution.RESCORE, "from": row.name, "to": rescore_by,
             "reason": row.cant_judge, "note": row.note},
        )  # fmt: skip
        return f"{key}: moved from {row.name} to {rescore_by}, to be scored"
