"""A problem on disk (``DIR/setter.py`` and an optional ``DIR/problem.json``) and its setter's true terms.

``problem.json`` (every key optional)::

    {"title": "Squares", "statement": "a(n) = n^2", "offset": 0, "n_visible": 10}

Running the setter is the ``execute`` stage with the setter's larger limits (docs/rules/dojo-platform.md §4: CPU 10 s)
and the static policy with the numeric-literal limit relaxed. A setter that cannot produce ``n_check`` valid terms is an
operator's problem, not a verdict: it raises ``InputError`` naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from podium.core.errors import InputError
from podium.core.execution.sandbox import Sandbox
from podium.core.records import StageFailure
from podium.core.storage.files import read_bytes, read_json
from podium.core.storage.text import unstorable
from podium.tracks.dojo.admit import AdmittedSource, admit
from podium.tracks.dojo.execute import SETTER_LIMITS, execute
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.screen import screen
from podium.tracks.dojo.verdicts import RunVerdict

PROBLEM_KEYS = {"title": str, "statement": str, "offset": int, "n_visible": int}


@dataclass(frozen=True, slots=True)
class ProblemFiles:
    """A problem as a setter hands it in."""

    folder: Path
    setter_source: bytes
    title: str
    statement: str
    offset: int
    n_visible: int


def load_problem(folder: Path) -> ProblemFiles:
    """Read ``folder/setter.py`` and ``folder/problem.json`` (optional)."""
    setter_path = folder / "setter.py"
    if not setter_path.is_file():
        raise InputError("no setter.py in the problem folder", path=folder, fix="put the setter program in setter.py")
    settings: dict[str, Any] = {}
    meta_path = folder / "problem.json"
    if meta_path.is_file():
        data = read_json(meta_path)
        if not isinstance(data, dict):
            raise InputError("problem.json must hold a JSON object", path=meta_path)
        for key, value in data.items():
            expected = PROBLEM_KEYS.get(key)
            if expected is None:
                raise InputError(f"unknown key {key!r}", path=meta_path, fix=f"use only {', '.join(PROBLEM_KEYS)}")
            if not isinstance(value, expected) or isinstance(value, bool):
                raise InputError(f"{key!r} must be a {expected.__name__}", path=meta_path)
            if isinstance(value, str) and (problem := unstorable(value)):
                raise InputError(f"{key!r} holds {problem}", path=meta_path, fix="remove it")
        settings = data
    n_visible = settings.get("n_visible", 10)
    if n_visible < 0:
        raise InputError("'n_visible' must not be negative", path=meta_path)
    return ProblemFiles(
        folder=folder,
        setter_source=read_bytes(setter_path),
        title=settings.get("title", folder.name),
        statement=settings.get("statement", ""),
        offset=settings.get("offset", 0),
        n_visible=n_visible,
    )


def admit_setter(source: bytes, rules: ScoringRules, *, where: Path | str) -> AdmittedSource:
    """A setter program admitted under ``rules``, or ``InputError`` naming ``where`` and why."""
    admitted = admit(source, max_bytes=rules.max_source_bytes)
    if isinstance(admitted, StageFailure):
        raise InputError(f"setter rejected: {admitted.reason}", path=where)
    return admitted


def setter_terms(
    source: bytes, sandbox: Sandbox, rules: ScoringRules, *, where: Path | str, hash_seed: int = 0
) -> tuple[str, ...]:
    """Run a setter and return its first ``n_check`` terms, or raise ``InputError`` saying what is wrong."""
    admitted = admit_setter(source, rules, where=where)
    screened = screen(admitted.text, rules, numeric_literal_limit=False)
    if isinstance(screened, StageFailure):
        raise InputError(f"setter rejected by the static policy: {screened.reason}", path=where)
    execution = execute(
        admitted.canonical,
        sandbox,
        n_check=rules.n_check,
        limits=SETTER_LIMITS,
        hash_seed=hash_seed,
        file_name="setter.py",
    )
    if execution.verdict is not RunVerdict.OK:
        raise InputError(f"the setter failed: {execution.verdict.value}: {execution.reason}", path=where)
    if len(execution.terms) < rules.n_check:
        raise InputError(f"the setter printed {len(execution.terms)} terms; {rules.n_check} are needed", path=where)
    long_terms = [i for i, term in enumerate(execution.terms) if len(term.lstrip("-")) > rules.max_term_digits]
    if long_terms:
        raise InputError(f"term {long_terms[0]} has more than {rules.max_term_digits} digits", path=where)
    return execution.terms
