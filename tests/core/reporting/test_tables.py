"""Tables rendered as text, JSON and Markdown."""

from __future__ import annotations

import json

from podium.core.reporting.tables import render_table


def test_render_table_formats() -> None:
    rows = [[1, "team a", "0.5"], [2, "b", "0.25"]]
    assert render_table(["rank", "team", "score"], rows).splitlines()[2] == "   1  team a    0.5"
    assert json.loads(render_table(["rank", "team", "score"], rows, "json"))[1] == {
        "rank": 2,
        "team": "b",
        "score": "0.25",
    }
    assert render_table(["rank", "team"], [[1, "a"]], "markdown").splitlines()[1] == "|-----:|------|"
