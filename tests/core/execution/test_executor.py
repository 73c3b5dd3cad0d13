from __future__ import annotations

import os

from threadpoolctl import threadpool_info

from podium.core.execution.executor import THREAD_VARIABLES, ProcessPoolExecutor, SerialExecutor


def native_threads(_job: int) -> tuple[dict[str, str | None], list[int]]:
    """What a worker sees: the thread variables, and the thread counts of the BLAS libraries it has loaded."""
    import numpy as np  # loaded in the worker after its start, as job functions do

    np.ones((64, 64)) @ np.ones((64, 64))
    blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    return {name: os.environ.get(name) for name in THREAD_VARIABLES}, blas


def test_pool_workers_run_native_maths_on_one_thread() -> None:
    results = [result for _, result in ProcessPoolExecutor(2).map_unordered(native_threads, range(4))]
    assert len(results) == 4
    for variables, blas in results:
        assert set(variables.values()) == {"1"}
        assert blas and set(blas) == {1}


def test_the_serial_executor_runs_in_order() -> None:
    assert [job for job, _ in SerialExecutor().map_unordered(str, range(5))] == list(range(5))
