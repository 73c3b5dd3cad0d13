"""Time as an argument: a ``Clock`` gives "now" in UTC, so lifecycles and windows can be tested with a fake one."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Something that says what time it is (always timezone-aware UTC)."""

    def now(self) -> datetime:
        """The current time."""
        ...


class SystemClock:
    """The machine's clock."""

    def now(self) -> datetime:
        """The current time, UTC."""
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (tests, replays)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start time")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        """The time the clock was last set to."""
        return self._now

    def set(self, when: datetime) -> None:
        """Jump to ``when`` (timezone-aware)."""
        self._now = when.astimezone(UTC)


def utc_text(when: datetime) -> str:
    """``when`` as sortable UTC ISO-8601 text with microseconds."""
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def parse_utc(text: str) -> datetime:
    """Inverse of ``utc_text`` (accepts any ISO-8601 time with an offset; a bare time is taken as UTC)."""
    when = datetime.fromisoformat(text)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
