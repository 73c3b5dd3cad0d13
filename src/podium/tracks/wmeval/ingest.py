"""Ingest: the ground truth's camera views and each team's generated videos, made playable in the media store.

``ingest_gt`` reads ``GT_DIR/task<N>/videos/<cam>/episode_<i>.mp4`` for the three cameras and composes each
episode's views into one reference strip laid out like the generated videos (views side by side at one height).
``ingest_team`` reads the official submission layout ``DIR/evaluator_test/task<N>/episode_<i>.mp4`` (spec
wmeval.md 1.3) and matches each file to a GT episode by task folder and episode number. What does not match is
reported, never guessed at (spec A4/A5): ``concat_*`` visualisations are ignored, unknown names and episodes the
GT lacks are reported, GT episodes without a video are missing (they score 0 against the GT's count), and two
files naming one episode (``episode_3.mp4`` and ``episode_03.mp4``) reject the submission, since either could be
the one the team meant.

Every video is made browser-playable on the core's executor, in parallel: remuxed (its H.264 stream copied,
``moov`` first) when it already plays in a browser, else transcoded to H.264; the original is kept beside the copy,
and the way taken is recorded (``method`` in the video's probe, and counted in the report). A file FFmpeg cannot
decode is stored as unplayable, with the reason: it is never shown and scores 0.
The slow part (decoding and encoding) runs before the write transaction, so the database lock is held only for the
few inserts.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, insert, select

from podium.core.accounts import check_name
from podium.core.clock import Clock, utc_text
from podium.core.errors import ConfigError, ConflictError, InputError
from podium.core.execution.executor import Executor
from podium.core.storage.sql import inserted_id
from podium.tracks.wmeval.media import StripJob, TranscodeJob, TranscodeResult, compose_strip, transcode_job
from podium.tracks.wmeval.schema import gt, issues, meta, teams, videos
from podium.tracks.wmeval.store import append_audit, transaction

CAMERAS = ("cam_high", "cam_left_wrist", "cam_right_wrist")  # left to right in the strip, as the baseline lays them
TASK = re.compile(r"task(\d+)")
EPISODE = re.compile(r"episode_(\d+)\.mp4", re.IGNORECASE)
SUBMISSION_FOLDER = "evaluator_test"  # the human-evaluated half of a submission (spec wmeval.md 1.3)
STRIP_HEIGHT = 224  # the baseline letterboxes every view to 224x224
MEDIA_KEY = "media_root"


@dataclass(frozen=True, slots=True)
class Issue:
    """Something not ingested as given; ``kind``: unknown, missing, duplicate, undecodable or ignored."""

    kind: str
    path: str
    detail: str


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What one ingest stored and what it reported."""

    source: str  # "GT" or the team's name
    stored: int
    playable: int
    issues: tuple[Issue, ...]
    methods: tuple[tuple[str, int], ...] = ()  # how many playable videos were remuxed, transcoded or composed

    def lines(self) -> list[str]:
        """The report for a person: one summary line, then one line per issue."""
        how = f" ({', '.join(f'{n} {method}' for method, n in self.methods)})" if self.methods else ""
        head = (
            f"{self.source}: {self.stored} video(s) stored, {self.playable} playable{how}, {len(self.issues)} issue(s)"
        )
        return [head, *(f"  {i.kind}: {i.path}: {i.detail}" for i in self.issues)]


def task_name(folder: str) -> str | None:
    """``task3`` for a folder called ``task3`` (or ``task03``); None for anything else."""
    match = TASK.fullmatch(folder)
    return f"task{int(match.group(1))}" if match else None


def episode_name(file: str) -> str | None:
    """``episode_7`` for ``episode_7.mp4`` (or ``episode_07.MP4``); None for anything else."""
    match = EPISODE.fullmatch(file)
    return f"episode_{int(match.group(1))}" if match else None


def task_order(task: str) -> int:
    """Sort key of a task name: task2 before task10."""
    return int(task.removeprefix("task"))


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


