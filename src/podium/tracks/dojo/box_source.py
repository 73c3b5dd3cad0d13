"""The copy of a solver the sandbox receives: its tokens, without the bytes the anti-hardcode rule does not count.

The scoring rules v0.1 (docs/rules/dojo-scoring.md §3) limit literals but never count comments, nor the spaces between
tokens, and a solver can read its own file back without a banned name (``tokenize.open(__file__)``,
``__loader__.get_data``): a table in a comment, or in the number of spaces between tokens, would pass the rule and reach
the program. So the box holds a copy rebuilt from the tokens: comments (the encoding cookie and ``#!`` line too) are
gone, each logical line is indented one space per level, and tokens on a line are separated by one space. Every token
keeps its line, so the line numbers of a traceback are the submitted file's, and strings, numbers and names are copied
as written. What a solver can read back is then what the rule counts (its literals) and the program itself (its names
and its shape, which it can read from its own code objects anyway). One token keeps its spacing: an f-string is copied
as written, spaces inside its fields included (``ast.unparse`` could write it back as text only the judge's Python
reads: 3.12 allows quotes inside fields that 3.11, in the sandbox, refuses).

L and the hash stay those of the submitted canonical source (the copy is never stored or measured). The copy must
mean what the source means: it is accepted only when it parses to the same syntax tree, node for node and line
for line; otherwise ``box_copy`` returns None and the judge rejects the source rather than run its comments.
Decoding is the judge's own: the copy is UTF-8, so a ``# coding:`` cookie can no longer make the interpreter read
the source otherwise than the static policy read it.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator

from podium.tracks.dojo.parsing import parse_source

_SKIPPED = (tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT)
# Python 3.12 splits an f-string into tokens (its literal text among them); copied whole, as one token is
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


class _Doubt(Exception):
    """The copy could not be built without a doubt about its meaning or about what it carries."""


def box_copy(text: str) -> str | None:
    """``text`` rebuilt from its tokens (module docstring), or None when that cannot be done without a doubt."""
    if not text:
        return text
    try:
        copy = "".join(_rebuilt(text))
        same = _shape(parse_source(copy)) == _shape(parse_source(text))
    except (_Doubt, SyntaxError, tokenize.TokenError, RecursionError, MemoryError, ValueError):
        return None
    return copy if same else None


def _rebuilt(text: str) -> Iterator[str]:
    row, level = 1, 0
    logical_start = True  # the next token starts a logical line, and takes the indentation
    previous: tuple[int, tuple[int, int]] | None = None  # the type and end of the last token out on this line
    for kind, string, start, end in _units(text):
        if kind == tokenize.INDENT:
            level += 1
        elif kind == tokenize.DEDENT:
            level -= 1
        if kind in _SKIPPED:
            continue
        while row < start[0]:  # a backslash continuation: what follows stays on its own line
            yield "\\\n"
            row, previous = row + 1, None
        if kind in (tokenize.NEWLINE, tokenize.NL):  # NL: a blank or comment line, or a break inside brackets
            yield "\n"
            row, previous = start[0] + 1, None
            logical_start = logical_start or kind == tokenize.NEWLINE
            continue
        if logical_start:
            yield " " * level
        elif previous is not None and not _one_name(previous, kind, start):
            yield " "
        yield string
        row += string.count("\n")  # a string over several lines
        previous, logical_start = (kind, end), False


def _one_name(previous: tuple[int, tuple[int, int]], kind: int, start: tuple[int, int]) -> bool:
    """Whether two tokens are pieces of one identifier, which ``tokenize`` splits at combining marks."""
    pieces = (tokenize.NAME, tokenize.ERRORTOKEN)
    return previous[0] in pieces and kind in pieces and previous[1] == start


def _units(text: str) -> Iterator[tuple[int, str, tuple[int, int], tuple[int, int]]]:
    """``(type, text, start, end)`` of each token, with a 3.12 f-string as one token of its source text."""
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if _FSTRING_START is None or token.type != _FSTRING_START:
            yield token.type, token.string, token.start, token.end
            index += 1
            continue
        depth, end = 0, index
        for end in range(index, len(tokens)):
            depth += (tokens[end].type == _FSTRING_START) - (tokens[end].type == _FSTRING_END)
            if tokens[end].type == tokenize.COMMENT:
                raise _Doubt("a comment inside an f-string")  # PEP 701 allows them; they would be copied
            if depth == 0:
                break
        (first_row, first_col), (last_row, last_col) = token.start, tokens[end].end
        piece = text[starts[first_row - 1] + first_col : starts[last_row - 1] + last_col]
        yield tokenize.STRING, piece, token.start, tokens[end].end
        index = end + 1


def _shape(tree: ast.AST) -> list[tuple[object, ...]]:
    """Every node in a fixed order with its type, lines and plain fields: equal shapes are the same program.

    Built without recursion (a solver may nest 1,500 levels), and comparing values, never their text (``repr`` of
    a 5,000-digit integer would meet the very limit ``parse_source`` lifts).
    """
    shape: list[tuple[object, ...]] = []
    for node in ast.walk(tree):
        plain, children = [], []
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                children.append(len(value))
            elif not isinstance(value, ast.AST):
                plain.append((name, type(value).__name__, value))
        lines = (getattr(node, "lineno", None), getattr(node, "end_lineno", None))
        shape.append((type(node).__name__, lines, tuple(plain), tuple(children)))
    return shape
