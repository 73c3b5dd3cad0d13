"""What each piece of a run's isolation costs on its own, serial: the session keyring, the spawning thread, the
system-call filter in bubblewrap, and the judge's box copy of a solver.

Rows: ``keyctl(JOIN_SESSION_KEYRING)`` and a no-op handed to a slot's spawner thread (2,000 calls each, wall and
the judge's CPU per call); ``box_copy`` and, for scale, ``screen`` of a one-line solver and of the 701-byte base-91
table (300 calls each); then ``bwrap`` with the sandbox's options around a 200-line solver, without and with
``--seccomp`` (``--runs`` interleaved pairs, default 150, median wall time).

Run: ``.venv/bin/python benchmarks/bench_isolation_pieces.py [--runs N]`` (as root, bubblewrap installed).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from podium.core.execution.sandbox import RunRequest
from podium.core.execution.sandbox.bubblewrap import _host_layout, bwrap_args
from podium.core.execution.sandbox.seccomp import filter_program
from podium.core.execution.sandbox.spawn import Spawner, join_fresh_session_keyring
from podium.tracks.dojo.box_source import box_copy
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.screen import screen

GOLF = "n=0#1\nwhile 1:print(n*n);n+=1\n"
TABLE = Path(__file__).parents[1] / "tests" / "tracks" / "dojo" / "payload" / "base91_table.py"


def judge_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def per_call(call: Callable[[], object], calls: int) -> str:
    wall, cpu = time.perf_counter(), judge_cpu_s()
    for _ in range(calls):
        call()
    return f"{(time.perf_counter() - wall) / calls * 1e6:.0f} µs wall, {(judge_cpu_s() - cpu) / calls * 1e6:.0f} µs CPU"


def bwrap_pair(folder: Path, runs: int) -> tuple[float, float]:
    base = ["bwrap", *bwrap_args(_host_layout(), folder, RunRequest(("true",), {}))]
    program = ["--", "python3", "-S", "solver.py"]
    plain, filtered = [], []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([*base, *program], capture_output=True, check=True)
        plain.append(time.perf_counter() - started)
        read, write = os.pipe()
        os.write(write, filter_program())
        os.close(write)
        started = time.perf_counter()
        subprocess.run([*base, "--seccomp", str(read), *program], capture_output=True, check=True, pass_fds=(read,))
        filtered.append(time.perf_counter() - started)
        os.close(read)
    return statistics.median(plain) * 1000, statistics.median(filtered) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=150)
    args = parser.parse_args()
    print(f"join a fresh session keyring: {per_call(join_fresh_session_keyring, 2000)}")
    spawner = Spawner("bench")
    print(f"hand a no-op to a slot's spawner thread: {per_call(lambda: spawner.start(lambda: None), 2000)}")
    table = TABLE.read_text()
    for name, source in (("one-line solver", GOLF), ("701-byte table", table)):
        print(f"box_copy, {name}: {per_call(lambda: box_copy(source), 300)}")  # noqa: B023
        print(f"screen, {name}: {per_call(lambda: screen(source, ScoringRules()), 300)}")  # noqa: B023
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "solver.py").write_text("for i in range(200): print(i)\n")
        os.chmod(folder, 0o755)
        plain, filtered = bwrap_pair(Path(folder), args.runs)
    print(f"bwrap alone {plain:.2f} ms, with --seccomp {filtered:.2f} ms (medians of {args.runs} interleaved pairs)")


if __name__ == "__main__":
    main()
