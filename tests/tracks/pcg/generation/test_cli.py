"""``podium pcg generate``'s own messages, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.cli.main import main


@pytest.mark.parametrize(("edition", "warned"), [("2025", True), ("2024", True), ("2023", False)])
def test_one_trial_per_letter_is_warned_about_where_diversity_needs_pairs(
    edition: str, warned: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    submission = ["--prompt", str(tmp_path / "p.txt")] if edition == "2023" else ["--program", str(tmp_path / "p.py")]
    (tmp_path / "p.py").write_text("import json\nclass Loop(TrialLoop): pass\n")
    (tmp_path / "p.txt").write_text("Build <OBJECT>")
    missing_script = ["--model", f"scripted:{tmp_path / 'none.jsonl'}"]
    with pytest.raises(SystemExit) as stop:  # the model's script is missing: it stops after the warning
        main(["pcg", "generate", "run", "--team", "t", "--edition", edition, "--trials", "1", *submission,
              *missing_script])  # fmt: skip
    err = capsys.readouterr().err
    assert stop.value.code != 0 and "none.jsonl" in err, err
    assert ("diversity (over pairs of a letter's trials) is 0" in err) == warned, err
