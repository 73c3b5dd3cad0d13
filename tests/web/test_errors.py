"""Every branch of the error tree has its HTTP status; a subclass answers as its closest ancestor."""

from __future__ import annotations

import pytest

from podium.core.errors import (
    AuthError,
    ConfigError,
    ConflictError,
    DependencyError,
    InputError,
    NotFoundError,
    PermissionDenied,
    PodiumError,
)
from podium.web.errors import http_status


class StaleState(ConflictError):
    """A track's own conflict."""


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (AuthError("no token"), 401),
        (PermissionDenied("setters do not submit"), 403),
        (NotFoundError("no problem 'x'"), 404),
        (ConflictError("changed meanwhile"), 409),
        (StaleState("changed meanwhile"), 409),
        (InputError("malformed"), 400),
        (ConfigError("bad option"), 400),
        (DependencyError("no FastAPI"), 503),
        (PodiumError("something else"), 500),
    ],
)
def test_http_status(error: PodiumError, status: int) -> None:
    assert http_status(error) == status
