"""The sandbox's records: limits and run requests are validated, and a request's environment is filled in."""

from __future__ import annotations

import pytest

from podium.core.errors import ConfigError
from podium.core.execution.sandbox import Limits, RunRequest


def test_limits_and_requests_are_validated() -> None:
    with pytest.raises(ConfigError):
        Limits(memory_mib=0)
    with pytest.raises(ConfigError):
        RunRequest((), {})
    with pytest.raises(ConfigError):
        RunRequest(("python3",), {}, stop_after_lines=0)
    assert RunRequest(("python3",), {}, env={"PATH": "/bin", "X": "1"}).environment() == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "X": "1",
    }
