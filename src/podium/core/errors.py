"""One exception tree for everything podium raises on purpose.

::

    PodiumError                 exit 1   HTTP 500  something an operator must act on
    ├── InputError              exit 2   HTTP 400  a file or folder given to podium is missing, unreadable or malformed
    │   └── NotFoundError       exit 2   HTTP 404  no such thing, or not one the caller may see
    ├── ConfigError             exit 2   HTTP 400  an option or configuration value is invalid
    ├── DependencyError         exit 3   HTTP 503  an optional extra, system package or tool is missing
    ├── AuthError               exit 4   HTTP 401  no credentials, or a token that belongs to nobody
    ├── PermissionDenied        exit 5   HTTP 403  a known user whose role may not do this
    └── ConflictError           exit 6   HTTP 409  the thing's current state forbids this (a lifecycle move, or
                                                   another writer changed it first)

Every error carries a one-line message and, where one exists, the fix. The CLI prints ``error: <message>`` and
``fix: <fix>`` and exits with ``exit_code``; the web layer answers with the HTTP status drawn above
(``podium.web.errors``). Something that exists but that the caller may not see (another user's submission, an
unpublished problem) is a ``NotFoundError`` worded as an unknown one would be, so the answer hints at nothing
hidden. Anything that is not a ``PodiumError`` is a bug and keeps its traceback. Failures *inside* a judgment (a
contestant's response without code, a level that intrudes the boundary) are never exceptions: they are verdict
records (see ``podium.core.records``).
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


class NotFoundError(InputError):
    """No such thing; or one the caller may not see, described exactly as a missing one would be."""


class ConfigError(PodiumError):
    """An option or configuration value is invalid."""

    exit_code = 2


class DependencyError(PodiumError):
    """An optional extra, a system package or an external tool is missing."""

    exit_code = 3


class AuthError(PodiumError):
    """Unauthenticated: no token was given, or the token belongs to nobody."""

    exit_code = 4


class PermissionDenied(PodiumError):
    """A known user asked for something their role does not allow (a setter submitting a solution)."""

    exit_code = 5


class RateLimited(PodiumError):
    """Too many attempts lately (failed sign-ins from one address): try again after ``retry_after_s``."""

    exit_code = 7

    def __init__(self, message: str, *, retry_after_s: int, fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        self.retry_after_s = retry_after_s


class ConflictError(PodiumError):
    """The current state forbids the request: a lifecycle move not allowed now, or a concurrent change won."""

    exit_code = 6
