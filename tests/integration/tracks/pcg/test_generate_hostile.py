"""Hostile programs under ``generate``, for real (bubblewrap, a loopback chat server): each is contained and reported
with its own verdict while the rest of the run completes; and the retry path against a failing server.

The edition's 500 s per trial is cut to 1 s (plus a 1 s grace) so that the programs that never return are killed
within the test's time; nothing else is changed.
"""

from __future__ import annotations

import dataclasses
import json
import socket
from pathlib import Path

import pytest

from podium.cli.main import main
from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox
from podium.core.execution.sandbox.packages import InstallOptions
from podium.core.llm import open_model
from podium.core.llm.transport import RetryPolicy
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.generation.records import GenerateVerdict, TeamRun
from podium.tracks.pcg.generation.submission import Program
from podium.tracks.pcg.generation.team import GenerateSettings, Submission, generate_team
from tests.tracks.pcg.chat_server import ChatServer, serve_chat

HOSTILE = """
import os, json, sys, urllib.request
from openai.types.chat import ChatCompletionUserMessageParam
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop
from llms4pcg.utils import log

ROOT = {root!r}

def ask(ctx, text):
    return chat_with_llm(ctx, [{{"role": "user", "content": text}}])[0]

class Hostile(TrialLoop):
    @staticmethod
    def run(ctx, c):
        if c == "B":  # straight to the model server, around the judge
            body = json.dumps({{"model": "m", "messages": [{{"role": "user", "content": "sneak"}}]}}).encode()
            urllib.request.urlopen(ctx.get_local_model_base_url() + "/chat/completions", body, timeout=2)
        if c == "C":  # another team's responses, then the run's logs and transcripts
            try:
                return open(ROOT + "/other/raw/A/other_A_1.txt").read()
            except OSError:
                return "listing: " + str(os.listdir(ROOT + "/logs"))
        if c == "D":  # overwrite another trial's file, or drop one of its own
            open(ROOT + "/hostile/raw/A/hostile_A_1.txt", "w").write("overwritten")
        if c == "E":  # a fork bomb
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        if c == "F":  # never returns
            while True:
                pass
        if c == "G":  # fakes its token counts and swallows the limit's error
            for _ in range(3):
                try:
                    ask(ctx, "BIG")
                except ValueError:
                    ctx.add_prompt_token_count(-ctx.get_total_token_count())
            return "done anyway, tokens " + str(ctx.get_total_token_count())
        if c == "I":  # more memory than the process may have, in blocks bytes() callocs, so the limit hits at once
            hog = [bytes(1 << 30) for _ in range(8)]  # (bytearray zero-fills: 3 GiB of page faults outlast 2 s)
        if c == "L":  # fills the judge's log through the official log()
            for _ in range(1000):
                log(ctx.get_log_file_path(), "spam " * 2000)
        if c == "J":  # a flood of output
            while True:
                sys.stdout.write("x" * 65536)
        return ask(ctx, "draw " + c)
"""

NORMAL = """
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop

class Normal(TrialLoop):
    @staticmethod
    def run(ctx, c):
        return chat_with_llm(ctx, [{"role": "user", "content": "draw " + c}])[0]
"""


def settings(
    root: Path, server: ChatServer, characters: str, install: InstallOptions | None = None, **policy: float
) -> GenerateSettings:
    retry = RetryPolicy(first_backoff_s=0.01, max_backoff_s=0.05, **policy)  # type: ignore[arg-type]
    model = open_model("openai:m", base_url=server.base_url, policy=retry)
    quick = dataclasses.replace(edition(2025).generation, max_time_s=1.0)
    return GenerateSettings(
        root, quick, model, "m", server.base_url, tuple(characters), 1, grace_s=1.0, install=install
    )


def write(folder: Path, text: str) -> Path:
    path = folder / "prompt.txt"
    path.write_text(text)
    return path


def verdicts(run: TeamRun) -> dict[str, GenerateVerdict]:
    return {o.key.character: o.verdict for o in run.outcomes}


