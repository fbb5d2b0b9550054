"""Output files that are never half written, and never destroy what they are written to.

- A regular file, or a path that does not exist yet, is written through a temporary file in
  its folder (`.NAME.XXXXXXXX.tmp`) that `os.replace` puts in place once everything is written;
  an interrupted run removes the temporary file and leaves the target as it was.
- A symlink is followed: its target is written (as above), the link stays a link.
- A FIFO, a character device (`/dev/null`, a terminal) or a socket is opened and written
  directly: replacing it by a regular file would destroy it, and a reader waiting on a FIFO
  would never see the data.
- A replaced file keeps its permission bits; a new one gets 0o666 less the umask, as `open`
  would give it.

- A name of one of this process's open descriptors (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
  `/proc/self/fd/N`) is written through that descriptor, as the shell opened it: never reopened
  (which would truncate a file opened for appending, `>> log`) nor replaced (a pipe has no
  folder to put a temporary file in).

`check_output_path` tells, before any work is done, why a path cannot be written (an empty
path, a folder, a missing folder, a folder without write permission), naming the user's path.
"""
from __future__ import annotations

import codecs
import io
import os
import signal
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths
from polyparse.features.worker_threads import QUIT_SIGNALS

STDOUT = "-"


class OutputPathError(InputError):
    """An output path that cannot be written: `path: problem` in one line."""


def open_descriptor(path: str | os.PathLike) -> int | None:
    """The descriptor of this process that path names (/dev/stdout, /dev/stderr, /dev/fd/N,
    /proc/self/fd/N, /proc/PID/fd/N with this PID), when it is open; else None."""
    text = os.path.normpath(os.fspath(path))
    named = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}.get(text)
    if named is None:
        folder, name = os.path.split(text)
        if not name.isdigit() or folder not in ("/dev/fd", "/proc/self/fd",
                                                f"/proc/{os.getpid()}/fd"):
            return None
        named = int(name)
    try:
        os.fstat(named)
    except OSError:
        return None
    return named


def check_output_path(path: str | os.PathLike | None, what: str = "output") -> None:
    """OutputPathError unless path (None or "-": standard output) can be written."""
    if path is None or os.fspath(path) == STDOUT or open_descriptor(path) is not None:
        return
    text = os.fspath(path)
    if text == "":
        raise OutputPathError(f"the {what} path is empty")
    target = os.path.realpath(text)
    if os.path.isdir(target):
        raise OutputPathError(f"{text}: is a folder, not a file ({what})")
    if os.path.exists(target):
        mode = os.stat(target).st_mode
        if not stat.S_ISREG(mode):
            if not os.access(target, os.W_OK):
                raise OutputPathError(f"{text}: permission denied")
            return
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise OutputPathError(f"{text}: no such folder {os.path.dirname(text) or '.'}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(f"{text}: cannot write in its folder (permission denied)")


def _regular_file_id(path: str | os.PathLike | None) -> tuple[int, int] | None:
    """(device, inode) of an existing file that is not standard input or output, a descriptor
    or a special file; else None."""
    if path is None or os.fspath(path) == STDOUT or is_special(path):
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def check_output_apart(path: str | os.PathLike | None,
                       inputs: Iterable[str | os.PathLike | None], what: str = "output") -> None:
    """OutputPathError when path is one of the command's inputs: the same file by name, through
    a symlink or as a hard link (same device and inode). Standard output, descriptors and
    special files (a FIFO, a device) are never compared."""
    written = _regular_file_id(path)
    if written is None:
        return
    for source in inputs:
        if source is not None and _regular_file_id(source) == written:
            same = "" if os.fspath(source) == os.fspath(path) else f" ({os.fspath(source)})"
            raise OutputPathError(f"{os.fspath(path)}: the {what} would overwrite an input of "
                                  f"this command{same}")


def check_command_paths(inputs: Iterable[str | os.PathLike | None],
                        output: str | os.PathLike | None = None, what: str = "output") -> None:
    """A command's files, all checked before any is read: the output (None: standard output)
    can be written, every input given can be read (at most one from standard input), and the
    output is none of the inputs."""
    inputs = list(inputs)
    check_output_path(output, what)
    check_output_apart(output, inputs, what)
    check_input_paths(inputs)


def is_special(path: str | os.PathLike) -> bool:
    """True when path names one of this process's open descriptors, or (symlinks followed)
    exists and is not a regular file: a FIFO, a device, a socket."""
    if open_descriptor(path) is not None:
        return True
    try:
        mode = os.stat(os.path.realpath(os.fspath(path))).st_mode
    except FileNotFoundError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


@contextmanager
def output_stream(path: str | os.PathLike | None, binary: bool = False,
                  encoding: str = "utf-8", newline: str | None = "") -> Iterator[IO]:
    """A stream writing to path (None or "-": standard output, in `encoding` too), as the
    module notes say."""
    if path is None or os.fspath(path) == STDOUT:
        with _standard_output(binary, encoding, newline) as stream:
            yield stream
            stream.flush()
        return
    mode = "wb" if binary else "w"
    options = {} if binary else {"encoding": encoding, "newline": newline}
    descriptor = open_descriptor(path)
    if descriptor is not None:
        if descriptor in (1, 2):
            (sys.stdout if descriptor == 1 else sys.stderr).flush()
        with os.fdopen(os.dup(descriptor), mode, **options) as stream:
            yield stream
        return
    check_output_path(path)
    target = os.path.realpath(os.fspath(path))
    if is_special(target):
        with open(target, mode, **options) as stream:
            yield stream
        return
    try:
        permissions = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        permissions = 0o666 & ~_umask()
    folder, name = os.path.split(target)
    temporary = None
    try:
        with _quit_signals_waiting():
            descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp",
                                                     dir=folder)
        with os.fdopen(descriptor, mode, **options) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, permissions)
        os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
        raise


@contextmanager
def _standard_output(binary: bool, encoding: str, newline: str | None) -> Iterator[IO]:
    """sys.stdout (its buffer when binary), or, when `encoding` is not its encoding, a text
    layer in `encoding` over its buffer, taken off again (not closed) on the way out."""
    if binary:
        yield sys.stdout.buffer
        return
    current = getattr(sys.stdout, "encoding", None) or "utf-8"
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None or codecs.lookup(current).name == codecs.lookup(encoding).name:
        yield sys.stdout
        return
    sys.stdout.flush()
    stream = io.TextIOWrapper(buffer, encoding=encoding, newline=newline, write_through=True)
    try:
        yield stream
    finally:
        stream.detach()


@contextmanager
def _quit_signals_waiting() -> Iterator[None]:
    """While inside, SIGINT, SIGTERM and SIGHUP wait; they arrive on the way out, once the
    statements inside are done. A temporary file is made inside, so that a signal raised as an
    exception (parser/cli/quit_signals.py) never comes between its creation and the caller
    knowing its path, which would leave it behind."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, QUIT_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def write_bytes(path: str | os.PathLike, data: bytes | bytearray | memoryview) -> None:
    """Write data to path through output_stream."""
    with output_stream(path, binary=True) as stream:
        stream.write(data)


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write text to path through output_stream."""
    with output_stream(path, encoding=encoding) as stream:
        stream.write(text)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
