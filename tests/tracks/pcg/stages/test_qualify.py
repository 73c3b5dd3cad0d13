"""The qualify stage driver: verdicts, warnings, the official log lines and the copied prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.errors import InputError
from podium.tracks.pcg.stages.qualify import run_qualify


def test_qualify_logs_copies_and_warns(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "good.txt").write_text("Build the <OBJECT> please.", "utf-8")
    (prompts / "none.txt").write_text("no token here", "utf-8")
    (prompts / "bytes.txt").write_bytes(b"bad \xff <OBJECT>")
    run = run_qualify(prompts)
    assert [(r.team, r.qualified) for r in run.results] == [("bytes", False), ("good", True), ("none", False)]
    assert len(run.warnings) == 1 and "not valid UTF-8" in run.warnings[0]
    assert sorted(p.name for p in run.qualified_dir.iterdir()) == ["good.txt"]
    (log,) = (tmp_path / "logs").glob("qualification_log_*.txt")
    lines = [line.split("] ", 1)[1] for line in log.read_text("utf-8").splitlines()]
    assert lines[1] == "Processing - team: good - words: 4 - Succeed"
    assert lines[2].startswith("Processing - team: none - words: 3 - Failed - no_object_token: ")


def test_qualify_without_copy_and_without_prompts(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    with pytest.raises(InputError, match="no prompt files"):
        run_qualify(prompts)
    (prompts / "good.txt").write_text("<OBJECT>", "utf-8")
    assert run_qualify(prompts, copy=False).results[0].qualified and not (tmp_path / "qualified").exists()
    with pytest.raises(InputError, match="prompt folder not found"):
        run_qualify(tmp_path / "missing")
