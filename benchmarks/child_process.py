"""The installed `polyparse` command and one timed run of a child process, for the benchmarks
that measure whole processes (interpreter start, imports, model load, work, writing), and one
core for timings made inside a benchmark's own process.

A child runs as an installed program does: with the compiled bytecode Python caches
(PYTHONDONTWRITEBYTECODE, which a developer's shell may set, is cleared for it), so that a
whole-process time does not count compiling the modules on every run."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

# The environment entries every child gets: bytecode cached (an empty value is unset).
CHILD_ENVIRONMENT = {"PYTHONDONTWRITEBYTECODE": ""}


def polyparse_command() -> list[str]:
    found = shutil.which("polyparse", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "polyparse.parser.cli.main"]


# The process that starts each measured child: a fresh, small Python (no site, about 8 MB). Linux
# gives a child the peak RSS of the process it was forked or spawned from (exec keeps the larger of
# the old and new memory's high-water marks), so a child started by a large benchmark process
# would report the benchmark's size; started by this launcher, it reports its own (or the
# launcher's 8 MB, if smaller). The launcher times the child alone and writes its exit status,
# wall and CPU seconds and peak RSS (KiB) to the file descriptor it is given.
LAUNCHER = """\
import os, sys, time
fd, quiet, argv = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3:]
actions = [(os.POSIX_SPAWN_CLOSE, fd)]
if quiet:
    actions.append((os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0))
started = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
os.write(fd, f"{os.waitstatus_to_exitcode(status)} {wall} {usage.ru_utime + usage.ru_stime} "
             f"{usage.ru_maxrss}".encode())
"""


class ChildRun(NamedTuple):
    """What one child process printed and cost: stdout, wall seconds, CPU seconds (user +
    system) and its own peak resident set size in MiB."""
    stdout: str
    wall_seconds: float
    cpu_seconds: float
    peak_rss_mib: float


def launched_run(command: list[str], keep_stdout: bool = False, quiet_stderr: bool = False,
                 env: dict[str, str] | None = None,
                 cwd: str | os.PathLike | None = None) -> ChildRun:
    """Run one child process to the end through LAUNCHER; its stdout is kept with keep_stdout
    (else thrown away), its stderr passed through unless quiet_stderr. A failed child ends the
    benchmark with its command and exit status."""
    read_end, write_end = os.pipe()
    try:
        launcher = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, str(write_end),
             "1" if quiet_stderr else "0", *command],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if keep_stdout else subprocess.DEVNULL,
            pass_fds=(write_end,), cwd=cwd, env={**os.environ, **CHILD_ENVIRONMENT, **(env or {})})
        os.close(write_end)
        write_end = -1
        stdout = launcher.communicate()[0] if keep_stdout else b""
        launcher.wait()
        with os.fdopen(read_end, "rb") as report:
            read_end = -1
            fields = report.read().split()
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
    if launcher.returncode != 0 or len(fields) != 4:
        raise SystemExit(f"{' '.join(command)} could not be started")
    status, wall, cpu, peak = int(fields[0]), float(fields[1]), float(fields[2]), int(fields[3])
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed (exit status {status})")
    return ChildRun((stdout or b"").decode(), wall, cpu, peak / 1024)


def child_run(command: list[str], one_core: bool = False,
              quiet_stderr: bool = False) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one child process run to the end, its stdout thrown
    away (stderr too with quiet_stderr); one_core: on the first CPU this process may use, as
    `taskset` would pin it."""
    if one_core:
        with pinned_to_one_core():
            run = launched_run(command, quiet_stderr=quiet_stderr)
    else:
        run = launched_run(command, quiet_stderr=quiet_stderr)
    return run.wall_seconds, run.peak_rss_mib


def best_of(command: list[str], runs: int, one_core: bool = False,
            output: Path | None = None) -> tuple[float, float]:
    """(least wall seconds, largest peak RSS in MiB) of runs fresh processes after a warm-up
    (which also caches the bytecode); output: a file the command writes, removed before each
    run."""
    results = []
    for _ in range(runs + 1):
        if output is not None and output.exists():
            output.unlink()
        results.append(child_run(command, one_core=one_core, quiet_stderr=True))
    counted = results[1:]
    return min(s for s, _ in counted), max(rss for _, rss in counted)


def measured_run(command: list[str], env: dict[str, str] | None = None,
                 cwd: str | os.PathLike | None = None) -> ChildRun:
    """Run one child process to the end, keeping its stdout; stderr is passed through."""
    return launched_run(command, keep_stdout=True, env=env, cwd=cwd)


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
