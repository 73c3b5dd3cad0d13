"""Write tables in the formats people read: ``render_table`` prints a leaderboard as text, Markdown, CSV or JSON.

A competition's own table dialects (ChatGPT4PCG's json2csv, say) live in its track.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

Cell = str | int | float | None


def console_json(value: Any) -> str:
    """Any JSON value as the console prints it: indented by 2, non-ASCII as itself (one printer for every command)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def render_table(header: Sequence[str], rows: Sequence[Sequence[Cell]], fmt: str = "table") -> str:
    """Render ``rows`` as ``table`` (aligned text), ``markdown``, ``csv`` (RFC 4180) or ``json`` (list of objects).

    Text for people says ``yes``/``no`` for a boolean, as the pages do (not Python's ``True``/``False``), and
    nothing for a missing value; JSON keeps JSON's types.
    """
    text_rows = [[_text(cell) for cell in row] for row in rows]
    if fmt == "json":
        return console_json([dict(zip(header, row, strict=True)) for row in rows])
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(text_rows)
        return buffer.getvalue().rstrip("\n")
    widths = [max([len(name), *(len(row[i]) for row in text_rows)]) for i, name in enumerate(header)]
    numeric = [all(_looks_numeric(row[i]) for row in text_rows) and text_rows != [] for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric, strict=True)]
        return ("| " + " | ".join(padded) + " |") if fmt == "markdown" else "  ".join(padded).rstrip()

    out = [line(list(header))]
    if fmt == "markdown":
        out.append(
            "|"
            + "|".join(
                ("-" * (w + 1) + ":") if num else ("-" * (w + 2)) for w, num in zip(widths, numeric, strict=True)
            )
            + "|"
        )
    else:
        out.append("  ".join("-" * w for w in widths))
    out.extend(line(row) for row in text_rows)
    return "\n".join(out)


def _text(cell: Cell) -> str:
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    return "" if cell is None else str(cell)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