def scan_gt(gt_dir: Path) -> tuple[dict[tuple[str, str], tuple[Path, ...]], list[Issue]]:
    """Each GT episode's three camera files, and what is incomplete or unknown."""
    if not gt_dir.is_dir():
        raise InputError("no such GT folder", path=gt_dir)
    found: dict[tuple[str, str], dict[str, Path]] = {}
    problems: list[Issue] = []
    for task_dir in sorted(p for p in gt_dir.iterdir() if p.is_dir()):
        task = task_name(task_dir.name)
        if task is None:
            problems.append(Issue("unknown", task_dir.name, "not a task<N> folder"))
            continue
        for cam in CAMERAS:
            cam_dir = task_dir / "videos" / cam
            for file in sorted(cam_dir.glob("*")) if cam_dir.is_dir() else []:
                episode = episode_name(file.name)
                where = str(file.relative_to(gt_dir))
                if episode is None:
                    problems.append(Issue("unknown", where, "not episode_<i>.mp4"))
                elif cam in found.setdefault((task, episode), {}):
                    problems.append(Issue("duplicate", where, f"{task}/{episode} has two {cam} files"))
                else:
                    found[(task, episode)][cam] = file
    complete: dict[tuple[str, str], tuple[Path, ...]] = {}
    for key, views in sorted(found.items()):
        lacking = [cam for cam in CAMERAS if cam not in views]
        if lacking:
            problems.append(Issue("missing", f"{key[0]}/{key[1]}", f"no {', '.join(lacking)} view: not ingested"))
        else:
            complete[key] = tuple(views[cam] for cam in CAMERAS)
    if not complete:
        raise InputError(f"no complete episode under {gt_dir}", fix="expected task<N>/videos/<cam>/episode_<i>.mp4")
    return complete, problems


def scan_team(folder: Path, known: Iterable[tuple[str, str]]) -> tuple[dict[tuple[str, str], Path], list[Issue]]:
    """Each GT episode's submitted file; unknown, ignored and missing files as issues. Duplicates raise."""
    root = folder / SUBMISSION_FOLDER
    if not root.is_dir():
        raise InputError(f"no {SUBMISSION_FOLDER}/ folder", path=folder, fix="submit outputs/evaluator_test/task<N>/")
    wanted = set(known)
    tasks = {task for task, _ in wanted}
    matched: dict[tuple[str, str], list[Path]] = {}
    problems: list[Issue] = []
    for path in sorted(root.rglob("*")):
        if path.is_dir():
            continue
        where = str(path.relative_to(folder))
        parts = path.relative_to(root).parts
        if path.name.startswith("concat_"):
            problems.append(Issue("ignored", where, "concat_* visualisation (not scored)"))
            continue
        task = task_name(parts[0]) if len(parts) == 2 else None
        episode = episode_name(path.name)
        if task is None or episode is None:
            problems.append(Issue("unknown", where, "not evaluator_test/task<N>/episode_<i>.mp4"))
        elif task not in tasks:
            problems.append(Issue("unknown", where, f"the GT has no {task}"))
        elif (task, episode) not in wanted:
            problems.append(Issue("unknown", where, f"the GT has no {task}/{episode}"))
        else:
            matched.setdefault((task, episode), []).append(path)
    twice = {key: paths for key, paths in matched.items() if len(paths) > 1}
    if twice:
        names = "; ".join(" and ".join(str(p.relative_to(folder)) for p in paths) for paths in twice.values())
        raise InputError(f"duplicate videos for one episode: {names}", path=folder,
                         fix="keep one file per episode and ingest again")  # fmt: skip
    problems.extend(
        Issue("missing", f"{task}/{episode}", "no video: scores 0 against the GT count")
        for task, episode in sorted(wanted - set(matched), key=lambda k: (task_order(k[0]), k[1]))
    )
    return {key: paths[0] for key, paths in matched.items()}, problems


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


