"""The installed `polyparse` command and one timed run of a child process, for the benchmarks
that measure whole processes (interpreter start, imports, model load, work, writing), and one
core for timings made inside a benchmark's own process."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple


def polyparse_command() -> list[str]:
    found = shutil.which("polyparse", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "parser.cli.main"]


def child_run(command: list[str], one_core: bool = False,
              quiet_stderr: bool = False) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process run to the end, its stdout thrown
    away (stderr too with quiet_stderr). The child is spawned, not forked from this process in
    Python, so that its peak RSS is its own; one_core: on the first CPU this process may use,
    as `taskset` would pin it."""
    allowed = os.sched_getaffinity(0)
    if one_core:
        os.sched_setaffinity(0, {min(allowed)})
    try:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL if quiet_stderr else None)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
    finally:
        os.sched_setaffinity(0, allowed)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed (exit status {child.returncode})")
    return seconds, usage.ru_maxrss / 1024


class ChildRun(NamedTuple):
    """What one child process printed and cost: stdout, wall seconds, CPU seconds (user +
    system) and its own peak resident set size in MiB (os.wait4, ru_maxrss)."""
    stdout: str
    wall_seconds: float
    cpu_seconds: float
    peak_rss_mib: float


def measured_run(command: list[str], env: dict[str, str] | None = None,
                 cwd: str | os.PathLike | None = None) -> ChildRun:
    """Run one child process to the end, keeping its stdout; stderr is passed through. A failed
    child ends the benchmark with its command and exit status."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, cwd=cwd,
                               env=None if env is None else {**os.environ, **env})
    stdout = process.stdout.read()
    process.stdout.close()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed (exit status {process.returncode})")
    return ChildRun(stdout.decode(), wall, usage.ru_utime + usage.ru_stime,
                    usage.ru_maxrss / 1024)


@contextmanager
def pinned_to_one_core() -> Iterator[None]:
    """Run the block with this process allowed on one CPU only (the first it may use); the
    previous set of CPUs is restored afterwards."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)
