"""The same unchanged program, run by the official package and by ``podium pcg generate``, against one chat server.

The official ``llms4pcg`` 2.0.1 and ``chatgpt4pcg`` 1.2.2 run in their own virtual environments under ``.oracle/``
(``scripts/install-pcg-oracles.sh``, which ``make test`` runs) as subprocesses; podium runs the program in its
sandbox. Both talk to the deterministic loopback server of ``chat_server.py``. The test asserts byte-identical raw
files, the same request bodies in the same order, and the same log lines (time stamps and elapsed times aside),
including a trial over the token limit (no file) and an empty answer (an empty file). Skipped when the oracles or
bubblewrap are missing, unless ``PODIUM_REQUIRE_ORACLE=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tracks.pcg.chat_server import ChatServer, serve_chat

REPO = Path(__file__).resolve().parents[4]
PCG_TESTS = REPO / "tests" / "tracks" / "pcg"  # the pcg tests' programs, submissions and bridge
PROGRAMS = PCG_TESTS / "programs"
ORACLES = {2024: REPO / ".oracle" / "chatgpt4pcg-1.2.2", 2025: REPO / ".oracle" / "llms4pcg-2.0.1"}
PACKAGES = {2024: "chatgpt4pcg", 2025: "llms4pcg"}
CHARACTERS = ["A", "B", "C", "D"]
TRIALS = 2
MODEL_2025 = "qwen2.5:32b-instruct-fp16"


def _oracle(edition: int) -> Path:
    python = ORACLES[edition] / "bin" / "python"
    missing = None if python.exists() else f"{python} is missing: run scripts/install-pcg-oracles.sh"
    if shutil.which("bwrap") is None:
        missing = "bubblewrap is not installed (apt-get install bubblewrap)"
    if missing:
        if os.environ.get("PODIUM_REQUIRE_ORACLE") == "1":
            pytest.fail(f"{missing} (required here: PODIUM_REQUIRE_ORACLE=1)")
        pytest.skip(missing)
    return python


OFFICIAL = """
import importlib.util, sys
path, team, package, characters, trials, model, url = sys.argv[1:]
spec = importlib.util.spec_from_file_location(path.rsplit("/", 1)[-1][:-3], path)
program = importlib.util.module_from_spec(spec)
spec.loader.exec_module(program)
competition = importlib.import_module(package + ".competition")
loop = next(v for v in vars(program).values() if isinstance(v, type) and v.__module__ == program.__name__)
extra = {"model_name": model, "local_model_base_url": url} if package == "llms4pcg" else {}
competition.run_evaluation(team, loop, num_trials=int(trials), characters=characters.split(","), **extra)
"""


def run_official(edition: int, program: Path, root: Path, server: ChatServer) -> None:
    root.mkdir()
    env = {"PATH": os.environ["PATH"], "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url}
    argv = [str(_oracle(edition)), "-c", "import importlib\n" + OFFICIAL, str(program), "team_x", PACKAGES[edition]]
    argv += [",".join(CHARACTERS), str(TRIALS), MODEL_2025, server.base_url]
    subprocess.run(argv, cwd=root, env=env, check=True, timeout=120)


def model_of(edition: int) -> str:
    return f"openai:{MODEL_2025}" if edition == 2025 else "openai:gpt-3.5-turbo-0125"


def run_podium(
    edition: int, program: Path, root: Path, server: ChatServer, *extra: str
) -> subprocess.CompletedProcess[str]:
    model = model_of(edition)
    argv = [sys.executable, "-m", "podium", "pcg", "generate", str(root), "--team", "team_x", "--program", str(program)]
    argv += ["--model", model, "--base-url", server.base_url, "--edition", str(edition)]
    argv += ["--trials", str(TRIALS), "--characters", ",".join(CHARACTERS), *extra]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(argv, env=env, check=True, timeout=120, capture_output=True, text=True)


def raw_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "team_x").rglob("*")) if p.is_file()}


def log_lines(root: Path, podiums_own: bool = False) -> list[str]:
    """The log's lines without time stamps and elapsed times; podium's own lines (``podium: ...``) only if asked."""
    (log,) = (root / "logs").glob("team_x_raw_*_.log")
    lines = [re.sub(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] ", "", line) for line in log.read_text().splitlines()]
    lines = [line for line in lines if line.startswith("podium: ") == podiums_own]
    return [re.sub(r"(Elapsed time:) \S+", r"\1 T", line) for line in lines]


@pytest.mark.parametrize(("edition", "program"), [(2025, "llms4pcg_multi_turn.py"), (2024, "chatgpt4pcg_zero_shot.py")])
def test_podium_runs_an_unchanged_program_exactly_as_the_official_package(
    edition: int, program: str, tmp_path: Path
) -> None:
    _oracle(edition)
    source = PROGRAMS / program
    with serve_chat() as server:
        run_official(edition, source, tmp_path / "official", server)
        official_requests = list(server.requests)
        server.requests.clear()
        run_podium(edition, source, tmp_path / "podium", server)
        podium_requests = list(server.requests)

    # the exact request bodies (the official client sends only what the package names), in the same order
    assert podium_requests == official_requests
    expected_keys = {"messages", "model", "temperature", "n"} | ({"seed"} if edition == 2024 else set())
    assert all(set(body) == expected_keys for body in podium_requests)
    assert all(body["temperature"] == 1 and isinstance(body["temperature"], int) for body in podium_requests)
    if edition == 2024:
        assert {body["seed"] for body in podium_requests} == {42}

    official, podium = raw_files(tmp_path / "official"), raw_files(tmp_path / "podium")
    assert podium == official
    assert "team_x/raw/C/team_x_C_1.txt" not in podium  # over the token limit: no file
    assert podium["team_x/raw/D/team_x_D_1.txt"] == b""  # an empty answer: an empty file
    assert len(podium) == (len(CHARACTERS) - 1) * TRIALS
    assert log_lines(tmp_path / "podium") == log_lines(tmp_path / "official")
    # podium adds two lines of its own: what the run was made with, and the environment the program ran in
    made_with, environment = log_lines(tmp_path / "podium", podiums_own=True)
    assert made_with.startswith(f"podium: edition {edition} (the program imports {PACKAGES[edition]}); model ")
    assert environment.split(";")[1] == " installed nothing"


def test_a_limit_the_program_catches_leaves_its_own_response_as_the_official_package_does(tmp_path: Path) -> None:
    _oracle(2024)
    source = PROGRAMS / "chatgpt4pcg_catches_limits.py"
    with serve_chat() as server:
        run_official(2024, source, tmp_path / "official", server)
        run_podium(2024, source, tmp_path / "podium", server)
        run_podium(2024, source, tmp_path / "strict", server, "--strict-limits")
    official = raw_files(tmp_path / "official")
    caught = official["team_x/raw/C/team_x_C_1.txt"].decode()
    assert "# stopped early: Prompt token limit exceeded." in caught  # the package wrote the program's own text
    assert raw_files(tmp_path / "podium") == official
    assert log_lines(tmp_path / "podium") == log_lines(tmp_path / "official")
    strict = raw_files(tmp_path / "strict")
    assert strict == {name: data for name, data in official.items() if "/C/" not in name}


def test_a_rerun_asks_for_nothing_and_logs_the_skips_as_the_package_does(tmp_path: Path) -> None:
    _oracle(2025)
    source = PROGRAMS / "llms4pcg_multi_turn.py"
    with serve_chat() as server:
        run_podium(2025, source, tmp_path / "podium", server)
        first = raw_files(tmp_path / "podium")
        server.requests.clear()
        for log in (tmp_path / "podium" / "logs").glob("*"):
            log.unlink()
        run_podium(2025, source, tmp_path / "podium", server)
        # only C (over the limit, no file) is asked again, as the official package would
        assert {m["content"].split(",")[1].strip() for b in server.requests for m in b["messages"][:1]} == {
            "trial 1",
            "trial 2",
        }
        assert all("letter C" in b["messages"][1]["content"] for b in server.requests)
    assert raw_files(tmp_path / "podium") == first
    lines = log_lines(tmp_path / "podium")
    assert "Trial 1 for character A for team team_x already exists. Skipping." in lines


API = """
import importlib, inspect, json, sys
package = sys.argv[1]
names = {}
for module in ("competition", "utils", "models.trial_context", "models.trial_loop"):
    loaded = importlib.import_module(package + "." + module)
    for name in ("TrialContext", "TrialLoop", "run_evaluation", "chat_with_chatgpt", "chat_with_llm", "log"):
        value = getattr(loaded, name, None)
        if value is None:
            continue
        if inspect.isclass(value):
            names[module + "." + name] = sorted(n for n in dir(value) if not n.startswith("_"))
            names[module + "." + name + "()"] = list(inspect.signature(value.__init__).parameters)
        else:
            names[module + "." + name] = list(inspect.signature(value).parameters)
