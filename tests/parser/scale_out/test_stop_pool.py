"""stop_pool ends a process pool at once and waits for its manager thread, which shutdown()
forgets: until that thread has closed its wake-up pipe, concurrent.futures' exit hook may write
into the closing pipe and print a traceback (`Bad file descriptor`) as the process ends."""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from polyparse.parser.scale_out.pool_processes import forked_context, stop_pool


def test_the_manager_thread_has_ended_and_closed_its_wakeup() -> None:
    pool = ProcessPoolExecutor(2, mp_context=forked_context())
    assert pool.submit(sum, [1, 2]).result() == 3
    manager = pool._executor_manager_thread
    wakeup = pool._executor_manager_thread_wakeup
    assert manager is not None and manager.is_alive()
    stop_pool(pool)
    assert not manager.is_alive()
    assert wakeup._closed
    # What the exit hook does is then harmless.
    wakeup.wakeup()
