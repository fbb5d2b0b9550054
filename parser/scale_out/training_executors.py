"""Executors for training jobs (`dep train --workers N` or `--scheduler`): a pool of local
processes, or a Dask client, each with the `submit`/`shutdown` of concurrent.futures, so that
the trainer hands its independent classifiers to either the same way."""
from __future__ import annotations

import os
from typing import Any

from polyparse.features.errors import InputError
from polyparse.features.worker_threads import quit_signals_blocked
from polyparse.parser.scale_out.pool_processes import (
    forked_context,
    start_worker_process,
    stop_pool,
)
from polyparse.parser.scale_out.runners import MAX_ATTEMPTS, connect


class DaskJobs:
    """A Dask client as a concurrent.futures executor for training jobs: each array or matrix
    argument is scattered to a worker (not carried in the task through the scheduler), then the
    job is submitted with it. Scattered data dies with its worker, so a job whose data was lost
    is scattered and submitted again (at most MAX_ATTEMPTS times) when its result is asked for."""

    def __init__(self, address: str) -> None:
        self.client = connect(address)
        self.jobs: list[_DaskJob] = []

    def submit(self, function: Any, *args: Any) -> _DaskJob:
        job = _DaskJob(self, function, args)
        self.jobs.append(job)
        return job

    def send(self, function: Any, args: tuple[Any, ...]) -> Any:
        import numpy as np

        from polyparse.features.binary_matrix import BinaryMatrix

        sent = [self.client.scatter(arg, hash=False)
                if isinstance(arg, (np.ndarray, BinaryMatrix)) else arg for arg in args]
        return self.client.submit(function, *sent, pure=False)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        if self.client is None:
            return
        client, self.client = self.client, None
        if cancel_futures:
            client.cancel([job.future for job in self.jobs], force=True)
        client.close()


class _DaskJob:
    """A training job on Dask; result() sends it again when its worker died with its data."""

    def __init__(self, jobs: DaskJobs, function: Any, args: tuple[Any, ...]) -> None:
        self.jobs, self.function, self.args = jobs, function, args
        self.attempts = 1
        self.future = jobs.send(function, args)

    def result(self) -> Any:
        from concurrent.futures import CancelledError

        while True:
            try:
                return self.future.result()
            except (CancelledError, OSError):
                if self.attempts >= MAX_ATTEMPTS:
                    raise InputError(f"a training job was lost with its Dask worker "
                                     f"{self.attempts} times; giving up") from None
                self.attempts += 1
                self.future = self.jobs.send(self.function, self.args)


class TrainingPool:
    """A ProcessPoolExecutor of `workers` forked processes for training jobs, whose workers
    leave SIGINT to the driver and end on SIGTERM; shutdown(cancel_futures=True) ends them at
    once."""

    def __init__(self, workers: int) -> None:
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(workers, mp_context=forked_context(),
                                        initializer=start_worker_process,
                                        initargs=(os.getpid(),))

    def submit(self, function: Any, *args: Any) -> Any:
        with quit_signals_blocked():
            return self.pool.submit(function, *args)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        if cancel_futures:
            stop_pool(self.pool)
        else:
            self.pool.shutdown(wait=wait)
