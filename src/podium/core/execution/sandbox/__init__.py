"""Run untrusted programs behind one ``Sandbox`` interface, with every limit enforced from outside the program.

``open_sandbox()`` picks the isolated backend this host supports best: ``forkserver`` (Python programs forked
from a pre-started zygote per slot, fresh namespaces per run; anything else under bubblewrap) where podium runs as
root with libseccomp, else ``bubblewrap`` (namespaces, a slot's own unprivileged uid, rlimits, a per-run cgroup
where the host allows one). ``open_sandbox("rlimits", allow_weaker=True)`` is a plain child process under rlimits
that says ``isolated=False`` on every result. See ``docs/design/core.md`` and docs/rules/dojo-platform.md §6.
"""

from __future__ import annotations

from podium.core.errors import ConfigError, DependencyError
from podium.core.execution.sandbox.records import (
    BASE_ENV,
    FilterProfile,
    Limits,
    RunRequest,
    RunResult,
    RunStatus,
    Sandbox,
)

__all__ = [
    "BACKENDS",
    "BASE_ENV",
    "FilterProfile",
    "Limits",
    "RunRequest",
    "RunResult",
    "RunStatus",
    "Sandbox",
    "open_sandbox",
]

BACKENDS = ("auto", "forkserver", "bubblewrap", "rlimits")
"""``auto``: the fork-server where the host supports it, else bubblewrap."""


def open_sandbox(backend: str = "auto", *, allow_weaker: bool = False) -> Sandbox:
    """The named backend, checked to work here; DependencyError or ConfigError (with the fix) when it cannot be had."""
    if backend == "auto":
        try:
            return open_sandbox("forkserver")
        except DependencyError:
            return open_sandbox("bubblewrap")
    if backend == "forkserver":
        from podium.core.execution.sandbox.forkserver import opened_fork_server

        return opened_fork_server()
    if backend == "bubblewrap":
        from podium.core.execution.sandbox.bubblewrap import BubblewrapSandbox, probe

        probe()
        return BubblewrapSandbox()
    if backend == "rlimits":
        if not allow_weaker:
            raise ConfigError(
                "the rlimits sandbox does not isolate programs (they see the host's files and network)",
                fix="use --sandbox auto (or forkserver, bubblewrap), or accept the weaker backend explicitly",
            )
        from podium.core.execution.sandbox.rlimits import RlimitsSandbox

        return RlimitsSandbox()
    raise ConfigError(f"unknown sandbox backend {backend!r}", fix=f"choose one of: {', '.join(BACKENDS)}")
