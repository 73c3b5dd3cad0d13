"""Resumability: remember which outputs are current, so a rerun skips them and a killed run loses little.

Each stage keeps an append-only ledger ``<root>/.podium/state/<stage>.jsonl`` (a hidden folder, so the
official scripts never mistake it for a team). A line records an output path and the key of what produced it:
a digest of the stage's version, its settings and its input bytes. An output is current when the file exists
and its last recorded key equals the key computed now. Lines are appended and flushed one by one, so a run
killed at any moment loses at most the items in flight.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import IO

STATE_FOLDER = Path(".podium") / "state"


def content_key(*parts: bytes | str) -> str:
    """Digest the parts (stage version, settings, input bytes) that decide an output."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


class StageLedger:
    """The ledger of one stage in one competition root."""

    def __init__(self, root: Path, stage: str) -> None:
        self._root = root
        self._path = root / STATE_FOLDER / f"{stage}.jsonl"
        self._keys: dict[str, str] = {}
        self._handle: IO[str] | None = None
        if self._path.exists():
            for line in self._path.read_text("utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                    self._keys[entry["output"]] = entry["key"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line torn by a kill: the output it describes is simply redone

    def _relative(self, output: Path) -> str:
        return output.relative_to(self._root).as_posix()

    def is_current(self, output: Path, key: str) -> bool:
        """Whether ``output`` exists and was produced from exactly ``key``."""
        return self._keys.get(self._relative(output)) == key and output.exists()

    def record(self, output: Path, key: str) -> None:
        """Note that ``output`` was just written from ``key``."""
        relative = self._relative(output)
        if self._keys.get(relative) == key:
            return
        self._keys[relative] = key
        if self._handle is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self._path.open("a", encoding="utf-8")
        self._handle.write(json.dumps({"output": relative, "key": key}) + "\n")
        self._handle.flush()

    def forget(self, output: Path) -> None:
        """Drop ``output`` from the ledger (it was deleted because its input now fails)."""
        self.record(output, "")

    def close(self) -> None:
        """Close the ledger file."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> StageLedger:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
