"""The console at the end of a stage command and of evaluate: failures by verdict and reason, warnings, the logs.

A contestant's bad input (no code, a non-UTF-8 response, a malformed level) is judged as a failure and the run
exits 0, so the summary is the only place a person running the command learns of it without opening ``logs/``.
A stage that cannot run at all (no team folders) exits non-zero with one line and the fix.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from podium.cli.main import main

GOOD = "Here you go:\n```python\ndrop_block('b31', 8)\ndrop_block('b13', 8)\n```\n"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    captured = capsys.readouterr()
    return int(stop.value.code or 0), captured.out, captured.err


def raw(root: Path, name: str, text: bytes) -> Path:
    team, char, _ = name.split("_")
    path = root / team / "raw" / char / f"{name}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return path


def logged(out: str, stage: str) -> Path:
    [path] = re.findall(rf"^log: (.*/logs/{stage}_log_.*\.txt)$", out, re.MULTILINE)
    assert Path(path).is_file()
    return Path(path)


def test_a_stage_ends_with_its_failures_warnings_and_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw(tmp_path, "t_A_1", GOOD.encode())
    replaced = raw(tmp_path, "t_A_2", b"caf\xe9 " + GOOD.encode())
    raw(tmp_path, "t_A_3", b"I cannot draw letters.")
    code, out, err = run(["pcg", "extract", str(tmp_path), "--edition", "2024"], capsys)
    assert code == 0  # the run judged every item: failing ones are verdicts
    lines = out.splitlines()
    assert lines[0] == "extract: 3 items: 1 code_not_found, 2 ok"
    assert lines[1] == "failed: 1 of 3 items, on the contestants' input (judged as failures; the run succeeded)"
    assert lines[4].split() == ["1", "extract", "code_not_found", "Code", "not", "found."]
    assert lines[5:7] == ["first failed items:", "  t/A/t_A_3.txt (extract): code_not_found: Code not found."]
    assert "Failed - Code not found." in logged(out, "extract").read_text()
    assert err.splitlines() == [
        f"warning: {replaced}: not valid UTF-8 (first bad byte at offset 3); invalid bytes were replaced by U+FFFD "
        "as the official scripts do; re-save it as UTF-8"
    ]


def test_a_rerun_still_warns_of_replaced_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replaced = raw(tmp_path, "t_A_1", b"\xff" + GOOD.encode())
    first = run(["pcg", "extract", str(tmp_path), "--edition", "2024"], capsys)
    rerun = run(["pcg", "extract", str(tmp_path), "--edition", "2024"], capsys)
    assert rerun[1].splitlines()[0] == "extract: 1 items: 1 skipped"  # current: not converted again
    assert f"warning: {replaced}: not valid UTF-8 (first bad byte at offset 0)" in rerun[2]
    assert rerun[2] == first[2]


def test_a_clean_stage_says_only_its_counts_and_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw(tmp_path, "t_A_1", GOOD.encode())
    code, out, err = run(["pcg", "extract", str(tmp_path), "--edition", "2024"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "extract: 1 items: 1 ok" and "failed" not in out
    logged(out, "extract")


def test_evaluate_ends_with_every_stage_s_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for trial in (1, 2):
        raw(tmp_path, f"t_A_{trial}", GOOD.encode())
    raw(tmp_path, "t_A_3", b"no code here")
    replaced = raw(tmp_path, "t_A_5", b"\xff" + GOOD.encode())
    malformed = tmp_path / "t" / "levels" / "A" / "t_A_4.xml"  # a level with no response behind it
    malformed.parent.mkdir(parents=True)
    malformed.write_text("<Level><broken")
    code, out, err = run(["pcg", "evaluate", str(tmp_path), "--edition", "2024", "--workers", "1"], capsys)
    assert f"warning: extract: {replaced}: not valid UTF-8 (first bad byte at offset 0)" in err
    assert code == 0
    summary = out[out.index("\nfailed: ") + 1 :].splitlines()
    assert summary[0] == "failed: 2 of 15 items, on the contestants' input (judged as failures; the run succeeded)"
    assert [row.split()[:3] for row in summary[3:5]] == [
        ["1", "extract", "code_not_found"], ["1", "simulate", "malformed_input"]
    ]  # fmt: skip
    assert "malformed XML: unclosed token: line 1, column 7" in summary[4]
    assert "  t/A/t_A_4.xml (simulate): malformed_input: malformed XML: unclosed token: line 1, column 7" in summary
    assert "Failed - malformed XML" in logged(out, "simulate").read_text()
    logged(out, "extract")


def test_a_stage_that_cannot_run_exits_non_zero_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["pcg", "extract", str(tmp_path), "--edition", "2024"], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"error: {tmp_path}: no team folders found",
        "fix: a competition root holds one folder per team, e.g. ROOT/<TEAM>/raw/<C>/<TEAM>_<C>_1.txt",
    ]


def test_the_console_prints_the_competition_score_at_table_precision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Twenty decimal places belong in the result files; the console shows what a reader can take in."""
    root = tmp_path / "demo"
    shutil.copytree(Path(__file__).parents[3] / "examples" / "pcg-2023-unity", root)
    code, out, _ = run(["pcg", "score", str(root), "--edition", "2023"], capsys)
    assert code == 0, out
    line = next(x for x in out.splitlines() if x.startswith("competition score"))
    assert re.match(r"competition score \d\.\d{6}; result files in ", line), line
    exact = json.loads((root / "result" / "constants.json").read_text())["competitionScore"]
    assert len(exact.split(".")[1]) > 6 and line.startswith(f"competition score {float(exact):.6f};")


