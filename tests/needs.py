"""What a test needs that a plain install may lack: an optional extra's module, or the training fonts.

Without it the test is skipped with a message naming the fix. ``make test`` installs everything and sets
``PODIUM_REQUIRE_EXTRAS=1`` / ``PODIUM_REQUIRE_FONTS=1``, which turn those skips into failures, so a suite that
passes there has really run every test.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def _skip_or_fail(flag: str, message: str) -> None:
    if os.environ.get(flag) == "1":
        pytest.fail(f"{message} (required here: {flag}=1)")
    pytest.skip(message, allow_module_level=True)


def need_module(module: str, extra: str) -> ModuleType:
    """Import ``module`` from the optional extra ``extra``, or skip (fail under PODIUM_REQUIRE_EXTRAS=1)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        _skip_or_fail("PODIUM_REQUIRE_EXTRAS", f"needs the `{extra}` extra ({error}): pip install -e '.[{extra}]'")
        raise  # unreachable: skip and fail raise


def need_fonts(missing: list[str], what: str) -> None:
    """Skip when font families are ``missing`` (fail under PODIUM_REQUIRE_FONTS=1, as ``make test`` sets)."""
    if missing:
        fonts = ", ".join(missing)
        _skip_or_fail("PODIUM_REQUIRE_FONTS", f"{what} needs the fonts {fonts}: run scripts/install-fonts.sh")
