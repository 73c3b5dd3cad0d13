"""Stage drivers on real folders: resumability, bad input, and one bad item never stopping a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from podium.core.errors import InputError
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.stages.build import run_build
from podium.tracks.pcg.stages.driver import StageSettings
from podium.tracks.pcg.stages.extract import run_extract
from podium.tracks.pcg.stages.score import ScoreOptions, run_score

GOOD = "Here you go:\n```python\ndrop_block('b31', 8)\ndrop_block('b13', 8)\n```\n"


def make_raw(root: Path, team: str, char: str, trial: int, text: str | bytes) -> Path:
    path = root / team / "raw" / char / f"{team}_{char}_{trial}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_rerun_skips_current_outputs_and_redoes_changed_ones(tmp_path: Path) -> None:
    ed = edition(2024)
    make_raw(tmp_path, "t", "A", 1, GOOD)
    second = make_raw(tmp_path, "t", "A", 2, GOOD)
    assert [e.verdict for e in run_extract(open_competition(tmp_path, ed)).events] == ["ok", "ok"]
    assert [e.verdict for e in run_extract(open_competition(tmp_path, ed)).events] == ["skipped", "skipped"]
    second.write_text(GOOD.replace("'b31', 8", "'b11', 3"))
    assert sorted(e.verdict for e in run_extract(open_competition(tmp_path, ed)).events) == ["ok", "skipped"]
    assert "b11" in (tmp_path / "t" / "intermediate" / "A" / "t_A_2.txt").read_text()
    # a deleted output is redone; --force redoes everything
    (tmp_path / "t" / "intermediate" / "A" / "t_A_1.txt").unlink()
    assert sorted(e.verdict for e in run_extract(open_competition(tmp_path, ed)).events) == ["ok", "skipped"]
    assert [e.verdict for e in run_extract(open_competition(tmp_path, ed), StageSettings(force=True)).events] == [
        "ok",
        "ok",
    ]
    # another edition is another setting: outputs are redone with the 2023 prefix (and now fail)
    assert {e.verdict for e in run_extract(open_competition(tmp_path, edition(2023))).events} == {"code_not_found"}


def test_an_input_that_now_fails_removes_its_stale_output(tmp_path: Path) -> None:
    raw = make_raw(tmp_path, "t", "A", 1, GOOD)
    run_extract(open_competition(tmp_path, edition(2024)))
    output = tmp_path / "t" / "intermediate" / "A" / "t_A_1.txt"
    assert output.exists()
    raw.write_text("I cannot draw that.")
    assert [e.verdict for e in run_extract(open_competition(tmp_path, edition(2024))).events] == ["code_not_found"]
    assert not output.exists()
    # a rerun replays the recorded failure instead of recomputing it, and still reports it
    again = run_extract(open_competition(tmp_path, edition(2024)))
    assert [(e.verdict, e.reason) for e in again.events] == [("code_not_found", "Code not found.")]


def test_bad_items_are_reported_and_the_rest_still_runs(tmp_path: Path) -> None:
    make_raw(tmp_path, "good", "A", 1, GOOD)
    make_raw(tmp_path, "latin1", "B", 1, GOOD.replace("Here", "H\xe9re").encode("latin-1"))
    make_raw(tmp_path, "utf16", "C", 1, GOOD.encode("utf-16"))
    locked = make_raw(tmp_path, "locked", "D", 1, GOOD)
    (tmp_path / "good" / "raw" / "notes.txt").write_text("stray")
    (tmp_path / "nothing").mkdir()
    os.chmod(locked, 0)
    try:
        summary = run_extract(open_competition(tmp_path, edition(2024)))
    finally:
        os.chmod(locked, 0o644)
    verdicts = {e.team: e.verdict for e in summary.events}
    assert verdicts["good"] == "ok" and verdicts["latin1"] == "ok"  # bad bytes replaced, the code survives
    assert verdicts["utf16"] == "code_not_found"  # decoded as UTF-8 it holds no fence, as in the official tool
    if os.geteuid() != 0:  # root reads any file
        assert verdicts["locked"] == "unreadable_input"
    warnings = "\n".join(summary.warnings)
    assert "stray file" in warnings and "notes.txt" in warnings
    assert "team nothing: nothing to do: it has no raw/ folder (run generate first)" in warnings
    assert "not valid UTF-8" in warnings and "UTF-16" in warnings


def test_empty_root_and_missing_root_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no team folders"):
        run_build(open_competition(tmp_path, edition(2024)))
    with pytest.raises(InputError, match="does not exist"):
        run_build(open_competition(tmp_path / "missing", edition(2024)))


def write_scores(root: Path, team: str, char: str, sta: list[float], sim: list[float]) -> None:
    stability = {"raws": [{"tag": f"x\\{team}_{char}_{n}.xml", "score": s} for n, s in enumerate(sta, 1)]}
    similarity = {"trials": [{"id": f"{team}_{char}_{n}.png", "similarity": s} for n, s in enumerate(sim, 1)]}
    for stage, document in (("stability", stability), ("similarity", similarity)):
        path = root / team / stage / f"{char}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document))


def test_score_reports_inconsistent_teams_instead_of_aborting(tmp_path: Path) -> None:
    write_scores(tmp_path, "a", "A", [1.0] * 10, [0.5] * 10)
    write_scores(tmp_path, "b", "A", [1.0] * 10, [0.25] * 10)
    write_scores(tmp_path, "b", "B", [1.0] * 10, [0.25] * 10)
    (tmp_path / "b" / "similarity" / "B.json").unlink()  # b: 2 stability files, 1 similarity file
    (tmp_path / "a" / "stability" / "A.json").write_text("{oops")  # unreadable: counts as absent
    (tmp_path / "empty").mkdir()
    nan_file = tmp_path / "b" / "stability" / "B.json"
    nan_file.write_text(nan_file.read_text().replace('"score": 1.0}]', '"score": NaN}]'))
    run = run_score(open_competition(tmp_path, edition(2023)))
    warnings = "\n".join(run.warnings)
    assert "team b: different numbers of files (stability/ 2, similarity/ 1)" in warnings
    assert "not valid JSON" in warnings and "team empty: no score input files" in warnings
    assert "raws[9] has no usable 'tag'/'score' (not a finite number: nan); left out" in warnings
    assert [t.team for t in run.leaderboard] == ["b", "a", "empty"]
    assert (tmp_path / "result" / "prompt_scores_ranks.csv").exists()
    with pytest.raises(InputError, match="different numbers of files"):
        run_score(open_competition(tmp_path, edition(2023)), ScoreOptions(strict=True))


def test_2025_multi_model_root_sums_models_before_normalising(tmp_path: Path) -> None:
    for model, sims in (("qwen", (0.5, 0.25)), ("gemma", (0.1, 0.4)), ("phi", (0.2, 0.2))):
        for team, sim in zip(("alpha", "beta"), sims, strict=True):
            write_scores(tmp_path / model, team, "A", [1.0] * 10, [sim] * 10)
            for char in ("A",):
                div = tmp_path / model / team / "diversity" / f"{char}.json"
                div.parent.mkdir(parents=True, exist_ok=True)
                div.write_text(json.dumps({"diversityRate": 0.5}))
    run = run_score(open_competition(tmp_path, edition(2025)))
    assert set(run.models) == {"qwen", "gemma", "phi"}
    per_model = {}
    for model in run.models:
        single = run_score(open_competition(tmp_path / model, edition(2025)))
        per_model[model] = {t.team: t.prompt for t in single.leaderboard}
    for team in run.leaderboard:
        assert team.prompt == sum(per_model[m][team.team] for m in run.models)
    assert sum(t.normalized for t in run.leaderboard) == 100
    for model in run.models:
        assert (tmp_path / model / "result" / "trial_scores.csv").exists()
    model_rows = (tmp_path / "result" / "model_scores.csv").read_text().splitlines()
    assert model_rows[0] == '"team","model","promptScore","normalizedModelScore"' and len(model_rows) == 7


def test_trial_stages_run_in_every_model_folder_of_a_multi_model_root(tmp_path: Path) -> None:
    for model in ("qwen", "phi"):
        make_raw(tmp_path / model, "team", "A", 1, GOOD)
    summary = run_extract(open_competition(tmp_path, edition(2025)))
    assert [e.verdict for e in summary.events] == ["ok", "ok"]
    for model in ("qwen", "phi"):
        assert (tmp_path / model / "team" / "intermediate" / "A" / "team_A_1.txt").exists()
        assert list((tmp_path / model / "logs").glob("extract_log_*.txt"))


def test_ties_follow_the_published_rule_unless_official_ranks_are_asked(tmp_path: Path) -> None:
    from podium.cli.main import main

    for team in ("long", "short"):
        write_scores(tmp_path / "root", team, "A", [1.0] * 10, [0.5] * 10)
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "long.txt").write_text("draw the letter <OBJECT> with care and many words")
    (prompts / "short.txt").write_text("draw <OBJECT>")

    def ranks(*args: str) -> list[tuple[str, str]]:
        with pytest.raises(SystemExit):
            main(["pcg", "score", str(tmp_path / "root"), "--edition", "2023", *args])
        rows = (tmp_path / "root" / "result" / "prompt_scores_ranks.csv").read_text().splitlines()[1:]
        return [(row.split(",")[0].strip('"'), row.split(",")[3]) for row in rows]

    assert ranks("--prompts", str(prompts)) == [("short", "1"), ("long", "2")]
    assert ranks() == [("long", "1"), ("short", "1")]  # co-winners without prompt lengths
    assert ranks("--official-ranks") == [("long", "1"), ("short", "2")]  # the script: folder order


def test_one_item_is_written_skipped_replayed_and_redone_by_the_shared_driver(tmp_path: Path) -> None:
    from podium.core.records import StageFailure
    from podium.tracks.pcg.stages.driver import TransformResult, stage_run
    from podium.tracks.pcg.verdicts import PcgVerdict

    source = make_raw(tmp_path, "T", "A", 1, "fine")
    output = tmp_path / "T" / "out" / "A" / "T_A_1.txt"

    def upper(data: bytes, _: Path) -> TransformResult:
        if b"bad" in data:
            return TransformResult(StageFailure(PcgVerdict.CODE_NOT_FOUND, "Code not found."), ("a warning",))
        return TransformResult(data.upper())

    def judge(force: bool = False) -> tuple[str, str]:
        with stage_run(tmp_path, "demo", force=force) as run:
            event = run.judge_item("T", "A", source.name, source, output, "v1", upper)
            run.item(event)
        return event.verdict, event.reason

    assert judge() == ("ok", "") and output.read_bytes() == b"FINE"
    assert judge() == ("skipped", "")
    assert judge(force=True) == ("ok", "")
    source.write_text("bad", "utf-8")
    assert judge() == ("code_not_found", "Code not found.") and not output.exists()  # the stale output is gone
    assert judge() == ("code_not_found", "Code not found.")  # replayed from the ledger, not recomputed
    ledger = tmp_path / ".podium" / "state" / "demo.jsonl"
    ledger.write_text(ledger.read_text("utf-8").replace("code_not_found", "renamed_verdict"), "utf-8")
    assert judge() == ("code_not_found", "Code not found.")  # a verdict the enum no longer has is redone
    with stage_run(tmp_path, "demo", ledger=False) as run, pytest.raises(RuntimeError, match="keeps no ledger"):
        run.is_current(output, "v1")


def test_missing_stage_folders_and_stray_files_are_warnings(tmp_path: Path) -> None:
    make_raw(tmp_path, "A", "A", 1, GOOD)
    (tmp_path / "A" / "raw" / "notes.txt").write_text("x")
    (tmp_path / "B").mkdir()
    summary = run_extract(open_competition(tmp_path, edition(2024)))
    assert [e.verdict for e in summary.events] == ["ok"]
    assert any("stray file" in w and "notes.txt" in w for w in summary.warnings)
    assert "team B: nothing to do: it has no raw/ folder (run generate first)" in summary.warnings
