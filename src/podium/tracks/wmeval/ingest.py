"""Ingest: the ground truth's camera views and each team's generated videos, made playable in the media store.

``ingest_gt`` reads ``GT_DIR/task<N>/videos/<cam>/episode_<i>.mp4`` for the three cameras and composes each episode's
views into one reference strip laid out like the generated videos (views side by side at one height). ``ingest_team``
reads the official submission layout ``DIR/evaluator_test/task<N>/episode_<i>.mp4`` (docs/rules/wmeval.md §1.3) and
matches each file to a GT episode by task folder and episode number. ``layout.py`` reads both layouts strictly: a GT set
is all or nothing, a submission that fits no place of the layout is refused, and what a team did not send or sent
besides its videos is reported, never guessed at (docs/rules/wmeval.md §1.5, A4/A5).

Every video is made browser-playable on the core's executor, in parallel, in the ingest's staging folder
(``staging.py``): remuxed (its H.264 stream copied, ``moov`` first) when it already plays in a browser, else
transcoded to H.264; the original is kept beside the copy, and the way taken is recorded (``method`` in the
video's probe, and counted in the report). A file FFmpeg cannot decode is stored as unplayable, with the reason: it
is never shown and scores 0; a GT episode that cannot be composed refuses the GT set instead. Only when every video
is made is the staging folder moved into the store and the rows written, in one transaction: a killed ingest
stores nothing, and its rerun makes only what is missing. ``ingest_team(..., replace=True)`` re-ingests a team
(``force`` too once any of its items is answered: the answers are dropped, and listed in the audit log).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import secrets
import shutil
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, delete, func, insert, select

from podium.core.accounts import check_name
from podium.core.clock import Clock, utc_text
from podium.core.errors import ConfigError, ConflictError, InputError
from podium.core.execution.executor import Executor
from podium.core.storage.sql import inserted_id
from podium.tracks.wmeval.layout import CAMERAS, Issue, episode_name, scan_gt, scan_team, task_name
from podium.tracks.wmeval.media import StripJob, TranscodeJob, TranscodeResult, compose_strip, transcode_job
from podium.tracks.wmeval.schema import gt, issues, items, meta, scores, teams, videos
from podium.tracks.wmeval.staging import Staging, copy_if_changed, team_staging_name
from podium.tracks.wmeval.store import append_audit, transaction

__all__ = ["CAMERAS", "GOLD_TEAM", "STRIP_HEIGHT", "IngestReport", "Issue", "import_gold", "ingest_gt", "ingest_team",
           "media_root"]  # fmt: skip

STRIP_HEIGHT = 224  # the baseline letterboxes every view to 224x224
GOLD_TEAM = "(gold set)"  # not a valid team name (check_name): no team can take it
MEDIA_KEY = "media_root"


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What one ingest stored and what it reported."""

    source: str  # "GT" or the team's name
    stored: int
    playable: int
    issues: tuple[Issue, ...]
    methods: tuple[tuple[str, int], ...] = ()  # how many playable videos were remuxed, transcoded or composed
    reused: int = 0  # made by an earlier, interrupted run of the same ingest
    replaced: int = 0  # videos of the team's earlier ingest that this one replaced

    def lines(self) -> list[str]:
        """The report for a person: one summary line, then one line per issue."""
        how = f" ({', '.join(f'{n} {method}' for method, n in self.methods)})" if self.methods else ""
        head = (
            f"{self.source}: {self.stored} video(s) stored, {self.playable} playable{how}, {len(self.issues)} issue(s)"
        )
        extra = ([f"  resumed: {self.reused} made by an interrupted run, reused"] if self.reused else []) + (
            [f"  replaced: {self.replaced} video(s) of the earlier ingest"] if self.replaced else []
        )
        return [head, *extra, *(f"  {i.kind}: {i.path}: {i.detail}" for i in self.issues)]


def media_root(engine: Engine, given: Path | None) -> Path:
    """The media store folder: fixed at first use (``given``, else ``./wmeval-media``) and kept in the database."""
    with engine.connect() as db:
        stored = db.execute(select(meta.c.value).where(meta.c.key == MEDIA_KEY)).scalar()
    if stored is not None:
        if given is not None and given.resolve() != Path(stored):
            raise ConfigError(f"this database keeps its media in {stored}, not {given}", fix=f"pass --media {stored}")
        return Path(stored)
    root = (given or Path("wmeval-media")).resolve()
    root.mkdir(parents=True, exist_ok=True)
    with transaction(engine) as db:
        if db.execute(select(meta.c.value).where(meta.c.key == MEDIA_KEY)).scalar() is None:
            db.execute(insert(meta).values(key=MEDIA_KEY, value=str(root)))
    return root


