"""The ``Executor`` on a Dask distributed cluster, for competitions that outgrow one machine (the ``dask`` extra).

Jobs are submitted to the scheduler at ``address`` with a bounded number in flight and yielded as they finish,
like the local pool. Workers need podium installed (the job functions are imported by name) and must be able to
write where the jobs write (a shared file system for the competition root).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from podium.core.errors import DependencyError

J = TypeVar("J")
R = TypeVar("R")


class DaskExecutor:
    """Runs jobs on the Dask cluster whose scheduler listens at ``address`` (or on a given client)."""

    def __init__(self, address: str | None = None, *, client: Any = None, in_flight: int = 256) -> None:
        try:
            distributed: Any = importlib.import_module("distributed")  # loosely typed: only three calls are used
        except ImportError:
            raise DependencyError(
                "the Dask executor needs dask.distributed", fix="pip install 'podium[dask]'"
            ) from None
        self._distributed = distributed
        self._client = client if client is not None else distributed.Client(address)
        self.in_flight = in_flight

    def map_unordered(self, function: Callable[[J], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        """Apply ``function`` to every job on the cluster; yield each job with its result when done."""
        pending: dict[Any, J] = {}
        finished = self._distributed.as_completed()
        for job in jobs:
            future = self._client.submit(function, job, pure=False)
            pending[future] = job
            finished.add(future)
            if len(pending) >= self.in_flight:
                done = next(finished)
                yield pending.pop(done), done.result()
        for done in finished:
            yield pending.pop(done), done.result()
