"""The formats only ChatGPT4PCG speaks: team folders and their order, Node-style decoding, json2csv, log lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.errors import InputError
from podium.tracks.pcg.official.json2csv import json2csv_text
from podium.tracks.pcg.official.rundir import Platform, list_team_dirs
from podium.tracks.pcg.official.stagelog import ItemEvent, StageLog
from podium.tracks.pcg.official.text import decode_utf8
from podium.tracks.pcg.verdicts import PcgVerdict


def test_json2csv_quotes_strings_leaves_numbers_bare_and_has_no_final_eol() -> None:
    text = json2csv_text(["team", "trial"], [['say "hi"', 3], ["b", 10]], eol="\r\n")
    assert text == '"team","trial"\r\n"say ""hi""",3\r\n"b",10'


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


def test_bad_utf8_is_replaced_like_node_and_reported(tmp_path: Path) -> None:
    decoded = decode_utf8(b"ok \xff end", tmp_path / "r.txt")
    assert decoded.text == "ok \ufffd end"
    assert decoded.warning is not None and "offset 3" in decoded.warning
    utf16_warning = decode_utf8("héllo".encode("utf-16"), tmp_path / "r.txt").warning
    assert utf16_warning is not None and "UTF-16" in utf16_warning
    assert decode_utf8("héllo".encode(), tmp_path / "r.txt").warning is None


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
