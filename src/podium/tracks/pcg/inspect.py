"""Inspect (``podium pcg inspect``): a per-program report for the organisers' manual check of the rules.

Step 1 of the 2025 evaluation is a person reading every submitted program for rule violations. This module reads
a program the way that person would, without running it (``ast`` only), and lists what deserves a look: imports
outside the allow list and the official package, names of the official package outside its public API, calls
that reach files, processes, the network or the environment, obfuscation (code built from text, names reached by
strings, decoded payloads, interpreter internals, characters that display differently from what Python reads),
and the program's size and prompt length. It is a help to the human, not a verdict: a flag is a place to read,
and a program without flags can still break the rules by what its prompts say.

Findings are ``flag`` (read this) or ``note`` (context). What counts as allowed lives in ``inspect_rules``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from podium.core.storage.files import read_bytes
from podium.tracks.pcg.inspect_rules import (
    ALLOWED_MODULES,
    BIDI_CONTROLS,
    CODE_BUILTINS,
    CONTEXT_BUDGET,
    DUNDER_ESCAPES,
    FILE_BUILTINS,
    FILE_METHODS,
    NAME_BUILTINS,
    OFFICIAL_MODULES,
    OFFICIAL_PACKAGES,
    OS_ENVIRONMENT,
    OS_PROCESS,
    RISKY_MODULES,
    Concern,
)
from podium.tracks.pcg.source import ParsedSource, parse_source, prompt_words, string_literals

FLAG = "flag"
NOTE = "note"
_MANGLED = re.compile(r"_[A-Za-z0-9]\w*__\w+")  # a name-mangled private field, e.g. _TrialContext__start_time


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing in a program worth the organiser's attention."""

    concern: Concern
    severity: str  # FLAG or NOTE
    line: int | None
    message: str


@dataclass(frozen=True, slots=True)
class ProgramSize:
    """How big a program is, and how much text it carries."""

    lines: int
    bytes: int
    strings: int = 0
    longest_string_chars: int = 0
    string_chars: int = 0
    prompt_words: int = 0


@dataclass(frozen=True, slots=True)
class ProgramReport:
    """What ``inspect`` found in one program."""

    path: Path
    size: ProgramSize
    package: str | None = None  # "llms4pcg" or "chatgpt4pcg", whichever the program imports
    imports: tuple[str, ...] = ()
    trial_loops: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()

    @property
    def flags(self) -> tuple[Finding, ...]:
        """The findings a person should read."""
        return tuple(f for f in self.findings if f.severity == FLAG)

    @property
    def parsed(self) -> bool:
        """Whether Python could read the program at all."""
        return not any(f.concern in (Concern.SYNTAX, Concern.ENCODING) and f.severity == FLAG for f in self.findings)


