"""A participant program's source as Python would read it: decoded, parsed, and its string literals.

Shared by ``inspect`` (the organisers' report) and the prompt-length measure of the winner rule. Nothing here runs
the program: bytes are decoded as the interpreter decodes a source file (a PEP 263 coding line or a UTF-8 BOM,
else UTF-8) and parsed with ``ast``. A program that cannot be read is a ``SourceProblem`` (data, not an exception:
a broken submission is what the report is for).
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass

from podium.tracks.pcg.rules.wordcount import count_words


@dataclass(frozen=True, slots=True)
class SourceProblem:
    """Why a program cannot be parsed: an encoding or syntax error, with the line where Python stopped."""

    kind: str  # "encoding" or "syntax"
    message: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """A decoded, parsed program."""

    text: str
    encoding: str  # what the coding line (or BOM) declared; "utf-8" without one
    tree: ast.Module


def parse_source(data: bytes) -> ParsedSource | SourceProblem:
    """Decode ``data`` as Python decodes a source file and parse it; say clearly what stopped either step."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # bad bytes on the first two lines, an unknown codec, a BOM contradicting it
        encoding = "utf-8"
        if "encoding declaration" not in str(error.msg):
            return SourceProblem("encoding", str(error.msg), error.lineno)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return SourceProblem(
            "encoding",
            f"not valid {encoding}: byte 0x{data[error.start]:02x} at offset {error.start} cannot be decoded "
            f"(Python refuses to run it; re-save the file as UTF-8)",
            line,
        )
    text = text.removeprefix("\ufeff")
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        return SourceProblem("syntax", "the file contains a NUL byte (Python refuses to run it)", line)
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = f" at column {error.offset}" if error.offset else ""
        shown = f": {error.text.strip()!r}" if error.text and error.text.strip() else ""
        return SourceProblem("syntax", f"{error.msg}{where}{shown}", error.lineno)
    except (RecursionError, MemoryError):
        return SourceProblem("syntax", "nested too deeply for Python's parser")
    return ParsedSource(text, encoding, tree)


def _docstring_nodes(tree: ast.Module) -> set[int]:
    nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                nodes.add(id(first.value))
    return nodes


def _dict_key_nodes(tree: ast.Module) -> set[int]:
    return {id(key) for node in ast.walk(tree) if isinstance(node, ast.Dict) for key in node.keys if key is not None}


def string_literals(tree: ast.Module) -> list[str]:
    """The program's text literals in source order (f-string pieces included), without docstrings or dict keys.

    What remains is the text a program can send to a model: its prompts, and the few words around them.
    """
    skipped = _docstring_nodes(tree) | _dict_key_nodes(tree)
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            found.append((node.lineno, node.col_offset, node.value))
    return [text for _, _, text in sorted(found)]


def prompt_words(tree: ast.Module) -> int:
    """A program's prompt length: the words (``words-count``, the competition's counter) of its text literals."""
    return sum(count_words(text) for text in string_literals(tree))
