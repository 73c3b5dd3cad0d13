"""Resumability: remember which items are done, so a rerun skips them and a killed run loses little.

Each stage keeps an append-only ledger ``<root>/.podium/state/<stage>.jsonl`` (a hidden folder, so the official
scripts never mistake it for a team). A line records an output path, the key of what produced it (a digest of
the stage's version, its settings and its input bytes) and, when the item failed, its verdict and reason. An
outcome is current when its last recorded key equals the key computed now and the output file exists (success)
or does not (failure): a rerun then skips successes and replays failures without recomputing them. Lines are
appended and flushed one by one, so a run killed at any moment loses at most the items in flight.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class RecordedOutcome:
    """What the ledger remembers of one item: the key it was computed from and its failure, if it failed."""

    key: str
    failure: tuple[str, str] | None = None  # (verdict, reason)


class StageLedger:
    """The ledger of one stage in one competition root."""

    def __init__(self, root: Path, stage: str) -> None:
        self._root = root
        self._path = root / STATE_FOLDER / f"{stage}.jsonl"
        self._outcomes: dict[str, RecordedOutcome] = {}
        self._handle: IO[str] | None = None
        if self._path.exists():
            for line in self._path.read_text("utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                    failure = entry.get("failure")
                    self._outcomes[entry["output"]] = RecordedOutcome(
                        entry["key"], (str(failure[0]), str(failure[1])) if failure else None
                    )
                except (ValueError, KeyError, TypeError, IndexError):
                    continue  # a line torn by a kill: the item it describes is simply redone

    def _relative(self, output: Path) -> str:
        return output.relative_to(self._root).as_posix()

    def recall(self, output: Path, key: str) -> RecordedOutcome | None:
        """The recorded outcome for ``output`` if it came from exactly ``key`` and is still on disk as recorded."""
        outcome = self._outcomes.get(self._relative(output))
        if outcome is None or outcome.key != key or output.exists() == (outcome.failure is not None):
            return None
        return outcome

    def outcomes(self) -> dict[str, RecordedOutcome]:
        """Every item's last recorded outcome, by its output path relative to the root (for reports)."""
        return dict(self._outcomes)

    def record(self, output: Path, key: str, failure: tuple[str, str] | None = None) -> None:
        """Note the outcome of the item whose output is ``output``: written, or failed with ``failure``."""
        relative = self._relative(output)
        outcome = RecordedOutcome(key, failure)
        if self._outcomes.get(relative) == outcome:
            return
        self._outcomes[relative] = outcome
        if self._handle is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self._path.open("a", encoding="utf-8")
        line: dict[str, object] = {"output": relative, "key": key}
        if failure is not None:
            line["failure"] = list(failure)
        self._handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        """Close the ledger file."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> StageLedger:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
