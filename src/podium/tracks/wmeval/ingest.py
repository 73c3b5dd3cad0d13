"""Ingest: the ground truth's camera views and each team's generated videos, made playable in the media store.

``ingest_gt`` reads ``GT_DIR/task<N>/videos/<cam>/episode_<i>.mp4`` for the three cameras and composes each
episode's views into one reference strip laid out like the generated videos (views side by side at one height).
``ingest_team`` reads the official submission layout ``DIR/evaluator_test/task<N>/episode_<i>.mp4``
(docs/rules/wmeval.md §1.3) and matches each file to a GT episode by task folder and episode number.
``submission_folders.py`` reads both layouts strictly: a GT set is all or nothing, a submission that fits no place
of the layout is refused, and what a team did not send or sent besides its videos is reported, never guessed at
(docs/rules/wmeval.md §1.5, A4/A5).

Every video is made anew in the season's served profile (``served.py``, ``media.py``: one size, frame rate and
encoder for all, so no file format tells one team from another) on the core's executor, in parallel, in the ingest's
staging folder (``staging.py``); the original is kept beside the served copy, and the way taken is recorded
(``method`` in the video's probe, and counted in the report). A file FFmpeg cannot decode is stored as unplayable,
with the reason: it is never shown and scores 0; a GT episode that cannot be composed refuses the GT set instead.
Only when every video is made is the staging folder moved into the store and the rows written, in one transaction: a
killed ingest stores nothing, and its rerun makes only what is missing. ``ingest_team(..., replace=True)``
replaces the videos whose bytes changed (``force`` too once any of them is answered: those answers are dropped, and
listed in the audit log).
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

from sqlalchemy import Connection, Engine, delete, func, insert, select, update

from podium.core.accounts import check_name
from podium.core.clock import Clock, utc_text
from podium.core.errors import ConfigError, ConflictError, InputError
from podium.core.execution.executor import Executor
from podium.core.storage.sql import inserted_id
from podium.tracks.wmeval.freeze import check_open
from podium.tracks.wmeval.kinds import IssueKind, TeamKind
from podium.tracks.wmeval.media import (
    StripJob,
    TranscodeJob,
    TranscodeResult,
    compose_strip,
    frame_rate,
    transcode_job,
)
from podium.tracks.wmeval.schema import gt, issues, item_times, items, meta, scores, teams, videos
from podium.tracks.wmeval.served import STRIP_HEIGHT, choose_profile, keep_profile, stored_profile
from podium.tracks.wmeval.staging import Staging, copy_if_changed, team_staging_name
from podium.tracks.wmeval.store import append_audit, transaction
from podium.tracks.wmeval.submission_folders import CAMERAS, Issue, episode_name, scan_gt, scan_team, task_name

__all__ = ["CAMERAS", "GOLD_TEAM", "STRIP_HEIGHT", "IngestReport", "Issue", "import_gold", "ingest_gt", "ingest_team",
           "media_root"]  # fmt: skip

GOLD_TEAM = "(gold set)"  # not a valid team name (check_name): no team can take it
MEDIA_KEY = "media_root"


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What one ingest stored and what it reported."""

    source: str  # "GT" or the team's name
    stored: int
    playable: int
    issues: tuple[Issue, ...]
    methods: tuple[tuple[str, int], ...] = ()  # how many playable videos were transcoded or composed
    reused: int = 0  # made by an earlier, interrupted run of the same ingest
    replaced: int = 0  # videos of the team's earlier ingest that this one replaced or removed
    kept: int = 0  # videos of the earlier ingest whose bytes did not change: kept, with their answers

    def lines(self) -> list[str]:
        """The report for a person: one summary line, then one line per issue."""
        how = f" ({', '.join(f'{n} {method}' for method, n in self.methods)})" if self.methods else ""
        head = (
            f"{self.source}: {self.stored} video(s) stored, {self.playable} playable{how}, {len(self.issues)} issue(s)"
        )
        extra = (
            ([f"  resumed: {self.reused} made by an interrupted run, reused"] if self.reused else [])
            + ([f"  replaced: {self.replaced} video(s) of the earlier ingest"] if self.replaced else [])
            + ([f"  kept: {self.kept} video(s) whose bytes did not change, with their answers"] if self.kept else [])
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
    engine: Engine, root: Path, gt_dir: Path, executor: Executor, clock: Clock, height: int | None = None,
    served_fps: int | None = None,
) -> IngestReport:  # fmt: skip
    """Compose and store the GT set: all or nothing, and fixed once a team is ingested.

    The first GT ingest fixes the season's served profile (``served.py``): strips ``height`` pixels high (224 when
    not given), at ``served_fps`` (when not given: the cameras' rate, 30 at least).
    """
    episodes = scan_gt(gt_dir)
    with engine.connect() as db:
        have = {(r.task, r.episode) for r in db.execute(select(gt.c.task, gt.c.episode))}
        any_team = db.execute(select(teams.c.id).limit(1)).first() is not None
        rates = (frame_rate(views[0]) for key, views in episodes.items() if key not in have)  # cam_high: the clock
        profile = choose_profile(db, height, served_fps, (rate for rate in rates if rate is not None))
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
                       folder / "reference-last.png", profile)  # fmt: skip
        planned.append((job, _fingerprint(*digests, repr(profile))))
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
                             final / job.last_frame.name, profile)  # fmt: skip
            db.execute(insert(gt).values(task=task, episode=episode, **_stored(moved, result, root, at)))
        keep_profile(db, profile)
        append_audit(db, at, "gt_ingested", {"episodes": len(done), "playable": len(done), "issues": 0,
                                             "served": asdict(profile)})  # fmt: skip
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
    replace: bool = False, force: bool = False, only: Sequence[str] = (),
) -> IngestReport:  # fmt: skip
    """Match, make in the served profile, and store one team's submission (``replace``: instead of its earlier one).

    A replacement changes only the videos whose bytes changed (``only``: ``task/episode`` names limit it to those):
    their items go back, unanswered, to the same annotators; every other video keeps its items and answers.
    """
    check_name("team", team)
    wanted = frozenset(_only_key(name) for name in only)
    if wanted and not replace:
        raise ConfigError("--only replaces videos of a team ingested before", fix="add --replace")
    return _ingest_videos(engine, root, team, folder, executor, clock, replace=replace, force=force, only=wanted)


