"""The processes of a local pool (ProcessPoolExecutor, forked where the system can): how a
worker process starts, so that ^C and the driver's end reach it as they should, and how a pool is
stopped at once."""
from __future__ import annotations

import multiprocessing
import os
import signal
from typing import Any

from polyparse.features.worker_threads import QUIT_SIGNALS

# prctl(2)'s option: the signal a process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1


def forked_context() -> Any:
    """The multiprocessing context of a pool: fork where the system has it (the workers then
    share what the driver loaded), else the system's default."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def start_worker_process(driver: int) -> None:
    """A pool worker's start: SIGINT (a terminal's ^C, sent to the whole process group)
    ignored, since the driver ends the workers itself; SIGTERM and SIGHUP end it at once, and
    so does its driver's end, however it ends (Linux)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, QUIT_SIGNALS)
    _end_with_the_driver(driver)


def _end_with_the_driver(driver: int) -> None:
    """SIGTERM to this process when its parent, the driver (process id `driver`), ends
    (Linux's PR_SET_PDEATHSIG; elsewhere nothing): a driver killed by SIGKILL leaves no worker
    behind."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != driver:
        os.kill(os.getpid(), signal.SIGTERM)


# The manager thread ends as soon as it sees its workers gone; this only keeps a wedged one
# from holding the exit back.
MANAGER_HANG_GUARD_SECONDS = 10.0


def stop_pool(pool: Any) -> None:
    """Shut a ProcessPoolExecutor down now and end its worker processes (Python 3.14's
    terminate_workers; before it, through the pool's table of its processes, taken before the
    shutdown empties it): a worker idle on the pool's queue would otherwise wait for ever once
    the driver has gone.

    The pool's manager thread is then waited for: until it has closed its wake-up pipe, the
    executor's exit hook may write into that pipe as it closes and print `Exception ignored
    ... Bad file descriptor` at exit (a race in concurrent.futures before Python 3.12.1)."""
    # Taken first: shutdown() forgets the manager thread (sets it to None).
    manager = getattr(pool, "_executor_manager_thread", None)
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
    else:
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
    if manager is not None:
        manager.join(MANAGER_HANG_GUARD_SECONDS)
