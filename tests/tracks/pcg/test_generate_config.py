"""The competition-wide form: a TOML file of teams and 2025's models, run in parallel into one official root per
model, which ``podium pcg evaluate`` then scores as a three-model root. Real sandbox, real loopback server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from podium.core.errors import ConfigError
from podium.tracks.pcg.generation.config import load_config
from tests.conftest import required
from tests.tracks.pcg.chat_server import serve_chat

REPO = Path(__file__).resolve().parents[3]
PROGRAM = Path(__file__).parent / "programs" / "llms4pcg_multi_turn.py"
MODELS = ("qwen2.5:32b-instruct-fp16", "gemma2:27b-instruct-fp16", "phi3:14b-medium-128k-instruct-fp16")


def write_config(folder: Path, base_url: str) -> Path:
    shutil.copy(PROGRAM, folder / "team_a.py")
    shutil.copy(PROGRAM, folder / "team_b.py")
    models = "".join(f'[[models]]\nspec = "openai:{m}"\nbase_url = "{base_url}"\n\n' for m in MODELS)
    teams = '[[teams]]\nname = "team_a"\nprogram = "team_a.py"\n\n[[teams]]\nname = "team_b"\nprogram = "team_b.py"\n'
    config = folder / "generate.toml"
    config.write_text(f'version = 1\nedition = 2025\ntrials = 2\ncharacters = "A,B"\n\n{models}{teams}')
    return config


def test_every_team_under_every_model_then_evaluate(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None and not required("PODIUM_REQUIRE_SANDBOX", "PODIUM_REQUIRE_ORACLE"):
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap; `make test` does it)")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    root = tmp_path / "run"
    with serve_chat() as server:
        config = write_config(tmp_path, server.base_url)
        podium = [sys.executable, "-m", "podium", "pcg"]
        subprocess.run([*podium, "generate", str(root), "--config", str(config)], env=env, check=True, timeout=300)
        assert {body["model"] for body in server.requests} == set(MODELS)
        assert len(server.requests) == 3 * 2 * 2 * 2 * 2  # models x teams x letters x trials x two turns
    for model in MODELS:
        folder = root / model.replace(":", "_")
        for team in ("team_a", "team_b"):
            assert len(list((folder / team / "raw").rglob("*.txt"))) == 4
        assert len(list((folder / "logs").glob("*_raw_*_.log"))) == 2
    evaluated = subprocess.run(
        [*podium, "evaluate", str(root), "--edition", "2025"], env=env, timeout=600, capture_output=True, text=True
    )
    assert evaluated.returncode == 0, evaluated.stderr[-2000:]
    scores = (root / "result" / "model_scores.csv").read_text()
    assert all(model.replace(":", "_") in scores for model in MODELS) and "team_a" in scores and "team_b" in scores


def test_a_config_names_its_fields_and_keeps_2025_folders_apart(tmp_path: Path) -> None:
    config = write_config(tmp_path, "http://127.0.0.1:1/v1")
    loaded = load_config(config)
    assert [m.folder for m in loaded.models] == [m.replace(":", "_") for m in MODELS]
    assert [t.program for t in loaded.teams] == [tmp_path / "team_a.py", tmp_path / "team_b.py"]
    config.write_text(config.read_text().replace("version = 1", "version = 1\napi_key = 'sk-secret'"))
    with pytest.raises(ConfigError, match="api_key"):
        load_config(config)
