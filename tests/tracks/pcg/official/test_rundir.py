"""Team folders: the official rule and each platform's order."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.errors import InputError
from podium.tracks.pcg.official.rundir import Platform, list_team_dirs


def test_team_folders_follow_the_official_rule_and_platform_order(tmp_path: Path) -> None:
    for name in ["beta", "Alpha", "_x", ".hidden", "logs", "result", "ChuangYe", "baseline_zero_shot"]:
        (tmp_path / name).mkdir()
    (tmp_path / "file.txt").write_text("")
    assert list_team_dirs(tmp_path) == ["Alpha", "ChuangYe", "_x", "baseline_zero_shot", "beta"]
    assert list_team_dirs(tmp_path, Platform.WINDOWS) == ["Alpha", "baseline_zero_shot", "beta", "ChuangYe", "_x"]


def test_missing_root_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist") as info:
        list_team_dirs(tmp_path / "nope")
    assert info.value.fix and info.value.exit_code == 2