@dataclass(slots=True)
class _Walker(ast.NodeVisitor):
    """Collects findings over one parsed program, resolving imported names to dotted module paths."""

    aliases: dict[str, str] = field(default_factory=dict)  # local name → dotted name it was imported as
    imports: list[str] = field(default_factory=list)
    packages: set[str] = field(default_factory=set)
    trial_loops: list[str] = field(default_factory=list)
    chat_calls: int = 0
    inner: set[int] = field(default_factory=set)  # nodes that are part of a larger dotted name or a call
    findings: list[Finding] = field(default_factory=list)

    def add(self, concern: Concern, node: ast.AST | None, message: str, severity: str = FLAG) -> None:
        self.findings.append(Finding(concern, severity, getattr(node, "lineno", None), message))

    # imports ---------------------------------------------------------------------------------------------
    def _check_module(self, module: str, node: ast.AST) -> None:
        top = module.split(".")[0]
        if module not in self.imports:
            self.imports.append(module)
        if top in OFFICIAL_PACKAGES:
            self.packages.add(top)
            below = module.removeprefix(top).lstrip(".")
            if below not in OFFICIAL_MODULES:
                self.add(Concern.API, node, f"imports {module}, which is not part of the official API")
        elif top in RISKY_MODULES:
            self.add(RISKY_MODULES[top], node, f"imports {module}")
        elif top not in ALLOWED_MODULES:
            self.add(Concern.IMPORT, node, f"imports {module}, outside the allow list and the official package")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(alias.name, node)
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.aliases[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.add(Concern.IMPORT, node, f"relative import from {'.' * node.level}{node.module or ''}")
            return
        module = node.module or ""
        self._check_module(module, node)
        top = module.split(".")[0]
        for alias in node.names:
            if alias.name == "*":
                self.add(Concern.OBFUSCATION, node, f"from {module} import *: the names it binds are not visible")
                continue
            dotted = f"{module}.{alias.name}"
            self.aliases[alias.asname or alias.name] = dotted
            if top in OFFICIAL_PACKAGES:
                self._check_official_name(dotted, node)

    def _check_official_name(self, dotted: str, node: ast.AST) -> None:
        parts = dotted.split(".")
        below = ".".join(parts[1:-1])
        allowed = OFFICIAL_MODULES.get(below)
        if allowed is not None and parts[-1] not in allowed:
            self.add(Concern.API, node, f"uses {dotted}, which is not part of the official API")

    # names and attributes -----------------------------------------------------------------------------------
    def resolve(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for when it starts at an import (``os.path.join``), else None."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in DUNDER_ESCAPES:
            self.add(Concern.OBFUSCATION, node, f"reaches interpreter internals through .{node.attr}")
        elif node.attr in CONTEXT_BUDGET:
            self.add(Concern.API, node, f"calls .{node.attr}: changes its own token budget")
        elif _MANGLED.fullmatch(node.attr):
            self.add(
                Concern.API, node, f"reaches the private field .{node.attr} (TrialContext keeps its counts in such)"
            )
        elif node.attr.startswith("_") and not node.attr.startswith("__"):
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if own:
                pass  # a program's own state, kept between trials as the official runner allows
            elif isinstance(node.ctx, ast.Load):
                self.add(Concern.API, node, f"reads private attribute .{node.attr}", NOTE)
            else:
                self.add(Concern.API, node, f"changes private attribute .{node.attr}")
        self.inner.add(id(node.value))
        dotted = self.resolve(node)
        if dotted and dotted.split(".")[0] in OFFICIAL_PACKAGES and len(dotted.split(".")) > 1:
            self._check_official_name(dotted, node)
        elif dotted and id(node) not in self.inner:
            self._module_use(dotted, node, called=False)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in DUNDER_ESCAPES and node.id not in CODE_BUILTINS:
            self.add(Concern.OBFUSCATION, node, f"uses {node.id}")

    # calls --------------------------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.aliases:
            self._builtin_call(func.id, node)
        self.inner.add(id(func))
        dotted = self.resolve(func)
        if dotted:
            self._module_use(dotted, node)
        if isinstance(func, ast.Attribute):
            if func.attr in FILE_METHODS:
                self.add(Concern.FILE, node, f"calls .{func.attr}(): reads or changes files")
            elif func.attr in ("decode", "fromhex") and not dotted:
                self.add(Concern.OBFUSCATION, node, f"decodes data with .{func.attr}()", NOTE)
        self.generic_visit(node)

    def _builtin_call(self, name: str, node: ast.Call) -> None:
        if name in CODE_BUILTINS:
            self.add(Concern.OBFUSCATION, node, f"calls {name}()")
        elif name in NAME_BUILTINS:
            literal = len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
            if not literal:
                self.add(Concern.OBFUSCATION, node, f"calls {name}() with a name computed at run time")
            elif isinstance(node.args[1], ast.Constant) and str(node.args[1].value).startswith("_"):
                self.add(Concern.OBFUSCATION, node, f"calls {name}() for {node.args[1].value!r}")
        elif name in FILE_BUILTINS:
            self.add(Concern.FILE, node, f"calls {name}()")
        elif name in OFFICIAL_CHAT_NAMES:
            self.add(Concern.STRUCTURE, node, f"calls {name}() without importing it", NOTE)

    def _module_use(self, dotted: str, node: ast.AST, called: bool = True) -> None:
        """A call to (or, with ``called=False``, a reference to) a name reached through an import."""
        parts = dotted.split(".")
        top, last = parts[0], parts[-1]
        verb, suffix = ("calls", "()") if called else ("refers to", "")
        if top in OFFICIAL_PACKAGES:
            if not called:
                return
            if last in OFFICIAL_CHAT_NAMES:
                self.chat_calls += 1
                if OFFICIAL_PACKAGES[top] != last:
                    self.add(Concern.API, node, f"calls {dotted}(), which {top} does not define")
            elif last == "run_evaluation":
                self.add(Concern.STRUCTURE, node, "calls run_evaluation(): the runner, not the program, does", NOTE)
            return
        if top == "os":
            if last in OS_PROCESS:
                self.add(Concern.PROCESS, node, f"{verb} {dotted}{suffix}")
            elif OS_ENVIRONMENT.intersection(parts):
                self.add(Concern.ENVIRONMENT, node, f"{verb} {dotted}{suffix}: environment variables")
            else:
                self.add(Concern.FILE, node, f"{verb} {dotted}{suffix}")
        elif top in RISKY_MODULES:
            self.add(RISKY_MODULES[top], node, f"{verb} {dotted}{suffix}")
        elif top not in ALLOWED_MODULES:
            self.add(Concern.IMPORT, node, f"{verb} {dotted}{suffix}, outside the allow list and the official package")

    # the shape of a program ------------------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            dotted = self.resolve(base)
            if dotted and dotted.split(".")[0] in OFFICIAL_PACKAGES and dotted.endswith(".TrialLoop"):
                self.trial_loops.append(node.name)
                if not any(isinstance(s, ast.FunctionDef) and s.name == "run" for s in node.body):
                    self.add(Concern.STRUCTURE, node, f"class {node.name} defines no run(ctx, target_character)")
        self.generic_visit(node)


OFFICIAL_CHAT_NAMES = frozenset(OFFICIAL_PACKAGES.values())


def _text_findings(parsed: ParsedSource) -> Iterable[Finding]:
    if parsed.encoding not in ("utf-8", "utf-8-sig"):
        yield Finding(Concern.ENCODING, NOTE, 1, f"declares its source encoding as {parsed.encoding}")
    for number, line in enumerate(parsed.text.splitlines(), start=1):
        if BIDI_CONTROLS.intersection(line):
            yield Finding(
                Concern.OBFUSCATION, FLAG, number, "bidirectional control character: the line reads otherwise"
            )
    odd = sorted(
        {n.id for n in ast.walk(parsed.tree) if isinstance(n, ast.Name) and not n.id.isascii()}
        | {
            n.name
            for n in ast.walk(parsed.tree)
            if isinstance(n, ast.FunctionDef | ast.ClassDef) and not n.name.isascii()
        }
    )
    if odd:
        yield Finding(Concern.OBFUSCATION, NOTE, None, f"non-ASCII identifiers (look-alike letters?): {', '.join(odd)}")


def inspect_source(data: bytes, path: Path) -> ProgramReport:
    """Inspect a program given as bytes (``path`` only names it in the report)."""
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    parsed = parse_source(data)
    if not isinstance(parsed, ParsedSource):
        finding = Finding(Concern(parsed.kind), FLAG, parsed.line, parsed.message)
        return ProgramReport(path, ProgramSize(lines, len(data)), findings=(finding,))
    walker = _Walker()
    try:
        walker.visit(parsed.tree)
    except RecursionError:  # Python parsed it, but its expressions nest deeper than this reader recurses
        deep = Finding(Concern.OBFUSCATION, FLAG, None, "nested too deeply for inspect to read: read it by hand")
        walker.findings.append(deep)
    findings = list(_text_findings(parsed)) + walker.findings
    if len(walker.packages) > 1:
        findings.append(Finding(Concern.STRUCTURE, FLAG, None, "imports both llms4pcg and chatgpt4pcg"))
    if not walker.packages:
        findings.append(Finding(Concern.STRUCTURE, FLAG, None, "does not import llms4pcg or chatgpt4pcg"))
    if not walker.trial_loops:
        findings.append(Finding(Concern.STRUCTURE, FLAG, None, "defines no TrialLoop subclass"))
    elif walker.chat_calls == 0:
        findings.append(Finding(Concern.STRUCTURE, FLAG, None, "never calls the official chat function"))
    texts = string_literals(parsed.tree)
    size = ProgramSize(
        lines=lines,
        bytes=len(data),
        strings=len(texts),
        longest_string_chars=max((len(t) for t in texts), default=0),
        string_chars=sum(len(t) for t in texts),
        prompt_words=prompt_words(parsed.tree),
    )
    findings.sort(key=lambda f: (f.line or 0, f.severity != FLAG))
    package = min(walker.packages) if walker.packages else None
    return ProgramReport(path, size, package, tuple(walker.imports), tuple(walker.trial_loops), tuple(findings))


def inspect_program(path: Path) -> ProgramReport:
    """Inspect the program in ``path`` (an unreadable file is an ``InputError``; a broken program is a report)."""
    return inspect_source(read_bytes(path), path)


def report_as_json(report: ProgramReport) -> dict[str, Any]:
    """One report as plain JSON data."""
    size = report.size
    return {
        "path": str(report.path),
        "parsed": report.parsed,
        "flags": len(report.flags),
        "package": report.package,
        "trial_loops": list(report.trial_loops),
        "imports": list(report.imports),
        "size": {name: getattr(size, name) for name in size.__slots__},
        "findings": [
            {"concern": f.concern.value, "severity": f.severity, "line": f.line, "message": f.message}
            for f in report.findings
        ],
    }


def report_as_text(report: ProgramReport) -> str:
    """One report as lines a person reads."""
    flags = len(report.flags)
    head = f"{report.path}: " + ("no flags" if flags == 0 else f"{flags} flag{'s' * (flags != 1)} to read")
    size = report.size
    out = [head]
    if report.parsed:
        loops = ", ".join(report.trial_loops) or "none"
        out.append(f"  package: {report.package or 'none'}; TrialLoop subclasses: {loops}")
        out.append(f"  imports: {', '.join(report.imports) or 'none'}")
        out.append(
            f"  size: {size.lines} lines, {size.bytes} bytes, {size.strings} strings "
            f"(longest {size.longest_string_chars} chars, {size.string_chars} in all), prompt {size.prompt_words} words"
        )
    else:
        out.append(f"  size: {size.lines} lines, {size.bytes} bytes")
    for f in report.findings:
        where = f"line {f.line}" if f.line else "file"
        out.append(f"  {f.severity:<4}  {f.concern.value:<11}  {where:<9}  {f.message}")
    return "\n".join(out)