print(json.dumps(names, sort_keys=True))
"""


@pytest.mark.parametrize("edition", [2024, 2025])
def test_the_stand_ins_have_the_official_modules_names_and_signatures(edition: int, tmp_path: Path) -> None:
    """Every name a program can import from the official modules, with its methods and parameters."""
    from podium.tracks.pcg.generation.stand_ins import stand_ins_folder

    python = _oracle(edition)
    official = subprocess.run([str(python), "-c", API, PACKAGES[edition]], capture_output=True, text=True, check=True)
    ours = subprocess.run(
        ["python3", "-S", "-c", API, PACKAGES[edition]],
        cwd=stand_ins_folder(),
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(official.stdout)
    # run_evaluation takes the official parameters (and ignores them: the judge decides the trials)
    found = json.loads(ours.stdout)
    assert found.keys() == expected.keys()
    for name, value in expected.items():
        if name.endswith("run_evaluation"):
            assert found[name][:3] == value[:3], name
        else:
            assert found[name] == value, name


ERRORS = """
import inspect, json, openai
names = [n for n, v in list(vars(openai).items()) if inspect.isclass(v) and issubclass(v, Exception)]
print(json.dumps({n: [b.__name__ for b in getattr(openai, n).__mro__ if b.__module__.startswith("openai")]
                  for n in sorted(names)}))
"""


def test_the_openai_stand_in_has_the_clients_error_classes_in_their_order(tmp_path: Path) -> None:
    """A program's ``except openai.RateLimitError:`` reads under podium as under the real client."""
    from podium.tracks.pcg.generation.stand_ins import stand_ins_folder

    python = _oracle(2025)
    official = json.loads(
        subprocess.run([str(python), "-c", ERRORS], capture_output=True, text=True, check=True).stdout
    )
    ours = subprocess.run(["python3", "-S", "-c", ERRORS], cwd=stand_ins_folder(), capture_output=True, text=True)
    found = json.loads(ours.stdout)
    assert found and all(official[name] == chain for name, chain in found.items()), (found, official)
