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

REPO = Path(__file__).resolve().parents[4]
PCG_TESTS = REPO / "tests" / "tracks" / "pcg"  # the pcg tests' programs, submissions and bridge
PROGRAM = PCG_TESTS / "programs" / "llms4pcg_multi_turn.py"
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


def test_a_team_names_its_entry_workdir_and_requirements_and_the_run_its_wheelhouses(tmp_path: Path) -> None:
    (tmp_path / "wheels").mkdir()
    (tmp_path / "subs" / "thoughtful").mkdir(parents=True)
    config = tmp_path / "generate.toml"
    config.write_text(
        'version = 1\nedition = 2024\nfind_links = ["wheels"]\nno_index = true\n\n'
        '[[teams]]\nname = "thoughtful"\nprogram = "subs/thoughtful"\nentry = "tot/tot.py"\nworkdir = "tot"\n'
        'requirements = ["numpy==1.26.4", "python-dotenv~=1.0.0"]\n\n'
        '[[teams]]\nname = "plain"\nprogram = "plain.py"\n'
    )
    loaded = load_config(config)
    thoughtful, plain = loaded.teams
    assert (thoughtful.program, thoughtful.entry, thoughtful.workdir) == (
        tmp_path / "subs/thoughtful",
        "tot/tot.py",
        "tot",
    )
    assert thoughtful.requirements == ("numpy==1.26.4", "python-dotenv~=1.0.0")
    assert (plain.entry, plain.workdir, plain.requirements) == (None, None, ())
    assert loaded.install.find_links == ((tmp_path / "wheels").resolve(),) and loaded.install.no_index
    team_line, run_line = 'name = "plain"', 'find_links = ["wheels"]'
    for old, new, message in [
        (team_line, f'{team_line}\nrequirements = "numpy"', "requirements a list of strings"),
        (team_line, f"{team_line}\nentry = 3", "entry and workdir are paths"),
        (team_line, f'{team_line}\nfolder = "x"', "may have entry, name, program, prompt, requirements, workdir"),
        (run_line, 'find_links = ["nowhere"]', "find_links folder"),
    ]:
        (tmp_path / "bad.toml").write_text(config.read_text().replace(old, new))
        with pytest.raises(ConfigError, match=message):
            load_config(tmp_path / "bad.toml")


def test_a_submission_that_cannot_be_read_fails_only_its_team(tmp_path: Path) -> None:
    from podium.tracks.pcg.generation.competition import submission_of
    from podium.tracks.pcg.generation.config import TeamEntry

    (tmp_path / "two").mkdir()
    for name in ("a.py", "b.py"):  # two TrialLoop modules: which one is the program?
        (tmp_path / "two" / name).write_text(
            "from llms4pcg.models.trial_loop import TrialLoop\nclass L(TrialLoop): pass\n"
        )
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 truncated")
    two = submission_of(TeamEntry("two", tmp_path / "two", None))
    assert two.program is None and two.unusable is not None and "cannot tell which file" in two.unusable
    assert "fix: name it with --entry" in two.unusable
    zipped = submission_of(TeamEntry("zipped", broken, None))
    assert zipped.unusable is not None and "broken.zip" in zipped.unusable