def stored_media_root(engine: Engine) -> Path | None:
    """The media store folder, or None before the first ingest."""
    with engine.connect() as db:
        value = db.execute(select(meta.c.value).where(meta.c.key == MEDIA_KEY)).scalar()
    return None if value is None else Path(value)


def _stored(job: TranscodeJob | StripJob, result: TranscodeResult, root: Path, at: str) -> dict[str, object]:
    """The columns a GT strip and a team video share: where the playable file and its last frame are, and why not."""
    return {
        "video_path": str(job.target.relative_to(root)) if result.playable else None,
        "last_frame_path": str(job.last_frame.relative_to(root)) if result.playable else None,
        "playable": result.playable,
        "reason": result.reason,
        "probe_json": _probe_json(result),
        "created_at": at,
    }


def _probe_json(result: TranscodeResult) -> str:
    return json.dumps(
        {
            "method": result.method or None,
            "original": None if result.original is None else asdict(result.original),
            "output": None if result.output is None else asdict(result.output),
        },
        sort_keys=True,
    )


def _methods(results: Sequence[tuple[object, TranscodeResult]]) -> tuple[tuple[str, int], ...]:
    counted = Counter(result.method for _, result in results if result.playable)
    return tuple(sorted(counted.items()))


def _record_issues(db: Connection, team_id: int | None, found: list[Issue], at: str) -> None:
    for issue in found:
        db.execute(
            insert(issues).values(team_id=team_id, kind=issue.kind, path=issue.path, detail=issue.detail, created_at=at)
        )


def _fingerprint(*digests: str) -> str:
    return hashlib.sha256("\0".join(digests).encode()).hexdigest()


def ingest_gt(
    engine: Engine, root: Path, gt_dir: Path, executor: Executor, clock: Clock, height: int = STRIP_HEIGHT
) -> IngestReport:
    """Compose and store the GT set: all or nothing, and fixed once a team is ingested."""
    episodes = scan_gt(gt_dir)
    with engine.connect() as db:
        have = {(r.task, r.episode) for r in db.execute(select(gt.c.task, gt.c.episode))}
        any_team = db.execute(select(teams.c.id).limit(1)).first() is not None
    if have - set(episodes):
        lost = ", ".join(f"{t}/{e}" for t, e in sorted(have - set(episodes))[:5])
        raise ConflictError(f"the GT set lacks episodes ingested before ({lost}); nothing stored",
                            fix="ingest the whole GT set, as first ingested and more")  # fmt: skip
    new = {key: views for key, views in episodes.items() if key not in have}
    if not new:
        return IngestReport("GT", 0, 0, ())
    if any_team:
        added = ", ".join(f"{t}/{e}" for t, e in sorted(new)[:5])
        raise ConflictError(f"teams are ingested already: the GT set is fixed ({added} would be new); nothing stored",
                            fix="ingest the whole GT set before the first team")  # fmt: skip
    staging = Staging(root, "gt")
    planned: list[tuple[StripJob, str]] = []
    for (task, episode), views in new.items():
        folder = staging.job_folder(task, episode)
        digests = [copy_if_changed(view, folder / f"{cam}.mp4") for cam, view in zip(CAMERAS, views, strict=True)]
        job = StripJob(tuple(folder / f"{cam}.mp4" for cam in CAMERAS), folder / "reference.mp4",
                       folder / "reference-last.png", height)  # fmt: skip
        planned.append((job, _fingerprint(*digests, str(height))))
    done, reused = staging.make(planned, compose_strip, executor)
    broken = [(job, result) for job, result in done if not result.playable]
    if broken:
        staging.discard()
        listed = "; ".join(
            f"{_episode_of(job.target)}: {result.reason}" for job, result in sorted(broken, key=_by_path)
        )
        raise InputError(f"GT episodes that cannot be composed, nothing stored: {listed}", path=gt_dir,
                         fix="replace or remove those views and ingest again")  # fmt: skip
    at = utc_text(clock.now())
    finals = []
    with transaction(engine) as db:
        for job, result in sorted(done, key=_by_path):
            task, episode = _episode_of(job.target).split("/")
            final = root / "gt" / task / episode
            finals.append((job.target.parent, final))
            moved = StripJob(tuple(final / v.name for v in job.views), final / job.target.name,
                             final / job.last_frame.name, height)  # fmt: skip
            db.execute(insert(gt).values(task=task, episode=episode, **_stored(moved, result, root, at)))
        append_audit(db, at, "gt_ingested", {"episodes": len(done), "playable": len(done), "issues": 0})
        _move_all(finals)  # inside the transaction: a failed move rolls the rows back
    staging.discard()
    return IngestReport("GT", len(done), len(done), (), _methods(done), reused)


