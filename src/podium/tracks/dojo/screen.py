"""Stage ``screen``: the static anti-hardcode policy (docs/rules/dojo-scoring.md §3, docs/rules/dojo-platform.md §7).

Computed from the canonical source with ``tokenize`` and ``ast``. A submission is rejected when it imports or
calls file I/O, networking or processes, or when it embeds a payload over the season's thresholds (numeric
literal tokens, total string-literal characters, elements of one list/tuple literal). The policy is a scoring
rule, not a security boundary: the sandbox is the boundary, so a clever evasion (``exec`` of a built string) is
contained there even when the screen misses it.

v0.1's thresholds count tokens and characters, which the scoring rules themselves call coarse
(docs/rules/dojo-scoring.md §3.3): one hex literal holds any number, one astral character 20 bits. The *literal payload*
measures the information instead, in bytes: the digits of every numeric literal in its own base (``0x1F`` is 2,
``1_000`` is 4, ``1.5e10`` is 4) plus the UTF-8 bytes of every ``str`` constant (f-string pieces and docstrings
included) and the length of every ``bytes`` one. It is always measured (and published after reveal); a season under
``payload-budget-v1`` also caps it. Under ``payload-budget-v2`` the identifiers count too: every byte beyond the
eighth of each distinct name (``NAME_ALLOWANCE``), so a table hidden in one 772-character identifier (decoded back
through ``dir()``) is payload like the string it replaces, while ordinary names cost nothing or a byte or two.

Hostile text can make the parser itself fail (``MemoryError``, ``RecursionError`` on 100,000 nested unary minus
signs): the size is capped by ``admit`` first and every parser exception becomes a rejection with its reason.
"""

from __future__ import annotations

import ast
import io
import keyword
import tokenize
from dataclasses import dataclass

from podium.core.records import StageFailure
from podium.tracks.dojo.parsing import parse_source
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.verdicts import RunVerdict

# Modules whose import alone is a rejection: file I/O, networking, processes, foreign code, dynamic import.
FORBIDDEN_MODULES = frozenset(
    {
        "io", "pathlib", "shutil", "tempfile", "glob", "fileinput", "mmap", "zipfile", "tarfile", "gzip", "bz2",
        "lzma", "sqlite3", "dbm", "shelve", "linecache",
        "socket", "ssl", "select", "selectors", "asyncio", "urllib", "http", "ftplib", "smtplib", "poplib",
        "imaplib", "telnetlib", "xmlrpc", "socketserver", "webbrowser",
        "subprocess", "multiprocessing", "concurrent", "pty", "signal", "resource", "posix", "nt",
        "ctypes", "cffi", "importlib", "imp", "runpy", "builtins",
    }
)  # fmt: skip
# Attributes of ``os`` that touch files or processes (``os.path`` too); ``import os`` itself is allowed (os.urandom).
FORBIDDEN_OS_ATTRIBUTES = frozenset(
    {
        "open", "fdopen", "read", "write", "remove", "unlink", "rmdir", "removedirs", "mkdir", "makedirs",
        "rename", "renames", "replace", "link", "symlink", "chmod", "chown", "truncate", "listdir", "scandir",
        "walk", "stat", "lstat", "chdir", "system", "popen", "fork", "forkpty", "kill", "killpg", "pipe",
        "dup", "dup2", "startfile", "path", "posix_spawn", "posix_spawnp", "sendfile",
    }
)  # fmt: skip
FORBIDDEN_OS_PREFIXES = ("exec", "spawn", "wait")
FORBIDDEN_BUILTINS = frozenset({"open", "__import__", "input", "breakpoint", "help"})
NAME_ALLOWANCE = 8
"""Bytes of each distinct identifier that are free under ``payload-budget-v2`` (``functools`` costs 1)."""


@dataclass(frozen=True, slots=True)
class PolicyFigures:
    """What the screen measured, shown to the operator whether or not the source passed."""

    numeric_literals: int
    string_literal_chars: int
    largest_list_tuple: int
    literal_payload_bytes: int
    name_payload_bytes: int = 0  # identifier bytes beyond NAME_ALLOWANCE per distinct name (payload-budget-v2)


@dataclass(frozen=True, slots=True)
class ScreenPassed:
    """A source the static policy accepts, with its figures."""

    figures: PolicyFigures


