"""Submissions shaped like the real 2024 and 2025 ones, run unchanged by podium and by the official package.

The fixtures under ``submissions/`` are ours (no real entry is copied): a package of several modules with an
``__init__.py`` on top and a bundled sub-package, a CRLF ``requirements.txt`` pinning the official package and a
dependency; two architectures in one archive, the entry in a sub-folder reading ``prompts/*.txt``, ``level_db/``
and ``tot/prompts/task.txt`` relative to the top, its dependency named only in the README; a program that writes
its own files and reads them back in later trials; and a script that calls the OpenAI client itself. The
dependency, ``pcg-prompt-kit``, is a wheel made at test time (``wheelhouse.py``) and installed offline.

Each TrialLoop submission runs under the official package (its oracle venv, ``python ENTRY`` from a copy of the
submission's top folder, as an organiser runs it) and under ``podium pcg generate``; the raw files must be
byte-identical, the requests equal and in order, the logs the same, the files the program wrote the same, and the
submission untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.tracks.pcg.test_generate_oracle import (
    CHARACTERS,
    MODEL_2025,
    PACKAGES,
    PCG_TESTS,
    REPO,
    _oracle,
    log_lines,
    raw_files,
)
from tests.tracks.pcg.chat_server import ChatServer, serve_chat
from tests.tracks.pcg.wheelhouse import REQUIREMENT, make_wheelhouse, unpacked

SUBMISSIONS = PCG_TESTS / "submissions"
TRIALS = 2


@dataclass(frozen=True)
class Case:
    edition: int
    loop: str
    entry: str | None = None  # None: podium finds it
    requirements: tuple[str, ...] = ()  # what the README says, given with --requirement


CASES = {
    "package_2024": Case(2024, "GraphOfStrokes"),
    "architectures_2025": Case(2025, "ToT", "tot/tot.py", (REQUIREMENT,)),
    "writer_2024": Case(2024, "Notebook"),
}

OFFICIAL = """
import importlib, importlib.util, os, sys
entry, loop, team, package, characters, trials, model, url = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(entry))  # as `python ENTRY` sets it
spec = importlib.util.spec_from_file_location(os.path.basename(entry)[:-3], entry)
program = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = program
spec.loader.exec_module(program)
competition = importlib.import_module(package + ".competition")
extra = {"model_name": model, "local_model_base_url": url} if package == "llms4pcg" else {}
letters = characters.split(",")
competition.run_evaluation(team, getattr(program, loop), num_trials=int(trials), characters=letters, **extra)
"""


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def pip_env() -> dict[str, str]:
    """The test's own pip settings only: the wheelhouse, no machine-wide configuration or index."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull}


def run_official(case: Case, name: str, copy: Path, server: ChatServer, dependency: Path) -> None:
    shutil.copytree(SUBMISSIONS / name, copy)
    entry = case.entry or {"package_2024": "main.py", "writer_2024": "notebook.py"}[name]
    env = {"PATH": os.environ["PATH"], "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url,
           "PYTHONPATH": str(dependency)}  # fmt: skip
    argv = [str(_oracle(case.edition)), "-c", OFFICIAL, entry, case.loop, "team_x", PACKAGES[case.edition]]
    argv += [",".join(CHARACTERS), str(TRIALS), MODEL_2025, server.base_url]
    subprocess.run(argv, cwd=copy, env=env, check=True, timeout=120)


def podium_argv(case: Case, program: Path, root: Path, server: ChatServer, wheels: Path) -> list[str]:
    model = f"openai:{MODEL_2025}" if case.edition == 2025 else "openai:gpt-3.5-turbo-0125"
    argv = [sys.executable, "-m", "podium", "pcg", "generate", str(root), "--team", "team_x", "--program", str(program)]
    argv += ["--model", model, "--base-url", server.base_url, "--edition", str(case.edition)]
    argv += ["--trials", str(TRIALS), "--characters", ",".join(CHARACTERS), "--find-links", str(wheels), "--no-index"]
    argv += [*(["--entry", case.entry] if case.entry else []), *(f"--requirement={r}" for r in case.requirements)]
    return argv


def run_podium(argv: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**pip_env(), "PYTHONPATH": str(REPO / "src")}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(argv, env=env, check=check, timeout=300, capture_output=True, text=True)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))


