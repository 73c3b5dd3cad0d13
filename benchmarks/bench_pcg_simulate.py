"""Benchmark of podium's PCG evaluator: simulate (Box2D) + render + PNG, per level and through ``run_simulate``.

Four measurements, each repeated ``--repeats`` times (median with min-max; wall time, ``time.perf_counter``):

1. Per-level costs in this one process on the 150 real Unity levels (``--real-data``, the 2023 oracle set
   ``v*/levels/<C>/*.xml``): parse, ``evaluate_stability`` (best of up to 3 Box2D runs), ``render_level`` and
   ``encode_gray_as_rgba_png``, as median / p90 / max / mean ms over the levels.
2. Throughput of ``run_simulate`` (stability JSON + one PNG per level written, ``force=True``) with
   ``ProcessPoolExecutor(workers=2)``: on the 150 real levels, on a synthetic competition of 30 teams x 26 letters
   x 10 trials = 7,800 levels, and (reference) the 150 real levels with ``SerialExecutor`` and a 2-level
   competition on the pool (what starting the pool costs). Each run works on a fresh copy of the levels, once on
   the disk (``--disk-dir``, default the system temp dir) and once on tmpfs (``--shm-dir``, default /dev/shm):
   this VM's disk is slow at creating files. Target: at least 200 levels/s on 2 cores.
3. Memory over ``--memory-levels`` (default 20,000; synthetic) levels through ``run_simulate`` on
   ``ProcessPoolExecutor(2)``: a thread samples VmRSS (and Pss) of this process and of all its descendants
   (forkserver + workers) from /proc every 0.2 s, with the number of levels done so far; peak totals are reported
   per window ending at 1k, 5k, 10k and 20k levels, with worker recycling on (``jobs_per_worker`` 500, the default)
   and effectively off (10**9).
4. Worst case, dense levels: 80, 160 and 320 SquareTiny blocks (4, 8 and 16 full rows of the 20-column grid;
   320 is the full 20x16 grid, the densest level the converter can build): ``evaluate_stability`` and
   render + PNG per level.

Synthetic levels are made with podium's converter (``drop_blocks`` + ``level_xml_text``) from a deterministic
seed (``--seed``): letter-like structures of 1-3 vertical strokes (b13 stacks two columns apart) joined by b31 bars,
with b11 details, 3-25 blocks (52 % exactly 3, median 3 like the real data, mean about 4.7). Bars are placed only
where they rest on their centre or on both ends, except that a quarter of the levels get one bar resting on one end
only, which tips over: 22-24 % of the levels end unstable (seeds 2023, 2024, 7), as in the real data (33 of 150).
Their simulation costs a little more than the real levels' (mean 4.3-5.0 ms against about 2.8 ms).

``--quick`` runs a smaller version (1 repeat, 5 synthetic teams, 3,000 levels for memory). ``--profile`` (on by
default, ``--no-profile`` to skip) adds a cProfile of a serial ``run_simulate`` over the 150 real levels.

Run: ``make bench-sim`` or ``.venv/bin/python benchmarks/bench_pcg_simulate.py [--repeats N] [--quick]``.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import json
import math
import os
import platform
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from machine import cpu_model  # benchmarks/machine.py, beside this script

from podium.core.execution.executor import Executor, ProcessPoolExecutor, SerialExecutor
from podium.core.records import StageFailure
from podium.core.storage.files import write_atomic
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import CHARACTERS, TRIALS_PER_CHARACTER, edition
from podium.tracks.pcg.official.levelxml import level_xml_text, parse_level
from podium.tracks.pcg.official.png import encode_gray_as_rgba_png
from podium.tracks.pcg.rules.build import drop_blocks
from podium.tracks.pcg.rules.physics import PhysicsParameters, evaluate_stability
from podium.tracks.pcg.rules.render import render_level
from podium.tracks.pcg.stages.driver import StageSettings, StageSummary
from podium.tracks.pcg.stages.simulate import run_simulate

J = TypeVar("J")
R = TypeVar("R")

TARGET_LEVELS_PER_S = 200.0
WORKERS = 2
DEFAULT_REAL_DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "pcg" / "unity-2023"
DEFAULT_TEAMS = 30  # 30 x 26 x 10 = 7,800 levels
MEMORY_LEVELS = 20_000
MEMORY_CHECKPOINTS = (1_000, 5_000, 10_000, 20_000)
NO_RECYCLING = 10**9
SAMPLE_INTERVAL_S = 0.2
FLOOR_FILES = 2_000
FLAT_TOLERANCE = 0.10
DENSE_ROWS = (4, 8, 16)  # x 20 columns of b11 = 80, 160, 320 blocks
GRID_WIDTH = 20
GRID_HEIGHT = 16
CELL_HEIGHT = {"B11": 1, "B31": 1, "B13": 3}


# ---------------------------------------------------------------------------------------------------- levels


def copy_real_levels(source: Path, root: Path) -> int:
    """Copy ``source/<version>/levels/<C>/*.xml`` to ``root/<version>/levels/<C>/`` (one team per version)."""
    count = 0
    for path in sorted(source.glob("*/levels/*/*.xml")):
        team, character = path.parts[-4], path.parts[-2]
        folder = root / team / "levels" / character
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / path.name)
        count += 1
    return count


def _block_count(rng: random.Random) -> int:
    """3-25 blocks: half exactly 3 (the real data's median), a tail of larger letters."""
    draw = rng.random()
    if draw < 0.52:
        return 3
    if draw < 0.80:
        return rng.randint(4, 5)
    return min(25, 6 + int(rng.expovariate(1 / 5.0)))


def synthetic_calls(rng: random.Random, count: int, tipping: bool) -> list[tuple[str, int]]:
    """Drop calls of a letter-like structure of about ``count`` blocks; ``tipping`` adds one bar on one end.

    The structure has 1-3 vertical strokes (b13 stacks at columns two apart), b31 bars across or on top of them and
    b11 details. A bar is dropped only where it would rest on its centre or on both ends (a height map of the grid
    says where it lands), except for the tipping bar, which rests on the end of the highest stroke only.
    """
    strokes = rng.randint(1, 3)
    origin = rng.randint(1, GRID_WIDTH - 4 - 2 * (strokes - 1))
    columns = [origin + 2 * i for i in range(strokes)]
    heights = [0] * GRID_WIDTH
    calls: list[tuple[str, int]] = []
    tip_at = rng.randrange(count) if tipping else -1
    for _attempt in range(400):
        if len(calls) >= count:
            break
        if len(calls) == tip_at:
            post = max(range(GRID_WIDTH - 2), key=lambda c: (heights[c], rng.random()))
            level = heights[post]
            if level == 0 or level >= GRID_HEIGHT - 1 or max(heights[post + 1], heights[post + 2]) >= level:
                # no post stands out yet: raise one stroke with a b13 first, try the bar at the next block
                post = rng.choice((columns[0], min(GRID_WIDTH - 3, columns[-1])))
                if heights[post] + 3 <= GRID_HEIGHT - 1 and heights[post] >= max(heights[post + 1 : post + 3]):
                    calls.append(("B13", post))
                    heights[post] += 3
                tip_at += 1
                continue
            calls.append(("B31", post + 1))
            heights[post : post + 3] = [level + 1] * 3
            continue
        kind = rng.choices(("B13", "B31", "B11"), weights=(4, 4, 2))[0]
        if kind == "B31":
            slot = rng.choice([c + 1 for c in columns[:-1]] + [c for c in columns if 1 <= c <= GRID_WIDTH - 2])
            left, centre, right = heights[slot - 1 : slot + 2]
            land = max(left, centre, right)
            if not (centre == land or left == right == land) or land + 1 > GRID_HEIGHT - 1:
                continue
            heights[slot - 1 : slot + 2] = [land + 1] * 3
        else:
            slot = rng.choice(columns + [c + 1 for c in columns[:-1]]) if kind == "B11" else rng.choice(columns)
            if heights[slot] + CELL_HEIGHT[kind] > GRID_HEIGHT - 1:
                continue
            heights[slot] += CELL_HEIGHT[kind]
        calls.append((kind, slot))
    return calls


@dataclass
class SyntheticInfo:
    """What the synthetic set-up wrote, for the report."""

    levels: int = 0
    blocks: list[int] = field(default_factory=list)
    tipping: int = 0
    rejected: int = 0

    def describe(self) -> str:
        blocks = sorted(self.blocks)
        return (
            f"{self.levels} levels, blocks per level median {statistics.median(blocks):g}, "
            f"mean {statistics.mean(blocks):.2f}, p90 {_p90(blocks):g}, max {blocks[-1]}; "
            f"{self.tipping} with a tipping bar; {self.rejected} drawn levels rejected by the converter"
        )


def synthetic_level_texts(seed: int, count: int) -> Iterator[tuple[str, int, bool]]:
    """``count`` synthetic level XML texts with their block counts and whether a tipping bar was drawn."""
    made = 0
    index = 0
    while made < count:
        rng = random.Random(f"{seed}/level/{index}")
        index += 1
        tipping = rng.random() < 0.25
        level = drop_blocks(synthetic_calls(rng, _block_count(rng), tipping))
        if isinstance(level, StageFailure):
            continue
        made += 1
        yield level_xml_text(level), len(level.blocks), tipping


def write_synthetic_competition(root: Path, seed: int, teams: int, levels: int | None = None) -> SyntheticInfo:
    """Write ``root/<team>/levels/<C>/<team>_<C>_<n>.xml``: ``teams`` x 26 x 10 levels (or the first ``levels``)."""
    total = teams * len(CHARACTERS) * TRIALS_PER_CHARACTER if levels is None else levels
    info = SyntheticInfo()
    texts = synthetic_level_texts(seed, total)
    for team_number in range(1, math.ceil(total / (len(CHARACTERS) * TRIALS_PER_CHARACTER)) + 1):
        team = f"team_{team_number:03d}"
        for character in CHARACTERS:
            folder = root / team / "levels" / character
            for trial in range(1, TRIALS_PER_CHARACTER + 1):
                if info.levels >= total:
                    return info
                text, blocks, tipping = next(texts)
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{team}_{character}_{trial}.xml").write_text(text, encoding="utf-8")
                info.levels += 1
                info.blocks.append(blocks)
                info.tipping += tipping
    return info


def unstable_share(root: Path) -> tuple[int, int]:
    """(unstable, scored) levels over the stability files a run wrote under ``root``."""
    scores = [raw["score"] for path in root.glob("*/stability/*.json") for raw in json.loads(path.read_text())["raws"]]
    return sum(1 for s in scores if s < 1), len(scores)


def dense_level_bytes(rows: int) -> bytes:
    """A level of ``rows`` full rows of b11 (20 per row), built by the converter."""
    level = drop_blocks([("B11", column) for _ in range(rows) for column in range(GRID_WIDTH)])
    assert not isinstance(level, StageFailure), level
    return level_xml_text(level).encode("utf-8")


# ---------------------------------------------------------------------------------------------------- statistics


def _p90(values: list[float] | list[int]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else values[0]


def cell(values: list[float], digits: int = 2) -> str:
    """``median (min–max)`` of repeated measurements."""
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:.{digits}f}"
    return f"{median:.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"benchmark check failed: {message}")


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------- 1. per level

COMPONENTS = ("parse", "simulate (evaluate_stability)", "render", "PNG encode", "all four")


def per_level_costs(real: Path, repeats: int) -> tuple[list[str], dict[str, Any]]:
    """Time each step of each real level in this process; one statistics row per step."""
    levels = [(path, path.read_bytes()) for path in sorted(real.glob("*/levels/*/*.xml"))]
    params = PhysicsParameters()
    stats: dict[str, dict[str, list[float]]] = {c: {} for c in COMPONENTS}
    by_stability: dict[str, list[float]] = {"stable": [], "unstable": []}
    unstable = 0
    for repeat in range(repeats):
        times: dict[str, list[float]] = {c: [] for c in COMPONENTS}
        groups: dict[str, list[float]] = {"stable": [], "unstable": []}
        unstable = 0
        for _path, data in levels:
            t0 = time.perf_counter()
            level = parse_level(data)
            t1 = time.perf_counter()
            result = evaluate_stability(level, params)
            t2 = time.perf_counter()
            image = render_level(result.image_poses)
            t3 = time.perf_counter()
            encode_gray_as_rgba_png(image)
            t4 = time.perf_counter()
            for name, seconds in zip(COMPONENTS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0), strict=True):
                times[name].append(1000 * seconds)
            groups["unstable" if result.score < 1 else "stable"].append(1000 * (t2 - t1))
            unstable += result.score < 1
        for name, values in times.items():
            for stat, value in (
                ("median", statistics.median(values)),
                ("p90", _p90(values)),
                ("max", max(values)),
                ("mean", statistics.mean(values)),
                ("total", sum(values) / 1000),
            ):
                stats[name].setdefault(stat, []).append(value)
        for key, values in groups.items():
            by_stability[key].append(statistics.median(values))
        _log(f"per-level costs: repetition {repeat + 1}/{repeats} done")
    lines = [
        f"150 real levels ({unstable} unstable), one process, {repeats} repetition(s): each cell is the median over "
        "the repetitions of that statistic over the levels (min–max over repetitions).",
        "",
        "| step | median ms | p90 ms | max ms | mean ms | total s (150 levels) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in COMPONENTS:
        s = stats[name]
        lines.append(
            f"| {name} | {cell(s['median'])} | {cell(s['p90'])} | {cell(s['max'])} | {cell(s['mean'])} "
            f"| {cell(s['total'], 3)} |"
        )
    lines += [
        "",
        f"Simulation median by outcome: stable levels {cell(by_stability['stable'])} ms, unstable levels "
        f"{cell(by_stability['unstable'])} ms (unstable ones run up to 3 times).",
    ]
    summary = {"sim_median": statistics.median(stats[COMPONENTS[1]]["median"])}
    return lines, summary


# ---------------------------------------------------------------------------------------------------- 2. throughput


def _fs_type(path: Path) -> str:
    """The file-system type of the mount holding ``path`` (from /proc/mounts)."""
    best, kind = "", "unknown"
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return kind
    resolved = str(path.resolve())
    for line in mounts:
        parts = line.split()
        inside = len(parts) >= 3 and (resolved == parts[1] or resolved.startswith(parts[1].rstrip("/") + "/"))
        if inside and len(parts[1]) > len(best):
            best, kind = parts[1], parts[2]
    return kind


def _cpu_seconds() -> float:
    """User + system CPU time of this process so far (not its pool workers)."""
    times = os.times()
    return times.user + times.system


def file_create_ms(folder: Path, count: int = FLOOR_FILES) -> float:
    """Milliseconds to create one 4 KB file with ``write_atomic`` (mkstemp + write + rename), 10 files a folder."""
    data = bytes(4096)
    start = time.perf_counter()
    for index in range(count):
        write_atomic(folder / f"d{index // 10}" / f"f{index}.png", data)
    seconds = time.perf_counter() - start
    shutil.rmtree(folder)
    return 1000 * seconds / count


def timed_simulate(template: Path, root: Path, executor: Executor) -> tuple[float, float, StageSummary]:
    """Copy ``template`` to a fresh ``root`` and time ``run_simulate`` on it (the caller removes ``root``).

    Returns wall seconds, this (parent) process's CPU seconds, and the stage summary.
    """
    shutil.copytree(template, root)
    cpu = _cpu_seconds()
    start = time.perf_counter()
    summary = run_simulate(open_competition(root, edition(2024)), StageSettings(executor=executor, force=True))
    return time.perf_counter() - start, _cpu_seconds() - cpu, summary


@dataclass
class Workload:
    """One row of the throughput table."""

    label: str
    template_name: str
    levels: int
    executor: Callable[[], Executor]
    seconds: dict[str, list[float]] = field(default_factory=dict)
    parent_cpu: dict[str, list[float]] = field(default_factory=dict)


def throughput(
    real: Path, dirs: dict[str, Path], seed: int, teams: int, repeats: int
) -> tuple[list[str], dict[str, Any]]:
    """Time ``run_simulate`` on each workload, on each of ``dirs`` (label -> work folder)."""
    synthetic_levels = teams * len(CHARACTERS) * TRIALS_PER_CHARACTER
    workloads = [
        Workload("150 real levels, `SerialExecutor` (reference)", "real", 150, SerialExecutor),
        Workload("2 real levels, pool of 2 (pool start-up)", "tiny", 2, lambda: ProcessPoolExecutor(WORKERS)),
        Workload("150 real levels, pool of 2", "real", 150, lambda: ProcessPoolExecutor(WORKERS)),
        Workload(
            f"**{synthetic_levels:,} synthetic levels, pool of 2**",
            "synthetic",
            synthetic_levels,
            lambda: ProcessPoolExecutor(WORKERS),
        ),
    ]
    extra: dict[str, Any] = {}
    floors: dict[str, list[float]] = {}
    for fs_label, folder in dirs.items():
        work = Path(tempfile.mkdtemp(prefix="pcg-sim-bench-", dir=folder))
        try:
            templates = work / "templates"
            _check(copy_real_levels(real, templates / "real") == 150, f"expected 150 levels in {real}")
            tiny = templates / "tiny" / "v1" / "levels" / "I"
            tiny.mkdir(parents=True)
            for name in ("V1_I_1.xml", "V1_I_2.xml"):
                shutil.copyfile(templates / "real" / "v1" / "levels" / "I" / name, tiny / name)
            _log(f"throughput on {fs_label}: writing {synthetic_levels} synthetic levels ...")
            info = write_synthetic_competition(templates / "synthetic", seed, teams)
            extra["synthetic"] = info
            for repeat in range(repeats):
                floors.setdefault(fs_label, []).append(file_create_ms(work / "floor"))
                for workload in workloads:
                    root = work / "run"
                    seconds, cpu, summary = timed_simulate(
                        templates / workload.template_name, root, workload.executor()
                    )
                    if workload.template_name == "synthetic" and "synthetic_unstable" not in extra:
                        extra["synthetic_unstable"] = unstable_share(root)
                        extra["files_per_level"] = sum(1 for p in root.rglob("*") if p.is_file()) / workload.levels
                    shutil.rmtree(root)
                    _check(
                        summary.count("ok") == workload.levels == len(summary.events),
                        f"{workload.label}: {len(summary.events)} events, {summary.count('ok')} ok",
                    )
                    workload.seconds.setdefault(fs_label, []).append(seconds)
                    workload.parent_cpu.setdefault(fs_label, []).append(cpu)
                    _log(f"throughput on {fs_label}, repetition {repeat + 1}: {workload.label} {seconds:.2f} s")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    header = "| workload | " + " | ".join(f"{fs}: s | {fs}: levels/s" for fs in dirs) + " |"
    lines = [header, "|---|" + "---:|---:|" * len(dirs)]
    for workload in workloads:
        cells = []
        for fs in dirs:
            seconds = workload.seconds[fs]
            cells += [cell(seconds, 3), cell([workload.levels / s for s in seconds], 0)]
        lines.append(f"| {workload.label} | " + " | ".join(cells) + " |")
    big = workloads[-1]
    shares = []
    for fs in dirs:
        share = 100 * statistics.median(big.parent_cpu[fs]) / statistics.median(big.seconds[fs])
        shares.append(f"{fs} {cell(big.parent_cpu[fs], 2)} s = {share:.0f} % of one core")
    lines += [
        "",
        "CPU time of the parent process (reading levels, queueing jobs, logs, ledger, stability JSON) during the "
        f"{big.levels:,}-level pool run: {'; '.join(shares)}.",
        "",
        f"Reference, not podium's stage: creating one 4 KB file with `write_atomic` (serial, {FLOOR_FILES:,} files, "
        "measured before each repetition) took "
        + "; ".join(f"{fs} {cell(values, 3)} ms" for fs, values in floors.items())
        + " during this run.",
    ]
    extra["rates"] = {fs: statistics.median(big.levels / s for s in big.seconds[fs]) for fs in dirs}
    extra["real_rates"] = {fs: statistics.median(150 / s for s in workloads[2].seconds[fs]) for fs in dirs}
    return lines, extra


# ---------------------------------------------------------------------------------------------------- 3. memory


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def descendants(pid: int) -> list[int]:
    """All processes below ``pid`` (forkserver and pool workers), from the parent ids in /proc/*/stat."""
    children = _children_map()
    found, stack = [], list(children.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(children.get(child, []))
    return found


def memory_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, Pss) of ``pid`` in KiB; (0, 0) if it is gone."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
                break
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
                break
    except (OSError, ValueError):
        pass
    return rss, pss


@dataclass(frozen=True)
class Sample:
    """One reading of the process tree."""

    seconds: float
    done: int
    parent_rss: int
    workers_rss: int  # every descendant: forkserver and workers
    total_pss: int
    workers: frozenset[int]


class CountingExecutor:
    """Delegates to another executor and counts the results handed back, for the memory sampler."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.done = 0

    def map_unordered(self, function: Callable[[J], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        for item in self.inner.map_unordered(function, jobs):
            self.done += 1
            yield item


class Sampler(threading.Thread):
    """Samples memory of this process and its descendants every ``interval`` seconds until stopped."""

    def __init__(self, counter: CountingExecutor, interval: float) -> None:
        super().__init__(daemon=True)
        self.counter = counter
        self.interval = interval
        self.samples: list[Sample] = []
        self.stopping = threading.Event()
        self.start_time = time.perf_counter()

    def sample(self) -> None:
        me = os.getpid()
        parent_rss, parent_pss = memory_kib(me)
        kids = descendants(me)
        readings = [memory_kib(pid) for pid in kids]
        self.samples.append(
            Sample(
                time.perf_counter() - self.start_time,
                self.counter.done,
                parent_rss,
                sum(r for r, _ in readings),
                parent_pss + sum(p for _, p in readings),
                frozenset(kids),
            )
        )

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        self.sample()


def memory_run(template: Path, work: Path, jobs_per_worker: int) -> tuple[list[Sample], float, StageSummary]:
    root = work / "memory-run"
    shutil.copytree(template, root)
    counter = CountingExecutor(ProcessPoolExecutor(WORKERS, jobs_per_worker=jobs_per_worker))
    sampler = Sampler(counter, SAMPLE_INTERVAL_S)
    sampler.sample()
    sampler.start()
    start = time.perf_counter()
    try:
        summary = run_simulate(open_competition(root, edition(2024)), StageSettings(executor=counter, force=True))
    finally:
        sampler.stop()
    seconds = time.perf_counter() - start
    shutil.rmtree(root)
    return sampler.samples, seconds, summary


def memory_table(samples: list[Sample], checkpoints: list[int]) -> list[str]:
    lines = [
        "| levels done (window) | peak total RSS MiB | parent RSS MiB | workers + forkserver RSS MiB "
        "| peak total PSS MiB | worker processes so far |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    low = -1
    seen: set[int] = set()
    for high in checkpoints:
        window = [s for s in samples if low < s.done <= high] or [s for s in samples if s.done <= high][-1:]
        for s in samples:
            if s.done <= high:
                seen |= s.workers
        peak = max(window, key=lambda s: s.parent_rss + s.workers_rss)
        lines.append(
            f"| {high:,} ({max(low, 0):,}–{high:,}) | {(peak.parent_rss + peak.workers_rss) / 1024:.0f} "
            f"| {max(s.parent_rss for s in window) / 1024:.0f} | {max(s.workers_rss for s in window) / 1024:.0f} "
            f"| {max(s.total_pss for s in window) / 1024:.0f} | {max(len(seen) - 1, 0)} |"
        )
        low = high
    return lines


def memory(folder: Path, seed: int, levels: int) -> tuple[list[str], dict[str, Any]]:
    work = Path(tempfile.mkdtemp(prefix="pcg-sim-memory-", dir=folder))
    lines: list[str] = []
    extra: dict[str, Any] = {}
    try:
        template = work / "template"
        _log(f"memory: writing {levels} synthetic levels ...")
        info = write_synthetic_competition(template, seed + 1, 0, levels)
        checkpoints = [c for c in MEMORY_CHECKPOINTS if c < info.levels] + [info.levels]
        lines.append(f"Synthetic competition of {info.describe()}; files on {_fs_type(work)}.")
        runs = (
            ("recycling on (default, 500 jobs per worker)", 500),
            (f"recycling off ({NO_RECYCLING:.0e})", NO_RECYCLING),
        )
        for label, jobs_per_worker in runs:
            _log(f"memory: {info.levels} levels, {label} ...")
            samples, seconds, summary = memory_run(template, work, jobs_per_worker)
            _check(summary.count("ok") == info.levels, f"memory run: {summary.count('ok')} ok of {info.levels}")
            extra[label] = (samples, seconds)
            lines += [
                "",
                f"**{label}**: {info.levels:,} levels in {seconds:.1f} s ({info.levels / seconds:.0f} levels/s), "
                f"{len(samples)} samples:",
                "",
                *memory_table(samples, checkpoints),
            ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return lines, extra


# ---------------------------------------------------------------------------------------------------- 4. dense


def dense(repeats: int) -> list[str]:
    params = PhysicsParameters()
    lines = [
        "| blocks | score | runs | moving (last run) | evaluate_stability ms | ms per run | render + PNG ms |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for rows in DENSE_ROWS:
        level = parse_level(dense_level_bytes(rows))
        sim, draw = [], []
        result = None
        for _ in range(max(3, repeats)):
            t0 = time.perf_counter()
            result = evaluate_stability(level, params)
            t1 = time.perf_counter()
            encode_gray_as_rgba_png(render_level(result.image_poses))
            t2 = time.perf_counter()
            sim.append(1000 * (t1 - t0))
            draw.append(1000 * (t2 - t1))
        assert result is not None
        lines.append(
            f"| {len(level.objects)} | {result.score:.4f} | {result.runs} | {result.moving} | {cell(sim, 0)} "
            f"| {statistics.median(sim) / result.runs:.0f} | {cell(draw, 1)} |"
        )
        _log(f"dense: {len(level.objects)} blocks done")
    return lines


# ---------------------------------------------------------------------------------------------------- profile

PROFILED = (
    ("simulate_level", "one level's job: everything below"),
    ("evaluate_stability", "physics (best of up to 3 runs)"),
    ("Step", "Box2D world steps"),
    ("BeginContact", "damage callback (Python)"),
    ("render_level", "image"),
    ("encode_gray_as_rgba_png", "PNG"),
    ("write_atomic", "writing files (PNG and JSON)"),
    ("parse_level", "reading the XML"),
    ("_finish_character", "stability JSON, ledger, log per character"),
)


def profile_serial(real: Path, folder: Path, top: int) -> str:
    work = Path(tempfile.mkdtemp(prefix="pcg-sim-profile-", dir=folder))
    try:
        copy_real_levels(real, work / "run")
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.runcall(run_simulate, work / "run", executor=SerialExecutor(), force=True)
        wall = time.perf_counter() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)
    stats = pstats.Stats(profiler)
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, Any]] = stats.stats  # type: ignore[attr-defined]
    total = max(ct for _cc, _nc, _tt, ct, _callers in raw.values())
    out = io.StringIO()
    out.write(
        f"cProfile of `run_simulate` with `SerialExecutor` on the 150 real levels ({_fs_type(folder)}): "
        f"{wall:.2f} s wall under the profiler, {total:.2f} s profiled.\n\n"
        "| function | calls | cumulative s | share | what |\n|---|---:|---:|---:|---|\n"
    )
    for name, what in PROFILED:
        rows = [(nc, ct) for (_file, _line, func), (_cc, nc, _tt, ct, _) in raw.items() if func == name]
        if rows:
            calls, cumulative = sum(r[0] for r in rows), sum(r[1] for r in rows)
            out.write(f"| `{name}` | {calls:,} | {cumulative:.3f} | {100 * cumulative / total:.0f} % | {what} |\n")
    out.write(f"\nTop {top} by own time:\n\n```\n")
    listing = io.StringIO()
    pstats.Stats(profiler, stream=listing).strip_dirs().sort_stats("tottime").print_stats(top)
    body = listing.getvalue()
    out.write(body[body.find("   ncalls") :].rstrip() + "\n```\n")
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------- report


def machine_description() -> list[str]:
    cpu = cpu_model()
    memory = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024**2:.0f} GiB"
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "src"], timeout=10).returncode != 0
        commit += " (src/ has uncommitted changes)" if dirty else ""
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return [
        f"- Machine: {cpu}, {os.cpu_count()} cores, {memory} RAM, {platform.platform()}",
        f"- Python: {platform.python_version()} ({platform.python_implementation()})",
        f"- podium: git {commit}",
        f"- Date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
    ]


