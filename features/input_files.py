"""Input paths: checked before any work, then read exactly once.

A command that will fail on its input says so at once, not after loading a model or reading
its other files (check_input_paths). An input may be a regular file, standard input ("-",
"/dev/stdin"), a pipe (`<(cat f)`, "/dev/fd/63") or a named FIFO: the last three can be read
only once, so every reader reads each input through one opening (open_input), and what a
command needs besides the records (a sniff of the first line, a sha256 for the model header)
comes from the same bytes: InputReader hashes what its reader reads, read_input_bytes gives
a whole input as bytes. A parse that reads as input arrives opens it with input_stream (or
takes a stream already open, opened_or_given), whose more_ready test tells a pipe with nothing
waiting from a file.
"""
from __future__ import annotations

import io
import os
import select
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, BinaryIO

from polyparse.features.errors import InputError

STDIN = "-"
STDIN_NAME = "<stdin>"


class InputPathError(InputError):
    """An input path that cannot be read: `path: problem` in one line."""


def check_input_path(path: str | os.PathLike) -> None:
    """InputPathError unless path ("-": standard input) can be opened for reading. It is not
    opened: a FIFO would wait for its writer."""
    text = os.fspath(path)
    if text == STDIN:
        return
    if text == "":
        raise InputPathError("an input path is empty")
    try:
        mode = os.stat(text).st_mode
    except OSError as error:
        raise InputPathError(f"{text}: {error.strerror}") from None
    if stat.S_ISDIR(mode):
        raise InputPathError(f"{text}: is a folder, not a file")
    if not os.access(text, os.R_OK):
        raise InputPathError(f"{text}: Permission denied")


def check_input_paths(paths: Iterable[str | os.PathLike | None]) -> None:
    """check_input_path for each path given (None: not given), and at most one of them
    standard input: two readers cannot share one stream."""
    given = [os.fspath(path) for path in paths if path is not None]
    for path in given:
        check_input_path(path)
    from_stdin = [path for path in given if reads_stdin(path)]
    if len(from_stdin) > 1:
        raise InputPathError(f"{' and '.join(from_stdin)}: two inputs cannot both be read "
                             "from standard input")


def reads_stdin(path: str | os.PathLike) -> bool:
    """Whether path names this process's standard input ("-", /dev/stdin, /dev/fd/0)."""
    text = os.fspath(path)
    return text in (STDIN, "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


def input_name(path: str | os.PathLike) -> str:
    """The input's name in messages: `<stdin>` for "-", else the path as given."""
    text = os.fspath(path)
    return STDIN_NAME if text == STDIN else text


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether path (symlinks followed) is a regular file, which can be read more than once
    (and mapped into memory); standard input, pipes, FIFOs and devices cannot."""
    if os.fspath(path) == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def same_file(first: str | os.PathLike | None, second: str | os.PathLike | None) -> bool:
    """Whether two given input paths are one regular file (a training file given as its own
    development file, say)."""
    return (first is not None and second is not None and is_regular_file(first)
            and is_regular_file(second) and os.path.samefile(first, second))


@contextmanager
def open_input(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """The input's binary stream, opened once ("-": standard input, left open)."""
    if os.fspath(path) == STDIN:
        yield sys.stdin.buffer
        return
    with open(path, "rb") as stream:
        yield stream


def read_input_bytes(path: str | os.PathLike) -> bytes:
    """The whole input, read once ("-": standard input)."""
    with open_input(path) as stream:
        return stream.read()


class _Digesting(io.RawIOBase):
    """A raw stream over another binary stream that adds every byte read to a sha256."""

    def __init__(self, source: BinaryIO, name: str) -> None:
        super().__init__()
        self.source = source
        self.name = name
        # Imported here: a parse that hashes nothing (most runs) does not pay for hashlib.
        import hashlib

        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        read = getattr(self.source, "read1", self.source.read)
        data = read(len(view))
        view[:len(data)] = data
        self.digest.update(data)
        return len(data)


class InputReader:
    """An input opened once for a reader: `stream` (buffered, binary) to read the records
    from, `name` for messages, and sha256() of the whole input, which reads what the reader
    left (a trailing part it did not need) through the same stream."""

    def __init__(self, source: BinaryIO, name: str) -> None:
        self._raw = _Digesting(source, name)
        self.stream: BinaryIO = io.BufferedReader(self._raw)
        self.name = name

    def sha256(self) -> str:
        while self.stream.read(1 << 20):
            pass
        return self._raw.digest.hexdigest()


@contextmanager
def input_reader(path: str | os.PathLike) -> Iterator[InputReader]:
    """The input at path opened once as an InputReader."""
    with open_input(path) as source:
        yield InputReader(source, input_name(path))


class _Replay(io.RawIOBase):
    """A raw stream giving `head` (bytes already read from source) and then the rest of
    source."""

    def __init__(self, head: bytes, source: BinaryIO, name: str) -> None:
        super().__init__()
        self.head = memoryview(head)
        self.source = source
        self.name = name

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.source.fileno()

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        if self.head:
            n = min(len(view), len(self.head))
            view[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        read = getattr(self.source, "read1", self.source.read)
        data = read(len(view))
        view[:len(data)] = data
        return len(data)


class SniffedInput:
    """An input opened once whose first lines were read to tell what it holds: `head` (those
    lines, as bytes), `name` for messages, and `stream`, which reads the whole input from its
    first byte, the head included."""

    def __init__(self, head: bytes, source: BinaryIO, name: str) -> None:
        self.head = head
        self.name = name
        self.stream: BinaryIO = io.BufferedReader(_Replay(head, source, name))

    def first_line(self, skip: Callable[[bytes], bool] = lambda line: False) -> bytes:
        """The first line of the head that skip() does not pass over (b"" when none)."""
        for line in self.head.splitlines():
            if not skip(line):
                return line
        return b""


@contextmanager
def sniffed_input(path: str | os.PathLike,
                  enough: Callable[[bytes], bool]) -> Iterator[SniffedInput]:
    """The input at path opened once, its lines read into the head until enough(line) is
    true for one of them (or the input ends)."""
    with open_input(path) as source:
        lines = []
        while True:
            line = source.readline()
            lines.append(line)
            if not line or enough(line):
                break
        yield SniffedInput(b"".join(lines), source, input_name(path))


def is_regular_stream(stream: IO | io.IOBase) -> bool:
    """True when the stream is backed by a regular file (its output needs no flushing to reach a
    reader as it is made)."""
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


@contextmanager
def input_stream(path: str) -> Iterator[tuple[BinaryIO, Callable[[], bool]]]:
    """The input's binary stream (path "-": standard input) and a test telling whether more
    input is waiting: always for a regular file, by select() for a pipe or a terminal."""
    if path == "-":
        stream = sys.stdin.buffer
        yield stream, more_ready(stream)
        return
    with open(path, "rb") as stream:
        yield stream, more_ready(stream)


@contextmanager
def opened_or_given(path: str, stream: BinaryIO | None
                    ) -> Iterator[tuple[BinaryIO, Callable[[], bool]]]:
    """input_stream(path), or the stream given (already open, left open) with its test."""
    if stream is None:
        with input_stream(path) as opened:
            yield opened
        return
    yield stream, more_ready(stream)


def more_ready(stream: BinaryIO) -> Callable[[], bool]:
    """A test telling whether more of stream's input is waiting to be read."""
    if is_regular_stream(stream):
        return lambda: True
    descriptor = stream.fileno()
    return lambda: bool(select.select([descriptor], [], [], 0)[0])
