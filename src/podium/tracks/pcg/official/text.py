"""Text as the official scripts read it: Node's ``readFile(path, 'utf8')``, which replaces bad bytes silently."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class DecodedText:
    """A file's text and, when bytes had to be replaced, a warning that says where."""

    text: str
    warning: str | None = None


def decode_utf8(data: bytes, path: Path) -> DecodedText:
    """Decode UTF-8 the way Node's ``readFile(path, 'utf8')`` does: bad bytes become U+FFFD.

    The warning lets the caller report replaced bytes without stopping (the official scripts would have scored the
    replaced text silently).
    """
    try:
        return DecodedText(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        hint = (
            "it looks like UTF-16; re-save it as UTF-8"
            if data[:2] in (b"\xff\xfe", b"\xfe\xff")
            else ("re-save it as UTF-8")
        )
        warning = (
            f"{path}: not valid UTF-8 (first bad byte at offset {exc.start}); invalid bytes were replaced by "
            f"U+FFFD as the official scripts do; {hint}"
        )
        return DecodedText(data.decode("utf-8", errors="replace"), warning)
