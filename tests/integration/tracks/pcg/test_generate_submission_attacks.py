"""Attacks through what a folder submission adds: the shared requirement and stand-in folders, the writable copy.

Requirement folders are shared by every team with the same requirement set, and the stand-ins by every team: a
program that could change them would run code in other teams' processes. Each team run gets a private copy of its
submission: nothing one run writes may reach another run, of the same team or not. Run for real (bubblewrap, a
loopback chat server, pip from a wheelhouse made at test time).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox
from podium.core.execution.sandbox.packages import InstallOptions
from podium.tracks.pcg.generation.records import GenerateVerdict
from podium.tracks.pcg.generation.submission import Program
from podium.tracks.pcg.generation.team import Submission, generate_team
from tests.integration.tracks.pcg.test_generate_hostile import settings
from tests.tracks.pcg.chat_server import serve_chat
from tests.tracks.pcg.wheelhouse import REQUIREMENT, make_wheelhouse

POISON = """
import os, sys
import pcg_prompt_kit, llms4pcg, _podium
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop

targets = [os.path.dirname(pcg_prompt_kit.__file__), os.path.dirname(llms4pcg.__file__),
           os.path.dirname(_podium.__file__), *sys.path]
tried = []
for folder in targets:
    for name in ("__init__.py", "evil.py"):
        try:
            with open(os.path.join(folder, name), "a") as f:
                f.write("\\nraise SystemExit('poisoned')\\n")
            tried.append("WROTE " + os.path.join(folder, name))
        except OSError as error:
            tried.append(type(error).__name__)


class Poison(TrialLoop):
    @staticmethod
    def run(ctx, c):
        return chat_with_llm(ctx, [{"role": "user", "content": "draw " + c}])[0] + repr(tried)
"""

CLEAN = """
import pcg_prompt_kit
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Clean(TrialLoop):
    @staticmethod
    def run(ctx, c):
        return pcg_prompt_kit.fence(chat_with_llm(ctx, [{"role": "user", "content": "draw " + c}])[0])
"""


@pytest.fixture
def wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> InstallOptions:
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    return InstallOptions((make_wheelhouse(tmp_path / "wheels"),), no_index=True)


def test_a_program_cannot_change_the_shared_requirement_or_stand_in_folders(
    sandbox: BubblewrapSandbox, tmp_path: Path, wheels: InstallOptions
) -> None:
    with serve_chat() as server:
        poison = Submission("poison", Program.of_file("poison.py", POISON.encode(), (REQUIREMENT,)))
        poisoned = generate_team(poison, settings(tmp_path, server, "A", install=wheels), sandbox)
        clean = Submission("clean", Program.of_file("clean.py", CLEAN.encode(), (REQUIREMENT,)))
        after = generate_team(clean, settings(tmp_path, server, "A", install=wheels), sandbox)
    assert [o.verdict for o in poisoned.outcomes] == [GenerateVerdict.OK]
    answer = (tmp_path / "poison" / "raw" / "A" / "poison_A_1.txt").read_text()
    # its own folder (the copy) is writable; nothing shared is
    wrote = [part for part in answer.split("'") if part.startswith("WROTE")]
    assert wrote and all("/box/" in line for line in wrote), wrote
    assert [o.verdict for o in after.outcomes] == [GenerateVerdict.OK], after.outcomes
    assert (tmp_path / "clean" / "raw" / "A" / "clean_A_1.txt").read_text().startswith("<<")


NOTEBOOK = """
import os, time
from llms4pcg.competition import chat_with_llm
from llms4pcg.models.trial_loop import TrialLoop


class Notebook(TrialLoop):
    @staticmethod
    def run(ctx, c):
        seen = open("notes.txt").read() if os.path.exists("notes.txt") else ""
        with open("notes.txt", "a") as f:
            f.write(c)
        if c == "B" and "crashed" not in seen:
            with open("notes.txt", "a") as f:
                f.write("crashed")
            os._exit(3)  # the process dies mid-trial: a fresh one takes the rest, on the copy as this one left it
        if c == "D":
            open("big.bin", "wb").write(bytes(5 << 20))  # past the copy's quota: killed, and the copy not kept
            time.sleep(1)
        return chat_with_llm(ctx, [{"role": "user", "content": "draw " + c}])[0] + " seen:" + seen
"""


def test_the_copy_carries_over_between_processes_of_a_team_and_never_to_another_run(
    sandbox: BubblewrapSandbox, tmp_path: Path, wheels: InstallOptions
) -> None:
    program = Program.of_file("notebook.py", NOTEBOOK.encode())
    with serve_chat() as server:
        first = settings(tmp_path / "model_1", server, "ABCDE", install=wheels)
        small = dataclasses.replace(first.limits, box_mib=2)
        run = generate_team(Submission("t", program), dataclasses.replace(first, limits=small), sandbox)
        second = settings(tmp_path / "model_2", server, "A", install=wheels)
        generate_team(Submission("t", program), second, sandbox)

    verdicts = [o.verdict for o in run.outcomes]
    assert verdicts == [GenerateVerdict.OK, GenerateVerdict.PROGRAM_ERROR, GenerateVerdict.OK,
                        GenerateVerdict.HARD_LIMIT, GenerateVerdict.OK]  # fmt: skip
    assert "MiB written in its working folder" in run.outcomes[3].reason
    raw = tmp_path / "model_1" / "t" / "raw"
    assert (raw / "C" / "t_C_1.txt").read_text().endswith("seen:ABcrashed")  # the dead process's writes were kept
    # the process over its quota (C and D) left nothing: E starts from the copy as the crashed process left it
    assert (raw / "E" / "t_E_1.txt").read_text().endswith("seen:ABcrashed")
    assert run.processes == 3
    (kept,) = (tmp_path / "model_1" / "logs").glob("t_raw_*.files")
    assert (kept / "notes.txt").read_text() == "ABcrashedE" and not (kept / "big.bin").exists()
    # another run of the same team (another model) starts from the submission as it was submitted
    assert (tmp_path / "model_2" / "t" / "raw" / "A" / "t_A_1.txt").read_text().endswith("seen:")


@pytest.mark.parametrize("name", ["chatgpt4pcg.py", "my-entry.py", "2024_final.py", "json.py"])
def test_an_entry_named_like_a_package_or_not_like_a_module_still_runs(
    sandbox: BubblewrapSandbox, tmp_path: Path, name: str
) -> None:
    """The official package's own name, a name Python cannot import, a digit first, a standard module's name."""
    source = CLEAN.replace("import pcg_prompt_kit\n", "").replace("pcg_prompt_kit.fence", "str").encode()
    with serve_chat() as server:
        run = generate_team(Submission("t", Program.of_file(name, source)), settings(tmp_path, server, "A"), sandbox)
    assert [o.verdict for o in run.outcomes] == [GenerateVerdict.OK], run.outcomes
