"""``podium pcg generate`` killed with SIGKILL midway, then run again: only the missing trials are asked for, and the
files end exactly as an uninterrupted run's (none duplicated, none truncated). A real process, a real kill."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import required
from tests.tracks.pcg.chat_server import ChatServer, serve_chat

REPO = Path(__file__).resolve().parents[4]
PCG_TESTS = REPO / "tests" / "tracks" / "pcg"  # the pcg tests' programs, submissions and bridge
PROGRAM = PCG_TESTS / "programs" / "llms4pcg_multi_turn.py"
CHARACTERS = "A,B,D,E,F,G"
TRIALS = 3


def command(root: Path, server: ChatServer) -> list[str]:
    argv = [sys.executable, "-m", "podium", "pcg", "generate", str(root), "--team", "team_x"]
    argv += ["--program", str(PROGRAM), "--model", "openai:m", "--base-url", server.base_url]
    return argv + ["--trials", str(TRIALS), "--characters", CHARACTERS]


ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}


def files(root: Path) -> dict[str, bytes]:
    raw = root / "team_x" / "raw"
    return {str(p.relative_to(raw)): p.read_bytes() for p in sorted(raw.rglob("*")) if p.is_file()}


def trials_asked(server: ChatServer, since: int = 0) -> set[tuple[str, str]]:
    """(letter, trial) of every request from ``since`` on, read from the program's own messages."""
    asked = set()
    for body in server.requests[since:]:
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        asked.add((user.split("letter ")[1][0], system.split("trial ")[1].split(",")[0]))
    return asked


def test_a_killed_run_resumes_with_only_the_missing_trials(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None and not required("PODIUM_REQUIRE_SANDBOX", "PODIUM_REQUIRE_ORACLE"):
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap; `make test` does it)")
    with serve_chat() as server:
        subprocess.run(command(tmp_path / "whole", server), env=ENV, check=True, timeout=120, capture_output=True)
        whole = files(tmp_path / "whole")
        assert len(whole) == 6 * TRIALS

        server.delay_s = 0.1
        root = tmp_path / "killed"
        process = subprocess.Popen(command(root, server), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while (not (root / "team_x").exists() or len(files(root)) < 5) and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        before = files(root)
        assert 5 <= len(before) < len(whole)
        assert all(whole[name] == data for name, data in before.items())  # nothing half-written

        server.delay_s = 0.0
        since = len(server.requests)
        subprocess.run(command(root, server), env=ENV, check=True, timeout=120, capture_output=True)
        asked_again = trials_asked(server, since)

    def trial(name: str) -> tuple[str, str]:
        return name[0], name.rsplit("_", 1)[1].removesuffix(".txt")

    assert asked_again == {trial(name) for name in whole} - {trial(name) for name in before}
    assert files(root) == whole
    leftovers = [p.name for p in (root / "team_x").rglob("*") if p.is_file() and not p.name.endswith(".txt")]
    assert all(name.startswith(".") for name in leftovers)  # at most a hidden temporary file of the killed write
