"""podium pcg score on inputs rebuilt from the published 2023 and 2024 tables reproduces them string for string."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from podium.cli.main import main
from podium.tracks.pcg.official.rundir import Platform
from tests.tracks.pcg.published import read_csv, rebuild_inputs

# result.json names the baselines differently from their folders
RESULT_NAMES_2024 = {
    "Weak Baseline (Zero-Shot)": "baseline_zero_shot",
    "Strong Baseline (Zero-Shot Multi-turn)": "baseline_zero_shot_multi_turn",
}


def score(root: Path, *args: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["pcg", "score", str(root), *args])
    assert exit_info.value.code == 0


def published_prompt_scores(published: Path, names: dict[str, str]) -> dict[str, tuple[float, float]]:
    return {
        names.get(entry["teamName"], entry["teamName"]): (entry["promptScore"], entry["normalizedPromptScore"])
        for entry in json.loads((published / "result.json").read_text("utf-8"))
        if entry["rank"] != -2  # disqualified teams have no files
    }


def test_2024_is_reproduced_byte_for_byte(pcg_data: Path, tmp_path: Path) -> None:
    published = pcg_data / "published-2024"
    root = tmp_path / "competition"
    rebuild_inputs(published, root, with_diversity=True)
    # the 2024 tables list teams in NTFS order (the scoring ran on Windows)
    score(root, "--edition", "2024", "--platform", Platform.WINDOWS.value)
    result = root / "result"
    assert (result / "trial_scores.csv").read_bytes() == (published / "trial_scores.csv").read_bytes()
    assert (result / "character_scores.csv").read_bytes() == (published / "character_scores.csv").read_bytes()
    assert (result / "constants.json").read_bytes() == (published / "constants.json").read_bytes()

    ranks = read_csv(result / "prompt_scores_ranks.csv")
    expected = published_prompt_scores(published, RESULT_NAMES_2024)
    # the 2024 result.json rounds prompt scores to 17 decimal places and normalised scores to 15
    shown = {
        r["team"]: (float(round(Decimal(r["promptScore"]), 17)), float(round(Decimal(r["normalizedPromptScore"]), 15)))
        for r in ranks
    }
    assert shown == expected
    order = [
        RESULT_NAMES_2024.get(e["teamName"], e["teamName"]) for e in json.loads((published / "result.json").read_text())
    ]
    assert [r["team"] for r in ranks] == [team for team in order if team in expected]
    assert [r["rank"] for r in ranks] == [str(n) for n in range(1, 11)]
    the_winner = ranks[0]
    assert the_winner["promptScore"] == "0.02243679346335579995"
    assert the_winner["normalizedPromptScore"] == "50.171935730770078002"


def test_2023_is_reproduced_string_for_string(pcg_data: Path, tmp_path: Path) -> None:
    published = pcg_data / "published-2023"
    root = tmp_path / "competition"
    rebuild_inputs(published, root, with_diversity=False)
    # the published 2023 trial table was written on a POSIX system (byte-ordered teams, LF)...
    score(root, "--edition", "2023")
    result = root / "result"
    assert (result / "trial_scores.csv").read_bytes() == (published / "trial_scores.csv").read_bytes()
    # ...and its character table on Windows (NTFS order, CRLF)
    score(root, "--edition", "2023", "--platform", "windows")
    assert (result / "character_scores.csv").read_bytes() == (published / "character_scores.csv").read_bytes()
    assert len(read_csv(result / "character_scores.csv")) == 416

    constants = json.loads((result / "constants.json").read_text())
    official = json.loads((published / "constants.json").read_text())
    assert constants["competitionScore"] == official["competitionScore"] == "0.66619817402104604574"
    # the published 2023 file holds the weights as JSON numbers; ours are the exact strings of those numbers
    for mine, theirs_w in zip(constants["weights"], official["weights"], strict=True):
        assert mine["character"] == theirs_w["character"]
        for key in ("weight", "stabilityWeight", "similarityWeight"):
            assert float(mine[key]) == theirs_w[key]

    ranks = {r["team"]: r for r in read_csv(result / "prompt_scores_ranks.csv")}
    expected = published_prompt_scores(published, {})
    assert {t: (float(r["promptScore"]), float(r["normalizedPromptScore"])) for t, r in ranks.items()} == expected
    assert ranks["dereventsolve"]["normalizedPromptScore"].startswith("31.15467294080257")
