"""Benchmark of the sandbox: what one sandboxed run of a trivial solver costs, and runs per second from a pool.

The solver prints 200 terms (``for i in range(200): print(i)``) and is run with ``python3 -s -S -P -B solver.py``
from a folder holding only ``solver.py``, with the judge's environment (``PYTHONHASHSEED=0``,
``PYTHONINTMAXSTRDIGITS=0``). Rows, timed interleaved (one of each per round, so load on the shared machine falls
on all of them alike), ``--runs`` rounds (default 200), wall time per run with ``time.perf_counter``:

- ``bare``: ``subprocess.run`` of the solver, cleared environment, output captured (the floor);
- ``bwrap alone``: ``subprocess.run`` of bubblewrap with the sandbox's own options around the solver, without
  podium (what bubblewrap itself costs here: new namespaces per run, as the sandbox's, but no system-call filter);
- ``bubblewrap, no cgroup``: ``BubblewrapSandbox(cgroups=False).run`` (uid switch, rlimits, handshake, reader, reaping);
- ``bubblewrap + cgroup``: ``BubblewrapSandbox().run`` with the pooled per-slot cgroup (when the host allows one);
- ``rlimits``: the weaker backend, for reference.

Then throughput: ``--pool-runs`` (default 400) runs through ``BubblewrapSandbox().run`` from a thread pool of 4,
with the machine's CPU per run (``/proc/stat``, kernel work included), and the same for bare runs (the ceiling).
The whole is repeated ``--repeats`` times (default 3); the table gives the median of the per-repeat medians, with
the range of those medians, and p90 of the last repeat. Target: overhead over bare at most 20 ms median
(docs/rules/dojo-platform.md §6, §11), 10 ms (issue 17).

Run: ``.venv/bin/python benchmarks/bench_sandbox.py [--runs N] [--repeats N]`` (as root, bubblewrap installed).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from machine import busy_cpu_seconds  # benchmarks/machine.py, beside this script

from podium.core.execution.sandbox import RunRequest, RunStatus, open_sandbox
from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox, _host_layout, bwrap_args

SOLVER = b"for i in range(200): print(i)\n"
ARGV = ("python3", "-s", "-S", "-P", "-B", "solver.py")
ENV = {"PYTHONHASHSEED": "0", "PYTHONINTMAXSTRDIGITS": "0"}
REQUEST = RunRequest(ARGV, {"solver.py": SOLVER}, env=ENV)
EXPECTED = b"".join(b"%d\n" % i for i in range(200))


def bare(folder: Path) -> Callable[[], None]:
    def run() -> None:
        done = subprocess.run(ARGV, cwd=folder, env={"PATH": "/usr/bin", **ENV}, capture_output=True, check=True)
        assert done.stdout == EXPECTED

    return run


def bwrap_alone(folder: Path) -> Callable[[], None]:
    argv = ["bwrap", *bwrap_args(_host_layout(), folder, RunRequest(ARGV, {})), "--", *ARGV]

    def run() -> None:
        done = subprocess.run(argv, env={"PATH": "/usr/bin", **ENV}, capture_output=True, check=True)
        assert done.stdout == EXPECTED

    return run


def sandboxed(sandbox: object) -> Callable[[], None]:
    def run() -> None:
        result = sandbox.run(REQUEST)  # type: ignore[attr-defined]
        assert result.status is RunStatus.OK and result.stdout == EXPECTED, result

    return run


def timed_rounds(rows: dict[str, Callable[[], None]], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(runs):
        for name, run in rows.items():
            started = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - started) * 1000)
    return times


def throughput(run: Callable[[], None], runs: int, workers: int = 4) -> tuple[float, float]:
    """Runs per second through a pool of ``workers`` threads, and the machine's CPU milliseconds per run."""
    started, cpu_before = time.perf_counter(), busy_cpu_seconds()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda _: run(), range(runs)))
    return runs / (time.perf_counter() - started), (busy_cpu_seconds() - cpu_before) / runs * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--pool-runs", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    with_cgroup = open_sandbox("bubblewrap")
    assert isinstance(with_cgroup, BubblewrapSandbox)
    print(f"cgroups: {with_cgroup.cgroups}")
    medians: dict[str, list[float]] = {}
    rates: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "solver.py").write_bytes(SOLVER)
        folder.chmod(0o755)
        rows = {
            "bare": bare(folder),
            "bwrap alone": bwrap_alone(folder),
            "bubblewrap, no cgroup": sandboxed(BubblewrapSandbox(cgroups=False)),
            "bubblewrap + cgroup": sandboxed(with_cgroup),
            "rlimits": sandboxed(open_sandbox("rlimits", allow_weaker=True)),
        }
        for repeat in range(args.repeats):
            times = timed_rounds(rows, args.runs)
            for name, values in times.items():
                medians.setdefault(name, []).append(statistics.median(values))
            floor_rate, floor_cpu_ms = throughput(rows["bare"], args.pool_runs)
            rate, cpu_ms = throughput(rows["bubblewrap + cgroup"], args.pool_runs)
            rates.append(rate)
            print(f"repeat {repeat + 1}: " + ", ".join(f"{n} {statistics.median(v):.1f}" for n, v in times.items()))
            print(f"  pool of 4: {rate:.0f} runs/s, {cpu_ms:.1f} ms of the machine's CPU per run")
            print(f"  pool of 4, bare: {floor_rate:.0f} runs/s, {floor_cpu_ms:.1f} ms of the machine's CPU per run")

    floor = statistics.median(medians["bare"])
    print("\n| run | median ms (range of medians) | p90 ms (last repeat) | overhead over bare ms |")
    print("|---|---:|---:|---:|")
    for name, values in medians.items():
        p90 = statistics.quantiles(times[name], n=10)[-1]
        median = statistics.median(values)
        print(f"| {name} | {median:.1f} ({min(values):.1f}–{max(values):.1f}) | {p90:.1f} | {median - floor:+.1f} |")
    print(f"\nthread pool of 4, bubblewrap + cgroup: {statistics.median(rates):.0f} runs/s (repeats {rates})")


if __name__ == "__main__":
    main()
