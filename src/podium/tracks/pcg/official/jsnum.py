"""JavaScript semantics the official TypeScript tools rely on, reproduced exactly.

- numbers: bignumber.js with its defaults (20 decimal places, ROUND_HALF_UP) for divisions, exact for +, -, ×;
  a JSON number enters as ``BigNumber(String(double))``, which is ``Decimal(repr(float))`` in value;
  ``toFixed()`` prints plain decimals without exponent or trailing zeros;
- strings: ``parseInt(s, 10)``, ``String.prototype.trim`` and ``substring`` with their exact edge cases.
"""

from __future__ import annotations

import math
import re
from decimal import Context, Decimal
from fractions import Fraction

DECIMAL_PLACES = 20
_EXACT = Context(prec=10_000)  # products of ~20-digit factors never come near this: + and × stay exact

# JS whitespace for trim() and \s (ECMAScript WhiteSpace + LineTerminator): not Python's \s, which differs.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WS_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"


def number_from_json(value: object) -> Decimal:
    """Turn a parsed JSON number into the Decimal bignumber.js would hold; NaN/Infinity raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a number: {value!r}")
    as_double = float(value)
    if not math.isfinite(as_double):
        raise ValueError(f"not a finite number: {value!r}")
    return Decimal(repr(as_double))


def add(a: Decimal, b: Decimal) -> Decimal:
    """Exact sum."""
    return _EXACT.add(a, b)


def mul(a: Decimal, b: Decimal) -> Decimal:
    """Exact product."""
    return _EXACT.multiply(a, b)


def sub(a: Decimal, b: Decimal) -> Decimal:
    """Exact difference."""
    return _EXACT.subtract(a, b)


def div(a: Decimal, b: Decimal | int) -> Decimal:
    """bignumber.js division: the exact quotient rounded half-up (away from zero) to 20 decimal places."""
    exact = Fraction(a) / Fraction(b)
    scaled = exact * 10**DECIMAL_PLACES
    magnitude = abs(scaled)
    whole = magnitude.numerator // magnitude.denominator
    if (magnitude - whole) * 2 >= 1:
        whole += 1
    return Decimal(-whole if scaled < 0 else whole).scaleb(-DECIMAL_PLACES)


def total(values: list[Decimal]) -> Decimal:
    """Exact sum of ``values`` (0 for none)."""
    result = Decimal(0)
    for value in values:
        result = _EXACT.add(result, value)
    return result


def to_fixed(value: Decimal) -> str:
    """``BigNumber.prototype.toFixed()`` without arguments: plain decimal, no exponent, no trailing zeros."""
    if value.is_zero():
        return "0"
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


_PARSE_INT = re.compile(r"([+-]?)([0-9]+)")


def js_parse_int(text: str) -> int | None:
    """``parseInt(text, 10)``; ``None`` stands for NaN."""
    match = _PARSE_INT.match(text.lstrip(JS_WHITESPACE))
    if match is None:
        return None
    value = int(match.group(2))
    return -value if match.group(1) == "-" else value


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogate_pair(match: re.Match[str]) -> str:
    code = ord(match.group(0)) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def as_utf16_units(text: str) -> str:
    """Spell characters above U+FFFF as surrogate pairs, so indices count UTF-16 code units as JavaScript's do."""
    return _ASTRAL.sub(_surrogate_pair, text)


def js_substring(text: str, start: int, end: int) -> str:
    """``String.prototype.substring(start, end)``: negatives clamp to 0, and swapped bounds are swapped back."""
    length = len(text)
    start = min(max(start, 0), length)
    end = min(max(end, 0), length)
    if start > end:
        start, end = end, start
    return text[start:end]
