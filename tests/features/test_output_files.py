"""Outputs are never half written: a quit signal that comes as the temporary file is made
still removes it (features/output_files.py)."""
from __future__ import annotations

import os
import signal
import tempfile
import threading
from pathlib import Path

import pytest

from polyparse.features.output_files import output_stream
from polyparse.parser.cli.quit_signals import Terminated, quit_signals_raise


def test_a_signal_while_the_temporary_file_is_made_leaves_nothing(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """SIGTERM is sent to this thread right after mkstemp has made the file, before its path
    is back with the caller: it must wait until the caller knows the path, then unwind and
    remove the file."""
    make = tempfile.mkstemp

    def make_and_signal(*args, **kwargs):
        made = make(*args, **kwargs)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
        for _ in range(1000):
            pass
        return made

    monkeypatch.setattr(tempfile, "mkstemp", make_and_signal)
    target = tmp_path / "out.txt"
    with pytest.raises(Terminated), quit_signals_raise(), output_stream(target) as out:
        out.write("never complete")
    assert os.listdir(tmp_path) == []
