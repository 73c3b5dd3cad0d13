"""The stage ledger: it survives a torn line and notices changed inputs and outputs."""

from __future__ import annotations

from pathlib import Path

from podium.core.storage.state import StageLedger, content_key


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
