"""The wmeval fixtures (``tests/tracks/wmeval/conftest.py``) for wmeval's integration tests: a conftest applies only
below its own folder, so the fixture is imported here, not copied (with it, the skip where PyAV is missing)."""

from tests.tracks.wmeval.conftest import env  # noqa: F401  re-exported as a fixture
