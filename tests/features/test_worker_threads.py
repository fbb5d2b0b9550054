"""interruptible_pool: a `with` block that waits for its worker threads when it ends normally,
and leaves the running jobs when an interrupt ends it."""
from __future__ import annotations

import threading

import pytest

from polyparse.features.worker_threads import interruptible_pool
from tests.child_processes import HANG_GUARD_SECONDS


def test_a_normal_end_waits_for_every_job() -> None:
    release = threading.Event()
    with interruptible_pool(2) as pool:
        jobs = [pool.submit(release.wait) for _ in range(3)]
        release.set()
    assert all(job.done() for job in jobs)


def test_an_interrupt_leaves_the_running_job_and_cancels_the_others() -> None:
    started, release = threading.Event(), threading.Event()

    def long_job() -> None:
        started.set()
        release.wait()

    # Only a guard against a hang: were the block to wait, the job would end after it.
    guard = threading.Timer(HANG_GUARD_SECONDS, release.set)
    guard.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            with interruptible_pool(1) as pool:
                running = pool.submit(long_job)
                queued = pool.submit(long_job)
                assert started.wait(HANG_GUARD_SECONDS)
                raise KeyboardInterrupt
        assert not running.done(), "the block waited for the running job"
        assert queued.cancelled()
    finally:
        release.set()
        guard.cancel()
