"""Which file of a submission is its program, read from the sources alone (nothing of the submission runs).

A candidate is a module that calls ``run_evaluation`` (the official way to start a run) or defines a ``TrialLoop``
subclass, directly or through another class of the submission (``class ToT(Architecture)`` where
``class Architecture(TrialLoop)`` is in ``common.py``). The entry is:

1. the one module that calls ``run_evaluation``;
2. else, among those modules (or all when none calls it), the one that defines a ``TrialLoop`` subclass;
3. else none: ``--entry`` must say, and the error lists the candidates with what each does.

Modules under the official names (a vendored copy of the package) are never candidates. The class a module's
``run_evaluation`` call passes (``run_evaluation("team", ToT)`` or ``fn=ToT``) is the loop the driver runs, which
settles a module that defines several.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from podium.core.errors import ConfigError
from podium.tracks.pcg.generation.stand_ins import OFFICIAL_NAMES

_LOOP_BASE = "TrialLoop"


@dataclass(frozen=True, slots=True)
class ModuleFacts:
    """What one module does that matters for finding the entry."""

    path: str
    calls_run_evaluation: bool
    loops: tuple[str, ...]  # the TrialLoop subclasses it defines
    loop_named: str | None  # the class its run_evaluation call passes, when that is a plain name
    syntax_error: str | None = None


@dataclass(frozen=True, slots=True)
class EntryCandidates:
    """Every module's facts, and the entry when the rules above find exactly one."""

    modules: tuple[ModuleFacts, ...]
    entry: str | None
    why: str  # how the entry was found, or why none was
    candidates: tuple[ModuleFacts, ...] = field(default=())

    def describe(self) -> str:
        """The candidates, one per line, for an error or ``inspect``."""
        return "\n".join(f"  {m.path}: {_doing(m)}" for m in self.candidates) or "  (none)"


def _doing(facts: ModuleFacts) -> str:
    parts = []
    if facts.calls_run_evaluation:
        parts.append("calls run_evaluation" + (f"({facts.loop_named})" if facts.loop_named else ""))
    if facts.loops:
        parts.append(f"defines {', '.join(facts.loops)}")
    return "; ".join(parts) or "neither"


def _python_files(files: Mapping[str, bytes]) -> list[str]:
    return sorted(p for p in files if p.endswith(".py") and PurePosixPath(p).parts[0] not in OFFICIAL_NAMES)


def _base_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _facts(path: str, source: bytes, loop_classes: set[str]) -> ModuleFacts:
    tree = _parse(source)
    if isinstance(tree, str):
        return ModuleFacts(path, False, (), None, tree)
    loops = tuple(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and any(_base_name(b) in loop_classes for b in node.bases)
    )
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _base_name(n.func) == "run_evaluation"]
    named = None
    for call in calls:
        fn = next((k.value for k in call.keywords if k.arg == "fn"), call.args[1] if len(call.args) > 1 else None)
        if isinstance(fn, ast.Name):
            named = fn.id
    return ModuleFacts(path, bool(calls), loops, named)


def _parse(source: bytes) -> ast.Module | str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a contestant's invalid escape sequences are not ours to report
            return ast.parse(source)
    except (SyntaxError, ValueError) as error:
        return f"not valid Python 3: {error}"


def _loop_classes(files: Mapping[str, bytes], paths: list[str]) -> set[str]:
    """``TrialLoop`` and, transitively, every class of the submission built on it (by name)."""
    bases: dict[str, set[str]] = {}
    for path in paths:
        tree = _parse(files[path])
        if isinstance(tree, ast.Module):
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    bases.setdefault(node.name, set()).update(filter(None, map(_base_name, node.bases)))
    found = {_LOOP_BASE}
    while True:
        more = {name for name, of in bases.items() if of & found} - found
        if not more:
            return found
        found |= more


def find_candidates(files: Mapping[str, bytes]) -> EntryCandidates:
    """Every Python module's facts and the entry, if the rules find exactly one."""
    paths = _python_files(files)
    loop_classes = _loop_classes(files, paths)
    modules = tuple(_facts(path, files[path], loop_classes) for path in paths)
    runners = [m for m in modules if m.calls_run_evaluation]
    if len(runners) == 1:
        return EntryCandidates(modules, runners[0].path, "the one module that calls run_evaluation", tuple(runners))
    pool = runners or list(modules)
    definers = [m for m in pool if m.loops]
    if len(definers) == 1:
        return EntryCandidates(
            modules, definers[0].path, "the one module that defines a TrialLoop subclass", (definers[0],)
        )
    if definers:
        return EntryCandidates(modules, None, "several modules could be the program", tuple(definers))
    return EntryCandidates(
        modules, None, "no module calls run_evaluation or defines a TrialLoop subclass", tuple(runners)
    )


def choose_entry(files: Mapping[str, bytes], entry: str | None) -> tuple[str, str | None]:
    """The entry (``entry`` when given, checked) and the loop class its run_evaluation call names.

    ConfigError lists the candidates when there is not exactly one.
    """
    if entry is not None:
        entry = str(PurePosixPath(entry))
        if entry not in files or not entry.endswith(".py"):
            python = ", ".join(_python_files(files)[:20]) or "none"
            raise ConfigError(f"--entry {entry} is not a .py file of the submission", fix=f"pick one of: {python}")
        loop_classes = _loop_classes(files, _python_files(files))
        return entry, _facts(entry, files[entry], loop_classes).loop_named
    found = find_candidates(files)
    if found.entry is None:
        looked = f"looked at {len(found.modules)} Python files"
        if not found.candidates:  # nothing to choose from: --entry would not help
            raise ConfigError(
                f"no file of the submission is a program: {found.why} ({looked})",
                fix="a program defines a subclass of the official package's TrialLoop (and may call "
                "run_evaluation with it); without one it cannot run",
            )
        raise ConfigError(
            f"cannot tell which file is the program: {found.why} ({looked})\n{found.describe()}",
            fix="name it with --entry PATH (relative to the submission's top folder)",
        )
    (chosen,) = (m for m in found.modules if m.path == found.entry)
    return found.entry, chosen.loop_named
