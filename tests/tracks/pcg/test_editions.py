"""The edition records: the documented table is theirs, and a new edition is one record and nothing else."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from podium.tracks.pcg.cli import pcg
from podium.tracks.pcg.editions import EDITIONS, DiversityVector, differences_table, edition

DOC = Path(__file__).resolve().parents[3] / "docs" / "design" / "pcg-editions.md"

# A fictional 2026 edition: its own drop function, a winner rule, diversity on the softmax vector, one model.
FICTIONAL = dataclasses.replace(
    EDITIONS[2024], year=2026, name="Fictional PCG", prefix="place_block", winner_rule=True,
    diversity=DiversityVector.SOFTMAX,
)  # fmt: skip


def test_the_documented_table_is_generated_from_the_records() -> None:
    text = DOC.read_text("utf-8")
    documented = text.split("<!-- editions table: generated -->\n", 1)[1].split("<!-- end of the generated table", 1)[0]
    assert documented == differences_table()


def test_every_edition_has_its_own_year_and_a_known_default() -> None:
    assert all(year == record.year for year, record in EDITIONS.items())
    assert edition(2025).models_summed and not edition(2024).models_summed


def _response(calls: list[str]) -> str:
    return "Here it is:\n```python\n" + "\n".join(calls) + "\n```\n"


def _competition(root: Path, prefix: str) -> None:
    """Two teams, letters A and B, two trials each: a stable column and a tower of bars."""
    for team in ("alpha", "beta"):
        for letter in ("A", "B"):
            for n in (1, 2):
                calls = [f"{prefix}('b13', {8 + n})", f"{prefix}('b13', {8 + n})"]
                if team == "beta":
                    calls = [f"{prefix}('b31', 10)"] * (n + 1)
                path = root / team / "raw" / letter / f"{team}_{letter}_{n}.txt"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(_response(calls), encoding="utf-8")


def test_a_fictional_2026_edition_runs_end_to_end_from_its_record_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(EDITIONS, 2026, FICTIONAL)
    root = tmp_path / "fictional"
    _competition(root, "place_block")
    result = CliRunner().invoke(pcg, ["evaluate", str(root), "--edition", "2026", "--workers", "1"])
    assert result.exit_code == 0, result.output
    # its drop function is the one extracted and built
    extracted = (root / "alpha" / "intermediate" / "A" / "alpha_A_1.txt").read_text("utf-8")
    assert extracted.startswith("place_block('b13', 9)")
    assert (root / "alpha" / "levels" / "A" / "alpha_A_1.xml").is_file()
    # its diversity stage ran, its result files are the three-factor ones, and its winner rule applied
    assert (root / "beta" / "diversity" / "B.json").is_file()
    with (root / "result" / "trial_scores.csv").open(encoding="utf-8") as file:
        assert "diversityScore" in next(csv.reader(file))
    winner = json.loads((root / "result" / "winner.json").read_text("utf-8"))
    assert "notCompeting" in winner
    # and a response in another edition's function is not code under this one
    assert "code_not_found" not in result.output


def test_the_fictional_edition_is_refused_where_its_record_says_it_has_no_such_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(EDITIONS, 2026, FICTIONAL)
    (tmp_path / "prompts").mkdir()
    refused = CliRunner().invoke(pcg, ["qualify", str(tmp_path / "prompts"), "--edition", "2026"])
    assert refused.exit_code == 2 and "2026 has no qualification script; use one of 2023" in refused.output
    unknown = CliRunner().invoke(pcg, ["extract", str(tmp_path), "--edition", "2027"])
    assert unknown.exit_code == 2 and "2027 is not an edition podium knows" in unknown.output
