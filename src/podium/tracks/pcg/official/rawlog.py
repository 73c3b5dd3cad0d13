"""The response-generation log of ``chatgpt4pcg`` 1.2.2 / ``llms4pcg`` 2.0.1: its file name and its lines.

The packages write ``logs/<team>_raw_<%Y_%m_%d_%H_%M_%S_%Z%z>.log`` beside the team folder (their time is naive,
so ``%Z%z`` adds nothing and the name ends ``_.log``) and append ``[%Y-%m-%d %H:%M:%S] message`` lines in local
time. The messages are theirs word for word, so an organiser can read podium's log as the official one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path


def raw_log_name(team: str, now: datetime) -> str:
    """The log's file name for a run started at ``now`` (naive local time, as the packages use)."""
    return f"{team}_raw_{now.strftime('%Y_%m_%d_%H_%M_%S_%Z%z')}.log"


class RawLog:
    """One team's generation log; safe to write from several threads."""

    def __init__(self, path: Path, now: Callable[[], datetime] = datetime.now) -> None:
        self.path = path
        self._now = now
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)

    def line(self, message: str) -> None:
        """Append one line."""
        text = f"[{self._now().strftime('%Y-%m-%d %H:%M:%S')}] {message}\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(text)

    def character(self, team: str, character: str) -> None:
        """Before a letter's trials."""
        self.line(f"Running trials for character {character} for team {team}")

    def trial(self, team: str, character: str, number: int) -> None:
        """Before a trial (also one that exists and is skipped)."""
        self.line(f"Running trial {number} for character {character} for team {team}")

    def skipped(self, team: str, character: str, number: int) -> None:
        """A trial whose response file exists already."""
        self.line(f"Trial {number} for character {character} for team {team} already exists. Skipping.")

    def succeeded(self, number: int) -> None:
        """A trial whose response was written."""
        self.line(f"Trial {number} succeeded")

    def failed(self, number: int, error: str) -> None:
        """A trial that ended without a response (no file)."""
        self.line(f"Trial {number} failed with error: {error}")
