"""Run untrusted programs behind one ``Sandbox`` interface, with every limit enforced from outside the program.

``open_sandbox("bubblewrap")`` is the isolated backend (namespaces, a slot's own unprivileged uid, rlimits, a per-run
cgroup where the host allows one); ``open_sandbox("rlimits", allow_weaker=True)`` is a plain child process under rlimits
that says ``isolated=False`` on every result. See ``docs/design/core.md`` and docs/rules/dojo-platform.md §6 for the
recipe.
"""

from __future__ import annotations

from podium.core.errors import ConfigError
from podium.core.execution.sandbox.records import BASE_ENV, Limits, RunRequest, RunResult, RunStatus, Sandbox

__all__ = ["BASE_ENV", "Limits", "RunRequest", "RunResult", "RunStatus", "Sandbox", "open_sandbox"]

BACKENDS = ("bubblewrap", "rlimits")


def open_sandbox(backend: str = "bubblewrap", *, allow_weaker: bool = False) -> Sandbox:
    """The named backend, checked to work here; DependencyError or ConfigError (with the fix) when it cannot be had."""
    if backend == "bubblewrap":
        from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox, probe

        probe()
        return BubblewrapSandbox()
    if backend == "rlimits":
        if not allow_weaker:
            raise ConfigError(
                "the rlimits sandbox does not isolate programs (they see the host's files and network)",
                fix="use --sandbox bubblewrap, or accept the weaker backend explicitly (allow_weaker)",
            )
        from podium.core.execution.sandbox.rlimits import RlimitsSandbox

        return RlimitsSandbox()
    raise ConfigError(f"unknown sandbox backend {backend!r}", fix=f"choose one of: {', '.join(BACKENDS)}")
