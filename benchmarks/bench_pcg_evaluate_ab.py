"""Two versions of ``podium pcg evaluate`` on the same workload, interleaved in the same minutes, quiet or under load.

A speed-up is only a number against a baseline measured beside it: this VM's speed varies by a third from one hour
to the next. Each repeat runs the BEFORE tree, then the AFTER tree (``PYTHONPATH=<tree>/src``), on a fresh copy of
the workload, with 2 worker processes, and records the wall time of the whole command and the stage table it prints.
Each run gets a root of its own, synced to disk before it starts, and all are deleted at the end: deleting tens of
thousands of files just before a run slowed that run's file writes by several seconds on this VM's disk.
``--load N`` keeps N busy processes running through every run ("under load").
``benchmarks/pcg_output_digest.py`` checks that both versions write the same results.

Run (the workloads are made once by ``pcg_output_digest.py make-letters|make-towers RAW``)::

    .venv/bin/python benchmarks/bench_pcg_evaluate_ab.py --before ../podium-old --after . --raw RAW [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import busy_processes  # benchmarks/machine.py, beside this script

STAGES = ("extract", "build", "simulate", "classify", "diversity")


def run_once(tree: Path, raw: Path, root: Path) -> tuple[float, dict[str, float]]:
    """Evaluate a fresh copy of ``raw`` at ``root`` with the code of ``tree``; total seconds and each stage's."""
    shutil.copytree(raw, root)
    os.sync()
    env = {**os.environ, "PYTHONPATH": str(tree.resolve() / "src")}
    command = [sys.executable, "-m", "podium", "pcg", "evaluate", str(root), "--edition", "2024", "--workers", "2"]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    total = time.perf_counter() - started
    stages = {}
    for line in done.stdout.splitlines():
        fields = line.split()
        if fields and fields[0] in STAGES:
            stages[fields[0]] = float(fields[-1])
    return total, stages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the baseline's source tree")
    parser.add_argument("--after", type=Path, required=True, help="the changed source tree")
    parser.add_argument("--raw", type=Path, required=True, help="the workload's raw responses (ROOT/<TEAM>/raw/...)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/podium-ab"), help="a folder for the runs' roots")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--load", type=int, default=0, help="busy processes kept running through every run")
    args = parser.parse_args()
    results: dict[str, list[tuple[float, dict[str, float]]]] = {"before": [], "after": []}
    shutil.rmtree(args.work, ignore_errors=True)
    with busy_processes(args.load):
        try:
            for repeat in range(args.repeats):
                for label, tree in (("before", args.before), ("after", args.after)):
                    results[label].append(run_once(tree, args.raw, args.work / f"{label}-{repeat}" / "root"))
                    total, stages = results[label][-1]
                    print(f"{label} run {repeat + 1}: {total:.1f} s " + " ".join(f"{k} {v}" for k, v in stages.items()))
        finally:
            shutil.rmtree(args.work, ignore_errors=True)
    print(f"\n| version | total s, median (runs) | {' | '.join(STAGES)} |")
    print("|---|---:|" + "---:|" * len(STAGES))
    for label, runs in results.items():
        totals = [total for total, _ in runs]
        medians = [statistics.median(stages.get(stage, 0.0) for _, stages in runs) for stage in STAGES]
        shown = ", ".join(f"{t:.1f}" for t in totals)
        cells = " | ".join(f"{m:.1f}" for m in medians)
        print(f"| {label} | {statistics.median(totals):.1f} ({shown}) | {cells} |")
    ratio = statistics.median(t for t, _ in results["after"]) / statistics.median(t for t, _ in results["before"])
    print(f"\nafter / before (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
