"""``podium pcg generate``'s own messages, before anything runs."""

from __future__ import annotations

import pytest

from podium.cli.main import main


@pytest.mark.parametrize(("edition", "warned"), [("2025", True), ("2024", True), ("2023", False)])
def test_one_trial_per_letter_is_warned_about_where_diversity_needs_pairs(
    edition: str, warned: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:  # neither --program nor --prompt: it stops after the warning
        main(["pcg", "generate", "run", "--team", "t", "--edition", edition, "--trials", "1"])
    err = capsys.readouterr().err
    assert stop.value.code != 0 and "give exactly one of --program FILE and --prompt FILE" in err
    assert ("diversity (over pairs of a letter's trials) is 0" in err) == warned, err
