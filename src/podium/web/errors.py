"""Podium's errors as HTTP answers: one status per branch of the error tree (drawn in ``podium.core.errors``).

401 when the caller is unknown (no token, or a token of nobody); 403 when a known caller's role may not do this; 404
for what does not exist *and* for what exists but the caller may not see, worded identically so the answer hints at
nothing hidden; 409 only for real conflicts with the current state (a lifecycle move, a concurrent change); 429 for
too many attempts (failed sign-ins, with ``Retry-After``); 400 for bad input (FastAPI answers 422 itself for a body
that fails its model); 503 for a missing dependency. Any other deliberate error is 500: it needs an operator, and
guessing a 4xx would blame the caller.
"""

from __future__ import annotations

from podium.core.errors import (
    AuthError,
    ConfigError,
    ConflictError,
    DependencyError,
    InputError,
    NotFoundError,
    PermissionDenied,
    PodiumError,
    RateLimited,
)

# Most specific first: NotFoundError is an InputError.
STATUS_OF: tuple[tuple[type[PodiumError], int], ...] = (
    (NotFoundError, 404),
    (AuthError, 401),
    (PermissionDenied, 403),
    (ConflictError, 409),
    (RateLimited, 429),
    (InputError, 400),
    (ConfigError, 400),
    (DependencyError, 503),
)


def http_status(error: PodiumError) -> int:
    """The HTTP status that answers ``error``."""
    return next((code for kind, code in STATUS_OF if isinstance(error, kind)), 500)
