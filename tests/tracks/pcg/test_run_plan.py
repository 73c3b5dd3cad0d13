"""What generate asked for (``logs/*.plan.json``): written per run, merged per team, said by evaluate."""

from __future__ import annotations

from pathlib import Path

from podium.tracks.pcg.run_plan import AskedTrials, asked_trials, describe_asked, write_plan


def test_a_teams_runs_merge_and_junk_is_ignored(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_plan(logs / "t_raw_2026_11_27_08_00_00_.log", "t", ["A", "I"], 1)
    write_plan(logs / "t_raw_2026_11_27_09_00_00_.log", "t", ["A", "B"], 3)  # a rerun asking for more
    write_plan(logs / "u_raw_2026_11_27_08_00_00_.log", "u", ["C"], 2)
    (logs / "v_raw_x.plan.json").write_text("{not json")
    (logs / "w_raw_x.plan.json").write_text('{"team": "w"}')
    asked = asked_trials(logs, "qwen/")
    assert asked == {"qwen/t": AskedTrials(frozenset("ABI"), 3), "qwen/u": AskedTrials(frozenset("C"), 2)}
    assert asked["qwen/t"].covers("B", 3) and not asked["qwen/t"].covers("B", 4) and not asked["qwen/t"].covers("C", 1)
    assert asked_trials(tmp_path / "nothing") == {}


def test_the_description_says_what_was_asked() -> None:
    one = AskedTrials(frozenset("IA"), 1)
    assert describe_asked({"a": one, "b": one}) == "generate asked for 2 letters (A, I) × 1 trial"
    assert describe_asked({"a": one, "b": AskedTrials(frozenset("Z"), 10)}) == (
        "generate asked for a: 2 letters (A, I) × 1 trial; b: 1 letter (Z) × 10 trials"
    )
    assert describe_asked({}) is None