def _episode_of(target: Path) -> str:
    return f"{target.parent.parent.name}/{target.parent.name}"


def _by_path(pair: tuple[StripJob | TranscodeJob, TranscodeResult]) -> str:
    return str(pair[0].target)


def _move_all(moves: Sequence[tuple[Path, Path]]) -> None:
    """Move each staged folder to its place in the store (same file system: a rename)."""
    for source, target in moves:
        if target.exists():  # left by an ingest before staging existed, never referenced by a row
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        source.rename(target)


def ingest_team(
    engine: Engine, root: Path, team: str, folder: Path, executor: Executor, clock: Clock, *,
    replace: bool = False, force: bool = False,
) -> IngestReport:  # fmt: skip
    """Match, remux or transcode, and store one team's submission (``replace``: instead of its earlier one)."""
    check_name("team", team)
    return _ingest_videos(engine, root, team, folder, executor, clock, replace=replace, force=force)


def import_gold(
    engine: Engine, root: Path, folder: Path, answers: str, executor: Executor, clock: Clock, *,
    replace: bool = False, force: bool = False,
) -> IngestReport:  # fmt: skip
    """Store a gold set: videos in the team layout with the score each should get (``answers``: CSV text).

    ``answers`` is ``task,episode,expected``, one row per video of the folder, each expected score 0-3; a row
    without its video, a video without its row, or a bad score refuses the whole set. Its videos are made exactly
    as a team's are (remuxed or transcoded, stripped), so a gold item is served like any other.
    """
    return _ingest_videos(engine, root, GOLD_TEAM, folder, executor, clock, replace=replace, force=force,
                          kind="gold", expected=_gold_answers(answers))  # fmt: skip


def _gold_answers(text: str) -> dict[tuple[str, str], int]:
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader, [])]
    if header != ["task", "episode", "expected"]:
        raise InputError("the gold answers' first line must be: task,episode,expected")
    found: dict[tuple[str, str], int] = {}
    problems = []
    for line, fields in enumerate(reader, start=2):
        if not fields:
            continue
        task, episode, value = (f.strip() for f in (*fields, "", "", "")[:3])
        key = (task_name(task) or task, episode_name(f"{episode}.mp4") or episode)
        if len(fields) != 3 or value not in ("0", "1", "2", "3"):
            problems.append(f"line {line}: expected task,episode,score with a score of 0-3")
        elif key in found:
            problems.append(f"line {line}: {task}/{episode} twice")
        else:
            found[key] = int(value)
    if problems or not found:
        raise InputError(f"bad gold answers, nothing imported: {'; '.join(problems) or 'no row'}",
                         fix="one row per gold video: task,episode,expected")  # fmt: skip
    return found


