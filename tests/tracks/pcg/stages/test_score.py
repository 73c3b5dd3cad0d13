"""The score stage declares the 2025 winner in ``result/winner.json`` and on the console, official files unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from podium.tracks.pcg.cli import pcg
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.stages.score import ScoreOptions, run_score

OFFICIAL = ["character_scores.csv", "constants.json", "prompt_scores_ranks.csv", "trial_scores.csv"]


def make_team(root: Path, team: str, stability: float) -> None:
    """One character (A), ten trials; the stability value sets the team's score."""
    files = {
        "stability": {"raws": [{"tag": f"{team}_A_{n}.xml", "score": stability} for n in range(1, 11)]},
        "similarity": {"trials": [{"id": f"{team}_A_{n}.png", "similarity": 0.5} for n in range(1, 11)]},
        "diversity": {"diversityRate": 0.5},
    }
    for stage, document in files.items():
        (root / team / stage).mkdir(parents=True, exist_ok=True)
        (root / team / stage / "A.json").write_text(json.dumps(document))


def competition(root: Path, teams: dict[str, float]) -> Path:
    for team, stability in teams.items():
        make_team(root, team, stability)
    return root


def winner_file(root: Path) -> dict[str, object]:
    document: dict[str, object] = json.loads((root / "result" / "winner.json").read_text())
    return document


def test_winner_file_beside_unchanged_official_files(tmp_path: Path) -> None:
    teams = {"alpha": 0.9, "baseline_zero_shot": 0.6, "baseline_zero_shot_multi_turn": 1.0, "beta": 0.5}
    root = competition(tmp_path / "y2025", teams)
    run = run_score(open_competition(root, edition(2025)))
    assert run.winner is not None and run.winner.winners == ("alpha",)  # the strong baseline does not compete
    document = winner_file(root)
    assert document["outcome"] == "winner" and document["winners"] == ["alpha"]
    assert document["notCompeting"] == ["baseline_zero_shot", "baseline_zero_shot_multi_turn"]

    older = competition(tmp_path / "y2024", teams)
    assert run_score(open_competition(older, edition(2024))).winner is None
    assert sorted(p.name for p in (older / "result").iterdir()) == OFFICIAL
    assert sorted(p.name for p in (root / "result").iterdir()) == sorted([*OFFICIAL, "winner.json"])
    for name in OFFICIAL:
        assert (root / "result" / name).read_bytes() == (older / "result" / name).read_bytes()


def test_no_team_beats_the_baseline(tmp_path: Path) -> None:
    root = competition(tmp_path, {"alpha": 0.5, "baseline_zero_shot": 0.7})
    run_score(open_competition(root, edition(2025)))
    document = winner_file(root)
    assert document["outcome"] == "no team beats the baseline" and document["winners"] == []


def test_named_baseline_and_not_competing(tmp_path: Path) -> None:
    root = competition(tmp_path, {"alpha": 0.5, "organisers": 0.9, "zs": 0.4})
    run = run_score(
        open_competition(root, edition(2025)), ScoreOptions(baseline="zs", not_competing=frozenset({"organisers"}))
    )
    assert run.winner is not None and run.winner.winners == ("alpha",)


def test_multi_model_root_declares_on_the_summed_totals(tmp_path: Path) -> None:
    # mirrored models: equal weights, so alpha and beta have equal totals (no prompts given: co-winners)
    competition(tmp_path / "qwen", {"alpha": 0.9, "beta": 0.2, "baseline_zero_shot": 0.5})
    competition(tmp_path / "gemma", {"alpha": 0.2, "beta": 0.9, "baseline_zero_shot": 0.5})
    run = run_score(open_competition(tmp_path, edition(2025)))
    assert run.models and run.winner is not None
    assert run.winner.outcome.value == "co-winners" and run.winner.winners == ("alpha", "beta")
    assert winner_file(tmp_path)["winners"] == ["alpha", "beta"]
    assert not (tmp_path / "qwen" / "result" / "winner.json").exists()


def test_cli_breaks_the_tie_with_program_prompts_and_says_so(tmp_path: Path) -> None:
    root = competition(tmp_path / "run", {"alpha": 0.8, "beta": 0.8, "baseline_zero_shot": 0.5})
    programs = tmp_path / "programs"
    programs.mkdir()
    (programs / "alpha.py").write_text('PROMPT = "draw the letter <OBJECT> with blocks please"\n')
    (programs / "beta").mkdir()
    (programs / "beta" / "main.py").write_text('PROMPT = "draw <OBJECT>"\n')
    args = ["score", str(root), "--prompts", str(programs)]
    result = CliRunner().invoke(pcg, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "winner: beta" in result.output and "decided by shorter prompt" in result.output
    assert winner_file(root)["decidedBy"] == "shorter prompt"


def test_cli_says_when_the_baseline_is_missing(tmp_path: Path) -> None:
    root = competition(tmp_path, {"alpha": 0.8, "beta": 0.3})
    result = CliRunner().invoke(pcg, ["score", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "the zero-shot baseline 'baseline_zero_shot' was not scored" in result.output
    assert "no winner declared; highest total: alpha" in result.output
