"""Benchmark: the fork-server against bubblewrap's chain, interleaved in the same minutes, quiet or under load.

Each round measures, in a rotated order:
- **bare**: ``python3 -s -S -P -B solver.py`` started by 4 threads with no isolation at all (runs/s), the
  ceiling the issue measures the judge against;
- per backend, **sandbox CPU per run**: ``--runs`` serial runs of the solver, machine CPU from ``/proc/stat``
  (the sandboxed programs and the kernel's work included) divided by the runs;
- per backend, **judged/s**: the whole platform as ``bench_dojo_judge.py`` measures it (SQLite, one process,
  4 worker threads: claim, admit, screen, run, gate, record, audit) on ``--submissions`` submissions.
The solver is the dojo's trivial one, ``for i in range(200):print(i*i)``, read until its 200 lines.
``--load N`` keeps N busy processes running through every round.

Run: ``.venv/bin/python benchmarks/bench_dojo_backends.py [--rounds R] [--runs N] [--submissions S] [--load N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_dojo_judge import one_run  # benchmarks/, beside this script
from machine import busy_cpu_seconds, busy_processes, cpu_model

from podium.core.execution.sandbox import RunRequest, RunStatus, open_sandbox
from podium.tracks.dojo.execute import PYTHON_ARGV, python_env

SOLVER = b"for i in range(200):print(i*i)\n"
BACKENDS = ("bubblewrap", "forkserver")


def bare_runs_per_s(folder: Path, runs: int) -> float:
    (folder / "solver.py").write_bytes(SOLVER)
    argv = ["/usr/bin/python3", *PYTHON_ARGV[1:], "solver.py"]

    def one(_: int) -> None:
        subprocess.run(argv, cwd=folder, env=python_env(), stdout=subprocess.DEVNULL, check=True)

    with ThreadPoolExecutor(4) as pool:
        started = time.perf_counter()
        list(pool.map(one, range(runs)))
    return runs / (time.perf_counter() - started)


def sandbox_cpu_ms(backend: str, runs: int) -> float:
    sandbox = open_sandbox(backend)
    request = RunRequest((*PYTHON_ARGV, "solver.py"), {"solver.py": SOLVER}, env=python_env(), stop_after_lines=200)
    for _ in range(5):  # warm: zygotes started, slots made
        sandbox.run(request)
    before = busy_cpu_seconds()
    for _ in range(runs):
        result = sandbox.run(request)
        assert result.status is RunStatus.OK and result.backend == backend, result
    return (busy_cpu_seconds() - before) / runs * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--submissions", type=int, default=500)
    parser.add_argument("--load", type=int, default=0, help="busy processes kept running through every round")
    args = parser.parse_args()
    figures: dict[str, list[float]] = {}
    with busy_processes(args.load), tempfile.TemporaryDirectory() as folder:
        steps: list[tuple[str, Callable[[], float]]] = [("bare runs/s", lambda: bare_runs_per_s(Path(folder), 400))]
        for backend in BACKENDS:
            steps.append((f"{backend} CPU ms/run", lambda b=backend: sandbox_cpu_ms(b, args.runs)))  # type: ignore[misc]
            steps.append((f"{backend} judged/s", lambda b=backend: one_run(args.submissions, 4, b)))  # type: ignore[misc]
        for round_number in range(args.rounds):
            shift = round_number % len(steps)
            for name, step in steps[shift:] + steps[:shift]:  # the order rotates from round to round
                figures.setdefault(name, []).append(step())
                print(f"round {round_number + 1}: {name} {figures[name][-1]:.1f}", flush=True)
    print(f"machine: {cpu_model()}, {len(os.sched_getaffinity(0))} CPUs; load: {args.load} busy processes")
    for name, values in figures.items():
        print(f"{name}: median {statistics.median(values):.1f} (min {min(values):.1f}, max {max(values):.1f})")
    bare = statistics.median(figures["bare runs/s"])
    for backend in BACKENDS:
        judged = statistics.median(figures[f"{backend} judged/s"])
        print(f"{backend}: judged/s over bare runs/s = {judged / bare:.2f}")


if __name__ == "__main__":
    main()
