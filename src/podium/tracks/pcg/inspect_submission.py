"""``podium pcg inspect`` on a whole submission (a folder or a zip): what an organiser must settle before running it.

A real submission is several modules, data files, a ``requirements.txt`` and a README saying how to run it. The
report answers, from the files alone (nothing is imported or run), what ``podium pcg generate`` needs to know:

* the entry candidates (``generation/entry.py``) and whether one is found or ``--entry`` must say;
* every import that is neither the standard library, the official API, the submission's own modules nor a
  declared requirement: add it with ``--requirement``;
* the files the program reads by relative path, and whether the submission has them relative to its top folder
  (the default working folder) or only relative to the entry's own folder (then ``--workdir``);
* the files it writes (they go to its private copy, kept beside the run's log);
* model or network clients it calls itself (the 2025 organisers disqualified a team "for not using our provided
  package");
* the README's run instructions, quoted;

then each module's own report (``inspect.py``), and a suggested ``generate`` command line. Exit 0 always.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import posixpath
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from podium.tracks.pcg.editions import edition_of_package
from podium.tracks.pcg.generation.entry import EntryCandidates, ModuleFacts, find_candidates
from podium.tracks.pcg.generation.requirements import declared_requirements, requirement_name
from podium.tracks.pcg.generation.stand_ins import OFFICIAL_NAMES
from podium.tracks.pcg.generation.submission import SubmissionFiles, read_submission
from podium.tracks.pcg.inspect import FLAG, NOTE, ProgramReport, inspect_source, report_as_json, report_as_text
from podium.tracks.pcg.inspect_rules import Concern

# import names whose distribution is called otherwise (the common cases in prompt programs)
_DISTRIBUTIONS = {"dotenv": "python-dotenv", "yaml": "pyyaml", "PIL": "pillow", "sklearn": "scikit-learn",
                  "cv2": "opencv-python", "bs4": "beautifulsoup4", "dateutil": "python-dateutil",
                  "google": "google-generativeai", "Levenshtein": "python-levenshtein"}  # fmt: skip
_PATH_CALLS = frozenset({"open", "Path", "PurePath", "PosixPath", "join", "glob", "iglob", "listdir", "scandir",
                         "makedirs", "mkdir", "exists", "isfile", "isdir", "walk", "loadtxt", "read_csv"})  # fmt: skip
_WRITE_METHODS = frozenset({"write_text", "write_bytes", "mkdir", "touch", "makedirs", "mkdtemp", "savetxt", "save"})
_RUN_LINE = re.compile(
    r"\b(?:python3?\s+\S+\.py|python3?\s+-m\s+\S+|pip3?\s+install\s+\S+|bash\s+\S+|sh\s+\S+\.sh)|(?:^|\s)\./\S+"
)


@dataclass(frozen=True, slots=True)
class FileUse:
    """A relative path the program names: where, whether it reads or writes, and what the submission has there."""

    module: str
    line: int
    path: str
    writes: bool
    found: str  # "top" (from the top folder), "entry" (only from the entry's folder), "written" (by the program), ""


@dataclass(frozen=True, slots=True)
class SubmissionReport:
    """What ``inspect`` found in one submission."""

    origin: Path
    files: SubmissionFiles
    candidates: EntryCandidates
    requirements_file: str
    requirements: tuple[str, ...]
    undeclared: tuple[tuple[str, str], ...]  # (import name, module that imports it)
    file_uses: tuple[FileUse, ...]
    clients: tuple[str, ...]  # "module line N: message" of model or network clients called directly
    readme: tuple[str, ...]  # "README.md:12: python tot/tot.py"
    modules: tuple[ProgramReport, ...]

    @property
    def flags(self) -> int:
        """What a person must settle or read: no entry, undeclared imports, missing files, clients."""
        missing = sum(1 for use in self.file_uses if not use.writes and use.found in ("entry", ""))
        return (self.candidates.entry is None) + len(self.undeclared) + missing + len(self.clients)

    def suggested_command(self) -> str:
        """The ``generate`` line this report suggests (``--entry`` left as a choice when there is none)."""
        entry = self.candidates.entry or "<ENTRY>"
        parts = ["podium pcg generate ROOT --team TEAM", f"--program {self.origin}"]
        editions = {edition_of_package(m.package) for m in self.modules if m.package is not None}
        if len(editions) == 1 and (year := next(iter(editions))) is not None:  # the package the program imports
            parts.append(f"--edition {year.year}")
        if len(self.candidates.candidates) > 1 or (self.candidates.entry is None and self.candidates.candidates):
            parts.append(f"--entry {entry}")  # a choice to make; with no TrialLoop anywhere there is none
        if any(use.found == "entry" for use in self.file_uses) and not any(u.found == "top" for u in self.file_uses):
            parts.append(f"--workdir {posixpath.dirname(entry)}")
        parts += [f"--requirement {self._pinned(_DISTRIBUTIONS.get(name, name))}" for name, _ in self.undeclared]
        return " ".join(parts)

    def _pinned(self, distribution: str) -> str:
        """``distribution`` as the README pins it (``pip install pcg-prompt-kit==0.1.0``), else bare."""
        for line in self.readme:
            for spec in _PINNED.findall(line):
                if requirement_name(spec) == requirement_name(distribution):
                    return str(spec)
        return distribution


_PINNED = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.-]*==[\w.!+-]+)")  # a requirement pinned to one version


def _own_modules(files: SubmissionFiles) -> set[str]:
    """Every name a module of the submission can be imported as (any file's stem, any folder's name)."""
    names: set[str] = set()
    for path in files.files:
        parts = PurePosixPath(path).parts
        names.update(parts[:-1])
        if path.endswith(".py"):
            names.add(parts[-1][:-3])
    return names


def _imports(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module.split(".")[0])
    return found


def _dotted_imports(tree: ast.Module) -> set[str]:
    """Every dotted name a module imports, with each of its prefixes (``a.b.c`` imports ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]  # a sub-module too
        for module in modules:
            parts = module.split(".")
            names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return names


