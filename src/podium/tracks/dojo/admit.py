r"""Stage ``admit``: check a submitted source's size and encoding, canonicalise it, measure and hash it.

Canonical form (docs/rules/dojo-platform.md §8, docs/rules/dojo-scoring.md §1.3): strict UTF-8 (a leading BOM is
removed), ``\r\n`` and lone ``\r`` become ``\n``, trailing lines that are empty or whitespace-only are removed, and the
text ends with exactly one ``\n``; an empty source stays empty. Whitespace at the end of a line is kept and nothing is
Unicode-normalised, so the bytes a golfer counts are the bytes we count. ``L_chars`` is the canonical byte count and
``solver_hash`` its SHA-256.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from podium.core.records import StageFailure
from podium.tracks.dojo.verdicts import RunVerdict

BOM = "\ufeff"
_TRAILING_BLANK_LINES = re.compile(r"(?:\n[ \t\f\v]*)+\Z")


@dataclass(frozen=True, slots=True)
class AdmittedSource:
    """A source in canonical form with its length and hash."""

    text: str
    canonical: bytes
    length: int  # L_chars: bytes of the canonical text
    sha256: str


def canonicalize(text: str) -> str:
    """The canonical text of a decoded source."""
    if text.startswith(BOM):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Whitespace-only lines at the end go; the first line may be one of them, hence the leading "\n".
    text = _TRAILING_BLANK_LINES.sub("", "\n" + text)[1:]
    return text + "\n" if text else ""


EMPTY_SOURCE = "the source is empty or only whitespace; send the program that prints the sequence"


def admit(raw: bytes, *, max_bytes: int) -> AdmittedSource | StageFailure:
    """Admit ``raw`` source bytes, or say why they cannot be judged."""
    if len(raw) > max_bytes:
        return StageFailure(
            RunVerdict.POLICY_REJECT, f"the source is {len(raw)} bytes; at most {max_bytes} are accepted"
        )
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        return StageFailure(
            RunVerdict.POLICY_REJECT, f"the source is not UTF-8 (byte {error.start}: {error.reason}); save it as UTF-8"
        )
    canonical_text = canonicalize(text)
    if not canonical_text.strip():  # nothing to judge: a mistake (an empty paste, the wrong file), never a program
        return StageFailure(RunVerdict.POLICY_REJECT, EMPTY_SOURCE)
    canonical = canonical_text.encode("utf-8")
    return AdmittedSource(canonical_text, canonical, len(canonical), hashlib.sha256(canonical).hexdigest())
