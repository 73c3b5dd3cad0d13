from __future__ import annotations

import json
from pathlib import Path

import pytest

from podium.core.errors import InputError
from podium.core.reporting.tables import render_table
from podium.core.storage.files import read_json, write_atomic
from podium.core.storage.state import StageLedger, content_key


def test_render_table_formats() -> None:
    rows = [[1, "team a", "0.5"], [2, "b", "0.25"]]
    assert render_table(["rank", "team", "score"], rows).splitlines()[2] == "   1  team a    0.5"
    assert json.loads(render_table(["rank", "team", "score"], rows, "json"))[1] == {
        "rank": 2,
        "team": "b",
        "score": "0.25",
    }
    assert render_table(["rank", "team"], [[1, "a"]], "markdown").splitlines()[1] == "|-----:|------|"


def test_read_json_names_the_file_and_the_spot(tmp_path: Path) -> None:
    bad = tmp_path / "A.json"
    bad.write_text('{"a": 1,}')
    with pytest.raises(InputError) as info:
        read_json(bad)
    assert str(bad) in info.value.describe() and "line 1" in info.value.message


def test_write_atomic_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "out.txt"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two" and [p.name for p in target.parent.iterdir()] == ["out.txt"]
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"")
    assert target.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777  # not mkstemp's private 0600


def test_ledger_survives_a_torn_line_and_detects_changes(tmp_path: Path) -> None:
    output = tmp_path / "team" / "out.txt"
    output.parent.mkdir()
    output.write_text("x")
    key = content_key("stage", "1", b"input")
    failed = tmp_path / "team" / "failed.txt"
    with StageLedger(tmp_path, "extract") as ledger:
        assert ledger.recall(output, key) is None
        ledger.record(output, key)
        ledger.record(failed, key, ("code_not_found", "Code not found."))
    ledger_file = tmp_path / ".podium" / "state" / "extract.jsonl"
    ledger_file.write_text(ledger_file.read_text() + '{"output": "team/ot')  # killed mid-write
    with StageLedger(tmp_path, "extract") as ledger:
        assert ledger.recall(output, key) is not None
        assert ledger.recall(output, content_key("stage", "1", b"changed input")) is None
        recalled = ledger.recall(failed, key)
        assert recalled is not None and recalled.failure == ("code_not_found", "Code not found.")
        failed.write_text("an output appeared where a failure was recorded")
        assert ledger.recall(failed, key) is None
        output.unlink()
        assert ledger.recall(output, key) is None
