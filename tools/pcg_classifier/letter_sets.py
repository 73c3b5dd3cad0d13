"""The hand-designed block-letter sets, read from their data files (``data/block_letters/<set>.txt``).

The file format is described in ``data/block_letters/README.md``: ``;`` comment lines, ``[LABEL]`` opening each
picture (a capital, or ``UNCLEAR_<LETTER>`` for a picture kept apart), then its rows, top row first. A picture is
handed on as its rows joined by newlines, the form ``block_letters.picture_grid`` and ``drop_sequence`` read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DATA_FOLDER = Path(__file__).with_name("data") / "block_letters"
# in the order they were made; each set's key in the weights' JSON is ``report_key(name)``
SET_NAMES = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")

_LABEL = re.compile(r"\[(?P<label>[A-Z]|UNCLEAR_[A-Z])\]")
_ROW = re.compile(r"[#=|.]+")


@dataclass(frozen=True, slots=True)
class LetterSet:
    """One set: its pictures by letter, and the pictures it keeps apart as unclear (by ``UNCLEAR_<LETTER>``)."""

    name: str
    designs: Mapping[str, tuple[str, ...]]
    unclear: Mapping[str, tuple[str, ...]]

    @property
    def report_key(self) -> str:
        """The set's key in the weights' JSON (``block_letters``, ``block_letters_second_set``, ...)."""
        return report_key(self.name)


def report_key(name: str) -> str:
    """The JSON key of the set ``name``: the name of the Python module that held it before it became data."""
    return "block_letters" if name == "first" else f"block_letters_{name}_set"


def parse_letter_set(text: str, name: str) -> LetterSet:
    """Read one set from its file's text; a ``ValueError`` names the line that breaks the format."""
    pictures: dict[str, list[str]] = {}
    label: str | None = None
    rows: list[str] = []

    def close() -> None:
        if label is not None:
            if not rows:
                raise ValueError(f"{name}: [{label}] has no rows")
            pictures.setdefault(label, []).append("\n".join(rows))

    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(";"):
            continue
        if not line.strip():
            close()
            label, rows = None, []
        elif match := _LABEL.fullmatch(line):
            close()
            label, rows = match["label"], []
        elif label is not None and _ROW.fullmatch(line):
            rows.append(line)
        else:
            raise ValueError(f"{name}: line {number}: expected [LABEL] or a row of # = | . but found {line!r}")
    close()
    designs = {key: tuple(value) for key, value in pictures.items() if len(key) == 1}
    unclear = {key: tuple(value) for key, value in pictures.items() if len(key) > 1}
    return LetterSet(name, designs, unclear)


def load_letter_set(name: str) -> LetterSet:
    """The set ``name`` (one of ``SET_NAMES``) from ``data/block_letters/<name>.txt``."""
    return parse_letter_set((DATA_FOLDER / f"{name}.txt").read_text("utf-8"), name)


def letter_sets() -> dict[str, LetterSet]:
    """Every set, by its key in the weights' JSON, in the order they were made."""
    return {report_key(name): load_letter_set(name) for name in SET_NAMES}
