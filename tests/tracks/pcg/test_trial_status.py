"""Trial statuses come back from the folder alone: failures from the ledgers, stale ones ignored."""

from __future__ import annotations

import shutil
from pathlib import Path

from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.stages.simulate import run_simulate
from podium.tracks.pcg.trial_status import TrialStatus, trial_statuses


def test_a_level_that_failed_simulation_and_was_mended(pcg_data: Path, tmp_path: Path) -> None:
    levels = tmp_path / "root" / "t" / "levels" / "I"
    levels.mkdir(parents=True)
    good = sorted((pcg_data / "unity-2023" / "v1" / "levels" / "I").glob("*.xml"))[0]
    shutil.copy(good, levels / "t_I_1.xml")
    (levels / "t_I_2.xml").write_text("<Level><not-closed>")
    root = tmp_path / "root"
    run_simulate(open_competition(root, edition(2024)))
    statuses = trial_statuses(root)
    assert statuses[("t", "I", "1")] == TrialStatus("ok", "")
    assert statuses[("t", "I", "2")].verdict == "malformed_input"
    assert trial_statuses(root, prefix="m/")[("m/t", "I", "2")] == statuses[("t", "I", "2")]

    shutil.copy(good, levels / "t_I_2.xml")  # mended: the failure recorded before is now stale
    run_simulate(open_competition(root, edition(2024)))
    assert trial_statuses(root)[("t", "I", "2")] == TrialStatus("ok", "")


def test_a_level_whose_name_holds_a_backslash_is_simulated_like_any_other(pcg_data: Path, tmp_path: Path) -> None:
    levels = tmp_path / "root" / "t" / "levels" / "I"
    levels.mkdir(parents=True)
    good = sorted((pcg_data / "unity-2023" / "v1" / "levels" / "I").glob("*.xml"))[0]
    shutil.copy(good, levels / "t_I_1.xml")
    shutil.copy(good, levels / "odd\\name_I_2.xml")  # legal on POSIX; the job tags join paths with backslashes
    summary = run_simulate(open_competition(tmp_path / "root", edition(2024)))
    assert sorted((e.trial, e.verdict) for e in summary.events) == [("odd\\name_I_2.xml", "ok"), ("t_I_1.xml", "ok")]


def test_a_trial_generate_failed_says_why_until_a_later_run_writes_its_response(tmp_path: Path) -> None:
    from podium.tracks.pcg.run_outcomes import write_outcomes

    root = tmp_path / "root"
    raw = root / "t" / "raw" / "A"
    raw.mkdir(parents=True)
    (raw / "t_A_1.txt").write_text("drop_block('b11', 3)")
    down = ("A", 2, "model_error", "cannot reach http://127.0.0.1:9/v1/models")
    refused = ("A", 3, "program_rejected", "no file of the submission is a program")
    write_outcomes(root / "logs" / "t_raw_2026-11-29T10_00_00.000Z_.log", "t", [down, refused])
    statuses = trial_statuses(root)
    assert statuses[("t", "A", "1")] == TrialStatus("ok", "")
    assert statuses[("t", "A", "2")] == TrialStatus(
        "model_error", "generate: cannot reach http://127.0.0.1:9/v1/models"
    )
    assert statuses[("t", "A", "3")].verdict == "program_rejected"

    (raw / "t_A_2.txt").write_text("drop_block('b11', 4)")  # a rerun wrote it: the old failure no longer explains it
    write_outcomes(root / "logs" / "t_raw_2026-11-29T11_00_00.000Z_.log", "t", [refused])
    assert trial_statuses(root)[("t", "A", "2")] == TrialStatus("ok", "")