@pytest.fixture(scope="module")
def dependency(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return unpacked(tmp_path_factory.mktemp("dependency"))


def written_by_program(before: dict[str, bytes], after: dict[str, bytes]) -> dict[str, bytes]:
    """Files the official run's program added or changed in its folder (not the package's own output)."""
    return {
        path: data
        for path, data in after.items()
        if before.get(path) != data and not path.startswith(("team_x/", "logs/")) and "__pycache__" not in path
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_submission_runs_unchanged_with_what_the_official_package_makes_of_it(
    name: str, tmp_path: Path, wheels: Path, dependency: Path
) -> None:
    case = CASES[name]
    _oracle(case.edition)
    original = snapshot(SUBMISSIONS / name)
    with serve_chat() as server:
        run_official(case, name, tmp_path / "official", server, dependency)
        official_requests = list(server.requests)
        server.requests.clear()
        run_podium(podium_argv(case, SUBMISSIONS / name, tmp_path / "podium", server, wheels))
        podium_requests = list(server.requests)

    assert podium_requests == official_requests and len(podium_requests) >= len(CHARACTERS) * TRIALS
    official_raw, podium_raw = raw_files(tmp_path / "official"), raw_files(tmp_path / "podium")
    assert podium_raw == official_raw and len(podium_raw) == len(CHARACTERS) * TRIALS
    assert log_lines(tmp_path / "podium") == log_lines(tmp_path / "official")
    made_with, environment = log_lines(tmp_path / "podium", podiums_own=True)[:2]  # what it ran with, then where
    assert made_with.startswith("podium: edition ") and "installed pcg-prompt-kit==0.1.0" in environment
    # what the program wrote in its folder: in the official run, the submission's own folder; under podium, its
    # private copy, kept beside the log
    official_written = written_by_program(original, snapshot(tmp_path / "official"))
    kept = list((tmp_path / "podium" / "logs").glob("team_x_raw_*.files"))
    assert (snapshot(kept[0]) if kept else {}) == official_written
    assert snapshot(SUBMISSIONS / name) == original  # the submission itself is never written
    (record,) = (tmp_path / "podium" / "logs").glob("team_x_raw_*.environment.json")
    facts = json.loads(record.read_text())
    assert facts["loop"] == case.loop and facts["environment"]["installed"] == ["pcg-prompt-kit==0.1.0"]
    if name == "writer_2024":
        assert sorted(official_written) == ["results/config.json", "results/history.txt"]
        assert official_written["results/history.txt"].count(b"\n") == len(CHARACTERS) * TRIALS


def make_zip(folder: Path, archive: Path) -> Path:
    """The folder zipped as a contestant's desktop zips it: one top folder, and a Mac's litter."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as written:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                written.write(path, f"{folder.name}/{path.relative_to(folder)}")
        written.writestr(f"__MACOSX/{folder.name}/tot/._tot.py", b"\x00\x05\x16\x07")
        written.writestr(f"{folder.name}/.DS_Store", b"\x00\x00\x00\x01Bud1")
    return archive


def test_a_zip_and_its_folder_give_identical_raw_files_and_requests(tmp_path: Path, wheels: Path) -> None:
    case = CASES["architectures_2025"]
    archive = make_zip(SUBMISSIONS / "architectures_2025", tmp_path / "thoughtful.zip")
    before = archive.read_bytes()
    with serve_chat() as server:
        run_podium(podium_argv(case, SUBMISSIONS / "architectures_2025", tmp_path / "folder", server, wheels))
        from_folder = list(server.requests)
        server.requests.clear()
        run_podium(podium_argv(case, archive, tmp_path / "zip", server, wheels))
        from_zip = list(server.requests)
    assert from_zip == from_folder
    assert raw_files(tmp_path / "zip") == raw_files(tmp_path / "folder") != {}
    assert archive.read_bytes() == before
    (record,) = (tmp_path / "zip" / "logs").glob("team_x_raw_*.environment.json")
    facts = json.loads(record.read_text())
    assert facts["left_out"] == ["__MACOSX/architectures_2025/tot/._tot.py", "architectures_2025/.DS_Store"]


def test_two_candidate_entries_are_refused_with_both_named(tmp_path: Path, wheels: Path) -> None:
    case = Case(2025, "ToT", None, (REQUIREMENT,))
    with serve_chat() as server:
        done = run_podium(podium_argv(case, SUBMISSIONS / "architectures_2025", tmp_path, server, wheels), check=False)
        assert server.requests == []
    assert done.returncode == 2, done.stderr
    assert "cannot tell which file is the program" in done.stderr
    assert "tot/tot.py: calls run_evaluation(ToT); defines ToT" in done.stderr
    assert "few_shot/few_shot.py: calls run_evaluation(FewShot); defines FewShot" in done.stderr
    assert "--entry" in done.stderr


def test_a_script_that_calls_the_model_itself_is_refused(tmp_path: Path, wheels: Path) -> None:
    case = Case(2025, "")
    with serve_chat() as server:
        done = run_podium(podium_argv(case, SUBMISSIONS / "direct_client_2025", tmp_path, server, wheels), check=False)
        assert server.requests == []
    assert done.returncode == 2, done.stderr
    assert "no module calls run_evaluation or defines a TrialLoop subclass (looked at 3 Python files)" in done.stderr
    assert "official package's TrialLoop" in done.stderr
    assert "(none)" not in done.stderr and "--entry" not in done.stderr  # nothing to choose: no advice to choose


def test_a_requirement_that_does_not_exist_fails_only_its_team(tmp_path: Path, wheels: Path) -> None:
    config = tmp_path / "generate.toml"
    config.write_text(
        f"""
version = 1
edition = 2024
trials = {TRIALS}
characters = "A,B"
find_links = ["{wheels}"]
no_index = true

[[models]]
spec = "openai:gpt-3.5-turbo-0125"
base_url = "{{url}}"

[[teams]]
name = "graph_team"
program = "{SUBMISSIONS / "package_2024"}"

[[teams]]
name = "notebook"
program = "{SUBMISSIONS / "writer_2024"}"
requirements = ["no-such-package-podium==9.9"]
"""
    )
    with serve_chat() as server:
        config.write_text(config.read_text().replace("{url}", server.base_url))
        argv = [sys.executable, "-m", "podium", "pcg", "generate", str(tmp_path / "run"), "--config", str(config)]
        env = {**pip_env(), "PYTHONPATH": str(REPO / "src"), "OPENAI_API_KEY": "k"}
        done = subprocess.run([*argv, "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    runs = {run["team"]: run for run in json.loads(done.stdout)}
    assert runs["graph_team"]["counts"] == {"ok": 2 * TRIALS}
    assert runs["notebook"]["counts"] == {"program_rejected": 2 * TRIALS}
    reason = runs["notebook"]["trials"][0]["reason"]
    assert "requirement no-such-package-podium==9.9 cannot be installed" in reason
    assert "--find-links" in reason and "wheels only" in reason
    assert len(list((tmp_path / "run" / "graph_team" / "raw").rglob("*.txt"))) == 2 * TRIALS
    assert not any((tmp_path / "run" / "notebook").rglob("*.txt"))
