"""Benchmark of the command line's start-up: ``podium --help`` and ``podium dojo --help``, and what they import.

Each command runs ``--runs`` times (default 20) as a fresh process (``python -m podium``), interleaved so load on
a shared machine falls on both alike; the table gives the median and range of the wall times. Then one
``python -X importtime`` run of ``podium --help`` lists the slowest imports and checks that no track's heavy
dependency (NumPy, SQLAlchemy, Pillow, Box2D, FastAPI, torch) is among them. Target (issue 13): ``podium --help``
median under 0.2 s.

Run: ``.venv/bin/python benchmarks/bench_cli_startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from machine import cpu_model

COMMANDS = {"podium --help": ["--help"], "podium dojo --help": ["dojo", "--help"]}
HEAVY = ("numpy", "sqlalchemy", "PIL", "Box2D", "fastapi", "torch")


def wall_s(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "podium", *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, args in COMMANDS.items():
            times[name].append(wall_s(args))
    print(f"machine: {cpu_model()}; Python {sys.version.split()[0]}; {runs} runs each")
    print("| command | median s | min–max s |\n|---|---:|---:|")
    for name, values in times.items():
        print(f"| `{name}` | {statistics.median(values):.3f} | {min(values):.3f}–{max(values):.3f} |")

    trace = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "podium", "--help"], check=True, capture_output=True, text=True
    ).stderr
    rows = []
    for line in trace.splitlines()[1:]:
        _, self_us, cumulative_us, name = (part.strip() for part in line.replace("|", ":", 2).split(":", 3))
        rows.append((int(cumulative_us), name))
    loaded = {name for _, name in rows}
    heavy = [module for module in HEAVY if module in loaded]
    print("\nslowest imports of `podium --help` (cumulative µs):")
    for cumulative, name in sorted(rows, reverse=True)[:8]:
        print(f"  {cumulative:>8}  {name}")
    print(f"heavy track dependencies imported: {heavy or 'none'}")


if __name__ == "__main__":
    main()
