"""The method-tag review: coarse static evidence from the AST, the Berlekamp–Massey check of a
``linear_recurrence`` claim, and which claims are overridden (only strong conflicts; free text never)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from podium.tracks.dojo.method_tags import Evidence, conflict, evidence

TUPLE_SHIFT = "a,b=0,1\nfor _ in range(200):\n print(a)\n a,b=b,a+b\n"
SQUARES = "for n in range(200): print(n*n)\n"
WHILE_SQUARES = "n=0\nwhile n<200:\n print(n*n)\n n+=1\n"
ACCUMULATE = "x=0\nfor n in range(200):\n x+=2*n+1\n print(x)\n"
POWER_IN_LOOP = "for n in range(200):\n r=1\n for k in range(n): r*=2\n print(r)\n"
LIST_FROM_ITSELF = "s=[0,1]\nwhile len(s)<200: s.append(s[-1]+s[-2])\nprint(*s,sep='\\n')\n"
RECURSIVE = "def f(n): return n if n<2 else f(n-1)+f(n-2)\nfor n in range(25): print(f(n))\n"
NESTED_MATRIX = "def mul(a,b): return [[sum(a[i][k]*b[k][j] for k in range(2)) for j in range(2)] for i in range(2)]\n"
HAND_2X2 = "def m(a,b): return (a[0]*b[0]+a[1]*b[2],a[0]*b[1]+a[1]*b[3],a[2]*b[0]+a[3]*b[2],a[2]*b[1]+a[3]*b[3])\n"
MATMUL = "import numpy as np\nm=np.array([[1,1],[1,0]])\nprint(m@m)\n"
PRIMES = "p=[];k=2\nwhile len(p)<200:\n if all(k%q for q in p): p.append(k)\n k+=1\nprint(*p,sep='\\n')\n"
COMPREHENSION_FILTER = "print(*[n for n in range(999) if bin(n).count('1')==2][:200],sep='\\n')\n"
SYMPY = "import sympy\nfor n in range(200): print(sympy.fibonacci(n))\n"
FRACTIONS = "from fractions import Fraction\nprint(Fraction(1,3))\n"

FIBONACCI = [0, 1]
while len(FIBONACCI) < 200:
    FIBONACCI.append(FIBONACCI[-1] + FIBONACCI[-2])
FIB_TERMS = [str(t) for t in FIBONACCI]
FACTORIAL_TERMS = [str(math.factorial(n)) for n in range(200)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (TUPLE_SHIFT, Evidence(matrix=False, symbolic=False, search=False, recurrence=True)),
        (SQUARES, Evidence(matrix=False, symbolic=False, search=False, recurrence=False)),
        (WHILE_SQUARES, Evidence(matrix=False, symbolic=False, search=False, recurrence=False)),  # n is a counter
        (ACCUMULATE, Evidence(matrix=False, symbolic=False, search=False, recurrence=True)),
        (POWER_IN_LOOP, Evidence(matrix=False, symbolic=False, search=False, recurrence=False)),  # r is reset
        (LIST_FROM_ITSELF, Evidence(matrix=False, symbolic=False, search=False, recurrence=True)),
        (RECURSIVE, Evidence(matrix=False, symbolic=False, search=False, recurrence=True)),
        (NESTED_MATRIX, Evidence(matrix=True, symbolic=False, search=False, recurrence=False)),
        (HAND_2X2, Evidence(matrix=True, symbolic=False, search=False, recurrence=False)),
        (MATMUL, Evidence(matrix=True, symbolic=False, search=False, recurrence=False)),
        (PRIMES, Evidence(matrix=False, symbolic=False, search=True, recurrence=True)),
        (COMPREHENSION_FILTER, Evidence(matrix=False, symbolic=False, search=True, recurrence=False)),
        (SYMPY, Evidence(matrix=False, symbolic=True, search=False, recurrence=False)),
        (FRACTIONS, Evidence(matrix=False, symbolic=True, search=False, recurrence=False)),
    ],
)
def test_static_evidence(source: str, expected: Evidence) -> None:
    assert evidence(source) == expected


@pytest.mark.parametrize(
    ("claimed", "source", "terms", "overridden"),
    [
        ("linear_recurrence", TUPLE_SHIFT, FIB_TERMS, False),
        ("linear_recurrence", "anything", FACTORIAL_TERMS, True),  # no constant-coefficient recurrence fits
        ("closed_form", SQUARES, [], False),
        ("closed_form", TUPLE_SHIFT, FIB_TERMS, True),
        ("closed_form", POWER_IN_LOOP, [], False),
        ("matrix_power", HAND_2X2, [], False),
        ("matrix_power", TUPLE_SHIFT, FIB_TERMS, True),
        ("symbolic_guess", SYMPY, [], False),
        ("symbolic_guess", TUPLE_SHIFT, FIB_TERMS, True),
        ("search_enum", PRIMES, [], False),
        ("search_enum", SQUARES, [], True),
        ("other", TUPLE_SHIFT, FIB_TERMS, False),  # never reviewed
        ("unspecified", TUPLE_SHIFT, FIB_TERMS, False),
        ("my own trick", TUPLE_SHIFT, FIB_TERMS, False),  # free text is never overridden
        ("matrix_power", "def broken(:\n", [], False),  # unreadable code: the claim stands
    ],
)
def test_only_strong_conflicts_override_a_claim(claimed: str, source: str, terms: list[str], overridden: bool) -> None:
    reason = conflict(claimed, source, terms)
    assert (reason is not None) is overridden, reason
    if reason is not None:
        assert reason.startswith(f"{claimed} claimed, but ")


DESIGN = Path(__file__).parents[3] / "docs" / "design" / "dojo.md"


def closed_form_table() -> list[tuple[str, str, bool]]:
    """The rows of the `closed_form` table in docs/design/dojo.md: shape, solver source, overridden."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text[text.index("**The `closed_form` review, shape by shape.**") :]
    rows = []
    for line in section.splitlines()[1:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[2] in ("stands", "overridden"):
            rows.append((cells[0], cells[1].strip("`").replace("\\n", "\n") + "\n", cells[2] == "overridden"))
        elif rows and not line.strip():
            break
    return rows


def test_the_design_table_has_both_kinds_of_row() -> None:
    table = closed_form_table()
    assert len(table) >= 10
    assert {overridden for _, _, overridden in table} == {True, False}


TABLE = closed_form_table()


@pytest.mark.parametrize(("shape", "source", "overridden"), TABLE, ids=[row[0] for row in TABLE])
def test_closed_form_table_in_the_design_note(shape: str, source: str, overridden: bool) -> None:
    compile(source, shape, "exec")  # every example is real Python
    reason = conflict("closed_form", source, [])
    assert (reason is not None) is overridden, f"{shape}: {reason}"


EXEC_TUPLE_SHIFT = 'exec("a,b=0,1\\nfor _ in range(200):print(a);a,b=b,a+b")\n'


@pytest.mark.parametrize(
    "source",
    [
        EXEC_TUPLE_SHIFT,
        'eval(compile("print(1)", "x", "exec"))\n',
        'import os\ngetattr(__builtins__, "ex" + "ec")("print(1)")\n',
        '__builtins__.__dict__["ex" + "ec"]("print(1)")\n',
        'vars(__builtins__)["".join(["e", "val"])]("1")\n',
        "__import__('sys')\n",
    ],
)
def test_under_payload_budget_v2_code_that_runs_code_it_builds_voids_a_claim(source: str) -> None:
    reason = conflict("closed_form", source, [], built_code_unreviewable=True)
    assert reason is not None and "runs code it builds" in reason
    assert conflict("unspecified", source, [], built_code_unreviewable=True) is None  # nothing was claimed


def test_before_payload_budget_v2_a_claim_on_built_code_stands_and_plain_code_is_reviewed_as_ever() -> None:
    assert conflict("closed_form", EXEC_TUPLE_SHIFT, []) is None  # the review cannot see inside the string
    assert conflict("closed_form", SQUARES, [], built_code_unreviewable=True) is None
    assert conflict("closed_form", "print(getattr(7, 'real'))\n", [], built_code_unreviewable=True) is None
    reason = conflict("closed_form", TUPLE_SHIFT, [], built_code_unreviewable=True)
    assert reason == "closed_form claimed, but the code computes terms from earlier terms"
