"""``podium pcg generate`` and ``evaluate`` against a real model server: llama.cpp serving Gemma 3 270M on the CPU.

A recording proxy keeps what the server answered, so the tests check what holds whatever the model says: a verdict
for every trial, response files, the official log lines, token counts equal to the server's ``usage``, each
choice's ``finish_reason`` in the transcript. The fault cases are the ones a real server showed: a wrong back-end,
a base URL without ``/v1``, a model the server does not serve, a refused key, a 404 mid-run, a conversation past
the context window, a paused server. Each must end the run at once with a fix, not fail every trial and exit 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tracks.pcg.large_report import gallery_tiles
from tests.tracks.pcg.model_server import MODEL, ModelServer, model_server, recording_proxy

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[4]
ZERO_SHOT = REPO / "examples" / "pcg-baselines" / "zero_shot.py"
TWO_TURNS = REPO / "examples" / "pcg-programs" / "my_program.py"
LONG_PROMPT = """
from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm

class Long(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, c: str) -> str:
        return chat_with_llm(ctx, [{"role": "user", "content": "Build " + c + ". " + "Think step by step. " * 200}])[0]
"""
TREE_OF_THOUGHT = """
from llms4pcg.competition import TrialContext, TrialLoop, chat_with_llm

class Tree(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, c: str) -> str:
        ideas = chat_with_llm(ctx, [{"role": "user", "content": "Two ways to build the letter " + c}], n=2)
        notes = "Blocks must stand on the ground or on other blocks. " * 280  # about 3,000 tokens
        return chat_with_llm(ctx, [{"role": "user", "content": notes + ideas[0] + ideas[1]}])[0]