def _ingest_videos(
    engine: Engine, root: Path, team: str, folder: Path, executor: Executor, clock: Clock, *, replace: bool,
    force: bool, kind: str = "team", expected: dict[tuple[str, str], int] | None = None,
) -> IngestReport:  # fmt: skip
    if force and not replace:
        raise ConfigError("--force only goes with --replace")
    with engine.connect() as db:
        known = [(r.task, r.episode) for r in db.execute(select(gt.c.task, gt.c.episode))]
        existing = db.execute(select(teams.c.id).where(teams.c.name == team)).scalar()
        answered = 0 if existing is None else _answered(db, existing)
    if not known:
        raise ConflictError("no GT ingested yet", fix="run `podium wmeval ingest-gt GT_DIR` first")
    if existing is not None and not replace:
        raise ConflictError(f"team {team!r} is ingested already", fix="re-ingest it with --replace")
    if answered and not force:
        raise ConflictError(f"team {team!r} has {answered} answered item(s)",
                            fix="--replace --force drops those answers (listed in the audit log)")  # fmt: skip
    matched, problems = scan_team(folder, known)
    if kind == "gold":  # a gold set is never scored: an episode it lacks costs nobody anything
        problems = [issue for issue in problems if issue.kind != "missing"]
    if expected is not None and set(expected) != set(matched):
        lacking = sorted(set(matched) - set(expected))[:5]
        extra = sorted(set(expected) - set(matched))[:5]
        raise InputError(
            "the gold answers and videos differ, nothing imported: "
            + "; ".join([*(f"{t}/{e}: a video without an answer" for t, e in lacking),
                         *(f"{t}/{e}: an answer without a video" for t, e in extra)]),
            path=folder, fix="one answer per gold video, one video per answer",
        )  # fmt: skip
    staging = Staging(root, team_staging_name(team))
    planned: list[tuple[TranscodeJob, str]] = []
    for (task, episode), source in sorted(matched.items()):
        target = staging.job_folder(task, episode)
        job = TranscodeJob(target / "original.mp4", target / "video.mp4", target / "last.png")
        planned.append((job, copy_if_changed(source, job.source)))
    done, reused = staging.make(planned, transcode_job, executor)
    for stale in _stale_job_folders(staging, matched):  # episodes an earlier run had and this submission lacks
        shutil.rmtree(stale)
    where = root / "teams" / secrets.token_hex(8)  # a random folder, never the team's name
    at = utc_text(clock.now())
    playable, replaced, old_folders, moved = 0, 0, set[Path](), False
    try:
        with transaction(engine) as db:
            team_id = db.execute(select(teams.c.id).where(teams.c.name == team)).scalar()
            if team_id is not None and existing is None:  # ingested meanwhile by another run
                raise ConflictError(f"team {team!r} is ingested already", fix="re-ingest it with --replace")
            if team_id is None:
                team_id = inserted_id(db, insert(teams).values(name=team, kind=kind, created_at=at))
            else:
                replaced, old_folders = _drop_team_media(db, team_id, team, at)
            for job, result in sorted(done, key=_by_path):
                task, episode = job.source.parent.parent.name, job.source.parent.name
                playable += result.playable
                if not result.playable:
                    sent = str(matched[(task, episode)].relative_to(folder))
                    problems.append(Issue("undecodable", sent, result.reason))
                final = where / task / episode
                stored = TranscodeJob(final / job.source.name, final / job.target.name, final / job.last_frame.name)
                db.execute(
                    insert(videos).values(
                        team_id=team_id,
                        task=task,
                        episode=episode,
                        original_path=str(stored.source.relative_to(root)),
                        expected=None if expected is None else expected[(task, episode)],
                        **_stored(stored, result, root, at),
                    )
                )
            _record_issues(db, team_id, problems, at)
            append_audit(
                db, at, "team_replaced" if replaced else "team_ingested",
                {"team": team, "videos": len(done), "playable": playable, "issues": len(problems),
                 "replaced": replaced} | dict(_methods(done)),
            )  # fmt: skip
            _move_all([(staging.folder, where)])
            moved = True
    except BaseException:
        if moved:  # the rows did not commit: the staged work goes back where a rerun finds it
            where.rename(staging.folder)
        raise
    staging.discard()  # moved already: only an empty staging/ goes
    for old in old_folders:
        shutil.rmtree(root / old, ignore_errors=True)
    return IngestReport(team, len(done), playable, tuple(problems), _methods(done), reused, replaced)


def _stale_job_folders(staging: Staging, matched: Iterable[tuple[str, str]]) -> list[Path]:
    wanted = {staging.folder / task / episode for task, episode in matched}
    found = (
        [p for task in staging.folder.iterdir() if task.is_dir() for p in task.iterdir()]
        if staging.folder.is_dir()
        else []
    )
    return [p for p in found if p not in wanted]


def _answered(db: Connection, team_id: int) -> int:
    team_items = select(items.c.id).join(videos, videos.c.id == items.c.video_id).where(videos.c.team_id == team_id)
    return int(
        db.execute(select(func.count()).select_from(scores).where(scores.c.item_id.in_(team_items))).scalar_one()
    )


def _drop_team_media(db: Connection, team_id: int, team: str, at: str) -> tuple[int, set[Path]]:
    """Delete a team's videos, items, answers and issues (the answers listed in the audit log); their folders."""
    team_videos = select(videos.c.id).where(videos.c.team_id == team_id)
    team_items = select(items.c.id).where(items.c.video_id.in_(team_videos))
    dropped = [
        {"item": r.key, "score": r.score, "cant_judge": r.cant_judge}
        for r in db.execute(
            select(items.c.key, scores.c.score, scores.c.cant_judge).join(scores, scores.c.item_id == items.c.id)
            .where(items.c.id.in_(team_items))
        )
    ]  # fmt: skip
    folders = {
        Path(p).parents[-3]
        for p in db.execute(select(videos.c.original_path).where(videos.c.team_id == team_id)).scalars()
    }
    count = int(db.execute(select(func.count()).select_from(videos).where(videos.c.team_id == team_id)).scalar_one())
    db.execute(delete(scores).where(scores.c.item_id.in_(team_items)))
    db.execute(delete(items).where(items.c.id.in_(team_items)))
    db.execute(delete(videos).where(videos.c.team_id == team_id))
    db.execute(delete(issues).where(issues.c.team_id == team_id))
    append_audit(db, at, "team_dropped", {"team": team, "videos": count, "answers_dropped": dropped})
    return count, folders