def reachable_modules(files: SubmissionFiles, start: list[str]) -> set[str]:
    """The Python files ``start`` imports, directly or through others of the submission's own (and ``start``).

    A module is found under any tail of its path (``a/b/c.py`` as ``a.b.c``, ``b.c`` and ``c``: the folders a program
    puts on ``sys.path`` vary); a package's ``__init__.py`` under its folder's.
    """
    by_name: dict[str, set[str]] = {}
    for path in files.files:
        if path.endswith(".py"):
            parts = PurePosixPath(path).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            for i in range(len(parts)):
                by_name.setdefault(".".join(parts[i:]), set()).add(path)
    seen: set[str] = set()
    todo = list(start)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            tree = ast.parse(files.files[path])
        except (SyntaxError, ValueError):
            continue
        for name in _dotted_imports(tree):
            todo += sorted(by_name.get(name, ()))
    return seen


def _constants(tree: ast.Module) -> dict[str, str]:
    """Names bound once, anywhere in the module, to a string constant (``history = "results/history.txt"``)."""
    bound: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value.value if isinstance(node.value, ast.Constant) else None
            bound.setdefault(node.targets[0].id, []).append(value if isinstance(value, str) else "")
    return {name: values[0] for name, values in bound.items() if len(values) == 1 and values[0]}


