"""Benchmark: what clean-room verification costs per verified run, against judging the same submission plainly.

For each backend, ``--runs`` interleaved pairs of one Fibonacci solver judged by ``judge_submission`` (admit, box
copy, run, gates): **plain** as a worker judges it (the host gate held shared), and **clean room** as verification
judges it (``verification.verify_rows``: the host gate held alone, the page cache of every file the box can read
evicted, and as root the unused dentries and inodes dropped, then the same judging). Reported per backend: the
median (min-max) wall milliseconds of each, the eviction alone, and the files evicted.

Run: ``.venv/bin/python benchmarks/bench_dojo_verify.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from machine import cpu_model  # benchmarks/machine.py, beside this script

from podium.core.execution.sandbox import open_sandbox
from podium.core.execution.sandbox.clean_room import evict
from podium.tracks.dojo.execute import solver_view
from podium.tracks.dojo.judge import judge_submission
from podium.tracks.dojo.records import JobStatus, Submission
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.verification import verify_rows

SOLVER = b"a,b=0,1\nwhile 1:print(a);a,b=b,a+b"
RULES = ScoringRules()


def fibonacci(n: int) -> list[str]:
    terms, a, b = [], 0, 1
    for _ in range(n):
        terms.append(str(a))
        a, b = b, a + b
    return terms


def submission() -> Submission:
    return Submission(
        id=1, problem_id=1, user_id=1, source=SOLVER, solver_hash=None, length=35, method_tag="unspecified",
        notes="", created_at="2026-11-29T00:00:00Z", practice=False, status=JobStatus.JUDGED, attempts=1,
        verdict="OK", reason="", stage_pass=True, reward_correct=True, backend=None, isolated=True,
        tag_override=None, wall_time_s=0.05, cpu_time_s=0.03, peak_memory_mib=10.0,
    )  # fmt: skip


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    truth = fibonacci(RULES.n_check)
    view = solver_view()
    print(f"machine: {cpu_model()}; {args.runs} interleaved pairs per backend")
    for backend in ("forkserver", "bubblewrap"):
        sandbox = open_sandbox(backend)
        judge_submission(SOLVER, truth, sandbox, RULES)  # a warm zygote, as a running worker has
        plain, clean, eviction, files = [], [], [], 0
        for _ in range(args.runs):
            started = time.perf_counter()
            assert judge_submission(SOLVER, truth, sandbox, RULES, apply_screen=False).reward_correct
            plain.append((time.perf_counter() - started) * 1000)
            [check] = verify_rows([(submission(), "ann")], truth, RULES, sandbox, view)
            assert check.finding.value == "verified", check.reason
            clean.append(check.cost_s * 1000)
            evicted = evict(view)  # the eviction alone, measured on its own
            eviction.append(evicted.seconds * 1000)
            files = evicted.files
        print(f"{backend}: plain judging ms {summary(plain)}; clean room ms {summary(clean)}; "
              f"eviction alone ms {summary(eviction)} ({files} files)")  # fmt: skip


if __name__ == "__main__":
    main()