class ForeignCpu:
    """CPU seconds that processes outside this benchmark's tree used between ``start`` and ``stop``.

    The machine's busy time (/proc/stat: user, nice, system, irq, softirq) minus this process and its descendants
    (their own and reaped children's times from /proc/<pid>/stat; pool workers are reaped by the forkserver, so
    theirs land in its counters). Other programs running during a measurement make it slower; this says how much.
    """

    def __init__(self) -> None:
        self.ticks = os.sysconf("SC_CLK_TCK")
        self.start_busy = self.start_tree = 0.0
        self.started = 0.0

    def _busy(self) -> float:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
        user, nice, system, _idle, _iowait, irq, softirq = fields
        return (user + nice + system + irq + softirq) / self.ticks

    def _tree(self) -> float:
        own = os.times()
        total = own.user + own.system + own.children_user + own.children_system
        for pid in descendants(os.getpid()):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(v) for v in fields[11:15]) / self.ticks  # utime, stime, cutime, cstime
        return total

    def start(self) -> ForeignCpu:
        self.start_busy, self.start_tree, self.started = self._busy(), self._tree(), time.perf_counter()
        return self

    def stop(self) -> str:
        foreign = max(0.0, (self._busy() - self.start_busy) - (self._tree() - self.start_tree))
        wall = time.perf_counter() - self.started
        cores = os.cpu_count() or 1
        return f"{foreign:.1f} CPU-s = {100 * foreign / (wall * cores):.0f} % of the machine's {cores} cores"


