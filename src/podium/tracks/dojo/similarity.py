"""Copies across users: the same solver with other names, spacing or comments, and solvers nearly the same.

In a brevity contest, copying a short solution is the cheat to expect; the jury needs to see it, and decide. Two
measures, both over the solver's Python tokens (``tokenize``), so that nothing but the program counts:

- **Normalised hash**: SHA-256 of the token stream with comments, blank lines and indentation tokens dropped and
  every name that is not a keyword or a builtin replaced by its order of first use (``v0``, ``v1``, ...). Renaming
  variables, reformatting or commenting a copy leaves it unchanged; any other change moves it.
- **Similarity**: the Jaccard index of the two streams' sets of token 4-grams (the shingles of Broder 1997, as
  MOSS-like tools use them), from 0 to 1; pairs of different users at ``NEAR`` (0.8) or more are listed.

Neither is a verdict: two people can write the same 30-byte program on their own, and the shortest solutions of
one sequence converge. A flag is a reason to look (the submission pages show both sources), never a
disqualification by itself; disqualifying stays the audited amendment of ``podium dojo disqualify``.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import keyword
import tokenize
from collections.abc import Sequence

NEAR = 0.8
SHINGLE = 4
_DROPPED = (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER)
_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))


def normalised_tokens(source: bytes) -> list[str]:
    """The solver's tokens with comments and layout dropped and its own names numbered by first use.

    A source that does not tokenize (it was rejected before running anyway) is compared as its lines, stripped.
    """
    try:
        text = source.decode("utf-8")
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (UnicodeDecodeError, tokenize.TokenError, SyntaxError, IndentationError):
        return [line.strip() for line in source.decode("utf-8", "replace").splitlines() if line.strip()]
    names: dict[str, str] = {}
    out = []
    for token in tokens:
        if token.type in _DROPPED:
            continue
        if token.type == tokenize.NAME and token.string not in _KEPT_NAMES:
            out.append(names.setdefault(token.string, f"v{len(names)}"))
        elif token.type == tokenize.NEWLINE:
            out.append("\\n")
        else:
            out.append(token.string)
    return out


def normalised_hash(source: bytes) -> str:
    """The SHA-256 of ``normalised_tokens``: equal for copies that differ in names, spacing or comments only."""
    return tokens_hash(normalised_tokens(source))


def tokens_hash(tokens: Sequence[str]) -> str:
    """The SHA-256 of a normalised token stream."""
    return hashlib.sha256("\0".join(tokens).encode("utf-8")).hexdigest()


def shingles(tokens: Sequence[str]) -> frozenset[tuple[str, ...]]:
    """The stream's token ``SHINGLE``-grams (the whole stream where it is shorter)."""
    if len(tokens) <= SHINGLE:
        return frozenset({tuple(tokens)})
    return frozenset(tuple(tokens[i : i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1))


def similarity(a: bytes, b: bytes) -> float:
    """The Jaccard index of two solvers' shingles, from 0 (nothing shared) to 1."""
    return jaccard(shingles(normalised_tokens(a)), shingles(normalised_tokens(b)))


def jaccard(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    """|a ∩ b| / |a ∪ b| (1 for two empty sets)."""
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union
