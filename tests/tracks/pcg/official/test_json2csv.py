"""json2csv as the official scripts call it: quoted strings, bare numbers, no final line end."""

from __future__ import annotations

from podium.tracks.pcg.official.json2csv import json2csv_text


def test_json2csv_quotes_strings_leaves_numbers_bare_and_has_no_final_eol() -> None:
    text = json2csv_text(["team", "trial"], [['say "hi"', 3], ["b", 10]], eol="\r\n")
    assert text == '"team","trial"\r\n"say ""hi""",3\r\n"b",10'
