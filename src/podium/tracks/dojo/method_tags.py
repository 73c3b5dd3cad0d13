"""Reviewing a solver's claimed method tag against its code and output.

The rules: docs/rules/dojo-scoring.md §6.1 and docs/rules/dojo-platform.md §9. A tag is a claim that earns diversity
points, so the platform checks the known tags coarsely and ignores one that *strongly* conflicts with the program (it
then counts as ``unspecified``; the claim and the reason are stored and shown). The review is conservative: a tag is
overridden only when the evidence it needs is absent, never because another tag looks likelier, and ``other``
and ``unspecified`` are never touched (any other name was stored as ``other`` when it was submitted).

- ``linear_recurrence`` (dynamic): Berlekamp–Massey must find, in the first half of the solver's output, a
  recurrence with constant coefficients that predicts the whole output.
- ``matrix_power``: the code multiplies matrices (``@``, ``dot``/``matmul``/``matrix_power``/``Matrix``,
  products of doubly indexed entries ``a[i][k]*b[k][j]``, or a function with four or more products of
  indexed entries, the shape of a hand-written 2×2 product).
- ``symbolic_guess``: the code uses a symbolic or exact-arithmetic toolkit (``sympy``, ``fractions``,
  ``solve``/``rsolve``/``interpolate``/``nsimplify``/``guess``/``Poly``/``Rational``/``Fraction`` calls).
- ``search_enum``: the code enumerates and filters candidates (``itertools``, comprehension filters,
  ``any``/``all``, or an ``if`` inside a loop that keeps, counts, skips or stops).
- ``closed_form``: conflicts when the code computes each term from earlier ones: a tuple-shift update
  (``a, b = b, a + b``), a list extended from itself (``s.append(s[-1] + s[-2])``), a function that calls
  itself, or state carried across iterations of the loop that emits the terms (read before it is assigned
  in the loop body, e.g. ``x = 2 * x + 1``). Names bound afresh for each term (generator and comprehension
  variables, inner loop indices) are not carried state; ``docs/design/dojo.md`` tabulates the shapes.

Under ``payload-budget-v2`` (``ScoringRules.names_count_as_payload``) any claimed tag but ``unspecified`` counts
as ``unspecified`` when the code runs code it builds, which no static review can read (a tuple-shift Fibonacci
inside ``exec("...")`` kept its ``closed_form`` claim): a use of ``exec``, ``eval``, ``compile`` or ``__import__``, an
attribute fetched by a name the code computes (``getattr(x, "ex" + "ec")``), or a subscript by a computed key of
``__builtins__``, ``__dict__``, ``vars()``, ``globals()`` or ``locals()``.

The review reads a syntax tree at most ``MAX_REVIEW_DEPTH`` levels deep (its depth is measured without
recursion first): deeper code, such as a 1,500-link attribute chain in dead code, makes a reviewed tag count as
``unspecified`` with that reason, rather than exhausting the judge's stack.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from podium.tracks.dojo.parsing import parse_source
from podium.tracks.dojo.recurrence import linear_recurrence_order

MATRIX_CALLS = frozenset({"dot", "matmul", "matrix_power", "Matrix", "mat_mul", "matmult", "matpow"})
SYMBOLIC_MODULES = frozenset({"sympy", "fractions"})
SYMBOLIC_CALLS = frozenset(
    {"solve", "rsolve", "linsolve", "interpolate", "nsimplify", "guess", "Poly", "Rational", "Fraction"}
)
SEARCH_CALLS = frozenset({"any", "all", "filter"})
# Products of indexed entries in one function that mark a hand-written 2x2 matrix product.
HAND_MATRIX_PRODUCTS = 4
MAX_REVIEW_DEPTH = 200
"""The deepest syntax tree the static review reads (a solver's nests a few dozen levels; the review recurses)."""
# Tags the static review checks: the ``Evidence`` field each needs, and what the override says is missing.
STATIC_NEEDS = {
    "matrix_power": ("matrix", "no matrix product in the code"),
    "symbolic_guess": ("symbolic", "no symbolic or exact-arithmetic toolkit in the code"),
    "search_enum": ("search", "no candidate enumeration or filtering in the code"),
}


@dataclass(frozen=True, slots=True)
class Evidence:
    """Coarse static features of a solver (section docstring)."""

    matrix: bool
    symbolic: bool
    search: bool
    recurrence: bool


def conflict(claimed: str, source: str, terms: Sequence[str], *, built_code_unreviewable: bool = False) -> str | None:
    """Why ``claimed`` conflicts with the canonical ``source`` that printed ``terms``; None where it stands.

    ``built_code_unreviewable`` (``payload-budget-v2``): code that runs code it builds voids any claim.
    """
    if built_code_unreviewable and claimed != "unspecified":
        try:
            runs_built_code = _runs_code_it_builds(parse_source(source))
        except (SyntaxError, RecursionError, MemoryError):
            runs_built_code = True  # unreadable is unreviewable
        if runs_built_code:
            return (
                f"{claimed} claimed, but the code runs code it builds (exec, eval, compile or a name computed from "
                "strings), which the review cannot read; the tag counts as unspecified"
            )
    if claimed == "linear_recurrence":
        if linear_recurrence_order(terms, len(terms) // 2) is None:
            return "linear_recurrence claimed, but no constant-coefficient recurrence fits the output"
        return None
    if claimed not in STATIC_NEEDS and claimed != "closed_form":
        return None
    try:
        tree = parse_source(source)
    except SyntaxError:
        return None  # not Python the reviewer can read; the claim stands
    except (RecursionError, MemoryError):
        return f"{claimed} claimed, but the code is nested too deeply for the review; the tag counts as unspecified"
    depth = tree_depth(tree)
    if depth > MAX_REVIEW_DEPTH:
        return (
            f"{claimed} claimed, but the code nests {depth} levels deep, more than the review reads "
            f"({MAX_REVIEW_DEPTH}); the tag counts as unspecified"
        )
    found = evidence_of(tree)
    if claimed == "closed_form":
        return "closed_form claimed, but the code computes terms from earlier terms" if found.recurrence else None
    feature, missing = STATIC_NEEDS[claimed]
    return None if getattr(found, feature) else f"{claimed} claimed, but {missing}"


BUILT_CODE_CALLS = frozenset({"exec", "eval", "compile", "__import__"})
NAMESPACES = frozenset({"__builtins__", "__dict__", "vars", "globals", "locals"})


def _runs_code_it_builds(tree: ast.AST) -> bool:
    """Whether the code can run code the review never sees (the module docstring lists the shapes)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in BUILT_CODE_CALLS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in BUILT_CODE_CALLS:
            return True
        if isinstance(node, ast.Call) and _computes_an_attribute_name(node):
            return True
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            holder = node.value.func if isinstance(node.value, ast.Call) else node.value
            name = holder.id if isinstance(holder, ast.Name) else getattr(holder, "attr", "")
            if name in NAMESPACES:
                return True
    return False


def _computes_an_attribute_name(call: ast.Call) -> bool:
    """``getattr(x, name)`` or ``setattr(x, name, v)`` with a name that is not written out."""
    named = _call_name(call) in ("getattr", "setattr") and len(call.args) >= 2
    return named and not isinstance(call.args[1], ast.Constant)


def tree_depth(tree: ast.AST) -> int:
    """How many levels deep ``tree`` nests, counted with a list rather than recursion (so any depth is safe)."""
    deepest, pending = 0, [(tree, 1)]
    while pending:
        node, depth = pending.pop()
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def evidence(source: str) -> Evidence:
    """The static features of ``source``."""
    return evidence_of(parse_source(source))


def evidence_of(tree: ast.AST) -> Evidence:
    """The static features of a parsed source, at most ``MAX_REVIEW_DEPTH`` levels deep."""
    modules = set(_imported_modules(tree))
    called = {_call_name(node) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return Evidence(
        matrix=bool(called & MATRIX_CALLS) or _has_matrix_products(tree),
        symbolic=bool(modules & SYMBOLIC_MODULES) or bool(called & SYMBOLIC_CALLS),
        search="itertools" in modules or bool(called & SEARCH_CALLS) or _filters_candidates(tree),
        recurrence=_computes_from_earlier_terms(tree),
    )


def _imported_modules(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module.split(".")[0]


def _call_name(node: ast.Call) -> str:
    function = node.func
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else ""


def _has_matrix_products(tree: ast.AST) -> bool:
    if any(isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) for node in ast.walk(tree)):
        return True
    for node in ast.walk(tree):
        if (
            _is_product_of_entries(node)
            and isinstance(node.left, ast.Subscript)
            and isinstance(node.left.value, ast.Subscript)
        ):
            return True  # a[i][k] * b[k][j]
    for function in (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.Lambda)):
        if sum(_is_product_of_entries(node) for node in ast.walk(function)) >= HAND_MATRIX_PRODUCTS:
            return True
    return False


def _is_product_of_entries(node: ast.AST) -> TypeGuard[ast.BinOp]:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mult)
        and isinstance(node.left, ast.Subscript)
        and isinstance(node.right, ast.Subscript)
    )


def _filters_candidates(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension) and node.ifs:
            return True
        if isinstance(node, ast.For | ast.While):
            for inner in ast.walk(node):
                if isinstance(inner, ast.If) and _keeps_counts_or_stops(inner):
                    return True
    return False


def _keeps_counts_or_stops(branch: ast.If) -> bool:
    for node in (n for statement in branch.body for n in ast.walk(statement)):
        if isinstance(node, ast.Break | ast.Continue | ast.AugAssign):
            return True
        if isinstance(node, ast.Call) and _call_name(node) in {"append", "add", "print"}:
            return True
    return False


def _computes_from_earlier_terms(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_tuple_shift(node):
            return True
        if isinstance(node, ast.Call) and _extends_list_from_itself(node):
            return True
        if isinstance(node, ast.FunctionDef) and _calls_itself(node):
            return True
        if isinstance(node, ast.For | ast.While) and _emits_terms(node):
            counters = _names_read(node.test) if isinstance(node, ast.While) else set()  # `while n < 200: n += 1`
            if _carries_state(node.body) - counters:
                return True
    return False


def _is_tuple_shift(node: ast.Assign) -> bool:
    """``a, b = b, a + b``: several names assigned from expressions that read them."""
    target, value = node.targets[0], node.value
    if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) >= 2):
        return False
    assigned = {element.id for element in target.elts if isinstance(element, ast.Name)}
    return bool(assigned & _names_read(value))


def _extends_list_from_itself(node: ast.Call) -> bool:
    function = node.func
    if not (isinstance(function, ast.Attribute) and function.attr in {"append", "extend"}):
        return False
    if not isinstance(function.value, ast.Name):
        return False
    return any(function.value.id in _names_read(argument) for argument in node.args)


def _calls_itself(function: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Call) and _call_name(n) == function.name for n in ast.walk(function))


def _emits_terms(loop: ast.For | ast.While) -> bool:
    """The loop prints, yields or appends: it produces the sequence."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if isinstance(node, ast.Call) and _call_name(node) in {"print", "append", "write"}:
            return True
    return False


def _carries_state(body: list[ast.stmt]) -> set[str]:
    """Names the loop body reads before assigning them (their values come from the previous iteration).

    Names bound afresh for each term are not carried: a comprehension's or generator's variables, an inner
    loop's index (bound before its body runs) and anything assigned before it is read.
    """
    flow = _Flow()
    for statement in body:
        flow.visit(statement, frozenset())
    return flow.read_first & flow.assigned


class _Flow:
    """Follows statements in execution order, noting names read before this pass assigned them."""

    def __init__(self) -> None:
        self.assigned: set[str] = set()
        self.read_first: set[str] = set()

    def visit(self, node: ast.AST, local: frozenset[str]) -> None:
        """Visit ``node``; ``local`` holds the names a surrounding comprehension or lambda binds."""
        if isinstance(node, ast.Name):
            if node.id in local:
                return
            if isinstance(node.ctx, ast.Load):
                if node.id not in self.assigned:
                    self.read_first.add(node.id)
            else:
                self.assigned.add(node.id)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr):
            if node.value is not None:
                self.visit(node.value, local)  # the right-hand side runs first
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                self.visit(target, local)
        elif isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):  # x += 1 reads x
                self.visit(ast.Name(node.target.id, ast.Load()), local)
            self.visit(node.value, local)
            self.visit(node.target, local)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.visit(node.iter, local)
            self.visit(node.target, local)  # the inner index is bound before the inner body reads it
            for statement in [*node.body, *node.orelse]:
                self.visit(statement, local)
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            self._comprehension(node, local)
        elif isinstance(node, ast.Lambda):
            arguments = node.args
            names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
            names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
            self.visit(node.body, local | names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self.assigned.add(node.name)  # its body is its own scope, run later
        else:
            for child in ast.iter_child_nodes(node):
                self.visit(child, local)

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, local: frozenset[str]
    ) -> None:
        inner = set(local)
        for generator in node.generators:
            self.visit(generator.iter, frozenset(inner))
            inner |= _names_written(generator.target)
            for condition in generator.ifs:
                self.visit(condition, frozenset(inner))
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in parts:
            self.visit(part, frozenset(inner))


def _names_read(node: ast.AST) -> set[str]:
    reads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    reads |= {n.target.id for n in ast.walk(node) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    return reads


def _names_written(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