def ingest_gt(
    engine: Engine, root: Path, gt_dir: Path, executor: Executor, clock: Clock, height: int = STRIP_HEIGHT
) -> IngestReport:
    """Compose and store every GT episode not stored yet; an episode whose views cannot be decoded is unplayable."""
    episodes, problems = scan_gt(gt_dir)
    with engine.connect() as db:
        have = {(r.task, r.episode) for r in db.execute(select(gt.c.task, gt.c.episode))}
    jobs = []
    for (task, episode), views in episodes.items():
        if (task, episode) in have:
            continue
        folder = root / "gt" / task / episode
        folder.mkdir(parents=True, exist_ok=True)
        kept = []
        for cam, view in zip(CAMERAS, views, strict=True):
            shutil.copyfile(view, folder / f"{cam}.mp4")  # the originals, kept beside the strip
            kept.append(folder / f"{cam}.mp4")
        jobs.append(StripJob(tuple(kept), folder / "reference.mp4", folder / "reference-last.png", height))
    results = list(executor.map_unordered(compose_strip, jobs))
    at = utc_text(clock.now())
    playable = 0
    with transaction(engine) as db:
        for job, result in sorted(results, key=lambda r: str(r[0].target)):
            task, episode = job.target.parent.parent.name, job.target.parent.name
            if result.playable:
                playable += 1
            else:
                problems.append(Issue("undecodable", f"{task}/{episode}", result.reason))
            db.execute(
                insert(gt).values(
                    task=task,
                    episode=episode,
                    **_stored(job, result, root, at),
                )
            )
        _record_issues(db, None, problems, at)
        append_audit(db, at, "gt_ingested", {"episodes": len(results), "playable": playable, "issues": len(problems)})
    return IngestReport("GT", len(results), playable, tuple(problems), _methods(results))


def ingest_team(engine: Engine, root: Path, team: str, folder: Path, executor: Executor, clock: Clock) -> IngestReport:
    """Match, remux or transcode, and store one team's submission; a team is ingested once."""
    check_name("team", team)
    with engine.connect() as db:
        known = [(r.task, r.episode) for r in db.execute(select(gt.c.task, gt.c.episode))]
        if db.execute(select(teams.c.id).where(teams.c.name == team)).first():
            raise ConflictError(f"team {team!r} is ingested already")
    if not known:
        raise ConflictError("no GT ingested yet", fix="run `podium wmeval ingest-gt GT_DIR` first")
    matched, problems = scan_team(folder, known)
    # a random folder, never the team's name; the team's row is written with its videos in one transaction, so an
    # ingest killed while transcoding leaves no team behind and can simply be run again
    where = root / "teams" / secrets.token_hex(8)
    jobs = []
    for (task, episode), source in matched.items():
        target = where / task / episode
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target / "original.mp4")
        jobs.append(TranscodeJob(target / "original.mp4", target / "video.mp4", target / "last.png"))
    results = list(executor.map_unordered(transcode_job, jobs))
    playable = 0
    at = utc_text(clock.now())
    with transaction(engine) as db:
        if db.execute(select(teams.c.id).where(teams.c.name == team)).first():  # ingested meanwhile by another run
            raise ConflictError(f"team {team!r} is ingested already")
        team_id = inserted_id(db, insert(teams).values(name=team, created_at=at))
        for job, result in sorted(results, key=lambda r: str(r[0].source)):
            task, episode = job.source.parent.parent.name, job.source.parent.name
            if result.playable:
                playable += 1
            else:
                problems.append(Issue("undecodable", str(matched[(task, episode)].relative_to(folder)), result.reason))
            db.execute(
                insert(videos).values(
                    team_id=team_id,
                    task=task,
                    episode=episode,
                    original_path=str(job.source.relative_to(root)),
                    **_stored(job, result, root, at),
                )
            )
        _record_issues(db, team_id, problems, at)
        append_audit(
            db,
            at,
            "team_ingested",
            {"team": team, "videos": len(results), "playable": playable, "issues": len(problems)}
            | dict(_methods(results)),
        )
    return IngestReport(team, len(results), playable, tuple(problems), _methods(results))
