"""One exception tree for everything podium raises on purpose.

::

    PodiumError                 exit 1   something an operator must act on
    ├── InputError              exit 2   a file or folder given to podium is missing, unreadable or malformed
    ├── ConfigError             exit 2   an option or configuration value is invalid
    └── DependencyError         exit 3   an optional extra, system package or tool is missing

Every error carries a one-line message and, where one exists, the fix. The CLI prints ``error: <message>`` and
``fix: <fix>`` and exits with ``exit_code``. Anything that is not a ``PodiumError`` is a bug and keeps its
traceback. Failures *inside* a judgment (a contestant's response without code, a level that intrudes the
boundary) are never exceptions: they are verdict records (see ``podium.core.records``).
"""

from __future__ import annotations

from pathlib import Path


class PodiumError(Exception):
    """Base of every deliberate podium error."""

    exit_code = 1

    def __init__(self, message: str, *, fix: str | None = None, path: Path | str | None = None) -> None:
        self.message = message
        self.fix = fix
        self.path = Path(path) if path is not None else None
        super().__init__(self.describe())

    def describe(self) -> str:
        """Return the message with the path it concerns, as printed on one line."""
        return f"{self.path}: {self.message}" if self.path is not None else self.message


class InputError(PodiumError):
    """A file or folder the user gave is missing, unreadable or malformed."""

    exit_code = 2


class ConfigError(PodiumError):
    """An option or configuration value is invalid."""

    exit_code = 2


class DependencyError(PodiumError):
    """An optional extra, a system package or an external tool is missing."""

    exit_code = 3
