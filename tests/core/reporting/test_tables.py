"""Tables rendered as text, JSON and Markdown."""

from __future__ import annotations

import json

from podium.core.reporting.tables import console_json, render_table


def test_render_table_formats() -> None:
    rows = [[1, "team a", "0.5"], [2, "b", "0.25"]]
    assert render_table(["rank", "team", "score"], rows).splitlines()[2] == "   1  team a    0.5"
    assert json.loads(render_table(["rank", "team", "score"], rows, "json"))[1] == {
        "rank": 2,
        "team": "b",
        "score": "0.25",
    }
    assert render_table(["rank", "team"], [[1, "a"]], "markdown").splitlines()[1] == "|-----:|------|"


def test_people_read_yes_and_no_and_json_keeps_booleans() -> None:
    rows = [[1, True, None], [2, False, 3]]
    assert render_table(["id", "practice", "L"], rows).splitlines()[2:] == [" 1  yes", " 2  no        3"]
    assert render_table(["id", "practice", "L"], rows, "csv").splitlines()[1:] == ["1,yes,", "2,no,3"]
    assert json.loads(render_table(["id", "practice", "L"], rows, "json"))[0]["practice"] is True


def test_the_one_json_printer_keeps_text_as_written() -> None:
    assert console_json({"user": "Zoë", "ok": True}) == '{\n  "user": "Zoë",\n  "ok": true\n}'
