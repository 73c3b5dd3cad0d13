"""Benchmark of the command line's start-up: ``podium --help``, ``podium dojo --help`` and a real ``podium dojo
submit``, and what ``podium --help`` imports.

Each command runs ``--runs`` times (default 20) as a fresh process (``python -m podium``), interleaved so load on
a shared machine falls on all alike; the table gives the median and range of the wall times. The submissions go
to an SQLite database made first (a setter, a solver, an open problem; not timed): each run stores one more,
straight into the database (``--db``) or through ``podium serve`` on loopback (``--server``, as contestants do).
Then one ``python -X importtime`` run of ``podium --help`` lists the slowest imports and checks that no track's
heavy dependency (NumPy, SQLAlchemy, Pillow, Box2D, FastAPI, torch) is among them. Targets: ``podium --help``
median under 0.2 s (issue 13); ``podium dojo submit`` well under 0.5 s (issue 17).

Run: ``.venv/bin/python benchmarks/bench_cli_startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from machine import cpu_model

COMMANDS = {"podium --help": ["--help"], "podium dojo --help": ["dojo", "--help"]}
HEAVY = ("numpy", "sqlalchemy", "PIL", "Box2D", "fastapi", "torch")


SETTER = "a, b = 0, 1\nfor _ in range(250):\n    print(a)\n    a, b = b, a + b\n"


def podium(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "podium", *args], check=True, capture_output=True, text=True).stdout


def wall_s(args: list[str]) -> float:
    start = time.perf_counter()
    podium(*args)
    return time.perf_counter() - start


def submit_command(folder: Path) -> list[str]:
    """A database with an open problem and a solver; the arguments of one submission to it."""
    os.environ["PODIUM_DB"] = f"sqlite:///{folder / 'dojo.sqlite3'}"
    (folder / "fib").mkdir()
    (folder / "fib" / "setter.py").write_text(SETTER)
    (folder / "solver.py").write_text("a,b=0,1\nfor _ in range(200):print(a);a,b=b,a+b\n")
    podium("dojo", "init")
    podium("dojo", "user", "add", "sam", "--role", "setter")
    token = podium("dojo", "user", "add", "ann", "--role", "solver").split()[-1]
    podium("dojo", "season", "create", "s1")
    podium("dojo", "problem", "add", str(folder / "fib"), "--season", "s1", "--setter", "sam")
    podium("dojo", "validate", "fib")
    podium("dojo", "open", "fib")
    return ["dojo", "submit", str(folder / "solver.py"), "--problem", "fib", "--token", token]


@contextmanager
def serving() -> Iterator[str]:
    """``podium serve`` on the benchmark's database (PODIUM_DB), on a free loopback port, until the block ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "podium", "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        submit = submit_command(Path(folder))
        with serving() as url:
            commands = COMMANDS | {
                "podium dojo submit --db (SQLite)": submit,
                "podium dojo submit --server (podium serve on loopback)": [*submit, "--server", url],
            }
            times: dict[str, list[float]] = {name: [] for name in commands}
            for _ in range(runs):
                for name, args in commands.items():
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
