"""Every test here runs on each isolated backend: bubblewrap, and the fork-server (a zygote per slot).

A test about how one backend works inside (bubblewrap's scratch folder, its processes on the host) is marked
``bubblewrap_only`` and runs once.
"""

from __future__ import annotations

import pytest

from podium.core.execution.sandbox import Sandbox
from tests.conftest import open_backend_or_skip

ISOLATED_BACKENDS = ("bubblewrap", "forkserver")


@pytest.fixture(scope="module", params=ISOLATED_BACKENDS)
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """Each isolated backend in turn, as the judges open it; ``make test`` installs what both need."""
    return open_backend_or_skip(request.param)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop the fork-server's copy of a test about bubblewrap's own workings."""
    kept, dropped = [], []
    for item in items:
        params = getattr(item, "callspec", None)
        backend = params.params.get("sandbox") if params is not None else None
        (dropped if backend == "forkserver" and item.get_closest_marker("bubblewrap_only") else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
