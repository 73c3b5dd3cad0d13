"""The dojo's fixtures (``tests/tracks/dojo/conftest.py``) for the dojo's integration tests: a conftest applies only
below its own folder, so the fixtures are imported here, not copied."""

from tests.tracks.dojo.conftest import bubblewrap, fork_server, postgres_url  # noqa: F401  re-exported as fixtures
