r"""Read the terms a program printed (docs/rules/dojo-platform.md §5).

One term per line. A line must match ``^-?(0|[1-9][0-9]*)$`` once trailing spaces, tabs and ``\r`` are removed;
empty lines at the end of the output are ignored. ``int()`` alone is not a parser here: it accepts ``1_000``,
`` +7 `` and non-ASCII digits. Only the first ``n_check`` lines are read: a golfer's endless generator is
stopped once it has printed enough, and what follows is never looked at. Terms stay decimal strings, so terms of
10,000 digits compare without Python's int/str conversion limit; ``-0`` is read as ``0``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TERM = re.compile(rb"-?(?:0|[1-9][0-9]*)")
_ALL_TERMS = re.compile(rb"(?:-?(?:0|[1-9][0-9]*)\n)*-?(?:0|[1-9][0-9]*)")


@dataclass(frozen=True, slots=True)
class Terms:
    """The first terms a program printed, or why its output is malformed."""

    values: tuple[str, ...]
    error: str | None = None  # set when the output breaks the format: FORMAT_ERROR


def complete_lines(stdout: bytes) -> int:
    r"""How many ``\n``-terminated lines ``stdout`` holds."""
    return stdout.count(b"\n")


def parse_terms(stdout: bytes, n_check: int, *, output_ended: bool) -> Terms:
    r"""The first ``n_check`` terms of ``stdout``.

    ``output_ended`` says the program finished its output (it exited); then a last line without ``\n`` counts
    and trailing empty lines are ignored. When the reader stopped the program, only complete lines count.
    """
    lines = stdout.split(b"\n")
    tail = lines.pop()  # after the last "\n": a partial line, or b"" when the output ends with "\n"
    if output_ended and tail:
        lines.append(tail)
    lines = [line.rstrip(b" \t\r") for line in lines[:n_check]]
    if output_ended:
        while lines and not lines[-1]:
            lines.pop()
    block = b"\n".join(lines)
    if _ALL_TERMS.fullmatch(block):  # the common case in one pass; otherwise the loop finds the first bad line
        return Terms(tuple("0" if term == "-0" else term for term in block.decode("ascii").split("\n")))
    values: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not TERM.fullmatch(line):
            shown = line[:40].decode("ascii", "backslashreplace") + ("..." if len(line) > 40 else "")
            return Terms(tuple(values), f"line {number} is not an integer in plain decimal: {shown!r}")
        values.append("0" if line == b"-0" else line.decode("ascii"))
    return Terms(tuple(values))
