"""Thread pools whose workers leave quit signals to the main thread."""
from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# The signals that end a run (parser/cli/quit_signals.py).
QUIT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _leave_quit_signals_to_the_main_thread() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, QUIT_SIGNALS)


@contextmanager
def quit_signals_blocked() -> Iterator[None]:
    """While inside, SIGINT, SIGTERM and SIGHUP wait (in this thread, and in the threads it
    starts, which keep them blocked); the block is lifted on the way out."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, QUIT_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def worker_pool(workers: int) -> ThreadPoolExecutor:
    """A ThreadPoolExecutor of `workers` threads that block SIGINT, SIGTERM and SIGHUP. Python
    runs signal handlers in the main thread only, but the kernel hands a process's signal to
    any thread that does not block it: taken by an idle worker, it would never interrupt a main
    thread blocked in a read (a pipe held open) or in a wait, and the run would not end."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=workers,
                              initializer=_leave_quit_signals_to_the_main_thread)


@contextmanager
def interruptible_pool(workers: int) -> Iterator[ThreadPoolExecutor]:
    """worker_pool(workers) for a `with` block that waits for its threads when it ends normally
    but not when an exception ends it: an interrupt (SIGINT, SIGTERM) cancels the jobs not
    started and leaves the running ones (only the main thread checks for signals, so a worker
    would go on training for minutes); the process then ends at once (parser/cli/main.end_now)."""
    pool = worker_pool(workers)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
