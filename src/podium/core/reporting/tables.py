"""Write tables in the formats people and official tools read.

``json2csv_text`` reproduces the CSV dialect of the npm package json2csv that the official ChatGPT4PCG scoring
script uses: every header and string field in double quotes (inner quotes doubled), numbers bare, the system's
line end between lines (CRLF on Windows, LF elsewhere) and none after the last row. ``render_table`` prints a
leaderboard for a terminal, as Markdown, CSV or JSON.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

Cell = str | int | float | None


def _json2csv_cell(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + value.replace('"', '""') + '"'


def json2csv_text(header: Sequence[str], rows: Sequence[Sequence[Cell]], eol: str = "\r\n") -> str:
    """Return the CSV text json2csv writes for ``rows`` under ``header`` with line end ``eol``."""
    lines = [",".join(_json2csv_cell(name) for name in header)]
    lines.extend(",".join(_json2csv_cell(cell) for cell in row) for row in rows)
    return eol.join(lines)


def render_table(header: Sequence[str], rows: Sequence[Sequence[Cell]], fmt: str = "table") -> str:
    """Render ``rows`` as ``table`` (aligned text), ``markdown``, ``csv`` (RFC 4180) or ``json`` (list of objects)."""
    text_rows = [["" if cell is None else str(cell) for cell in row] for row in rows]
    if fmt == "json":
        return json.dumps([dict(zip(header, row, strict=True)) for row in rows], indent=2, ensure_ascii=False)
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


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
