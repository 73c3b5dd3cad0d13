"""The official stage log lines, and none for skipped items."""

from __future__ import annotations

from pathlib import Path

from podium.tracks.pcg.official.stagelog import ItemEvent, StageLog
from podium.tracks.pcg.verdicts import PcgVerdict


def test_stage_log_writes_the_official_lines_and_none_for_skipped_items(tmp_path: Path) -> None:
    with StageLog(tmp_path, "extract") as log:
        log.item(ItemEvent("T", "A", "T_A_1.txt", PcgVerdict.OK))
        log.item(ItemEvent("T", "A", "T_A_2.txt", PcgVerdict.SKIPPED))
        log.item(ItemEvent("T", "B", "T_B_1.txt", PcgVerdict.CODE_NOT_FOUND, "Code not found."))
        log.warn("stray file")
    assert log.path is not None and log.path.parent == tmp_path / "logs" and log.path.name.startswith("extract_log_")
    lines = [line.split("] ", 1)[1] for line in log.path.read_text("utf-8").splitlines()]
    assert lines == [
        "Processing - team: T - character: A - trial: T_A_1.txt - Succeed",
        "Processing - team: T - character: B - trial: T_B_1.txt - Failed - Code not found.",
        "Warning - stray file",
    ]
    assert [event.failed for event in log.events] == [False, False, True] and log.warnings == ["stray file"]