"""
OK_VERDICTS = {"ok", "context_limit"}  # what a small model may earn; never a model, program or internal error


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelServer]:
    with model_server(tmp_path_factory.mktemp("llama")) as running:
        yield running


def podium(
    *args: str | Path, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("PODIUM_LLM_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "podium", *map(str, args)],
        capture_output=True,
        text=True,
        env=environment | (env or {}),
        timeout=timeout,
        check=False,
    )


def generate(root: Path, team: str, program: Path, base_url: str, *extra: str, model: str = f"openai:{MODEL}",
             env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return podium("pcg", "generate", root, "--team", team, "--program", program, "--model", model, "--base-url",
                  base_url, "--edition", "2025", *extra, env=env, timeout=timeout)  # fmt: skip


def transcript(root: Path, team: str) -> list[dict[str, object]]:
    (path,) = (root / "logs").glob(f"{team}_raw_*.transcript.jsonl")
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_the_baseline_and_a_two_turn_program_are_generated_and_evaluated(server: ModelServer, tmp_path: Path) -> None:
    root = tmp_path / "run"
    outcomes: dict[str, dict[tuple[str, int], str]] = {}
    for team, program in (("baseline_zero_shot", ZERO_SHOT), ("my_team", TWO_TURNS)):
        with recording_proxy(server.root_url) as proxy:
            done = generate(root, team, program, proxy.base_url, "--characters", "A,I", "--trials", "1", "--json")
            assert done.returncode == 0, done.stderr
            summary = json.loads(done.stdout)
            verdicts = outcomes[team] = {(t["character"], t["trial"]): t["verdict"] for t in summary["trials"]}
            assert set(verdicts) == {("A", 1), ("I", 1)} and set(verdicts.values()) <= OK_VERDICTS, summary
            assert proxy.exchanges[0].path == "/v1/models"  # the model was checked before the first trial

            calls, answers = transcript(root, team), proxy.chats()
            assert len(calls) == len(answers) >= 2
            log = Path(summary["log"]).read_text("utf-8")
            for call, exchange in zip(calls, answers, strict=True):
                assert call["request"]["messages"] == exchange.request["messages"]  # type: ignore[index]
                if exchange.status != 200:  # the only refusal a healthy server gives here: the context is full
                    assert exchange.status == 400 and call["error_kind"] == "context", (call, exchange.answer)
                    continue
                usage = exchange.answer["usage"]
                assert (call["prompt_tokens"], call["completion_tokens"]) == (
                    usage["prompt_tokens"], usage["completion_tokens"])  # fmt: skip
                assert call["finish_reasons"] == [c["finish_reason"] for c in exchange.answer["choices"]]
                assert call["responses"] == [c["message"]["content"] for c in exchange.answer["choices"]]
                assert f"Prompt token count: {usage['prompt_tokens']}\n" in log
                assert f"Output token count: {usage['completion_tokens']}\n" in log
            for (letter, number), verdict in verdicts.items():
                response = root / team / "raw" / letter / f"{team}_{letter}_{number}.txt"
                assert response.is_file() is (verdict == "ok")
                if verdict == "ok":
                    last = [c for c in calls if c["character"] == letter and "responses" in c][-1]
                    assert response.read_text("utf-8") == last["responses"][0]  # type: ignore[index]
            for (letter, number), verdict in verdicts.items():
                assert f"Running trial {number} for character {letter} for team {team}\n" in log
                ending = f"Trial {number} succeeded" if verdict == "ok" else f"Trial {number} failed with error: the "
                assert ending in log

    evaluated = podium("pcg", "evaluate", root, "--edition", "2025")
    assert evaluated.returncode == 0, evaluated.stderr
    assert (root / "result" / "trial_scores.csv").is_file() and (root / "result" / "report.html").is_file()
    assert "asked for 2 letters (A, I) × 1 trial" in evaluated.stdout
    assert "missing" not in evaluated.stdout + evaluated.stderr
    tiles = gallery_tiles((root / "result" / "report.html").read_text("utf-8"))
    assert {team: sorted((t[0], t[1]) for t in shown) for team, shown in tiles.items()} == {
        team: [("A", "1"), ("I", "1")] for team in outcomes
    }  # the trials asked, not the edition's 26 letters × 10

    with recording_proxy(server.root_url) as proxy:  # a rerun asks nothing: every trial has its outcome on disk
        again = generate(root, "baseline_zero_shot", ZERO_SHOT, proxy.base_url, "--characters", "A,I", "--trials", "1")
        assert again.returncode == 0, again.stderr
        unwritten = [key for key, verdict in outcomes["baseline_zero_shot"].items() if verdict != "ok"]
        assert len(proxy.chats()) == len(unwritten)  # only the trials without a file, one call each


@pytest.mark.parametrize(
    ("model", "path", "words", "fix"),
    [
        (f"ollama:{MODEL}", "", "/api/tags is not there (HTTP 404): not an Ollama server", "Ollama's own API"),
        (f"openai:{MODEL}", "", "/models is not there (HTTP 404): not an OpenAI-compatible API", "ends in /v1"),
        ("openai:gemma3", "/v1", "does not serve the model 'gemma3' (it lists: gemma3-270m)",
         "--model openai:gemma3-270m"),
    ],
    ids=["ollama-backend", "no-v1", "unknown-model"],
)  # fmt: skip
def test_a_wrong_address_back_end_or_model_stops_before_the_first_trial(
    server: ModelServer, tmp_path: Path, model: str, path: str, words: str, fix: str
) -> None:
    with recording_proxy(server.root_url) as proxy:
        done = generate(tmp_path, "t", ZERO_SHOT, f"http://127.0.0.1:{proxy.port}{path}", model=model, timeout=60)
        assert proxy.chats() == []
    assert done.returncode == 1 and words in done.stderr and fix in done.stderr, done.stderr
    assert not list(tmp_path.glob("t/raw/*/*.txt"))


def test_a_404_mid_run_stops_the_run_after_one_call(server: ModelServer, tmp_path: Path) -> None:
    with recording_proxy(server.root_url) as proxy:
        done = generate(tmp_path, "t", ZERO_SHOT, f"http://127.0.0.1:{proxy.port}", "--no-model-check",
                        "--characters", "A,B,C", "--trials", "2", "--json", timeout=60)  # fmt: skip
        assert len(proxy.chats()) == 1 and proxy.chats()[0].status == 404
    assert done.returncode == 1
    assert "error: 6 trial(s) got no response because of the model server (the server has no such path or model" in (
        done.stderr)  # fmt: skip
    assert "missing: t: A 1-2, B 1-2, C 1-2" in done.stderr
    assert "fix: check the server's address (an OpenAI-compatible server's base URL ends in /v1" in done.stderr
    verdicts = [t["verdict"] for t in json.loads(done.stdout)["trials"]]
    assert verdicts == ["model_error"] * 6


def test_a_conversation_past_the_context_window_fails_its_trial_once(server: ModelServer, tmp_path: Path) -> None:
    program = tmp_path / "long.py"
    program.write_text(LONG_PROMPT)
    with recording_proxy(server.root_url) as proxy:
        done = generate(tmp_path / "run", "t", program, proxy.base_url, "--characters", "A,B", "--trials", "1",
                        "--json", timeout=120)  # fmt: skip
        assert [e.status for e in proxy.chats()] == [400, 400]  # one call per trial: not retried
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert [t["verdict"] for t in summary["trials"]] == ["context_limit"] * 2
    assert summary["trials"][0]["reason"].startswith("the conversation does not fit the model's context window")
    assert Path(summary["log"]).read_text("utf-8").count("maximum context length is 512 tokens") == 2  # once each
    assert [c["error_kind"] for c in transcript(tmp_path / "run", "t")] == ["context", "context"]


def test_a_refused_key_stops_at_the_check_or_after_one_call(tmp_path: Path) -> None:
    with model_server(tmp_path, api_key="sk-right") as server, recording_proxy(server.root_url) as proxy:
        checked = generate(tmp_path / "a", "t", ZERO_SHOT, proxy.base_url, env={"PODIUM_LLM_API_KEY": "sk-wrong"},
                           timeout=60)  # fmt: skip
        assert checked.returncode == 1 and "the server refused the API key" in checked.stderr, checked.stderr
        assert "PODIUM_LLM_API_KEY" in checked.stderr and proxy.chats() == []

        unchecked = generate(tmp_path / "b", "t", ZERO_SHOT, proxy.base_url, "--no-model-check", "--characters",
                             "A,B", "--trials", "2", env={"PODIUM_LLM_API_KEY": "sk-wrong"}, timeout=60)  # fmt: skip
        assert unchecked.returncode == 1 and "because of the model server (the server refused the API key" in (
            unchecked.stderr)  # fmt: skip
        assert [e.status for e in proxy.chats()] == [401]

        program = tmp_path / "long.py"  # the right key passes; a refused long prompt is then quick to judge
        program.write_text(LONG_PROMPT)
        right = generate(tmp_path / "c", "t", program, proxy.base_url, "--characters", "A", "--trials", "1",
                         env={"PODIUM_LLM_API_KEY": "sk-right"}, timeout=60)  # fmt: skip
        assert right.returncode == 0 and "1 context_limit" in right.stdout, right.stdout + right.stderr


def test_a_paused_server_times_out_instead_of_hanging(tmp_path: Path) -> None:
    with model_server(tmp_path) as server:
        server.pause()
        quick = ("--timeout", "2", "--connect-timeout", "2", "--attempts", "1")
        checked = generate(tmp_path / "a", "t", ZERO_SHOT, server.base_url, *quick, timeout=60)
        assert checked.returncode == 1, checked.stderr
        assert f"error: no answer from {server.base_url}/models within 2 s (gave up after 1 attempts)" in (
            checked.stderr)  # fmt: skip

        run = generate(tmp_path / "b", "t", ZERO_SHOT, server.base_url, *quick, "--no-model-check", "--characters",
                       "A,B,C,D,E", "--trials", "1", "--json", timeout=120)  # fmt: skip
        # the probe after the first give-up gets no answer either: the rest are not asked, no timeout paid again
        assert run.returncode == 1 and "a probe failed too: " in run.stderr, run.stderr
        assert "did not answer within 2 s" in run.stderr and "missing: t: A 1, B 1, C 1, D 1, E 1" in run.stderr
        assert [t["verdict"] for t in json.loads(run.stdout)["trials"]] == ["model_error"] * 5
        assert "within 2 s" in json.loads(run.stdout)["trials"][0]["reason"]


def test_a_server_killed_mid_run_of_three_teams_ends_non_zero_and_a_rerun_completes(tmp_path: Path) -> None:
    """The server dies while three teams run under --config: the run lists what is missing and exits 1; once a
    server is back, the same command asks for exactly the missing trials."""
    teams, root, config = ("team_a", "team_b", "team_c"), tmp_path / "run", tmp_path / "run.toml"

    def write_config(base_url: str) -> None:
        config.write_text(
            f'version = 1\nedition = 2025\ntrials = 2\ncharacters = "A"\nteams_in_parallel = 3\n'
            f'[[models]]\nspec = "openai:{MODEL}"\nbase_url = "{base_url}"\nfolder = "m"\n'
            + "".join(f'[[teams]]\nname = "{team}"\nprogram = "{ZERO_SHOT}"\n' for team in teams)
        )

    def written() -> set[str]:
        return {path.name for path in root.glob("m/*/raw/A/*.txt")}

    command = [sys.executable, "-m", "podium", "pcg", "generate", str(root), "--config", str(config),
               "--connect-timeout", "2", "--attempts", "2"]  # fmt: skip
    with model_server(tmp_path) as server:
        write_config(server.base_url)
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while not written() and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        server.process.kill()  # mid-run: other teams' calls are waiting on it
        out, err = run.communicate(timeout=300)
    before = written()
    assert run.returncode == 1, out + err
    assert 1 <= len(before) < 6 and "got no response because of the model server" in err, err
    assert "a probe failed too" in err and "run the same command again" in err
    missing = err.split("missing: ", 1)[1].split(")", 1)[0]
    for team in teams:
        absent = [n for n in (1, 2) if f"{team}_A_{n}.txt" not in before]
        listed = {(): None, (1,): "A 1", (2,): "A 2", (1, 2): "A 1-2"}[tuple(absent)]
        assert (f"{team}: {listed}" in missing) if listed else (f"{team}:" not in missing), missing

    (tmp_path / "again").mkdir()
    with model_server(tmp_path / "again") as server:
        write_config(server.base_url)
        again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stderr
    assert written() == {f"{team}_A_{n}.txt" for team in teams for n in (1, 2)}
    asked = 0
    for team in teams:  # the rerun's transcript is each team's newest: only the missing trials were asked
        newest = sorted((root / "m" / "logs").glob(f"{team}_raw_*.transcript.jsonl"))[-1]
        asked += sum('"responses"' in line for line in newest.read_text("utf-8").splitlines())
    assert asked == 6 - len(before)


def test_a_tree_of_thought_program_and_a_long_prompt_fit_the_bundled_server(tmp_path: Path) -> None:
    """llama.cpp answers one choice whatever n asks: podium asks for the second itself; a prompt of about 3,000
    tokens fits the context ``make serve-model`` gives; the completion cap keeps each call short."""
    program = tmp_path / "tree.py"
    program.write_text(TREE_OF_THOUGHT)
    with model_server(tmp_path, n_ctx=4096, max_completion_tokens=32) as server:
        done = generate(tmp_path / "run", "t", program, server.base_url, "--characters", "A", "--trials", "1",
                        "--json", timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [t["verdict"] for t in json.loads(done.stdout)["trials"]] == ["ok"], done.stdout
    first, second = transcript(tmp_path / "run", "t")
    assert len(first["responses"]) == 2 and first["choice_seeds"] == [None, None]  # 2025 sends no seed
    assert first["request"]["n"] == 2 and first["attempts"] == 2  # one request for each choice
    assert 2500 < second["prompt_tokens"] < 4096 and second["completion_tokens"] <= 32
