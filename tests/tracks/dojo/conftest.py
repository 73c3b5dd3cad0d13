"""Fixtures for the dojo tests: the real sandboxes (bubblewrap, the fork-server) and a real PostgreSQL server."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from podium.core.execution.sandbox import Sandbox
from tests.conftest import open_backend_or_skip

from .serving import free_port


@pytest.fixture(scope="session")
def bubblewrap() -> Sandbox:
    """The bubblewrap sandbox; ``make test`` installs it, so there (PODIUM_REQUIRE_SANDBOX=1) it must work."""
    return open_backend_or_skip("bubblewrap")


@pytest.fixture(scope="session")
def fork_server() -> Sandbox:
    """The fork-server sandbox (root only); ``make test`` runs as root with libseccomp, so there it must work."""
    return open_backend_or_skip("forkserver")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL server in a temporary folder, for this test session (``make test`` installs it)."""
    binaries = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    if not binaries:
        if os.environ.get("PODIUM_REQUIRE_POSTGRES") == "1":
            raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    bin_dir = binaries[-1]
    # not under pytest's temporary folders: those are private to root, and the server runs as 'postgres'
    folder = Path(tempfile.mkdtemp(prefix="podium-postgres-"))
    data = folder / "data"
    # PostgreSQL refuses to run as root: run it as the packaged 'postgres' user when we are root.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres")
    port = free_port()
    subprocess.run([*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "podium", "--auth=trust", "-E", "UTF8"],
                   check=True, capture_output=True)  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-l",
                    str(folder / "log"), "start"], check=True, capture_output=True)  # fmt: skip
    try:
        subprocess.run([str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "podium", "dojo"],
                       check=True, capture_output=True)  # fmt: skip
        yield f"postgresql+psycopg://podium@127.0.0.1:{port}/dojo"
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)
