"""Recurrence guessers over a prime field: is a sequence recoverable from a prefix without understanding it?

Two guessers, both exact modulo the prime 2^61 − 1 (a term's residue stands for the term; a false match has
odds of about 2^-61 per term):

- **C-finite** (``berlekamp_massey``): the shortest linear recurrence with constant coefficients,
  ``a(n) = c1·a(n−1) + … + cr·a(n−r)`` — Fibonacci, polynomials, sums of geometric terms.
- **P-recursive** (``p_recursive``): ``P0(n)·a(n) + P1(n)·a(n−1) + … + Pr(n)·a(n−r) = 0`` with polynomials
  ``Pi`` of small degree — factorials, Catalan and Motzkin numbers, central binomials, derangements.

A recurrence found in a prefix counts only when the prefix *determines* it (more equations than unknowns, with a
margin), and it is trusted only when it then predicts every later term. Used by setter validation (the "too easy"
warning, docs/rules/dojo-platform.md §4) and by the method-tag review (a ``linear_recurrence`` claim must show one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

PRIME = (1 << 61) - 1
# The search space of the P-recursive guesser: orders 1..3 with coefficient polynomials of degree 0..3 ("small").
MAX_P_ORDER = 3
MAX_P_DEGREE = 3
# Equations beyond the unknowns a prefix must supply before a fitted P-recursive recurrence is believed.
P_MARGIN = 4


# Decimal digits converted at a time: under Python's default limit on int(str) (4,300 digits), which terms of up to
# 10,000 digits would exceed.
CHUNK_DIGITS = 4000


def residues(terms: Sequence[str | int], prime: int = PRIME) -> list[int]:
    """The terms modulo ``prime``."""
    return [term % prime if isinstance(term, int) else residue(term, prime) for term in terms]


def residue(term: str, prime: int = PRIME) -> int:
    """A decimal term (``-`` allowed) modulo ``prime``, however many digits it has."""
    digits = term.removeprefix("-")
    value = 0
    for start in range(0, len(digits), CHUNK_DIGITS):
        chunk = digits[start : start + CHUNK_DIGITS]
        value = (value * pow(10, len(chunk), prime) + int(chunk)) % prime
    return -value % prime if term.startswith("-") else value


def berlekamp_massey(values: Sequence[int], prime: int = PRIME) -> list[int]:
    """The shortest ``c`` with ``v[n] = Σ c[i]·v[n−1−i] (mod prime)`` for every ``n`` ≥ ``len(c)`` in ``values``."""
    current: list[int] = []
    previous: list[int] = []
    last_discrepancy, shift = 1, 1
    for n, value in enumerate(values):
        discrepancy = (value - sum(c * values[n - 1 - i] for i, c in enumerate(current))) % prime
        if discrepancy == 0:
            shift += 1
            continue
        factor = discrepancy * pow(last_discrepancy, prime - 2, prime) % prime
        candidate = current + [0] * max(0, len(previous) + shift - len(current))
        candidate[shift - 1] = (candidate[shift - 1] + factor) % prime
        for i, c in enumerate(previous):
            candidate[shift + i] = (candidate[shift + i] - factor * c) % prime
        if 2 * len(current) <= n:
            previous, last_discrepancy, shift = current, discrepancy, 1
        else:
            shift += 1
        current = candidate
    return current


def linear_recurrence_order(terms: Sequence[str | int], n_known: int, prime: int = PRIME) -> int | None:
    """The order of a constant-coefficient recurrence fixed by the first ``n_known`` terms and predicting all."""
    values = residues(terms, prime)
    recurrence = berlekamp_massey(values[:n_known], prime)
    if 2 * len(recurrence) > n_known:  # not determined by the known terms: any sequence fits such a one
        return None
    order = len(recurrence)
    for n in range(order, len(values)):
        if sum(c * values[n - 1 - i] for i, c in enumerate(recurrence)) % prime != values[n]:
            return None
    return order


@dataclass(frozen=True, slots=True)
class PRecurrence:
    """``Σ_i P_i(n)·a(n−i) = 0``; ``coefficients[i][k]`` is the coefficient of ``n^k`` in ``P_i``."""

    order: int
    degree: int
    coefficients: tuple[tuple[int, ...], ...]

    def residual(self, values: Sequence[int], n: int, prime: int = PRIME) -> int:
        """The left-hand side at ``n`` (zero where the recurrence holds)."""
        return sum(_poly(p, n, prime) * values[n - i] for i, p in enumerate(self.coefficients)) % prime

    def predicts(self, values: Sequence[int], start: int, prime: int = PRIME) -> bool:
        """Whether it holds throughout and computes every term from ``start`` on (P0(n) ≠ 0 there)."""
        for n in range(self.order, len(values)):
            if n >= start and _poly(self.coefficients[0], n, prime) == 0:
                return False
            if self.residual(values, n, prime):
                return False
        return True


def p_recursive(
    terms: Sequence[str | int],
    n_known: int,
    *,
    max_order: int = MAX_P_ORDER,
    max_degree: int = MAX_P_DEGREE,
    prime: int = PRIME,
) -> PRecurrence | None:
    """The smallest P-recursive recurrence fitted to the first ``n_known`` terms that predicts all, or None.

    Shapes are tried by their number of unknowns; constant-coefficient recurrences are the degree-0 shapes.
    """
    values = residues(terms, prime)
    shapes = sorted(
        ((order, degree) for order in range(1, max_order + 1) for degree in range(max_degree + 1)),
        key=lambda shape: ((shape[0] + 1) * (shape[1] + 1), shape),
    )
    for order, degree in shapes:
        unknowns = (order + 1) * (degree + 1)
        if n_known - order < unknowns + P_MARGIN:
            continue  # too few equations: a fit would prove nothing
        rows = [
            [pow(n, k, prime) * values[n - i] % prime for i in range(order + 1) for k in range(degree + 1)]
            for n in range(order, n_known)
        ]
        for solution in _null_space(rows, unknowns, prime):
            coefficients = tuple(tuple(solution[i * (degree + 1) : (i + 1) * (degree + 1)]) for i in range(order + 1))
            if not any(coefficients[0]):
                continue
            found = PRecurrence(order, degree, coefficients)
            if found.predicts(values, n_known, prime):
                return found
    return None


def _poly(coefficients: Sequence[int], n: int, prime: int) -> int:
    result = 0
    for c in reversed(coefficients):
        result = (result * n + c) % prime
    return result


def _null_space(rows: list[list[int]], width: int, prime: int) -> list[list[int]]:
    """A basis of ``{x : rows·x = 0 (mod prime)}`` by Gauss–Jordan elimination."""
    matrix = [row[:] for row in rows]
    pivots: list[int] = []
    rank = 0
    for column in range(width):
        pivot = next((r for r in range(rank, len(matrix)) if matrix[r][column]), None)
        if pivot is None:
            continue
        matrix[rank], matrix[pivot] = matrix[pivot], matrix[rank]
        inverse = pow(matrix[rank][column], prime - 2, prime)
        matrix[rank] = [value * inverse % prime for value in matrix[rank]]
        for r in range(len(matrix)):
            if r != rank and matrix[r][column]:
                factor = matrix[r][column]
                matrix[r] = [(a - factor * b) % prime for a, b in zip(matrix[r], matrix[rank], strict=True)]
        pivots.append(column)
        rank += 1
        if rank == len(matrix):
            break
    basis = []
    for free in (c for c in range(width) if c not in pivots):
        vector = [0] * width
        vector[free] = 1
        for row, column in enumerate(pivots):
            vector[column] = -matrix[row][free] % prime
        basis.append(vector)
    return basis
