"""Benchmark of the wmeval track: score-submission latency under 50 concurrent annotators, and ingest throughput.

1. Load: 50 annotators post their whole queues (300 scores) at once through the API of a real server on loopback,
   on SQLite and on a temporary PostgreSQL server (``/usr/lib/postgresql/*/bin``, started here as the tests start
   it). Reported: p50/p99/max latency of one score submission, over ``--repeats`` runs. Target (issue 15): p99
   under 100 ms.
2. Ingest: ``--videos`` generated videos shaped like the baseline's (672x224, 375 frames at 24 fps; half H.264,
   half OpenCV-style ``mp4v``) and ``--gt-episodes`` GT episodes (three 640x480 views of 363 frames at 30 fps, like
   the GigaWorld toy data) are made first (not timed), then ingested with ``--workers`` processes. Frames carry a
   moving texture so the encoder has real work (flat synthetic frames would flatter it). Reported: videos/s, GT
   strips/s, and the extrapolation to 8 tasks x 30 episodes x 15 teams (3,600 videos + 240 strips). Target: under
   10 minutes on 2 cores.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_wmeval.py [--repeats 3] [--videos 24] [--gt-episodes 4]``.
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
from podium.tracks.wmeval.media import write_video  # noqa: E402
from podium.tracks.wmeval.store import open_store  # noqa: E402
from tests.tracks.wmeval.load import score_concurrently, seed_load  # noqa: E402
from tests.tracks.wmeval.serving import serve_process  # noqa: E402

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


def make_inputs(folder: Path, videos: int, gt_episodes: int) -> tuple[Path, Path]:
    gt_dir, team = folder / "gt", folder / "team"
    views = [textured(363, 640, 480, seed) for seed in range(3)]
    for e in range(max(gt_episodes, videos)):
        task, episode = f"task{e % 8 + 1}", f"episode_{e // 8}"
        if e < gt_episodes:
            for cam, frames in zip(CAMERAS, views, strict=True):
                write_video(gt_dir / task / "videos" / cam / f"{episode}.mp4", frames, fps=30)
        else:  # GT rows for the team's videos to match, tiny: their strips are not what is timed
            for cam in CAMERAS:
                write_video(gt_dir / task / "videos" / cam / f"{episode}.mp4", views[0][:2], fps=30)
    generated = textured(375, 672, 224, seed=7)
    for e in range(videos):
        codec = "mpeg4" if e % 2 else "libx264"
        write_video(team / "evaluator_test" / f"task{e % 8 + 1}" / f"episode_{e // 8}.mp4", generated, 24, codec)
    return gt_dir, team


@dataclass(frozen=True)
class IngestRates:
    videos_s: float  # wall, with the workers
    strips_s: float
    video_cpu_s: float  # CPU seconds per video, serial in this process (x264's own threads included)
    strip_cpu_s: float


def ingest_rates(videos: int, gt_episodes: int, workers: int) -> IngestRates:
    """Wall rates with ``workers`` processes, then CPU seconds per item in one process (load on a shared machine
    stretches the wall time, not the CPU time, so the extrapolation uses the latter)."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        gt_dir, team = make_inputs(folder, videos, gt_episodes)
        only_real = folder / "gt-real"  # the real-size GT episodes alone: only their strips are timed
        for e in range(gt_episodes):
            task, episode = f"task{e % 8 + 1}", f"episode_{e // 8}"
            for cam in CAMERAS:
                (only_real / task / "videos" / cam).mkdir(parents=True, exist_ok=True)
                shutil.copy(gt_dir / task / "videos" / cam / f"{episode}.mp4", only_real / task / "videos" / cam)
        rates = []
        for label, executor in (("pool", make_executor(workers)), ("serial", make_executor(1))):
            if label == "serial":
                os.environ["OMP_NUM_THREADS"] = "1"  # encode as a pool worker does (media._x264_options)
            engine = open_store(sqlite_url(folder / f"{label}.sqlite3"))
            root = media_root(engine, folder / f"media-{label}")
            wall, cpu = time.perf_counter(), time.process_time()
            ingest_gt(engine, root, only_real, executor, SystemClock())
            strip = (time.perf_counter() - wall, time.process_time() - cpu)
            ingest_gt(engine, root, gt_dir, executor, SystemClock())  # the tiny rest, untimed
            wall, cpu = time.perf_counter(), time.process_time()
            report = ingest_team(engine, root, "bench", team, executor, SystemClock())
            video = (time.perf_counter() - wall, time.process_time() - cpu)
            assert report.playable == videos, report.lines()[:5]
            rates.append((strip, video))
        (pool_strip, pool_video), (serial_strip, serial_video) = rates
        return IngestRates(
            videos / pool_video[0], gt_episodes / pool_strip[0], serial_video[1] / videos, serial_strip[1] / gt_episodes
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--videos", type=int, default=24)
    parser.add_argument("--gt-episodes", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
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
    r = ingest_rates(args.videos, args.gt_episodes, args.workers)
    wall_min = (FULL_VIDEOS / r.videos_s + FULL_STRIPS / r.strips_s) / 60
    cpu_min = (FULL_VIDEOS * r.video_cpu_s + FULL_STRIPS * r.strip_cpu_s) / args.workers / 60
    print(
        f"ingest with {args.workers} workers (wall): {r.videos_s:.2f} team videos/s ({args.videos} videos), "
        f"{r.strips_s:.2f} GT strips/s ({args.gt_episodes} episodes) -> 8x30x15 at these rates: {wall_min:.1f} min"
    )
    print(
        f"CPU per item (serial): {r.video_cpu_s:.3f} s per team video, {r.strip_cpu_s:.3f} s per GT strip -> "
        f"{FULL_VIDEOS} videos + {FULL_STRIPS} strips on {args.workers} otherwise idle cores: {cpu_min:.1f} min"
    )
    print(f"load average now: {os.getloadavg()}")


if __name__ == "__main__":
    main()
