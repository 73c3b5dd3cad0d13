"""Prompt length, the measure that breaks equal totals in the winner rule and the ranks.

One measure for every kind of submission, in words as the competition's own counter (``words-count`` 2.0.2,
``wordcount.py``) counts them: a 2023 prompt file counts its text; a program (``.py``) counts its string literals,
docstrings and dict keys left out (``source.prompt_words``); a submission folder counts every ``.py`` and ``.txt``
file in it, so prompts kept in files beside the program count too. Why: ``docs/design/pcg-scoring.md``.
"""

from __future__ import annotations

from pathlib import Path

from podium.core.errors import InputError
from podium.core.storage.files import read_bytes
from podium.tracks.pcg.official.rundir import base_name
from podium.tracks.pcg.official.text import decode_utf8
from podium.tracks.pcg.rules.wordcount import count_words
from podium.tracks.pcg.source import ParsedSource, parse_source, prompt_words

PROGRAM_SUFFIX = ".py"
PROMPT_SUFFIX = ".txt"


def _visible(path: Path, top: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(top).parts)


def prompt_length(path: Path) -> int:
    """The prompt length in words of a prompt file, a program, or a submission folder."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and _visible(p, path))
        return sum(prompt_length(p) for p in files if p.suffix in (PROGRAM_SUFFIX, PROMPT_SUFFIX))
    data = read_bytes(path)
    if path.suffix != PROGRAM_SUFFIX:
        return count_words(decode_utf8(data, path).text)
    parsed = parse_source(data)
    if not isinstance(parsed, ParsedSource):
        where = f" (line {parsed.line})" if parsed.line else ""
        raise InputError(
            f"cannot measure the prompt of a program Python cannot read: {parsed.message}{where}",
            path=path,
            fix=f"run `podium pcg inspect {path}`; fix or remove the program",
        )
    return prompt_words(parsed.tree)


def prompt_lengths(folder: Path) -> dict[str, int]:
    """Each team's prompt length from ``folder``: ``<TEAM>.txt``, ``<TEAM>.py`` or a ``<TEAM>/`` folder."""
    if not folder.is_dir():
        raise InputError("not a folder", path=folder, fix="give the folder of prompts or programs, one per team")
    lengths = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        team = entry.name if entry.is_dir() else base_name(entry.name)
        lengths[team] = prompt_length(entry)
    return lengths
