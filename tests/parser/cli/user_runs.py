"""The installed `polyparse` run as a user runs it, in a child process, and the checks that
every command writing output shares: one-line errors, no leftovers, signals that end a run at
once without leaving anything, and a closed stdout that ends a run quietly."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from polyparse.features.signal_checks import LONG_INPUT_VARIABLE
from tests.child_processes import (
    HANG_GUARD_SECONDS,
    SIGINT_AT_ITS_DEFAULT,
    start_with_stderr_on_a_terminal,
)

POLYPARSE = str(Path(sys.executable).parent / "polyparse")


def polyparse(*args: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run([POLYPARSE, *args], capture_output=True, text=True, **options)


def one_line(result: subprocess.CompletedProcess, *expected: str) -> str:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def besides_the_bar(shown: bytes, description: bytes) -> list[bytes]:
    """What a terminal showed apart from the progress bar named description (tqdm redraws it
    after a carriage return)."""
    parts = shown.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    return [part for part in parts if part.strip() and not part.startswith(description)]


def read_blocks(stream: IO[bytes], end: bytes, n: int) -> bytes:
    """What a child's stdout (a pipe) gave once n blocks, each ending in `end`, came; the
    timeout is only a hang guard."""
    text = b""
    while text.count(end) < n:
        ready, _, _ = select.select([stream], [], [], HANG_GUARD_SECONDS)
        assert ready, f"no output after {text!r}"
        chunk = os.read(stream.fileno(), 1 << 16)
        assert chunk, f"stdout ended after {text!r}"
        text += chunk
    return text


def check_a_signal_while_parsing_leaves_nothing(argv: Sequence[str], fed: bytes, folder: Path,
                                                signum: int, bar: bytes = b"parsing") -> None:
    """argv, a parse writing into folder, gets signum once its progress bar (named `bar`) shows
    (the temporary output is open) while its input, a pipe fed `fed` and held open here, still
    waits for more: the run can only end by the signal, and must leave nothing."""
    child = start_with_stderr_on_a_terminal(argv, stdin=subprocess.PIPE)
    try:
        child.process.stdin.write(fed)
        child.process.stdin.flush()
        child.read_until(bar)
        assert leftovers(folder), "the bar shows once the temporary output is open"
        child.process.send_signal(signum)
        code, shown = child.finish()
    finally:
        child.process.stdin.close()
    assert code == 128 + signum
    assert besides_the_bar(shown, bar) == [], shown
    assert os.listdir(folder) == []


def check_a_signal_while_the_input_waits(argv: Sequence[str], fed: bytes, folder: Path,
                                         signum: int, output_open: bool = False) -> None:
    """argv, a run writing into folder, is fed `fed` through its stdin, a pipe held open here,
    and gets signum (with output_open, once its temporary output is in folder): with its input
    still waiting for more, the run can only end by the signal, with nothing on stderr and
    nothing left in folder."""
    child = subprocess.Popen([sys.executable, "-c", SIGINT_AT_ITS_DEFAULT, *argv],
                             stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        child.stdin.write(fed)
        child.stdin.flush()
        while output_open and not leftovers(folder):
            assert child.poll() is None, child.stderr.read()
            select.select([], [], [], 0.01)
        child.send_signal(signum)
        _, errors = child.communicate(timeout=HANG_GUARD_SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 128 + signum and errors == b""
    assert os.listdir(folder) == []


def check_a_signal_inside_a_long_input(argv: Sequence[str], length: int, folder: Path,
                                       signum: int, output_open: bool = True) -> None:
    """argv, a run writing into folder, gets signum once a compiled loop says "ready": it has
    started an input of `length` items or more and waits for the signal, which is then pending
    inside the loop (the POLYPARSE_TEST_LONG_INPUT hook, features/signal_checks.pyx). The run
    must end by the signal there: nothing more on stderr (no traceback, no "finished", which the
    loop writes at the end of that input) and nothing left in folder. output_open: the run has
    opened its (temporary) output by then, as a parse has; a training run or clf predict open
    theirs after the loop."""
    child = subprocess.Popen([sys.executable, "-c", SIGINT_AT_ITS_DEFAULT, *argv],
                             stderr=subprocess.PIPE,
                             env={**os.environ, LONG_INPUT_VARIABLE: str(length)})
    try:
        ready, _, _ = select.select([child.stderr], [], [], HANG_GUARD_SECONDS)
        assert ready, "the loop never said ready"
        line = child.stderr.readline()
        assert line == b"ready\n", line + child.stderr.read()
        assert bool(leftovers(folder)) == output_open, os.listdir(folder)
        child.send_signal(signum)
        _, rest = child.communicate(timeout=HANG_GUARD_SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert rest == b"", rest
    assert child.returncode == 128 + signum
    assert os.listdir(folder) == []


def check_sigterm_ends_training_at_once(argv: Sequence[str], logged: str, folder: Path) -> None:
    """argv, a training run writing into folder, gets SIGTERM once a line of its log holds
    `logged`: it must end by the signal within the hang guard and leave nothing."""
    child = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    while not any(logged in line for line in lines):
        line = child.stderr.readline()
        assert line, "".join(lines)
        lines.append(line)
    child.send_signal(signal.SIGTERM)
    child.communicate(timeout=HANG_GUARD_SECONDS)
    assert child.returncode == 128 + signal.SIGTERM
    assert os.listdir(folder) == []


def check_a_closed_pipe_ends_quietly(argv: Sequence[str], first: bytes, end: bytes, n: int,
                                     then: bytes) -> None:
    """argv, a parse from stdin to stdout, is fed `first`; once n blocks ending in `end` came
    back, its stdout is closed and `then` fed, which makes it write into the closed pipe: it
    must end by SIGPIPE with nothing on stderr."""
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    child.stdin.write(first)
    child.stdin.flush()
    read_blocks(child.stdout, end, n)
    child.stdout.close()
    child.stdin.write(then)
    child.stdin.close()
    child.wait(timeout=HANG_GUARD_SECONDS)
    assert child.stderr.read() == b""
    assert child.returncode == 128 + signal.SIGPIPE


def check_each_block_comes_back_as_soon_as_it_is_fed(argv: Sequence[str], blocks: Sequence[bytes],
                                                     end: bytes, **options: object) -> None:
    """argv, a parse from stdin to stdout, is fed blocks one at a time while its input stays
    open: each one's output (one block ending in `end`) must be read back before the next is
    fed. Had the command waited for more input (or for the end of it), the read would hang (up
    to the hang guard). options go to subprocess.Popen."""
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, **options)
    try:
        for block in blocks:
            child.stdin.write(block)
            child.stdin.flush()
            assert read_blocks(child.stdout, end, 1).count(end) == 1
    finally:
        child.stdin.close()
        child.wait(timeout=HANG_GUARD_SECONDS)
    assert child.returncode == 0, child.stderr.read()
