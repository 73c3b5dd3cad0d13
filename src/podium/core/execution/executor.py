"""One ``Executor`` interface for running independent jobs: serial (tests, debugging) or a local process pool.

Jobs carry their whole input and return their whole output, so a worker needs no shared state and results do not
depend on which executor ran them. The process pool is replaced by a fresh one every ``workers * jobs_per_worker``
jobs, which keeps memory flat when a native library leaks a little per job (pybox2d keeps a few KB per world).
``map_unordered`` yields results as they finish, so callers can write outputs and record progress while the rest
still runs.

Each worker process runs native maths on one thread (``one_thread_per_worker``): a pool already puts one worker
on each core, and a BLAS or OpenMP library that starts a thread per core in every worker oversubscribes the
machine (classify took 3.4 times as long with two workers of two OpenBLAS threads each on two cores). A worker
also ends when the process that owns its pool ends (``die_with``), however it ends: a killed ingest once left four
workers transcoding for nobody. The workers are the forkserver's children, not the owner's, and each holds the
forkserver open, so neither the parent-death signal nor the forkserver's own exit would reach them: each watches
its owner through a pidfd instead.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import multiprocessing
import os
import select
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol, TypeVar

from threadpoolctl import threadpool_limits

from podium.core.errors import ConfigError

J = TypeVar("J")
R = TypeVar("R")

# The variables that size the thread pools of the native libraries podium's jobs load (OpenBLAS, MKL, OpenMP,
# Apple Accelerate, numexpr); read by each library when it loads.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def one_thread_per_worker() -> None:
    """Make this worker process run native maths on one thread: libraries loaded later and those loaded now."""
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    threadpool_limits(limits=1)


def die_with(owner: int) -> None:
    """End this process as soon as process ``owner`` has ended (where the system has pidfds; else nothing)."""
    if not hasattr(os, "pidfd_open"):
        return
    try:
        watched = os.pidfd_open(owner)
    except ProcessLookupError:
        os._exit(1)  # ended already
    except OSError:
        return  # no pidfds here (an old kernel): the worker ends with its queue instead

    def watch() -> None:
        select.select([watched], [], [])  # readable once the owner has ended
        os._exit(1)

    threading.Thread(target=watch, name="podium-owner-watch", daemon=True).start()


def prepare_worker(owner: int) -> None:
    """What a pool worker does before its first job: watch its owner, use one thread for native maths."""
    die_with(owner)
    one_thread_per_worker()


class Executor(Protocol):
    """Runs a function over jobs and yields ``(job, result)`` pairs in completion order."""

    def map_unordered(self, function: Callable[[J], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        """Apply ``function`` to every job; yield each job with its result as soon as it is done."""
        ...


class SerialExecutor:
    """Runs jobs one after the other in this process."""

    def map_unordered(self, function: Callable[[J], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        """Apply ``function`` to every job in order."""
        for job in jobs:
            yield job, function(job)


class ProcessPoolExecutor:
    """Runs jobs on ``workers`` processes; a fresh pool every ``workers * jobs_per_worker`` jobs."""

    def __init__(self, workers: int | None = None, jobs_per_worker: int = 500) -> None:
        if workers is not None and workers < 1:
            raise ConfigError(f"--workers must be at least 1, not {workers}")
        self.workers = workers or os.cpu_count() or 1
        self.jobs_per_worker = jobs_per_worker

    def map_unordered(self, function: Callable[[J], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        """Apply ``function`` to every job on the pool; at most a few jobs per worker are queued at once.

        Workers are recycled by starting a fresh pool every ``workers * jobs_per_worker`` jobs rather than with
        ``max_tasks_per_child``: on Python 3.11 that option can leave the pool with no worker and a job queued,
        waiting forever (seen here in a test of the executors).
        """
        context = multiprocessing.get_context("spawn" if os.name == "nt" else "forkserver")
        queue = iter(jobs)
        for first in queue:  # each batch is read lazily from the queue, never held in memory as a whole
            batch = itertools.chain((first,), itertools.islice(queue, self.workers * self.jobs_per_worker - 1))
            with concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=prepare_worker, initargs=(os.getpid(),)
            ) as pool:
                yield from self._run_batch(pool, function, batch)

    def _run_batch(
        self, pool: concurrent.futures.ProcessPoolExecutor, function: Callable[[J], R], batch: Iterable[J]
    ) -> Iterator[tuple[J, R]]:
        pending: dict[concurrent.futures.Future[R], J] = {}
        window = self.workers * 4  # bounded, so a huge competition is never held in memory at once
        for job in batch:
            pending[pool.submit(function, job)] = job
            if len(pending) >= window:
                done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()
        for future in concurrent.futures.as_completed(list(pending)):
            yield pending.pop(future), future.result()


def make_executor(workers: int | None) -> Executor:
    """The default executor: serial for one worker, a process pool otherwise (``None`` = one per core)."""
    if workers == 1:
        return SerialExecutor()
    return ProcessPoolExecutor(workers)