def test_hostile_programs_are_contained_and_the_run_completes(sandbox: BubblewrapSandbox, tmp_path: Path) -> None:
    root = tmp_path / "run"
    with serve_chat() as server:
        other = generate_team(
            Submission("other", Program.of_file("normal.py", NORMAL.encode())), settings(root, server, "A"), sandbox
        )
        assert verdicts(other) == {"A": GenerateVerdict.OK}
        other_file = root / "other" / "raw" / "A" / "other_A_1.txt"
        other_bytes = other_file.read_bytes()
        asked_before = len(server.requests)
        program = HOSTILE.format(root=str(root)).encode()
        hostile = Submission("hostile", Program.of_file("hostile.py", program))
        run = generate_team(hostile, settings(root, server, "ABCDEFGHIJKL"), sandbox)
        hostile_requests = server.requests[asked_before:]

    found = verdicts(run)
    reasons = {o.key.character: o.reason for o in run.outcomes}
    assert found["A"] is GenerateVerdict.OK and found["H"] is GenerateVerdict.OK  # before and after it all
    assert found["K"] is GenerateVerdict.OK
    assert found["B"] is GenerateVerdict.PROGRAM_ERROR and "URLError" in reasons["B"]
    assert all(body["messages"][0]["content"] != "sneak" for body in hostile_requests)  # only the judge's calls
    # C reads nothing of the run: not the other team's file, not the logs (the error, not a listing, ends it)
    assert found["C"] is GenerateVerdict.PROGRAM_ERROR and "FileNotFoundError" in reasons["C"]
    assert found["D"] is GenerateVerdict.PROGRAM_ERROR
    assert (root / "hostile" / "raw" / "A" / "hostile_A_1.txt").read_text() != "overwritten"
    assert found["E"] is GenerateVerdict.HARD_LIMIT and "hard limit of 2 s" in reasons["E"]
    assert found["F"] is GenerateVerdict.HARD_LIMIT
    # G swallows the limit's error and returns a text: written, as officially; its faked counts change nothing
    assert found["G"] is GenerateVerdict.OK and "token_limit caught by the program" in reasons["G"]
    assert "Prompt token limit exceeded. 40" in reasons["G"]
    # the memory hog gets MemoryError (address-space backstop) or is killed by the cgroup; either way only its trial
    assert found["I"] in (GenerateVerdict.PROGRAM_ERROR, GenerateVerdict.HARD_LIMIT), reasons["I"]
    assert "MemoryError" in reasons["I"] or "memory" in reasons["I"]
    assert found["J"] is GenerateVerdict.HARD_LIMIT and "output_limit" in reasons["J"]
    assert run.processes == 4 + (found["I"] is GenerateVerdict.HARD_LIMIT)  # a fresh process after each kill
    files = sorted(p.name for p in (root / "hostile" / "raw").rglob("*.txt"))
    assert files == ["hostile_A_1.txt", "hostile_G_1.txt", "hostile_H_1.txt", "hostile_K_1.txt", "hostile_L_1.txt"]
    assert (root / "hostile" / "raw" / "G" / "hostile_G_1.txt").read_text().startswith("done anyway")
    assert found["L"] is GenerateVerdict.OK and run.log.stat().st_size < 5 << 20  # 10 MB asked, 4 Mi chars kept
    assert other_file.read_bytes() == other_bytes
    log = run.log.read_text()
    assert log.count("Prompt token limit exceeded.") == 2  # the second and third calls, each past the limit
    transcript = [json.loads(line) for line in run.transcript.read_text().splitlines()]
    assert [t["character"] for t in transcript] == ["A", "G", "G", "G", "H", "K", "L"]
    assert all(t["request"]["temperature"] == 1 and t["request"]["seed"] is None for t in transcript)


def test_a_program_that_cannot_start_fails_every_trial_once(sandbox: BubblewrapSandbox, tmp_path: Path) -> None:
    with serve_chat() as server:
        broken = Submission("broken", Program.of_file("broken.py", b"import numpy_that_is_not_here\n"))
        run = generate_team(broken, settings(tmp_path, server, "ABC"), sandbox)
        assert server.requests == []
    assert {o.verdict for o in run.outcomes} == {GenerateVerdict.PROGRAM_REJECTED}
    assert run.processes == 1 and "ModuleNotFoundError" in run.outcomes[0].reason


def test_transient_server_failures_are_retried_then_fail_only_their_trial(
    sandbox: BubblewrapSandbox, tmp_path: Path
) -> None:
    with serve_chat() as server:
        server.fail_next = ["503", "reset"]  # the official client's 2 retries, then an answer
        run = generate_team(
            Submission("t", Program.of_file("normal.py", NORMAL.encode())), settings(tmp_path, server, "AB"), sandbox
        )
        assert verdicts(run) == {"A": GenerateVerdict.OK, "B": GenerateVerdict.OK}
        attempts = [json.loads(line)["attempts"] for line in run.transcript.read_text().splitlines()]
        assert attempts == [3, 1]

        server.fail_next = ["503"] * 3
        again = settings(tmp_path / "again", server, "AB", max_attempts=3)
        run = generate_team(Submission("t", Program.of_file("normal.py", NORMAL.encode())), again, sandbox)
    assert verdicts(run) == {"A": GenerateVerdict.MODEL_ERROR, "B": GenerateVerdict.OK}
    assert "HTTP 503" in run.outcomes[0].reason and not (tmp_path / "again" / "t" / "raw" / "A" / "t_A_1.txt").exists()


def test_a_server_that_stays_down_stops_the_team_after_three_trials(sandbox: BubblewrapSandbox, tmp_path: Path) -> None:
    """Three trials in a row failed by the server after every retry: the rest are not asked, and the run says so."""
    with serve_chat() as server:
        server.fail_next = ["503"] * 9  # three trials of three attempts each
        slow = settings(tmp_path, server, "ABCDEF", max_attempts=3)
        run = generate_team(Submission("t", Program.of_file("normal.py", NORMAL.encode())), slow, sandbox)
        assert server.fail_next == [] and server.requests == []  # nine failed attempts, and nothing asked after
    assert [o.verdict for o in run.outcomes] == [GenerateVerdict.MODEL_ERROR] * 6
    assert all("HTTP 503" in o.reason for o in run.outcomes[:3])
    assert run.server_down is not None and "3 trials in a row" in run.server_down
    assert all(o.reason == run.server_down for o in run.outcomes[3:])
    assert not list(tmp_path.glob("t/raw/*/*.txt"))
    assert f"Stopped: {run.server_down}" in run.log.read_text()