def test_a_team_that_extract_left_empty_is_warned_of_once_naming_extract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw(tmp_path, "good_A_1", GOOD.encode())
    raw(tmp_path, "bad_A_1", b"I cannot draw that.")
    raw(tmp_path, "bad_A_2", b"Nor that.")
    code, out, err = run(["pcg", "evaluate", str(tmp_path), "--edition", "2024", "--workers", "1"], capsys)
    assert code == 0
    about_bad = [line for line in err.splitlines() if "team bad: nothing to do" in line]
    assert about_bad == [
        "warning: build, simulate, classify, diversity: team bad: nothing to do: extract wrote no intermediate/ from "
        "its raw/ (each item failed, or extract has not run: see its log)"
    ]
    assert "run the stage that writes it" not in err and "generate asked" not in out  # no plan: none claimed


def test_a_stage_alone_names_the_stage_upstream_that_wrote_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw(tmp_path, "t_A_1", GOOD.encode())  # a response extract has not turned into code yet
    (tmp_path / "u" / "levels" / "A").mkdir(parents=True)
    code, _, err = run(["pcg", "simulate", str(tmp_path), "--workers", "1"], capsys)
    assert code == 0
    assert "warning: team t: nothing to do: extract wrote no intermediate/ from its raw/" in err
    assert "team u" not in err


def test_a_team_generate_refused_is_said_to_have_no_responses_from_generate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from podium.tracks.pcg.run_outcomes import write_outcomes

    raw(tmp_path, "good_A_1", GOOD.encode())
    (tmp_path / "zergy" / "raw" / "A").mkdir(parents=True)  # generate made its folders, and wrote nothing
    refused = ("A", 1, "program_rejected", "no file of the submission is a program")
    write_outcomes(tmp_path / "logs" / "zergy_raw_2026-11-29T10_00_00.000Z_.log", "zergy", [refused])
    code, _, err = run(["pcg", "evaluate", str(tmp_path), "--edition", "2024", "--workers", "1"], capsys)
    assert code == 0
    about = [line for line in err.splitlines() if "team zergy: nothing to do" in line]
    assert about and all("generate wrote no responses for it (program_rejected: no file" in line for line in about)
    assert not any("extract wrote no" in line for line in about), about
    report = (tmp_path / "result" / "report.html").read_text()
    assert "no file of the submission is a program" in report  # its trial's verdict and reason, in the gallery
