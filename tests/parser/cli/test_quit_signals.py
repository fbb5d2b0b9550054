"""Quit signals are never lost: not inside an import whose module swallows every exception (as
Cython's module initialisation does), not to a worker thread or a progress bar's monitor."""
from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

import pytest

from polyparse.features.progress import progress_bar
from polyparse.features.worker_threads import QUIT_SIGNALS, worker_pool
from polyparse.parser.cli.quit_signals import Terminated, quit_signals_raise

# A module that signals its own process while it is imported, inside a bare except, as
# Cython's module initialisation registers its memoryview types.
# The signal is sent to the main thread (the importing one): sent to the process, another
# thread of pytest's could take it (in polyparse every other thread blocks quit signals).
SWALLOWING_MODULE = """\
import signal, threading
try:
    signal.pthread_kill(threading.main_thread().ident, signal.{name})
    for _ in range(1000):
        pass
except:
    pass
open({marker!r}, "w").close()
"""


@pytest.mark.parametrize("name, raised", [("SIGTERM", Terminated), ("SIGHUP", Terminated),
                                          ("SIGINT", KeyboardInterrupt)])
def test_a_signal_during_an_import_arrives_after_its_code_ran(tmp_path: Path, monkeypatch, name: str,
                                                    raised: type) -> None:
    module = f"swallows_{name.lower()}"
    marker = tmp_path / "ran to the end"
    (tmp_path / f"{module}.py").write_text(SWALLOWING_MODULE.format(name=name,
                                                                    marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(raised):
            with quit_signals_raise():
                __import__(module)
                for _ in range(1000):
                    pass
        assert marker.exists()
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.modules.pop(module, None)
    assert not any(type(finder).__name__ == "ImportsDeferQuitSignals"
                   for finder in sys.meta_path)


def test_without_the_deferral_the_signal_is_lost(tmp_path: Path, monkeypatch) -> None:
    """The reference: the same import with only the handler installed loses SIGTERM."""
    marker = tmp_path / "ran to the end"
    (tmp_path / "swallows_plain.py").write_text(SWALLOWING_MODULE.format(name="SIGTERM",
                                                                         marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))

    def handler(signum: int, frame: object) -> None:
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        __import__("swallows_plain")
        assert marker.exists()
    finally:
        signal.signal(signal.SIGTERM, previous)
        sys.modules.pop("swallows_plain", None)


def test_worker_threads_leave_quit_signals_to_the_main_thread() -> None:
    with worker_pool(2) as pool:
        masks = list(pool.map(lambda _: signal.pthread_sigmask(signal.SIG_BLOCK, []),
                              range(4)))
    assert all(set(QUIT_SIGNALS) <= mask for mask in masks)
    assert not set(QUIT_SIGNALS) & signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_a_progress_bar_starts_no_thread(monkeypatch) -> None:
    before = threading.active_count()
    with open(os.devnull, "w") as devnull:
        monkeypatch.setattr(sys, "stderr", devnull)
        bar = progress_bar(total=3)
        bar.update(3)
        assert threading.active_count() == before
        bar.close()
