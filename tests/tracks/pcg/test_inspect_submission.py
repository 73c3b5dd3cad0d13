"""``podium pcg inspect`` on whole submissions: what an organiser must settle before ``generate`` can run them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from click.testing import CliRunner

from podium.tracks.pcg.cli import pcg
from podium.tracks.pcg.inspect_submission import inspect_submission, submission_as_text

SUBMISSIONS = Path(__file__).parent / "submissions"


def test_a_package_with_everything_declared_has_nothing_to_settle() -> None:
    report = inspect_submission(SUBMISSIONS / "package_2024")
    assert report.candidates.entry == "main.py" and report.flags == 0
    assert report.requirements == ("chatgpt4pcg~=1.2.1", "pcg-prompt-kit==0.1.0") and report.undeclared == ()
    assert report.readme == ("README.md:7: pip install -r requirements.txt", "README.md:8: python main.py")
    assert report.suggested_command() == (  # the edition its package says: a 2024 entry never runs under 2025
        f"podium pcg generate ROOT --team TEAM --program {SUBMISSIONS / 'package_2024'} --edition 2024"
    )
    # each module's own report follows; a helper module is not blamed for having no TrialLoop of its own
    modules = {m.path.as_posix(): m for m in report.modules}
    assert list(modules) == ["__init__.py", "common.py", "graph/__init__.py", "graph/controller.py", "main.py"]
    assert modules["graph/controller.py"].flags == ()
    # its own modules are not "outside the allow list"; its declared dependency is a note to read, not a flag
    assert [f.message for f in modules["main.py"].flags] == []
    assert modules["common.py"].flags == () and modules["graph/__init__.py"].flags == ()
    declared = [f for f in modules["common.py"].findings if "pcg_prompt_kit" in f.message]
    assert len(declared) == 2 and all(f.message.endswith("(a declared requirement)") for f in declared)


def test_two_architectures_and_a_dependency_named_only_in_the_readme() -> None:
    report = inspect_submission(SUBMISSIONS / "architectures_2025")
    assert report.candidates.entry is None
    assert [m.path for m in report.candidates.candidates] == ["few_shot/few_shot.py", "tot/tot.py"]
    assert report.undeclared == (("pcg_prompt_kit", "tot/tot.py"),)
    reads = {(u.module, u.path): u.found for u in report.file_uses}
    assert reads == {
        ("few_shot/few_shot.py", "level_db/A.txt"): "top",
        ("tot/tot.py", "prompts/*.txt"): "top",
        ("tot/tot.py", "tot/prompts/task.txt"): "top",
        ("tot/tot.py", "level_db/*.txt"): "top",
    }
    assert "README.md:10: python tot/tot.py" in report.readme
    assert any("pip install pcg-prompt-kit==0.1.0" in line for line in report.readme)
    command = report.suggested_command()
    assert "--entry <ENTRY>" in command and "--requirement pcg-prompt-kit==0.1.0" in command  # the README's pin
    text = submission_as_text(report)
    assert "2 things to settle" in text and "candidate tot/tot.py: calls run_evaluation(ToT); defines ToT" in text


def test_paths_found_only_beside_the_entry_suggest_a_workdir(tmp_path: Path) -> None:
    top = tmp_path / "team"
    (top / "tot" / "prompts").mkdir(parents=True)
    (top / "tot" / "prompts" / "task.txt").write_text("Build <OBJECT>")
    (top / "tot" / "tot.py").write_text(
        "from llms4pcg.models.trial_loop import TrialLoop\nTASK = open('prompts/task.txt').read()\n"
        "class T(TrialLoop):\n    pass\n"
    )
    report = inspect_submission(top)
    (use,) = report.file_uses
    assert (use.path, use.found, use.writes) == ("prompts/task.txt", "entry", False)
    assert report.flags == 1 and report.suggested_command().endswith("--workdir tot")


def test_a_script_calling_the_model_itself_is_flagged() -> None:
    report = inspect_submission(SUBMISSIONS / "direct_client_2025")
    assert report.candidates.entry is None and report.candidates.candidates == ()
    assert report.clients == tuple(f"letter_{c}.py line 8: calls openai.OpenAI()" for c in "abc")
    assert {u.path for u in report.file_uses if u.writes} == {"out", "out/A.txt", "out/B.txt", "out/C.txt"}
    text = submission_as_text(report)
    assert "no TrialLoop program (2025 disqualified a team for not using the official package)" in text
    assert text.count("calls a model or the network itself") == 3


def test_a_zip_reads_as_its_folder_and_the_cli_answers_json_with_exit_0(tmp_path: Path) -> None:
    folder = SUBMISSIONS / "package_2024"
    archive = tmp_path / "graph.zip"
    with zipfile.ZipFile(archive, "w") as written:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                written.write(path, f"graph_team/{path.relative_to(folder)}")
    result = CliRunner().invoke(pcg, ["inspect", "--json", str(archive), str(SUBMISSIONS / "direct_client_2025")])
    assert result.exit_code == 0, result.output
    (zipped, direct) = json.loads(result.output)["submissions"]
    assert zipped["entry"] == "main.py" and zipped["flags"] == 0 and zipped["files"] == 7
    assert direct["entry"] is None and direct["flags"] == 4 and len(direct["clients"]) == 3


def test_only_modules_the_entry_imports_ask_for_dependencies(tmp_path: Path) -> None:
    """An experiment left in the submission (torch, transformers) is no requirement of the program."""
    folder = tmp_path / "almost"
    (folder / "helpers").mkdir(parents=True)
    (folder / "main.py").write_text(
        "from llms4pcg.competition import TrialLoop, run_evaluation\nfrom helpers.prompts import build\n"
        "class Loop(TrialLoop):\n    @staticmethod\n    def run(ctx, c):\n        return build(c)\n"
        "run_evaluation('t', Loop)\n"
    )
    (folder / "helpers" / "__init__.py").write_text("")
    (folder / "helpers" / "prompts.py").write_text("import backoff\ndef build(c):\n    return c\n")
    (folder / "experiments.py").write_text("import torch\nimport transformers\n")  # nothing imports it
    report = inspect_submission(folder)
    assert report.candidates.entry == "main.py"
    assert report.undeclared == (("backoff", "helpers/prompts.py"),)  # reached through helpers; torch is not


def test_paths_built_at_run_time_are_found_when_the_files_exist(tmp_path: Path) -> None:
    folder = tmp_path / "built"
    (folder / "prompts").mkdir(parents=True)
    for n in (1, 2, 3):
        (folder / "prompts" / f"generate_{n}.txt").write_text("Build <OBJECT>")
    (folder / "main.py").write_text(
        "from llms4pcg.competition import TrialLoop\n"
        "class Loop(TrialLoop):\n    @staticmethod\n    def run(ctx, c):\n"
        "        n = ctx.get_trial_number() % 3 + 1\n"
        "        a = open(f'prompts/generate_{n}.txt').read()\n"
        "        b = open('prompts/generate_' + str(n) + '.txt').read()\n"
        "        d = open('prompts/generate_%d.txt' % n).read()\n"
        "        e = open('prompts/generate_{}.txt'.format(n)).read()\n"
        "        f = open(f'answers/{c}.txt').read()\n"  # no such folder: still missing
        "        return a + b + d + e + f\n"
    )
    uses = {(u.line, u.path): u.found for u in inspect_submission(folder).file_uses}
    assert {path: found for (_, path), found in uses.items()} == {
        "prompts/generate_*.txt": "top",
        "answers/*.txt": "",
    }


def test_an_archive_of_several_submissions_is_reported_per_submission(tmp_path: Path) -> None:
    archive = tmp_path / "all.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for team in ("package_2024", "writer_2024"):
            for path in sorted((SUBMISSIONS / team).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    bundle.write(path, f"{team}/{path.relative_to(SUBMISSIONS / team)}")
    result = CliRunner().invoke(pcg, ["inspect", "--json", str(archive)])
    assert result.exit_code == 0, result.output
    reports = json.loads(result.output)["submissions"]
    assert [Path(r["path"]).name for r in reports] == ["package_2024", "writer_2024"]
    assert all(len(r["candidates"]) == 1 for r in reports)  # each its own entry, not one with several
    whole = inspect_submission(SUBMISSIONS / "architectures_2025")  # two programs with a README at the top: one
    assert len(whole.candidates.candidates) == 2


def test_a_submission_with_no_trialloop_gets_no_entry_advice(tmp_path: Path) -> None:
    folder = tmp_path / "script"
    folder.mkdir()
    (folder / "letter_a.py").write_text("import openai\nprint('A')\n")
    report = inspect_submission(folder)
    assert report.candidates.candidates == () and "--entry" not in report.suggested_command()
