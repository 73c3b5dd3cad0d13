"""Benchmark of the wmeval track: score-submission latency under 50 concurrent annotators, and ingest throughput.

1. Load: 50 annotators post their whole queues (300 scores) at once through the API of a real server on loopback,
   on SQLite and on a temporary PostgreSQL server (``/usr/lib/postgresql/*/bin``, started here as the tests start
   it). Reported: p50/p99/max latency of one score submission, over ``--repeats`` runs. Target (issue 15): p99
   under 100 ms.
2. Ingest: two teams of ``--videos`` generated videos shaped like the baseline's (672x224, 375 frames at 24 fps):
   one of H.264 yuv420p files, as the baseline's imageio writer makes, one of OpenCV-style ``mp4v`` files (both
   made anew in the served profile, 896x224 at 30 fps); and ``--gt-episodes`` GT episodes (three 640x480 views of
   363 frames at 30 fps, like the GigaWorld toy data). They are made first (not timed), then ingested
   ``--ingest-repeats`` times, each time with ``--workers`` processes (wall time) and serially in this process
   (CPU time). Frames carry a moving texture so the encoder has real work (flat synthetic frames would flatter
   it). Reported per item (H.264 video, ``mp4v`` video, GT strip): median CPU and wall seconds, and the
   extrapolation to 8 tasks x 30 episodes x 15 teams (3,600 videos + 240 strips) for every video of either
   kind. Target: under 10 minutes on 2 cores.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_wmeval.py [--repeats 3] [--videos 24] [--gt-episodes 4]
[--ingest-repeats 3] [--skip-load]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from machine import cpu_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' load driver and server helper

from podium.core.clock import ManualClock, SystemClock  # noqa: E402
from podium.core.execution.executor import make_executor  # noqa: E402
from podium.core.storage.sql import sqlite_url  # noqa: E402
from podium.tracks.wmeval.ingest import CAMERAS, ingest_gt, ingest_team, media_root  # noqa: E402
from podium.tracks.wmeval.media import ServedProfile, TranscodeJob, transcode_job  # noqa: E402
from podium.tracks.wmeval.store import open_store  # noqa: E402
from tests.tracks.wmeval.load import score_concurrently, seed_load  # noqa: E402
from tests.tracks.wmeval.serving import serve_process  # noqa: E402
from tests.tracks.wmeval.videos import write_video  # noqa: E402

FULL_VIDEOS, FULL_STRIPS = 8 * 30 * 15, 8 * 30


@contextmanager
def postgres() -> Iterator[str]:
    """A throw-away PostgreSQL server (as tests/tracks/dojo/conftest.py starts one)."""
    bin_dir = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    folder = Path(tempfile.mkdtemp(prefix="podium-bench-pg-"))
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = folder / "data"
    subprocess.run([*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "podium", "--auth=trust"],
                   check=True, capture_output=True)  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-l",
                    str(folder / "log"), "start"], check=True, capture_output=True)  # fmt: skip
    try:
        for n in range(40):
            subprocess.run([str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "podium", f"b{n}"],
                           check=True, capture_output=True)  # fmt: skip
        yield f"postgresql+psycopg://podium@127.0.0.1:{port}/b"
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def load_once(url: str, think_s: float) -> tuple[float, float, float, int]:
    engine = open_store(url)
    tokens = seed_load(engine, ManualClock(datetime(2026, 6, 1, tzinfo=UTC)))
    with serve_process(url) as base:
        result = score_concurrently(base, tokens, think_s=think_s)
    assert not result.failures, result.failures[:3]
    return result.p(0.5), result.p(0.99), max(result.latencies_s), len(result.latencies_s)


def textured(count: int, width: int, height: int, seed: int) -> list[np.ndarray]:
    """Frames of a coarse random texture panning across the view, with a bright moving block."""
    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, 255, size=(height // 8 + 2, (width + count * 2) // 8 + 2, 3), dtype=np.uint8)
    texture = np.repeat(np.repeat(coarse, 8, axis=0), 8, axis=1)
    frames = []
    for i in range(count):
        frame = np.ascontiguousarray(texture[:height, i * 2 : i * 2 + width])
        x = int(i / count * (width - 40))
        frame[height // 3 : height // 3 + 40, x : x + 40] = (250, 240, 30)
        frames.append(frame)
    return frames


def make_inputs(folder: Path, videos: int, gt_episodes: int) -> tuple[Path, Path, dict[str, Path]]:
    """The GT folder, the folder of the real-size GT episodes alone, and one team per kind of source: ``h264``
    (H.264 yuv420p at 24 fps, as the baseline's imageio writer makes) and ``mp4v`` (OpenCV's).
    Each kind of file is encoded once and copied: every file is still read, checked and written on its own."""
    gt_dir, only_real = folder / "gt", folder / "gt-real"
    views = [folder / f"view{seed}.mp4" for seed in range(3)]
    tiny = folder / "tiny.mp4"
    for seed, view in enumerate(views):
        write_video(view, textured(363, 640, 480, seed), fps=30)
    write_video(tiny, textured(2, 640, 480, 0), fps=30)
    for e in range(max(gt_episodes, videos)):
        task, episode = f"task{e % 8 + 1}", f"episode_{e // 8}"
        for cam, view in zip(CAMERAS, views, strict=True):
            (gt_dir / task / "videos" / cam).mkdir(parents=True, exist_ok=True)
            # the real-size episodes are timed; the rest are tiny GT rows for the teams' videos to match
            shutil.copy(view if e < gt_episodes else tiny, gt_dir / task / "videos" / cam / f"{episode}.mp4")
            if e < gt_episodes:
                (only_real / task / "videos" / cam).mkdir(parents=True, exist_ok=True)
                shutil.copy(view, only_real / task / "videos" / cam / f"{episode}.mp4")
    generated = textured(375, 672, 224, seed=7)
    teams = {}
    for kind, codec in SOURCES.items():
        one = folder / f"{kind}.mp4"
        write_video(one, generated, 24, codec)
        teams[kind] = folder / kind
        for e in range(videos):
            target = teams[kind] / "evaluator_test" / f"task{e % 8 + 1}" / f"episode_{e // 8}.mp4"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(one, target)
    return gt_dir, only_real, teams


SOURCES = {"h264": "libx264", "mp4v": "mpeg4"}
ITEMS = ("h264", "mp4v", "strip")
PROFILE = ServedProfile.for_height(224, 30)  # what the GT below fixes


@dataclass(frozen=True)
class IngestRun:
    cpu_s: dict[str, float]  # CPU seconds per item, serial in this process (FFmpeg's own threads included)
    wall_s: dict[str, float]  # wall seconds per item with the workers, less one pool start-up per ingest
    startup_s: float  # wall seconds of one pool start-up (workers spawned, PyAV imported, one tiny job each)
    load: tuple[float, float]  # 1-minute load average before and after


def ingest_once(folder: Path, gt_dir: Path, only_real: Path, teams: dict[str, Path], videos: int, gt_episodes: int,
                workers: int, n: int) -> IngestRun:  # fmt: skip
    """One pool ingest (wall time) and one serial ingest (CPU time) of the GT strips and of each team."""
    before = os.getloadavg()[0]
    measured: dict[str, dict[str, float]] = {}
    tiny = [TranscodeJob(folder / "tiny.mp4", folder / f"warm{n}-{i}.mp4", folder / f"warm{n}-{i}.png", PROFILE)
            for i in range(workers)]  # fmt: skip
    startups = []
    for _ in range(2):  # the first pool also starts the forkserver, which later pools fork from
        start = time.perf_counter()
        assert all(result.playable for _, result in make_executor(workers).map_unordered(transcode_job, tiny))
        startups.append(time.perf_counter() - start)
    startup = startups[-1]
    for label, executor in (("pool", make_executor(workers)), ("serial", make_executor(1))):
        clock = time.process_time if label == "serial" else time.perf_counter
        setup = 0.0 if label == "serial" else startup  # every ingest starts its own pool
        engine = open_store(sqlite_url(folder / f"{label}{n}.sqlite3"))
        root = media_root(engine, folder / f"media-{label}{n}")
        start = clock()
        ingest_gt(engine, root, only_real, executor, SystemClock())
        per = {"strip": (clock() - start - setup) / gt_episodes}
        ingest_gt(engine, root, gt_dir, executor, SystemClock())  # the tiny rest, untimed
        for kind, team in teams.items():
            start = clock()
            report = ingest_team(engine, root, kind, team, executor, SystemClock())
            per[kind] = (clock() - start - setup) / videos
            assert report.playable == videos and dict(report.methods) == {"transcoded": videos}, report.lines()[:5]
        measured[label] = per
    return IngestRun(measured["serial"], measured["pool"], startup, (before, os.getloadavg()[0]))


def ingest_runs(videos: int, gt_episodes: int, workers: int, repeats: int) -> list[IngestRun]:
    """``repeats`` ingests of the same inputs, each into a fresh store (CPU time is what load from other processes
    does not stretch, so the extrapolation uses it; the wall rates show what this machine gave meanwhile)."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        gt_dir, only_real, teams = make_inputs(folder, videos, gt_episodes)
        return [ingest_once(folder, gt_dir, only_real, teams, videos, gt_episodes, workers, n) for n in range(repeats)]