def test_a_refused_key_stops_the_team_at_once_with_its_fix(sandbox: BubblewrapSandbox, tmp_path: Path) -> None:
    """An answer that says the key, model or server is wrong will not change: one call, and the run stops."""
    with serve_chat() as server:
        server.fail_next = ["401"]
        run = generate_team(Submission("t", Program.of_file("normal.py", NORMAL.encode())),
                            settings(tmp_path, server, "ABCDEF"), sandbox)  # fmt: skip
        assert server.fail_next == [] and server.requests == []  # one refused call, not retried, nothing after
    assert [o.verdict for o in run.outcomes] == [GenerateVerdict.MODEL_ERROR] * 6
    assert run.server_down is not None and "refused the API key" in run.server_down and "HTTP 401" in run.server_down
    assert run.server_fix is not None and "PODIUM_LLM_API_KEY" in run.server_fix
    assert all(o.reason == run.server_down for o in run.outcomes)
    assert run.log.read_text().count("refused the API key") == 2  # the trial's failure, then "Stopped:"


def test_a_conversation_past_the_context_fails_only_its_trial_once(sandbox: BubblewrapSandbox, tmp_path: Path) -> None:
    with serve_chat() as server:
        server.fail_next = ["context"]
        run = generate_team(Submission("t", Program.of_file("normal.py", NORMAL.encode())),
                            settings(tmp_path, server, "AB"), sandbox)  # fmt: skip
        assert len(server.requests) == 1  # B's; A's call was refused once and not retried
    assert verdicts(run) == {"A": GenerateVerdict.CONTEXT_LIMIT, "B": GenerateVerdict.OK} and run.server_down is None
    assert run.outcomes[0].reason.startswith("the conversation does not fit the model's context window (HTTP 400")
    assert run.log.read_text().count("maximum context length") == 1
    calls = [json.loads(line) for line in run.transcript.read_text().splitlines()]
    assert calls[0]["error_kind"] == "context" and calls[1]["finish_reasons"] == ["stop"]


def test_a_trial_that_works_resets_the_count_of_server_failures(sandbox: BubblewrapSandbox, tmp_path: Path) -> None:
    with serve_chat() as server:
        server.fail_next = ["503"] * 6 + ["ok"] + ["503"] * 6  # two failed trials, one good, two failed, then good
        slow = settings(tmp_path, server, "ABCDEF", max_attempts=3)
        run = generate_team(Submission("t", Program.of_file("normal.py", NORMAL.encode())), slow, sandbox)
    assert [o.verdict.value for o in run.outcomes] == ["model_error"] * 2 + ["ok"] + ["model_error"] * 2 + ["ok"]
    assert run.server_down is None


def test_a_2023_prompt_run_stops_on_a_closed_port_and_the_cli_says_how_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nobody listens on: every attempt is refused
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    model = open_model("openai:m", base_url=closed, policy=RetryPolicy(first_backoff_s=0.01, max_backoff_s=0.02))
    prompt = Submission("p", prompt="Build <OBJECT>")
    settings = GenerateSettings(tmp_path, edition(2023).generation, model, "m", closed, tuple("ABCDE"), 2)
    run = generate_team(prompt, settings, None)
    assert [o.verdict for o in run.outcomes] == [GenerateVerdict.MODEL_ERROR] * 10
    assert "Connection refused" in run.outcomes[0].reason and run.server_down is not None
    assert all(o.reason == run.server_down for o in run.outcomes[3:])

    command = ["pcg", "generate", str(tmp_path / "cli"), "--team", "p", "--prompt", str(write(tmp_path, "<OBJECT>")),
               "--edition", "2023", "--model", "openai:m", "--base-url", closed, "--characters", "A,B,C,D",
               "--trials", "1", "--attempts", "1"]  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        main(command)  # the check of the model before the run finds nobody there
    err = capsys.readouterr().err
    assert stop.value.code == 1 and f"error: cannot reach {closed}/models" in err
    assert f"fix: check that the model server at {closed} is up" in err
    assert not list((tmp_path / "cli").glob("p/raw/*/*.txt"))

    with pytest.raises(SystemExit) as stop:
        main([*command, "--no-model-check"])
    err = capsys.readouterr().err
    assert stop.value.code == 1
    assert "error: 4 trial(s) got no response because of the model server (the model server stopped answering" in err
    assert "a probe failed too: cannot reach" in err and "missing: p: A 1, B 1, C 1, D 1" in err
    assert f"fix: start {closed} again (or correct --base-url), then run the same command again" in err
