"""Node-style decoding of contestants' text: bad bytes replaced and reported."""

from __future__ import annotations

from pathlib import Path

from podium.tracks.pcg.official.text import decode_utf8


def test_bad_utf8_is_replaced_like_node_and_reported(tmp_path: Path) -> None:
    decoded = decode_utf8(b"ok \xff end", tmp_path / "r.txt")
    assert decoded.text == "ok \ufffd end"
    assert decoded.warning is not None and "offset 3" in decoded.warning
    utf16_warning = decode_utf8("héllo".encode("utf-16"), tmp_path / "r.txt").warning
    assert utf16_warning is not None and "UTF-16" in utf16_warning
    assert decode_utf8("héllo".encode(), tmp_path / "r.txt").warning is None
