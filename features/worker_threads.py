"""Thread pools whose workers leave quit signals to the main thread."""
from __future__ import annotations

import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# The signals that end a run (parser/cli/quit_signals.py).
QUIT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _leave_quit_signals_to_the_main_thread() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, QUIT_SIGNALS)


def worker_pool(workers: int) -> ThreadPoolExecutor:
    """A ThreadPoolExecutor of `workers` threads that block SIGINT, SIGTERM and SIGHUP. Python
    runs signal handlers in the main thread only, but the kernel hands a process's signal to
    any thread that does not block it: taken by an idle worker, it would never interrupt a main
    thread blocked in a read (a pipe held open) or in a wait, and the run would not end."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=workers,
                              initializer=_leave_quit_signals_to_the_main_thread)
