"""The CSV dialect of the npm package json2csv, which the official ChatGPT4PCG scoring script writes its tables in.

Every header and string field in double quotes (inner quotes doubled), numbers bare, the system's line end
between lines (CRLF on Windows, LF elsewhere) and none after the last row.
"""

from __future__ import annotations

from collections.abc import Sequence

from podium.core.reporting.tables import Cell


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
