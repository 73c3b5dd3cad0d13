"""Per-item stage logs in the official scripts' format, plus the same events for podium's own summary.

The official TypeScript stages write ``<root>/logs/<stage>_log_<ISO time, ':' replaced by '_'>.txt`` with one
line per item: ``[<ISO time>] Processing - team: X - character: C - trial: F - Succeed`` or ``... - Failed -
<message>``. Keeping the format lets organisers compare our logs with theirs line for line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from podium.tracks.pcg.verdicts import PcgVerdict


def _iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class ItemEvent:
    """What happened to one item in one stage."""

    team: str
    character: str
    trial: str
    verdict: PcgVerdict  # OK for success, SKIPPED for an already-current output, else why it failed
    reason: str = ""

    @property
    def failed(self) -> bool:
        """Whether the item failed the stage."""
        return self.verdict not in (PcgVerdict.OK, PcgVerdict.SKIPPED)


@dataclass
class StageLog:
    """Collects item events of one stage run and mirrors them into the official log file."""

    root: Path
    stage: str
    events: list[ItemEvent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    on_item: Callable[[ItemEvent], None] | None = None  # e.g. a progress display
    path: Path | None = None  # the log file, once something was written
    _handle: IO[str] | None = None

    def _file(self) -> IO[str]:
        if self._handle is None:
            folder = self.root / "logs"
            folder.mkdir(parents=True, exist_ok=True)
            stamp = _iso_now().replace(":", "_")
            self.path = folder / f"{self.stage}_log_{stamp}.txt"
            self._handle = self.path.open("a", encoding="utf-8")
        return self._handle

    def item(self, event: ItemEvent) -> None:
        """Record one item's outcome."""
        self.events.append(event)
        if self.on_item is not None:
            self.on_item(event)
        if event.verdict == PcgVerdict.SKIPPED:
            return
        outcome = f"Failed - {event.reason}" if event.failed else "Succeed"
        self.write(f"team: {event.team} - character: {event.character} - trial: {event.trial} - {outcome}")

    def write(self, message: str) -> None:
        """Append ``[time] Processing - <message>`` to the log file."""
        self._file().write(f"[{_iso_now()}] Processing - {message}\n")

    def warn(self, message: str) -> None:
        """Record a problem that does not fail an item (stray files, replaced bytes, ...)."""
        self.warnings.append(message)
        self._file().write(f"[{_iso_now()}] Warning - {message}\n")

    def close(self) -> None:
        """Close the log file."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> StageLog:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
