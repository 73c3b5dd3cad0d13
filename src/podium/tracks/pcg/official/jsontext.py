"""The text Python's ``json.dumps(value, indent=N)`` writes, made several times faster.

The official scripts write their JSON files with ``json.dumps(..., indent=N)``, and with an indent Python's
``json`` falls back from its C encoder to its pure-Python one: writing the similarity files took more time than
classifying their images. ``json_text`` writes the same characters (``tests/tracks/pcg/official/test_jsontext.py``
compares it with ``json.dumps`` on many documents) for what these files hold: dicts with string keys, lists,
tuples, strings, integers, floats (``NaN`` and ``Infinity`` as ``json`` writes them), booleans and None.
"""

from __future__ import annotations

import json.encoder
import math
from collections.abc import Callable
from typing import Any

# the C escaper where the interpreter has it (CPython), else json's own Python one: the same output either way
_escape = json.encoder.c_encode_basestring_ascii or json.encoder.py_encode_basestring_ascii  # type: ignore[attr-defined]


def _float_text(value: float) -> str:
    if math.isfinite(value):
        return float.__repr__(value)
    if value != value:
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


_SCALAR_TEXT: dict[type, Callable[[Any], str]] = {str: _escape, float: _float_text, int: int.__repr__}


def _write(value: object, out: list[str], newline: str, step: str) -> None:
    if isinstance(value, str):
        out.append(_escape(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float_text(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + step
        separator = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"keys must be strings here, not {type(key).__name__}")
            scalar = _SCALAR_TEXT.get(type(item))  # a record's scalars written here, without a call of _write each
            if scalar is not None:
                out.append(f"{separator}{_escape(key)}: {scalar(item)}")
            else:
                out.append(f"{separator}{_escape(key)}: ")
                _write(item, out, inner, step)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = newline + step
        if all(type(item) is float for item in value):  # a vector: the common case, written in one go
            out.append("[" + inner + ("," + inner).join(map(_float_text, value)) + newline + "]")
            return
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, out, inner, step)
            separator = "," + inner
        out.append(newline + "]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_text(value: object, indent: int) -> str:
    """``json.dumps(value, indent=indent)``, character for character."""
    out: list[str] = []
    _write(value, out, "\n", " " * indent)
    return "".join(out)
