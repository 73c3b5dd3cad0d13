"""The terms a solver prints: which lines count, and which are a format error."""

from __future__ import annotations

import pytest

from podium.tracks.dojo.terms import parse_terms


@pytest.mark.parametrize(
    ("stdout", "ended", "values", "error"),
    [
        (b"1\n2\n3\n", True, ("1", "2", "3"), None),
        (b"1\n2\n3", True, ("1", "2", "3"), None),  # last line without newline counts once the program exited
        (b"1\n2\n3", False, ("1", "2"), None),  # ...but not when the reader stopped the program mid-line
        (b"1 \t\r\n-2\r\n\n\n", True, ("1", "-2"), None),
        (b"-0\n", True, ("0",), None),
        (b"5\n-0\n-7\n10\n", False, ("5", "0", "-7", "10"), None),
        (b"5\n-0\n-7\n10 \n", False, ("5", "0", "-7", "10"), None),
        (b"", True, (), None),
        (b"1\n\n2\n", True, None, "line 2"),
        (b"1_000\n", True, None, "line 1"),
        (b"+7\n", True, None, "line 1"),
        (b" 7\n", True, None, "line 1"),
        (b"007\n", True, None, "line 1"),
        (b"1.0\n", True, None, "line 1"),
        ("\u0661\n".encode(), True, None, "line 1"),  # Arabic-Indic digit one
    ],
)
def test_term_lines(stdout: bytes, ended: bool, values: tuple[str, ...] | None, error: str | None) -> None:
    terms = parse_terms(stdout, 200, output_ended=ended)
    if error is None:
        assert terms.error is None and terms.values == values
    else:
        assert terms.error is not None and terms.error.startswith(error)


def test_only_the_first_n_check_lines_are_read() -> None:
    terms = parse_terms(b"1\n" * 3 + b"garbage\n", 3, output_ended=True)
    assert terms.error is None and terms.values == ("1", "1", "1")