def screen(source: str, rules: ScoringRules, *, numeric_literal_limit: bool = True) -> ScreenPassed | StageFailure:
    """Apply the static policy to canonical ``source``; setters pass ``numeric_literal_limit=False``.

    The relaxed limit for setters is item 1 of docs/rules/dojo-platform.md §4.
    """
    try:
        tree = parse_source(source)
        figures = _payload_figures(tree, source)
        problem = _forbidden_use(tree)
    except SyntaxError as error:
        return StageFailure(RunVerdict.POLICY_REJECT, f"the source does not parse: {error.msg} (line {error.lineno})")
    except (RecursionError, MemoryError):
        return StageFailure(RunVerdict.POLICY_REJECT, "the source is nested too deeply to analyse")
    except Exception as error:  # noqa: BLE001 - any parser failure on hostile text is a rejection, never a crash
        return StageFailure(RunVerdict.POLICY_REJECT, f"the source cannot be analysed: {type(error).__name__}: {error}")
    if problem:
        return StageFailure(RunVerdict.POLICY_REJECT, problem)
    if numeric_literal_limit and figures.numeric_literals > rules.max_numeric_literals:
        return StageFailure(
            RunVerdict.POLICY_REJECT,
            f"hardcode-like: {figures.numeric_literals} numeric literals (at most {rules.max_numeric_literals})",
        )
    if figures.string_literal_chars > rules.max_string_literal_chars:
        return StageFailure(
            RunVerdict.POLICY_REJECT,
            f"hardcode-like: {figures.string_literal_chars} characters of string literals "
            f"(at most {rules.max_string_literal_chars})",
        )
    if figures.largest_list_tuple > rules.max_list_tuple_elements:
        return StageFailure(
            RunVerdict.POLICY_REJECT,
            f"hardcode-like: a list/tuple literal of {figures.largest_list_tuple} elements "
            f"(at most {rules.max_list_tuple_elements})",
        )
    names = figures.name_payload_bytes if rules.names_count_as_payload else 0
    if rules.payload_budget and figures.literal_payload_bytes + names > rules.max_literal_payload_bytes:
        of_names = f", {names} of them in long identifiers" if names else ""
        return StageFailure(
            RunVerdict.POLICY_REJECT,
            f"hardcode-like: {figures.literal_payload_bytes + names} bytes of literal payload{of_names} (at most "
            f"{rules.max_literal_payload_bytes} under the season's payload budget)",
        )
    return ScreenPassed(figures)


def literal_payload(source: str) -> int:
    """The literal payload of a canonical ``source`` in bytes (module docstring); SyntaxError if it does not parse."""
    return _payload_figures(parse_source(source), source).literal_payload_bytes


def _payload_figures(tree: ast.AST, source: str) -> PolicyFigures:
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    # docs/rules/dojo-scoring.md §3.2 counts NUMBER tokens (those inside an f-string's fields too, from Python 3.12 on)
    numeric = sum(1 for token in tokens if token.type == tokenize.NUMBER)
    names = {token.string for token in tokens if token.type == tokenize.NAME and not keyword.iskeyword(token.string)}
    name_payload = sum(max(0, len(name.encode("utf-8")) - NAME_ALLOWANCE) for name in names)
    lines = [line.encode("utf-8") for line in source.splitlines(keepends=True)]  # AST columns count UTF-8 bytes
    characters = payload = largest = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            characters += len(node.value)
            payload += len(node.value.encode("utf-8", "surrogatepass"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bytes):
            characters += len(node.value)
            payload += len(node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, int | float | complex):
            # the literal as written (its base matters), also inside an f-string's fields on every version
            written = lines[node.lineno - 1][node.col_offset : node.end_col_offset].decode("utf-8", "replace")
            payload += 0 if isinstance(node.value, bool) else _digits(written)
        elif isinstance(node, ast.List | ast.Tuple):
            largest = max(largest, len(node.elts))
    return PolicyFigures(numeric, characters, largest, payload, name_payload)


def _digits(number: str) -> int:
    """The digits of a numeric literal in its own base: no prefix, underscore, point, exponent mark or ``j``."""
    lowered = number.lower()
    if lowered[:2] in ("0x", "0o", "0b"):
        return sum(c in "0123456789abcdef" for c in lowered[2:])
    return sum(c.isdigit() for c in lowered)


def _forbidden_use(tree: ast.AST) -> str | None:
    """The first forbidden import, ``os`` function or builtin the source uses, as a reason; None if clean."""
    os_names = {"os"}  # names bound to the os module (``import os as o``)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in FORBIDDEN_MODULES:
                    return f"imports {alias.name!r} (file I/O, networking and processes are not allowed)"
                if root == "os":
                    os_names.add(alias.asname or "os")
        elif isinstance(node, ast.ImportFrom):
            root = (node.module or "").split(".")[0]
            if root in FORBIDDEN_MODULES or node.level:
                return f"imports from {node.module!r} (file I/O, networking and processes are not allowed)"
            if root == "os":
                for alias in node.names:
                    if alias.name == "*" or _forbidden_os_attribute(alias.name):
                        return f"imports os.{alias.name} (file and process functions are not allowed)"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in os_names:
            if _forbidden_os_attribute(node.attr):
                return f"uses os.{node.attr} (file and process functions are not allowed)"
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_BUILTINS:
            return f"uses {node.id}() (input, file access and dynamic import are not allowed)"
    return None


def _forbidden_os_attribute(name: str) -> bool:
    return name in FORBIDDEN_OS_ATTRIBUTES or name.startswith(FORBIDDEN_OS_PREFIXES)
