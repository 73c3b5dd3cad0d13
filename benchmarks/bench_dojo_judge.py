"""Benchmark: judged Sequence Dojo submissions per second on this machine (target: at least 50/s on 2 cores).

A season with one open problem (squares) on a fresh SQLite database; ``--submissions`` (default 500) trivial
solvers (a one-line endless generator, each a different source) are queued through the platform, then judged by
``--threads`` worker threads in this process with the real sandbox (``--sandbox``, default ``auto``: the
fork-server where podium runs as root, else bubblewrap) (``work_in_threads``: claim from
the database, admit, screen, run, gate, record with its audit entry). Reported: wall time from the first claim to
the last record, and submissions per second, median of ``--repeats`` runs (min-max); per run, the CPU one
judgment cost the whole machine (``/proc/stat``: the sandboxed programs and the kernel's work included).

Run: ``.venv/bin/python benchmarks/bench_dojo_judge.py [--submissions N] [--threads T] [--repeats R] [--sandbox B]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from machine import busy_cpu_seconds, cpu_model  # benchmarks/machine.py, beside this script

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import open_sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.store import open_store
from podium.tracks.dojo.worker import work_in_threads


def one_run(submissions: int, threads: int, backend: str = "auto") -> float:
    sandbox = open_sandbox(backend)
    with tempfile.TemporaryDirectory() as folder:
        dojo = Dojo(open_store(sqlite_url(Path(folder) / "bench.sqlite3")), SystemClock(), lambda: sandbox)
        dojo.add_user("sam", Role.SETTER)
        dojo.create_season("bench")
        setter = b"n=0\nwhile 1:print(n*n);n+=1\n"
        dojo.add_problem("bench", "squares", "sam", ProblemFiles(Path("."), setter, "Squares", "", 0, 10))
        assert dojo.validate("squares").accepted
        dojo.open("squares")
        per_solver = ScoringRules().max_submissions_per_window  # the rate limit holds per solver
        solvers = [dojo.add_user(f"sol{n}", Role.SOLVER)[0] for n in range(-(-submissions // per_solver))]
        for i in range(submissions):
            dojo.submit(solvers[i // per_solver], "squares", f"n=0#{i}\nwhile 1:print(n*n);n+=1\n".encode())
        started, cpu_before = time.perf_counter(), busy_cpu_seconds()
        judged = work_in_threads(dojo, sandbox, threads)
        elapsed, cpu = time.perf_counter() - started, busy_cpu_seconds() - cpu_before
        assert judged == submissions
        cores = len(os.sched_getaffinity(0))
        print(
            f"  {submissions / elapsed:.1f}/s; CPU per judgment {cpu / submissions * 1000:.1f} ms (whole machine), "
            f"{cpu / elapsed / cores:.0%} of {cores} cores busy"
        )
        return submissions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=500)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sandbox", default="auto", choices=["auto", "forkserver", "bubblewrap"])
    args = parser.parse_args()
    rates = [one_run(args.submissions, args.threads, args.sandbox) for _ in range(args.repeats)]
    print(f"machine: {cpu_model()}, {len(os.sched_getaffinity(0))} CPUs")
    print(
        f"judged {args.submissions} trivial submissions with {args.threads} threads: "
        f"median {statistics.median(rates):.1f}/s (min {min(rates):.1f}, max {max(rates):.1f}, {args.repeats} runs)"
    )


if __name__ == "__main__":
    main()