def _constant_path(node: ast.expr, names: dict[str, str]) -> str | None:
    """The path an expression spells with constants: ``"a/b"``, ``Path("a") / "b"``, ``os.path.join("a", "b")``.

    A path built at run time is a pattern, ``*`` standing for each part only the run knows:
    ``f"prompts/generate_{n}.txt"``, ``"prompts/generate_" + str(n) + ".txt"``, ``"p_%d.txt" % n``,
    ``"p_{}.txt".format(n)`` all read as ``prompts/generate_*.txt`` (found when a file of the submission matches).
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    built = _built_at_run_time(node, names)
    if built is not None:
        return built
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _constant_path(node.left, names), _constant_path(node.right, names)
        return posixpath.join(left, right) if left is not None and right is not None else None
    if isinstance(node, ast.Call) and _call_name(node) in ("join", "Path", "PurePath") and node.args:
        parts = [_constant_path(arg, names) for arg in node.args]
        return posixpath.join(*parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
    return None


_PLACEHOLDER = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[sdifr]|\{[^{}]*\}")


def _built_at_run_time(node: ast.expr, names: dict[str, str]) -> str | None:
    """The pattern of a string built at run time, or None where no constant part names a file."""
    pattern: str | None = None
    if isinstance(node, ast.JoinedStr):
        pattern = "".join(str(v.value) if isinstance(v, ast.Constant) else "*" for v in node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _constant_path(node.left, names) if not isinstance(node.left, ast.Call) else None
        right = _constant_path(node.right, names) if not isinstance(node.right, ast.Call) else None
        pattern = f"{left if left is not None else '*'}{right if right is not None else '*'}"
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        template = _constant_path(node.left, names)
        pattern = _PLACEHOLDER.sub("*", template) if template is not None else None
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        template = _constant_path(node.func.value, names)
        pattern = _PLACEHOLDER.sub("*", template) if template is not None else None
    if pattern is None or not pattern.strip("*") or ("." not in pattern and "/" not in pattern):
        return None  # nothing of a file's name is known: no use to report
    return re.sub(r"\*+", "*", pattern)


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _writes(node: ast.Call, parent_method: str | None) -> bool:
    if parent_method in _WRITE_METHODS or _call_name(node) in ("makedirs", "mkdir"):
        return True
    if _call_name(node) == "open":
        mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
        return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set("wax+"))
    return False


def _path_uses(tree: ast.Module) -> list[tuple[int, str, bool]]:
    """(line, path, writes) for every relative path literal handed to a file or path call, once per call."""
    methods = {id(n.func.value): n.func.attr for n in ast.walk(tree)
               if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}  # fmt: skip
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _call_name(n) in _PATH_CALLS and n.args]
    inner = {id(n.args[0]) for n in calls}  # Path(...) inside open(...): the outer call says what is done
    names, uses = _constants(tree), []
    for node in calls:
        if id(node) in inner:
            continue
        path = _constant_path(node.args[0], names) if _call_name(node) not in ("join", "Path", "PurePath") else None
        path = path if path is not None else _constant_path(node, names)
        if path and not path.startswith(("/", "~")) and "://" not in path and path not in (".", ""):
            uses.append((node.lineno, posixpath.normpath(path), _writes(node, methods.get(id(node)))))
    return sorted(set(uses))


def _where(path: str, entry: str, files: SubmissionFiles) -> str:
    """Where the submission has ``path``: from its top folder ("top"), only from the entry's folder ("entry")."""
    if _found(path, "", files):
        return "top"
    folder = posixpath.dirname(entry)
    return "entry" if folder and _found(path, folder, files) else ""


def _found(path: str, base: str, files: SubmissionFiles) -> bool:
    full = posixpath.normpath(posixpath.join(base, path)) if base else path
    if any(ch in full for ch in "*?["):
        return any(fnmatch.fnmatch(name, full) for name in files.files)
    return full in files.files or any(name.startswith(full + "/") for name in files.files)


def _readme(files: SubmissionFiles) -> list[str]:
    quoted: list[str] = []
    for path in sorted(p for p in files.files if PurePosixPath(p).name.lower().startswith("readme")):
        for number, line in enumerate(files.files[path].decode("utf-8", "replace").splitlines(), start=1):
            if _RUN_LINE.search(line) and len(quoted) < 12:
                quoted.append(f"{path}:{number}: {line.strip()}")
    return quoted


def inspect_submissions(path: Path) -> list[SubmissionReport]:
    """Inspect a folder or zip: one submission, or each of an archive of several (``split_submissions``)."""
    return [_inspect_files(files) for files in split_submissions(read_submission(path))]


