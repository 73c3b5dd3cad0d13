"""Parse a solver as the sandbox runs it: with Python's limit on integer literals of over 4,300 digits lifted.

The sandbox lifts the limit (``PYTHONINTMAXSTRDIGITS=0``, docs/rules/dojo-platform.md §5), so a solver may hold a
literal of 4,400 digits and run. If the judge parsed it under the default limit, the static policy would reject it with
Python's advice to call ``sys.set_int_max_str_digits()``, which the contestant cannot act on. The limit is one setting
of the whole interpreter; it is lifted only while a source is parsed here (sources are at most 64 KiB, and converting
65,000 digits takes 20 ms), under a lock shared by every thread that parses.
"""

from __future__ import annotations

import ast
import contextlib
import sys
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_parsing = 0
_default = sys.get_int_max_str_digits()


@contextlib.contextmanager
def unlimited_int_digits() -> Iterator[None]:
    """Lift the limit on converting long decimal integers for the block (nested and concurrent blocks share it)."""
    global _parsing, _default
    with _lock:
        if _parsing == 0:
            _default = sys.get_int_max_str_digits()
            sys.set_int_max_str_digits(0)
        _parsing += 1
    try:
        yield
    finally:
        with _lock:
            _parsing -= 1
            if _parsing == 0:
                sys.set_int_max_str_digits(_default)


def parse_source(text: str) -> ast.Module:
    """``ast.parse`` of ``text`` as the sandboxed interpreter would read it (SyntaxError and the rest propagate)."""
    with unlimited_int_digits():
        return ast.parse(text, "<solver.py>")
