"""2023 prompts (the judge sends them itself: no program, no sandbox) and 2025's opt-in master seed, against the
loopback server through the real command."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from podium.tracks.pcg.editions import trial_seed
from tests.conftest import required
from tests.tracks.pcg.chat_server import reply_text, serve_chat

REPO = Path(__file__).resolve().parents[4]
PCG_TESTS = REPO / "tests" / "tracks" / "pcg"  # the pcg tests' programs, submissions and bridge
ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}
PODIUM = [sys.executable, "-m", "podium", "pcg", "generate"]


def test_a_2023_prompt_is_one_user_message_with_the_letter_in_double_quotes(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Draw <OBJECT> with ab_drop; <OBJECT> must stand.\n", encoding="utf-8")
    with serve_chat() as server:
        argv = [*PODIUM, str(tmp_path / "run"), "--team", "v1", "--prompt", str(prompt), "--edition", "2023"]
        argv += ["--base-url", server.base_url, "--trials", "2", "--characters", "I,L"]
        subprocess.run(argv, env=ENV, check=True, timeout=60, capture_output=True)
        requests = list(server.requests)
    messages = [{"role": "user", "content": 'Draw "I" with ab_drop; "I" must stand.\n'}]
    assert requests[0] == {"model": "gpt-3.5-turbo", "messages": messages}  # nothing else is sent
    assert len(requests) == 4
    written = (tmp_path / "run" / "v1" / "raw" / "I" / "v1_I_2.txt").read_bytes()
    assert written == reply_text(messages, 0).encode()


def test_the_master_seed_gives_every_trial_its_documented_seed(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None and not required("PODIUM_REQUIRE_SANDBOX", "PODIUM_REQUIRE_ORACLE"):
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap; `make test` does it)")
    assert trial_seed(6280, "A", 1) == trial_seed(6280, "A", 1) != trial_seed(6280, "A", 2)
    assert trial_seed(6280, "A", 1) == int.from_bytes(hashlib.sha256(b"6280/A/1").digest()[:4]) & (2**31 - 1)
    program = PCG_TESTS / "programs" / "llms4pcg_multi_turn.py"
    with serve_chat() as server:
        argv = [*PODIUM, str(tmp_path), "--team", "t", "--program", str(program), "--model", "openai:m"]
        argv += ["--base-url", server.base_url, "--trials", "2", "--characters", "A", "--master-seed", "6280"]
        subprocess.run(argv, env=ENV, check=True, timeout=60, capture_output=True)
        seeds = [body["seed"] for body in server.requests]
    # two calls per trial, both with the trial's seed
    assert seeds == [trial_seed(6280, "A", 1)] * 2 + [trial_seed(6280, "A", 2)] * 2