def inspect_submission(path: Path) -> SubmissionReport:
    """Inspect a folder or zip as one submission (an unreadable one is an ``InputError``)."""
    return _inspect_files(read_submission(path))


def split_submissions(files: SubmissionFiles) -> list[SubmissionFiles]:
    """An archive of several submissions as one per top folder, else ``[files]``.

    Several means: no file at the top, and at least two top folders each holding a program (a TrialLoop or a
    ``run_evaluation`` call). One submission with two architectures in two folders has its README or requirements
    at the top, and stays whole.
    """
    folders: dict[str, dict[str, bytes]] = {}
    for path, data in files.files.items():
        top, _, rest = path.partition("/")
        if not rest:
            return [files]  # a file at the top: one submission
        folders.setdefault(top, {})[rest] = data
    programs = {top: inner for top, inner in folders.items() if find_candidates(inner).candidates}
    if len(programs) < 2:
        return [files]
    return [SubmissionFiles(files.origin / top, inner) for top, inner in sorted(programs.items())]


def _inspect_files(files: SubmissionFiles) -> SubmissionReport:
    path = files.origin
    candidates = find_candidates(files.files)
    entry = candidates.entry or ""
    requirements_file, requirements = declared_requirements(files.files, entry) if entry else ("", [])
    if not requirements_file:
        requirements_file, requirements = declared_requirements(files.files, "")
    declared = {requirement_name(spec) for spec in requirements}
    own, stdlib = _own_modules(files), set(sys.stdlib_module_names)
    undeclared: dict[str, str] = {}
    uses: list[FileUse] = []
    modules, clients = [], []
    # only what the program imports needs installing (a module nothing imports brings no dependency)
    run = reachable_modules(files, [entry]) if entry else {facts.path for facts in candidates.modules}
    for facts in candidates.modules:
        source = files.files[facts.path]
        report = inspect_source(source, Path(facts.path))
        is_entry = facts in candidates.candidates or facts.path == entry
        modules.append(_in_context(report, facts, is_entry, (own, declared)))
        # the use of a client, not its import (a program may import openai's message types for its hints)
        clients += [
            f"{facts.path} line {f.line}: {f.message}"
            for f in report.flags
            if f.concern is Concern.NETWORK and not f.message.startswith("imports ")
        ]
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for name in _imports(tree) if facts.path in run else ():
            known = name in stdlib or name in own or name in OFFICIAL_NAMES or name == "_podium"
            distribution = _DISTRIBUTIONS.get(name, name)
            if not known and requirement_name(distribution) not in declared:
                undeclared.setdefault(name, facts.path)
        uses += [FileUse(facts.path, line, used, writes, _where(used, entry, files))
                 for line, used, writes in _path_uses(tree)]  # fmt: skip
    written = {use.path for use in uses if use.writes}
    uses = [FileUse(u.module, u.line, u.path, u.writes, "written") if not u.found and u.path in written else u
            for u in uses]  # fmt: skip
    return SubmissionReport(
        path, files, candidates, requirements_file, tuple(requirements), tuple(sorted(undeclared.items())),
        tuple(uses), tuple(clients), tuple(_readme(files)), tuple(modules),
    )  # fmt: skip


