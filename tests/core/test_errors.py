"""The error tree's branches have exit codes of their own."""

from __future__ import annotations

from podium.core.errors import (
    AuthError,
    ConflictError,
    DependencyError,
    InputError,
    NotFoundError,
    PermissionDenied,
)


def test_exit_codes_tell_the_branches_apart() -> None:
    codes = [kind.exit_code for kind in (AuthError, PermissionDenied, ConflictError, DependencyError)]
    assert len(set(codes)) == len(codes) and NotFoundError.exit_code == InputError.exit_code == 2
