"""Fixtures for the dojo tests: the real bubblewrap sandbox."""

from __future__ import annotations

import os

import pytest

from podium.core.errors import DependencyError
from podium.core.execution.sandbox import Sandbox, open_sandbox


@pytest.fixture(scope="session")
def bubblewrap() -> Sandbox:
    """The bubblewrap sandbox; ``make test`` installs it, so there (PODIUM_REQUIRE_SANDBOX=1) it must work."""
    try:
        return open_sandbox("bubblewrap")
    except DependencyError as error:
        if os.environ.get("PODIUM_REQUIRE_SANDBOX") == "1":
            raise
        pytest.skip(f"bubblewrap is not usable here: {error.describe()}")