def full_size_minutes(per_item: dict[str, float], kind: str, workers: int, startup_s: float = 0) -> float:
    """Minutes for 3,600 team videos of ``kind`` and 240 GT strips on ``workers`` cores, from per-item CPU
    seconds; or, given per-item wall seconds with the workers, at those rates (workers=1) plus 16 pool start-ups
    (one GT ingest, 15 team ingests)."""
    return ((FULL_VIDEOS * per_item[kind] + FULL_STRIPS * per_item["strip"]) / workers + 16 * startup_s) / 60


def report_ingest(runs: list[IngestRun], videos: int, gt_episodes: int, workers: int) -> None:
    def median(kind: str, item: str) -> float:
        return statistics.median(getattr(r, kind)[item] for r in runs)

    def spread(kind: str, item: str) -> str:
        values = [getattr(r, kind)[item] for r in runs]
        return f"{median(kind, item):.3f} ({min(values):.3f}-{max(values):.3f})"

    loads = [tuple(round(x, 1) for x in r.load) for r in runs]
    print(f"ingest: {videos} team videos per path, {gt_episodes} GT strips, {len(runs)} runs; "
          f"1-min load average before/after each run: {loads}")  # fmt: skip
    print(f"| item | CPU s per item, serial: median (min-max) of {len(runs)} | wall s per item, {workers} workers |")
    print("|---|---:|---:|")
    for item, label in zip(ITEMS, ("team video, H.264", "team video, mp4v", "GT strip (3 views composed)"),
                           strict=True):  # fmt: skip
        print(f"| {label} | {spread('cpu_s', item)} | {spread('wall_s', item)} |")
    cpu = {item: median("cpu_s", item) for item in ITEMS}
    wall = {item: median("wall_s", item) for item in ITEMS}
    startup = statistics.median(r.startup_s for r in runs)
    print(f"| pool start-up per ingest (wall, not in the rows above) | | {startup:.2f} |")
    print(
        f"| 8x30x15 (3,600 videos + 240 strips) | minutes on {workers} otherwise idle cores, from CPU | "
        "minutes at the measured wall rates |"
    )
    for kind, label in (("h264", "every video H.264"), ("mp4v", "every video mp4v")):
        by_cpu, by_wall = full_size_minutes(cpu, kind, workers), full_size_minutes(wall, kind, 1, startup)
        print(f"| {label} | {by_cpu:.1f} | {by_wall:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--videos", type=int, default=24)
    parser.add_argument("--gt-episodes", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ingest-repeats", type=int, default=3)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--think-s", type=float, default=1.0, help="mean pause before each score (paced runs)")
    args = parser.parse_args()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    if not args.skip_load:
        print("| database | arrival | scores per run | p50 ms | p99 ms: median (min-max) of runs | max ms |")
        with tempfile.TemporaryDirectory() as name, postgres() as pg:
            n = 0
            for think_s in (args.think_s, 0.0):
                arrival = f"paced (pause 0-{2 * think_s:g} s)" if think_s else "stress (no pause)"
                for label in ("SQLite", "PostgreSQL"):
                    runs = []
                    for _ in range(args.repeats):
                        url = sqlite_url(Path(name) / f"l{n}.sqlite3") if label == "SQLite" else f"{pg}{n}"
                        runs.append(load_once(url, think_s))
                        n += 1
                    p50 = statistics.median(r[0] for r in runs) * 1000
                    p99s = [r[1] * 1000 for r in runs]
                    print(f"| {label} | {arrival} | {runs[0][3]} | {p50:.1f} | {statistics.median(p99s):.1f} "
                          f"({min(p99s):.1f}-{max(p99s):.1f}) | {max(r[2] for r in runs) * 1000:.1f} |")  # fmt: skip
    if args.skip_ingest:
        return
    runs = ingest_runs(args.videos, args.gt_episodes, args.workers, args.ingest_repeats)
    report_ingest(runs, args.videos, args.gt_episodes, args.workers)
    print(f"load average now: {os.getloadavg()}")


if __name__ == "__main__":
    main()
