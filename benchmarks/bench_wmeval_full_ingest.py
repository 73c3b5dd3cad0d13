"""Benchmark of wmeval's ingest at full size, through the real CLI: 8 tasks x 30 episodes x 15 teams.

``bench_wmeval.py`` measures ingest per item and extrapolates; this one runs the whole thing as an organiser would:
``podium wmeval ingest-gt`` on a GT folder of 240 episodes (three 640x480 views each), then ``podium wmeval
ingest-team`` for 15 teams of 240 videos (672x224, 375 frames at 24 fps) in the official layout, each command a
fresh process with ``--workers`` pool workers, one SQLite database and one media store. ``--mp4v-teams`` of the
teams wrote OpenCV's ``mp4v``, the others H.264 yuv420p as the baseline's imageio writer does (every video is made
anew in the served profile on ingest; the kinds decode at different costs). Inputs are made first (not timed): each
kind of file is encoded once and hard-linked into place, so the inputs cost no disk, while every file is still
opened, probed, decoded and written on its own.

Reported: wall seconds per command and in all, and CPU seconds of everything the commands ran (workers
included, from a cgroup v1 ``cpuacct`` group where this runs as root, else from ``RUSAGE_CHILDREN``), with the
1-minute load average before and after, so a run on a shared machine can be read for what it is. Target
(issue 15): the whole ingest under 10 minutes on 2 cores.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_wmeval_full_ingest.py [--mp4v-teams 7] [--workers 2]
[--keep DIR]``. Needs about 10 GB of free disk for the media store (the textured frames encode poorly).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_wmeval import textured
from machine import cpu_model

from podium.tracks.wmeval.ingest import CAMERAS
from tests.tracks.wmeval.videos import write_video  # bench_wmeval put the repository on the path

TASKS, EPISODES, TEAMS = 8, 30, 15
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def make_inputs(folder: Path, mp4v_teams: int) -> tuple[Path, list[tuple[str, Path]]]:
    """The GT folder and the 15 teams' submission folders, hard links to one encoded file of each kind."""
    views = [folder / f"view{seed}.mp4" for seed in range(3)]
    for seed, view in enumerate(views):
        write_video(view, textured(363, 640, 480, seed), fps=30)
    generated = textured(375, 672, 224, seed=7)
    kinds = {"h264": folder / "h264.mp4", "mp4v": folder / "mp4v.mp4"}
    write_video(kinds["h264"], generated, 24, "libx264")
    write_video(kinds["mp4v"], generated, 24, "mpeg4")
    gt_dir = folder / "gt"
    for task in range(1, TASKS + 1):
        for cam, view in zip(CAMERAS, views, strict=True):
            cam_dir = gt_dir / f"task{task}" / "videos" / cam
            cam_dir.mkdir(parents=True)
            for episode in range(EPISODES):
                os.link(view, cam_dir / f"episode_{episode}.mp4")
    teams = []
    for n in range(TEAMS):
        team, kind = f"team{n:02d}", "mp4v" if n < mp4v_teams else "h264"
        for task in range(1, TASKS + 1):
            task_dir = folder / team / "evaluator_test" / f"task{task}"
            task_dir.mkdir(parents=True)
            for episode in range(EPISODES):
                os.link(kinds[kind], task_dir / f"episode_{episode}.mp4")
        teams.append((team, folder / team))
    return gt_dir, teams


@contextmanager
def cpu_meter() -> Iterator[dict[str, float]]:
    """CPU seconds of every process started inside, read when the block ends into ``result['cpu_s']``."""
    result: dict[str, float] = {}
    group = CPUACCT / f"podium-bench-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        group = Path()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        yield result
    finally:
        if group != Path():
            result["cpu_s"] = int((group / "cpuacct.usage").read_text()) / 1e9
            result["source"] = 0.0  # cgroup
            (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
            group.rmdir()
        else:
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            result["cpu_s"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            result["source"] = 1.0  # rusage


def podium(*args: str) -> float:
    """Run one podium command, fail loudly on a non-zero exit; its wall seconds."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "podium", *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"podium {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mp4v-teams", type=int, default=7, help="teams whose videos are transcoded (0-15)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="make the inputs and media store here and keep them")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="podium-bench-full-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; Python {sys.version.split()[0]}; folder {folder}")
    try:
        start = time.perf_counter()
        gt_dir, teams = make_inputs(folder, args.mp4v_teams)
        print(f"inputs made in {time.perf_counter() - start:.1f} s (not timed below)")
        common = ["--db", f"sqlite:///{folder / 'wmeval.sqlite3'}", "--media", str(folder / "media"),
                  "--workers", str(args.workers)]  # fmt: skip
        load_before = os.getloadavg()[0]
        with cpu_meter() as cpu:
            start = time.perf_counter()
            gt_s = podium("wmeval", "ingest-gt", str(gt_dir), *common)
            team_s = [podium("wmeval", "ingest-team", team, str(path), *common) for team, path in teams]
            total = time.perf_counter() - start
        source = "cgroup cpuacct" if cpu["source"] == 0.0 else "RUSAGE_CHILDREN"
        print(f"1-minute load average before/after: {load_before:.1f} / {os.getloadavg()[0]:.1f}")
        print(f"ingest-gt (240 strips): {gt_s:.1f} s")
        mp4v = team_s[: args.mp4v_teams]
        h264 = team_s[args.mp4v_teams :]
        if mp4v:
            print(f"ingest-team, mp4v, {len(mp4v)} teams: {sum(mp4v) / len(mp4v):.1f} s per team")
        if h264:
            print(f"ingest-team, H.264, {len(h264)} teams: {sum(h264) / len(h264):.1f} s per team")
        print(f"total wall: {total:.1f} s = {total / 60:.2f} min; CPU ({source}): {cpu['cpu_s']:.1f} s, "
              f"= {cpu['cpu_s'] / args.workers / 60:.2f} min on {args.workers} otherwise idle cores")  # fmt: skip
        size = sum(f.stat().st_size for f in (folder / "media").rglob("*") if f.is_file())
        print(f"media store: {size / 1e9:.2f} GB")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