def _only_key(name: str) -> tuple[str, str]:
    task, _, episode = name.strip("/").partition("/")
    if not task or not episode:
        raise ConfigError(f"--only {name!r} is not TASK/EPISODE", fix="e.g. --only task1/episode_3")
    return task_name(task) or task, episode_name(f"{episode}.mp4") or episode


def import_gold(
    engine: Engine, root: Path, folder: Path, answers: str, executor: Executor, clock: Clock, *,
    replace: bool = False, force: bool = False,
) -> IngestReport:  # fmt: skip
    """Store a gold set: videos in the team layout with the score each should get (``answers``: CSV text).

    ``answers`` is ``task,episode,expected``, one row per video of the folder, each expected score 0-3; a row
    without its video, a video without its row, or a bad score refuses the whole set. Its videos are made exactly
    as a team's are (in the served profile, stripped), so a gold item is served like any other.
    """
    return _ingest_videos(engine, root, GOLD_TEAM, folder, executor, clock, replace=replace, force=force,
                          kind=TeamKind.GOLD, expected=_gold_answers(answers))  # fmt: skip


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
    force: bool, kind: TeamKind = TeamKind.TEAM, expected: dict[tuple[str, str], int] | None = None,
    only: frozenset[tuple[str, str]] = frozenset(),
) -> IngestReport:  # fmt: skip
    if force and not replace:
        raise ConfigError("--force only goes with --replace")
    with engine.connect() as db:
        known = [(r.task, r.episode) for r in db.execute(select(gt.c.task, gt.c.episode))]
        profile = stored_profile(db)
        existing = db.execute(select(teams.c.id).where(teams.c.name == team)).scalar()
        before = {} if existing is None else _stored_videos(db, root, existing)
        if existing is not None:
            check_open(db)  # after the freeze the scores are a record: no video under them changes
    if not known or profile is None:
        raise ConflictError("no GT ingested yet", fix="run `podium wmeval ingest-gt GT_DIR` first")
    if existing is not None and not replace:
        raise ConflictError(f"team {team!r} is ingested already", fix="re-ingest it with --replace")
    matched, problems = scan_team(folder, known)
    if only:
        absent = sorted(only - set(matched))
        if absent:
            raise InputError(f"--only names {', '.join('/'.join(k) for k in absent)}, which the submission lacks",
                             path=folder, fix="name episodes the folder has a video for")  # fmt: skip
        matched = {key: path for key, path in matched.items() if key in only}
        problems = []  # what the rest of the folder has or lacks is not this replacement's business
    unchanged = {key for key, path in matched.items() if key in before and before[key].digest == _digest(path)}
    # the earlier videos that go: those named (--only), else every one not kept (changed, or no longer sent)
    changing = ((only & set(before)) if only else set(before)) - unchanged
    answered = _answered_items(engine, [before[key].id for key in changing])
    if answered and not force:
        raise ConflictError(
            f"team {team!r}: replacing {len(changing)} video(s) would drop {answered} answered item(s)",
            fix="--replace --force drops those answers (listed in the audit log); --only TASK/EPISODE limits it",
        )
    if kind == TeamKind.GOLD:  # a gold set is never scored: an episode it lacks costs nobody anything
        problems = [issue for issue in problems if issue.kind != IssueKind.MISSING]
    if expected is not None and set(expected) != set(matched):
        lacking = sorted(set(matched) - set(expected))[:5]
        extra = sorted(set(expected) - set(matched))[:5]
        raise InputError(
            "the gold answers and videos differ, nothing imported: "
            + "; ".join([*(f"{t}/{e}: a video without an answer" for t, e in lacking),
                         *(f"{t}/{e}: an answer without a video" for t, e in extra)]),
            path=folder, fix="one answer per gold video, one video per answer",
        )  # fmt: skip
    matched = {key: path for key, path in matched.items() if key not in unchanged}  # only these are made anew
    staging = Staging(root, team_staging_name(team))
    planned: list[tuple[TranscodeJob, str]] = []
    for (task, episode), source in sorted(matched.items()):
        target = staging.job_folder(task, episode)
        job = TranscodeJob(target / "original.mp4", target / "video.mp4", target / "last.png", profile)
        planned.append((job, _fingerprint(copy_if_changed(source, job.source), repr(profile))))
    done, reused = staging.make(planned, transcode_job, executor)
    for stale in _stale_job_folders(staging, matched):  # episodes an earlier run had and this submission lacks
        shutil.rmtree(stale)
    where = root / "teams" / secrets.token_hex(8)  # a random folder, never the team's name
    at = utc_text(clock.now())
    playable, replaced, moved = 0, 0, False
    try:
        with transaction(engine) as db:
            team_id = db.execute(select(teams.c.id).where(teams.c.name == team)).scalar()
            if team_id is not None and existing is None:  # ingested meanwhile by another run
                raise ConflictError(f"team {team!r} is ingested already", fix="re-ingest it with --replace")
            if team_id is None:
                team_id = inserted_id(db, insert(teams).values(name=team, kind=kind, created_at=at))
            waiting: dict[tuple[str, str], list[int]] = {}
            if before:  # first out (one video per team and episode), the items of a replaced one kept aside
                old = {key: before[key] for key in changing}
                waiting = _take_out(db, team_id, team, old, set(matched), at, whole=not only)
                replaced = len(old)
            new_ids: dict[tuple[str, str], int] = {}
            for job, result in sorted(done, key=_by_path):
                task, episode = job.source.parent.parent.name, job.source.parent.name
                playable += result.playable
                if not result.playable:
                    sent = str(matched[(task, episode)].relative_to(folder))
                    problems.append(Issue(result.issue, sent, result.reason))
                final = where / task / episode
                stored = TranscodeJob(final / job.source.name, final / job.target.name, final / job.last_frame.name,
                                      profile)  # fmt: skip
                new_ids[(task, episode)] = inserted_id(
                    db,
                    insert(videos).values(
                        team_id=team_id,
                        task=task,
                        episode=episode,
                        original_path=str(stored.source.relative_to(root)),
                        expected=None if expected is None else expected[(task, episode)],
                        **_stored(stored, result, root, at),
                    ),
                )
            playable_now = {(j.source.parent.parent.name, j.source.parent.name) for j, r in done if r.playable}
            for key, item_ids in waiting.items():  # back to the same annotators, unanswered, with the new video
                if key in playable_now:
                    db.execute(update(items).where(items.c.id.in_(item_ids)).values(video_id=new_ids[key]))
                else:  # a video nobody can watch gets no items, as at a first ingest
                    db.execute(delete(items).where(items.c.id.in_(item_ids)))
            for key in unchanged:  # a gold video kept: its expected score may be new
                if expected is not None:
                    db.execute(update(videos).where(videos.c.id == before[key].id).values(expected=expected[key]))
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
    _remove_unused_folders(engine, root, {v.folder for v in before.values()})
    kept_playable = sum(before[key].playable for key in unchanged)
    return IngestReport(team, len(done) + len(unchanged), playable + kept_playable, tuple(problems), _methods(done),
                        reused, replaced, len(unchanged))  # fmt: skip


