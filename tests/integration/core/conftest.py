"""The core's fixtures (``tests/core/conftest.py``) for the core's integration tests: a conftest applies only below
its own folder, so the fixtures are imported here, not copied."""

from tests.core.conftest import world_readable  # noqa: F401  re-exported as a fixture
