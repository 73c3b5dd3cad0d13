"""Shared fixtures: the vendored acceptance data and copies of it, the bubblewrap sandbox, and Debian's Chromium.

The sandbox and the browser are skipped where they are missing, unless the run requires them (``make test`` sets
``PODIUM_REQUIRE_SANDBOX`` and ``PODIUM_REQUIRE_BROWSER``, and CI sets ``CI``): then a missing one fails.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest

from podium.core.errors import DependencyError
from podium.core.execution.sandbox import Sandbox, open_sandbox
from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REPO = Path(__file__).resolve().parents[1]
PCG_DATA = REPO / "tests" / "data" / "pcg"  # vendored, with its origin in tests/data/README.md


@pytest.fixture(scope="session")
def pcg_data() -> Path:
    """The read-only PCG acceptance data (``tests/data/pcg``); never write into it."""
    if not PCG_DATA.is_dir():
        pytest.fail(f"acceptance data missing: {PCG_DATA} (restore it with `git checkout -- tests/data`)")
    return PCG_DATA


@pytest.fixture
def copy_tree(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Copy a folder into the test's temporary folder and return the copy."""

    def copy(source: Path, name: str | None = None) -> Path:
        target = tmp_path / (name or source.name)
        shutil.copytree(source, target)
        return target

    return copy


def required(*flags: str) -> bool:
    """Whether this run must have what ``flags`` name (any of them set to 1), or runs in CI."""
    return any(os.environ.get(flag) == "1" for flag in flags) or bool(os.environ.get("CI"))


def open_backend_or_skip(backend: str) -> Sandbox:
    """``backend`` as the judges open it; skipped where it cannot run, unless this run requires the sandbox."""
    must = required("PODIUM_REQUIRE_SANDBOX", "PODIUM_REQUIRE_ORACLE")
    if backend == "forkserver" and os.geteuid() != 0 and not must:
        pytest.skip("the fork-server sandbox needs root")
    try:
        return open_sandbox(backend)
    except DependencyError as error:
        if must:
            raise
        pytest.skip(f"the {backend} sandbox cannot run here: {error.describe()} (`make test` installs it)")


@pytest.fixture(scope="module")
def bubblewrap_sandbox() -> BubblewrapSandbox:
    """The bubblewrap sandbox, as the judges open it."""
    opened = open_backend_or_skip("bubblewrap")
    assert isinstance(opened, BubblewrapSandbox)
    return opened


@pytest.fixture(scope="module")
def sandbox(bubblewrap_sandbox: BubblewrapSandbox) -> BubblewrapSandbox:
    """The sandbox of tests that need bubblewrap's own features (a writable box, readable folders, a channel)."""
    return bubblewrap_sandbox


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [  # docs/rules/wmeval.md §4: Debian's Chromium, headless, nothing fetched from outside
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]  # fmt: skip


def _no_browser(what: str, fix: str) -> NoReturn:
    message = f"{what}: {fix} (`make test` does it)"
    if required("PODIUM_REQUIRE_BROWSER"):
        pytest.fail(f"{message} (required: PODIUM_REQUIRE_BROWSER=1 or CI is set)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, through Playwright (no browser download: the system's Chromium is the one)."""
    executable = str(CHROMIUM) if CHROMIUM.is_file() else shutil.which("chromium")
    if executable is None:
        _no_browser(f"Chromium is not installed ({CHROMIUM})", "apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ModuleNotFoundError:
        _no_browser("the Python package playwright is not installed", "pip install -e '.[test]'")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