def _stale_job_folders(staging: Staging, matched: Iterable[tuple[str, str]]) -> list[Path]:
    wanted = {staging.folder / task / episode for task, episode in matched}
    found = (
        [p for task in staging.folder.iterdir() if task.is_dir() for p in task.iterdir()]
        if staging.folder.is_dir()
        else []
    )
    return [p for p in found if p not in wanted]


@dataclass(frozen=True, slots=True)
class _StoredVideo:
    id: int
    digest: str  # SHA-256 of the original as submitted ("" where it is gone: counted as changed)
    folder: str  # the ingest's media folder it lies in (``teams/<random>``)
    playable: bool


def _stored_videos(db: Connection, root: Path, team_id: int) -> dict[tuple[str, str], _StoredVideo]:
    rows = db.execute(
        select(videos.c.id, videos.c.task, videos.c.episode, videos.c.original_path, videos.c.playable)
        .where(videos.c.team_id == team_id)
    ).all()  # fmt: skip
    return {
        (r.task, r.episode): _StoredVideo(
            r.id, _digest(root / r.original_path), str(Path(r.original_path).parents[-3]), bool(r.playable)
        )
        for r in rows
    }


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return ""
    return digest.hexdigest()


def _answered_items(engine: Engine, video_ids: Sequence[int]) -> int:
    with engine.connect() as db:
        held = select(items.c.id).where(items.c.video_id.in_(video_ids))
        return int(db.execute(select(func.count()).select_from(scores).where(scores.c.item_id.in_(held))).scalar_one())


