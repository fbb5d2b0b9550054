"""The installed `polyparse` command and one timed run of a child process, for the benchmarks
that measure whole processes (interpreter start, imports, model load, work, writing)."""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path


def polyparse_command() -> list[str]:
    found = shutil.which("polyparse", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "parser.cli.main"]


def child_run(command: list[str], one_core: bool = False,
              quiet_stderr: bool = False) -> tuple[float, float]:
    """Wall seconds and max RSS (MB) of one child process run to the end (stdout discarded,
    stderr too with quiet_stderr); one_core: the child may run on one CPU only."""
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        if one_core:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        if quiet_stderr:
            os.dup2(devnull, 2)
        os.execv(command[0], command)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    return seconds, usage.ru_maxrss / 1024