def _in_context(
    report: ProgramReport, facts: ModuleFacts, is_entry: bool, known: tuple[set[str], set[str]]
) -> ProgramReport:
    """A module's report as part of its submission.

    Its own modules (``known[0]``) are no surprise and a declared requirement (``known[1]``) is a note to read; only
    the entry must be a TrialLoop program, and one built on a class of the submission is one.
    """
    own, declared = known
    in_package = "/" in facts.path  # a relative import between a package's modules is how packages are written
    kept = []
    for finding in report.findings:
        words = finding.message.split()
        top = words[1].rstrip(",()").split(".")[0] if finding.concern is Concern.IMPORT and len(words) > 1 else ""
        relative = finding.concern is Concern.IMPORT and finding.message.startswith("relative import")
        structure = finding.concern is Concern.STRUCTURE
        if top in own or (relative and in_package) or (structure and not is_entry):
            continue
        if structure and facts.loops and "defines no TrialLoop subclass" in finding.message:
            continue  # built on a class of the submission's own (entry.py follows those)
        if top and requirement_name(_DISTRIBUTIONS.get(top, top)) in declared:
            finding = dataclasses.replace(finding, severity=NOTE, message=f"{finding.message} (a declared requirement)")
        kept.append(finding)
    return dataclasses.replace(report, findings=tuple(kept))


def submission_as_json(report: SubmissionReport) -> dict[str, Any]:
    """One submission's report as plain JSON data."""
    found = report.candidates
    return {
        "path": str(report.origin),
        "flags": report.flags,
        "files": len(report.files.files),
        "bytes": sum(len(data) for data in report.files.files.values()),
        "left_out": list(report.files.left_out),
        "entry": found.entry,
        "entry_reason": found.why,
        "candidates": [
            {
                "path": m.path,
                "calls_run_evaluation": m.calls_run_evaluation,
                "loops": list(m.loops),
                "loop_named": m.loop_named,
            }
            for m in found.candidates
        ],  # fmt: skip
        "requirements_file": report.requirements_file or None,
        "requirements": list(report.requirements),
        "undeclared_imports": [{"name": name, "module": module} for name, module in report.undeclared],
        "file_uses": [
            {"module": u.module, "line": u.line, "path": u.path, "writes": u.writes, "found": u.found or None}
            for u in report.file_uses
        ],  # fmt: skip
        "clients": list(report.clients),
        "readme": list(report.readme),
        "suggested_command": report.suggested_command(),
        "modules": [report_as_json(module) for module in report.modules],
    }


def submission_as_text(report: SubmissionReport) -> str:
    """One submission's report as lines a person reads."""
    found, flags, files = report.candidates, report.flags, report.files
    settle = "nothing to settle" if flags == 0 else f"{flags} thing{'s' * (flags != 1)} to settle"
    left_out = f"; left out: {', '.join(files.left_out)}" if files.left_out else ""
    size = sum(len(data) for data in files.files.values())
    out = [f"{report.origin}: submission, {settle}", f"  files: {len(files.files)} ({size} bytes){left_out}"]
    out.append(f"  entry: {found.entry or 'none found'} ({found.why})")
    if found.candidates and (found.entry is None or len(found.candidates) > 1):
        out += [f"  {FLAG:<4}  candidate {line.strip()}" for line in found.describe().splitlines()]
    if not found.candidates:
        out.append(f"  {FLAG:<4}  no TrialLoop program (2025 disqualified a team for not using the official package)")
    source = f" (from {report.requirements_file})" if report.requirements_file else ""
    out.append(f"  requirements: {', '.join(report.requirements) or 'none'}{source}")
    for name, module in report.undeclared:
        fix = f"--requirement {_DISTRIBUTIONS.get(name, name)}"
        out.append(f"  {FLAG:<4}  {module} imports {name}, which nothing declares: add {fix}")
    for use in report.file_uses:
        where = {"top": "in the submission", "entry": "only beside the entry: --workdir?", "": "not in the submission",
                 "written": "which it writes itself"}  # fmt: skip
        severity = "note" if use.writes or use.found in ("top", "written") else FLAG
        what = f"writes {use.path} (in its own copy)" if use.writes else f"reads {use.path} ({where[use.found]})"
        out.append(f"  {severity:<4}  {use.module} line {use.line} {what}")
    out += [f"  {FLAG:<4}  calls a model or the network itself: {client}" for client in report.clients]
    out += [f"  readme  {line}" for line in report.readme]
    out.append(f"  suggested: {report.suggested_command()}")
    out += ["", *(report_as_text(module) for module in report.modules)]
    return "\n".join(out)
