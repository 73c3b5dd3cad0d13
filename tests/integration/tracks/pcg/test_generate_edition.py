"""A 2024 entry run without ``--edition`` follows 2024's rules, because it imports ``chatgpt4pcg``.

Before, it ran under the default (2025) silently: no seed where 2024 sends 42, 500 s instead of 120 s. Now the
package decides, on one team and under ``--config``; the log's first line, ``plan.json`` and the console name the
edition, the model and the server; an edition given against the package stops the command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.integration.tracks.pcg.test_generate_oracle import PROGRAMS
from tests.tracks.pcg.chat_server import serve_chat

ENTRY_2024 = PROGRAMS / "chatgpt4pcg_zero_shot.py"


def podium(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "podium", *args], capture_output=True, text=True, timeout=120,
                          check=False)  # fmt: skip


def test_a_2024_entry_without_edition_runs_under_2024_and_says_so(tmp_path: Path) -> None:
    with serve_chat() as server:
        done = podium("pcg", "generate", str(tmp_path / "run"), "--team", "cot", "--program", str(ENTRY_2024),
                      "--model", "openai:gpt-3.5-turbo-0125", "--base-url", server.base_url, "--characters", "A,B",
                      "--trials", "2")  # fmt: skip
        sent = list(server.requests)
    assert done.returncode == 0, done.stderr
    assert {body.get("seed") for body in sent} == {42}  # 2024's seed, which a run under 2025 would not send
    made_with = (
        f"edition 2024 (the program imports chatgpt4pcg); model openai:gpt-3.5-turbo-0125; server {server.base_url}"
    )
    assert f"podium: {made_with}" in done.stderr
    (log,) = (tmp_path / "run" / "logs").glob("cot_raw_*.log")
    assert log.read_text().splitlines()[0].endswith(f"podium: {made_with}")
    (plan,) = (tmp_path / "run" / "logs").glob("cot_raw_*.plan.json")
    assert json.loads(plan.read_text())["edition"] == "2024"

    against = podium("pcg", "generate", str(tmp_path / "again"), "--team", "cot", "--program", str(ENTRY_2024),
                     "--edition", "2025", "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1")  # fmt: skip
    assert against.returncode != 0
    assert "--edition 2025 was given, but the program imports chatgpt4pcg, 2024's package" in against.stderr


def test_a_config_without_edition_takes_its_teams_package(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    with serve_chat() as server:
        model = f'[[models]]\nspec = "openai:gpt-3.5-turbo-0125"\nbase_url = "{server.base_url}"\n'
        config.write_text(f'version = 1\ntrials = 1\ncharacters = "A"\n{model}[[teams]]\nname = "cot"\n'
                          f'program = "{ENTRY_2024}"\n')  # fmt: skip
        done = podium("pcg", "generate", str(tmp_path / "run"), "--config", str(config))
        sent = list(server.requests)
    assert done.returncode == 0, done.stderr
    assert "podium: edition 2024 (the program imports chatgpt4pcg)" in done.stderr
    assert {body.get("seed") for body in sent} == {42}