def _take_out(
    db: Connection, team_id: int, team: str, old: dict[tuple[str, str], _StoredVideo], resent: set[tuple[str, str]],
    at: str, *, whole: bool,
) -> dict[tuple[str, str], list[int]]:  # fmt: skip
    """Take the ``old`` videos out, their answers audited first; the items of those ``resent``, by episode.

    Those items stay, reset and without a video until the new one is stored (the same annotators score it again);
    the items of an episode not sent again go.
    """
    old_ids = [video.id for video in old.values()]
    affected = select(items.c.id).where(items.c.video_id.in_(old_ids))
    dropped = [
        {"item": r.key, "score": r.score, "cant_judge": r.cant_judge}
        for r in db.execute(
            select(items.c.key, scores.c.score, scores.c.cant_judge).join(scores, scores.c.item_id == items.c.id)
            .where(items.c.id.in_(affected))
        )
    ]  # fmt: skip
    gone = sorted("/".join(key) for key in old)
    append_audit(db, at, "team_dropped" if whole else "videos_replaced",
                 {"team": team, "videos": gone, "answers_dropped": dropped})  # fmt: skip
    db.execute(delete(scores).where(scores.c.item_id.in_(affected)))
    db.execute(delete(item_times).where(item_times.c.item_id.in_(affected)))  # an opened item has its times
    waiting = {}
    for key, video in old.items():
        held = list(db.execute(select(items.c.id).where(items.c.video_id == video.id)).scalars())
        if key in resent:
            waiting[key] = held
            db.execute(update(items).where(items.c.id.in_(held)).values(video_id=None))
        else:
            db.execute(delete(items).where(items.c.id.in_(held)))
    if whole:
        db.execute(delete(issues).where(issues.c.team_id == team_id))
    db.execute(delete(videos).where(videos.c.id.in_(old_ids)))
    return waiting


def _remove_unused_folders(engine: Engine, root: Path, folders: set[str]) -> None:
    """Delete the ingests' media folders no video lies in any more (after the rows committed)."""
    with engine.connect() as db:
        used = {str(Path(p).parents[-3]) for p in db.execute(select(videos.c.original_path)).scalars()}
    for folder in sorted(folders - used):
        shutil.rmtree(root / folder, ignore_errors=True)