def _load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="repetitions of each measurement (default 3)")
    parser.add_argument("--quick", action="store_true", help="1 repeat, 5 synthetic teams, 3,000 levels for memory")
    parser.add_argument("--teams", type=int, help=f"synthetic teams for throughput (default {DEFAULT_TEAMS})")
    parser.add_argument("--memory-levels", type=int, help=f"levels of the memory run (default {MEMORY_LEVELS})")
    parser.add_argument("--seed", type=int, default=2023, help="seed of the synthetic levels (default 2023)")
    parser.add_argument("--real-data", type=Path, default=DEFAULT_REAL_DATA, help="the 150 Unity levels")
    parser.add_argument("--disk-dir", type=Path, default=Path(tempfile.gettempdir()), help="work folder on disk")
    parser.add_argument("--shm-dir", type=Path, default=Path("/dev/shm"), help="work folder on tmpfs")
    parser.add_argument("--skip", action="append", default=[], choices=("costs", "throughput", "memory", "dense"))
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile of a serial run")
    parser.add_argument("--profile-top", type=int, default=15, help="functions listed in the profile (default 15)")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick and args.repeats == 3 else args.repeats
    teams = args.teams or (5 if args.quick else DEFAULT_TEAMS)
    memory_levels = args.memory_levels or (3_000 if args.quick else MEMORY_LEVELS)
    if repeats < 1 or teams < 1 or memory_levels < 1:
        parser.error("--repeats, --teams and --memory-levels must be at least 1")
    _check(len(list(args.real_data.glob("*/levels/*/*.xml"))) == 150, f"no 150 levels in {args.real_data}")
    dirs = {"disk": args.disk_dir, "tmpfs": args.shm_dir}
    for folder in dirs.values():
        folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    load_at_start = _load_average()

    out = [
        "## PCG evaluator (simulate + render + PNG)",
        "",
        *machine_description(),
        f"- Command: `{' '.join([os.path.relpath(sys.executable), *sys.argv])}` ({repeats} repetition(s))",
        f"- Work folders: disk = {args.disk_dir} ({_fs_type(args.disk_dir)}), tmpfs = {args.shm_dir} "
        f"({_fs_type(args.shm_dir)})",
    ]
    verdicts = []
    foreign: list[str] = []
    whole = ForeignCpu().start()
    if "costs" not in args.skip:
        _log("1. per-level costs ...")
        watch = ForeignCpu().start()
        lines, _ = per_level_costs(args.real_data, repeats)
        foreign.append(f"per-level costs {watch.stop()}")
        out += ["", "### 1. Per-level costs (one process, 150 real levels)", "", *lines]
    if "throughput" not in args.skip:
        _log("2. throughput ...")
        watch = ForeignCpu().start()
        lines, extra = throughput(args.real_data, dirs, args.seed, teams, repeats)
        foreign.append(f"throughput {watch.stop()}")
        unstable, scored = extra["synthetic_unstable"]
        out += [
            "",
            f"### 2. `run_simulate` throughput ({WORKERS} workers unless noted; stability JSON + PNG written)",
            "",
            f"Synthetic competition: {extra['synthetic'].describe()}; {unstable} of {scored} "
            f"({100 * unstable / scored:.1f} %) unstable after simulation; "
            f"{extra['files_per_level']:.2f} files per level in the output tree (levels, PNGs, JSON, ledger, log).",
            "",
            *lines,
        ]
        for fs, rate in extra["rates"].items():
            met = "MET" if rate >= TARGET_LEVELS_PER_S else "NOT MET"
            verdicts.append(
                f"- Throughput target (>= {TARGET_LEVELS_PER_S:.0f} levels/s on {WORKERS} cores), files on {fs}: "
                f"{met} ({rate:.0f} levels/s on the synthetic competition, {extra['real_rates'][fs]:.0f} on the "
                "150 real levels)"
            )
    if "memory" not in args.skip:
        _log("3. memory ...")
        watch = ForeignCpu().start()
        lines, extra = memory(args.shm_dir, args.seed, memory_levels)
        foreign.append(f"memory {watch.stop()}")
        out += ["", f"### 3. Memory over {memory_levels:,} levels (`ProcessPoolExecutor({WORKERS})`)", "", *lines]
        for label, (samples, _seconds) in extra.items():
            totals = [(s.done, s.parent_rss + s.workers_rss) for s in samples]
            early = max((t for d, t in totals if d <= min(1000, memory_levels)), default=0)
            late = max((t for d, t in totals if d > memory_levels // 2), default=0)
            flat = late <= early * (1 + FLAT_TOLERANCE)
            verdicts.append(
                f"- Memory flat (peak total RSS in the second half at most {100 * FLAT_TOLERANCE:.0f} % above the "
                f"first 1,000 levels), {label}: {'MET' if flat else 'NOT MET'} ({early / 1024:.0f} MiB, then "
                f"{late / 1024:.0f} MiB, {(late - early) / 1024:+.0f} MiB)"
            )
    if "dense" not in args.skip:
        _log("4. dense levels ...")
        watch = ForeignCpu().start()
        out += ["", "### 4. Worst case: dense levels (one process)", "", *dense(repeats)]
        foreign.append(f"dense {watch.stop()}")
    if not args.no_profile:
        _log("profile ...")
        out += ["", "### Where the time goes", "", profile_serial(args.real_data, args.shm_dir, args.profile_top)]
    out += [
        "",
        "### Targets",
        "",
        *verdicts,
        "",
        f"Benchmark wall time: {time.perf_counter() - started:.0f} s. Load average (1, 5, 15 min) at the start: "
        f"{load_at_start}; at the end: {_load_average()}.",
        f"CPU used by other programs during the benchmark: whole run {whole.stop()}; " + "; ".join(foreign) + ".",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
