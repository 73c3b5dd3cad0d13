"""The two official folder layouts, read strictly: a GT set and a team's submission (docs/rules/wmeval.md §1.3).

``GT_DIR/task<N>/videos/<cam>/episode_<i>.mp4`` for the three cameras, and
``DIR/evaluator_test/task<N>/episode_<i>.mp4`` for a team. A GT set is all or nothing: a task folder without one
of the camera folders, an episode without one of its views, a file or folder that fits no place of the layout,
or a task without episodes is refused with every such path and the fix, before anything is stored (a GT set
missing a view of one task once became a competition scored over 7 tasks). A team may send fewer videos than the
GT holds (the rubric scores the missing ones 0 against the GT count): those are reported, and so are stray files
beside the videos and ``concat_*`` visualisations (ignored); but a folder that fits no place of the layout (one
level too deep, a task name the layout does not know), or a submission with no video the GT knows, is refused,
since it would register a team that never has anything to score. Hidden files (``.DS_Store``) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from podium.core.errors import InputError
from podium.tracks.wmeval.kinds import IssueKind

CAMERAS = ("cam_high", "cam_left_wrist", "cam_right_wrist")  # left to right in the strip, as the baseline lays them
TASK = re.compile(r"task(\d+)")
EPISODE = re.compile(r"episode_(\d+)\.mp4", re.IGNORECASE)
SUBMISSION_FOLDER = "evaluator_test"  # the human-evaluated half of a submission (docs/rules/wmeval.md §1.3)
GT_FIX = "lay it out as task<N>/videos/<cam>/episode_<i>.mp4 for cam_high, cam_left_wrist and cam_right_wrist"
TEAM_FIX = "submit outputs/evaluator_test/task<N>/episode_<i>.mp4, one level of task folders, nothing deeper"


@dataclass(frozen=True, slots=True)
class Issue:
    """Something not ingested as given."""

    kind: IssueKind
    path: str
    detail: str


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


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def scan_gt(gt_dir: Path) -> dict[tuple[str, str], tuple[Path, ...]]:
    """Each GT episode's three camera files; ``InputError`` naming every path that breaks the layout."""
    if not gt_dir.is_dir():
        raise InputError("no such GT folder", path=gt_dir)
    found: dict[tuple[str, str], dict[str, Path]] = {}
    problems: list[str] = []
    for task_dir in _visible(gt_dir):
        task = task_name(task_dir.name)
        if task is None or not task_dir.is_dir():
            problems.append(f"{task_dir.name}: not a task<N> folder")
            continue
        for entry in _visible(task_dir):
            if entry.name != "videos" or not entry.is_dir():
                problems.append(f"{task_dir.name}/{entry.name}: not the videos/ folder")
        for cam_dir in _visible(task_dir / "videos") if (task_dir / "videos").is_dir() else []:
            if cam_dir.name not in CAMERAS or not cam_dir.is_dir():
                problems.append(f"{cam_dir.relative_to(gt_dir)}: not a camera folder ({', '.join(CAMERAS)})")
        for cam in CAMERAS:
            cam_dir = task_dir / "videos" / cam
            if not cam_dir.is_dir():
                problems.append(f"{task_dir.name}/videos/{cam}: missing (every task has the three views)")
                continue
            for file in _visible(cam_dir):
                episode = episode_name(file.name) if file.is_file() else None
                where = str(file.relative_to(gt_dir))
                if episode is None:
                    problems.append(f"{where}: not episode_<i>.mp4")
                elif cam in found.setdefault((task, episode), {}):
                    problems.append(f"{where}: {task}/{episode} has two {cam} files")
                else:
                    found[(task, episode)][cam] = file
        if not any(key[0] == task for key in found):
            problems.append(f"{task_dir.name}: no episode")
    for (task, episode), views in sorted(found.items()):
        lacking = [cam for cam in CAMERAS if cam not in views]
        if lacking:
            problems.append(f"{task}/{episode}: no {', '.join(lacking)} view")
    if not found and not problems:
        problems.append("no task<N> folder")
    if problems:
        raise InputError(
            f"the GT set breaks the layout, nothing stored: {'; '.join(problems)}", path=gt_dir, fix=GT_FIX
        )
    return {key: tuple(views[cam] for cam in CAMERAS) for key, views in sorted(found.items())}


def scan_team(folder: Path, known: Iterable[tuple[str, str]]) -> tuple[dict[tuple[str, str], Path], list[Issue]]:
    """Each GT episode's submitted file, and the files reported; ``InputError`` for a submission that is refused."""
    root = folder / SUBMISSION_FOLDER
    if not root.is_dir():
        raise InputError(f"no {SUBMISSION_FOLDER}/ folder", path=folder, fix=TEAM_FIX)
    wanted = set(known)
    tasks = {task for task, _ in wanted}
    matched: dict[tuple[str, str], list[Path]] = {}
    problems: list[Issue] = []
    refused: list[str] = []
    for task_dir in _visible(root):
        where = str(task_dir.relative_to(folder))
        task = task_name(task_dir.name)
        if not task_dir.is_dir():
            problems.append(Issue(IssueKind.UNKNOWN, where, "not a task<N> folder: not scored"))
            continue
        if task is None:
            refused.append(f"{where}: not a task<N> folder")
            continue
        for path in _visible(task_dir):
            where = str(path.relative_to(folder))
            if path.is_dir():
                refused.append(f"{where}: a folder inside a task folder (one level too deep?)")
            elif path.name.startswith("concat_"):
                problems.append(Issue(IssueKind.IGNORED, where, "concat_* visualisation (not scored)"))
            elif (episode := episode_name(path.name)) is None:
                problems.append(Issue(IssueKind.UNKNOWN, where, "not episode_<i>.mp4: not scored"))
            elif task not in tasks:
                problems.append(Issue(IssueKind.UNKNOWN, where, f"the GT has no {task}"))
            elif (task, episode) not in wanted:
                problems.append(Issue(IssueKind.UNKNOWN, where, f"the GT has no {task}/{episode}"))
            else:
                matched.setdefault((task, episode), []).append(path)
    twice = {key: paths for key, paths in matched.items() if len(paths) > 1}
    refused += [
        f"{' and '.join(str(p.relative_to(folder)) for p in paths)}: duplicate videos for one episode"
        for paths in twice.values()
    ]
    if not matched and not refused:
        refused.append(f"no video the GT knows under {SUBMISSION_FOLDER}/")
    if refused:
        raise InputError(f"the submission breaks the layout, nothing stored: {'; '.join(refused)}", path=folder,
                         fix=TEAM_FIX)  # fmt: skip
    problems.extend(
        Issue(IssueKind.MISSING, f"{task}/{episode}", "no video: scores 0 against the GT count")
        for task, episode in sorted(wanted - set(matched), key=lambda k: (task_order(k[0]), k[1]))
    )
    return {key: paths[0] for key, paths in matched.items()}, problems
