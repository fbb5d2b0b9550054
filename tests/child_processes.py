"""Child processes in tests: the guard against a hang, and children whose stderr is a
pseudo-terminal, for tests that must know when a run has got going. `polyparse` draws its
progress bar (tqdm) on stderr only when stderr is a terminal, and creates the bar once its
outputs are open, so the bar's first text on the terminal is a real "ready" signal (no sleeping,
no polling of files)."""
from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
from collections.abc import Sequence
from dataclasses import dataclass

# Only a guard against a hang: a wait that long means the run is broken, not slow.
HANG_GUARD_SECONDS = 120.0
# A shell starts a background job with SIGINT ignored, its children inherit that, and Python
# then installs no KeyboardInterrupt handler (as it should: Ctrl-C is not for background jobs).
# Tests may run so (CI scripts, nohup), yet a test that sends SIGINT means a foreground run:
# this runs the command with SIGINT at its default, as a terminal's foreground job has it.
SIGINT_AT_ITS_DEFAULT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                         "os.execv(sys.argv[1], sys.argv[1:])")


@dataclass
class ChildOnATerminal:
    """A running child and the controlling end of the pseudo-terminal its stderr writes to."""

    process: subprocess.Popen
    controller: int
    shown: bytes = b""

    def read_until(self, text: bytes) -> bytes:
        """Everything the terminal has shown once `text` is among it."""
        while text not in self.shown:
            ready, _, _ = select.select([self.controller], [], [], HANG_GUARD_SECONDS)
            assert ready, f"{text!r} never appeared on stderr; it showed {self.shown!r}"
            chunk = self._read()
            assert chunk, f"the child ended before {text!r} appeared: {self.shown!r}"
            self.shown += chunk
        return self.shown

    def finish(self) -> tuple[int, bytes]:
        """The exit code and everything stderr showed, once the child has ended."""
        while chunk := self._read():
            self.shown += chunk
        os.close(self.controller)
        return self.process.wait(timeout=HANG_GUARD_SECONDS), self.shown

    def _read(self) -> bytes:
        """What the terminal shows next; b"" once no process holds its other end (Linux
        reports that as EIO)."""
        ready, _, _ = select.select([self.controller], [], [], HANG_GUARD_SECONDS)
        assert ready, f"stderr stayed silent and open; it showed {self.shown!r}"
        try:
            return os.read(self.controller, 1 << 16)
        except OSError:
            return b""


def start_with_stderr_on_a_terminal(argv: Sequence[str], **options: object) -> ChildOnATerminal:
    """argv started as a terminal's foreground job would be (SIGINT at its default) with its
    stderr on a new pseudo-terminal of 24 rows and 100 columns; options go to
    subprocess.Popen."""
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        process = subprocess.Popen([sys.executable, "-c", SIGINT_AT_ITS_DEFAULT, *argv],
                                   stderr=terminal, **options)
    finally:
        os.close(terminal)
    return ChildOnATerminal(process, controller)
