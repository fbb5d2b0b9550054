"""Lines of a text input (a path, "-" for standard input, or an open stream), shared by the readers.

Binary input is decoded in chunks of about ``CHUNK_BYTES`` cut at line ends, so a file of any size
is read in bounded memory and a byte that is not valid in the encoding is reported with its exact
line: ``path:LINE: not valid utf-8 text (byte ff at byte column 3: invalid start byte)``; the
lines before that line are given first, so that a reader can hand on every sentence before the
bad one. ``errors="replace"`` reads such a byte as U+FFFD instead (Python's error handlers,
``bytes.decode``), and tells the first one in an ``InputWarning`` naming its line.

``\\r\\n``, ``\\r`` and ``\\n`` all end a line, as Python's universal newlines read them: a file
with classic Mac line ends is read line by line, and a stray ``\\r`` (``\\r\\r\\n``, as a file
converted to CRLF twice has) ends a line of its own, so that no line holds a carriage return.
Lines come without their terminators; a UTF-8 byte order mark at the start of the input is
dropped. Every problem is raised as the reader's own error class (a subclass of
``features.errors.InputError``), so its message stays one line. An input that is a later part
of a file (``first_line`` > 1) is numbered from ``first_line`` and keeps a byte order mark at
its start as text.
"""
from __future__ import annotations

import io
import os
import sys
import warnings
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from polyparse.features.errors import InputError, InputWarning

__all__ = ["CHUNK_BYTES", "GUESSED_SENTENCE_ENDS", "TEXT_FORMATS", "ENCODING_ERRORS",
           "display_name", "line_chunks", "split_lines", "text_lines"]

# The plain-text formats a tokenizer reads: raw (paragraphs separated by blank lines), tokens
# (one sentence a line, tokens separated by spaces) and lines (one sentence a line, its tokens
# found by the tokenizer: text already split into sentences).
TEXT_FORMATS = ("raw", "tokens", "lines")
# Those whose sentence ends the tokenizer guesses (a parser may find more inside a guess).
GUESSED_SENTENCE_ENDS = ("raw",)
CHUNK_BYTES = 1 << 20
# Lines per list when the input is a text stream without a binary buffer (io.StringIO).
CHUNK_LINES = 8192
# What a byte that is not valid in the encoding does, by the names of Python's error handlers:
# stop the reading with the byte's line (strict), or read it as U+FFFD (replace).
ENCODING_ERRORS = ("strict", "replace")


def display_name(path: str | os.PathLike | None, stream: object, name: str | None) -> str:
    """The file name used in messages: ``name``, the stream's name, ``<stdin>`` or the path."""
    if name is not None:
        return name
    if stream is not None:
        stream_name = getattr(stream, "name", None)
        return stream_name if isinstance(stream_name, str) else "<stream>"
    if path is None or os.fspath(path) == "-":
        return "<stdin>"
    return os.fspath(path)


def split_lines(text: str) -> list[str]:
    """The lines of text cut at every ``\\r\\n``, ``\\r`` and ``\\n`` (text after the last line
    end is the last line; a text ending with a line end ends with an empty string)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def text_lines(
    path: str | os.PathLike | None, stream: TextIO | BinaryIO | None, encoding: str,
    display: str, error: type[InputError], first_line: int = 1, errors: str = "strict",
) -> Iterator[str]:
    """Yield the lines of the input one by one (see line_chunks)."""
    for chunk in line_chunks(path, stream, encoding, display, error, first_line, errors):
        yield from chunk


def line_chunks(
    path: str | os.PathLike | None, stream: TextIO | BinaryIO | None, encoding: str,
    display: str, error: type[InputError], first_line: int = 1, errors: str = "strict",
) -> Iterator[list[str]]:
    """Yield the lines of the input in consecutive lists, each line without its terminator.

    ``stream`` wins over ``path``; with neither, or ``path="-"``, standard input is read. A text
    stream with a binary ``buffer`` (like ``sys.stdin``) is read through that buffer so that
    ``encoding`` and ``errors`` apply. ``first_line`` is the line number of the input's first
    line in messages.
    """
    if errors not in ENCODING_ERRORS:
        raise ValueError(f"errors must be one of {', '.join(ENCODING_ERRORS)}, not {errors!r}")
    if stream is None and (path is None or os.fspath(path) == "-"):
        stream = sys.stdin
    if stream is None:
        with open(path, "rb") as binary:
            yield from _decoded_chunks(binary, encoding, errors, display, error, first_line)
        return
    if isinstance(stream, io.TextIOBase) or hasattr(stream, "encoding"):
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            yield from _str_chunks(stream, display, encoding, error, first_line)
            return
        stream = buffer
    yield from _decoded_chunks(stream, encoding, errors, display, error, first_line)


def _str_chunks(
    stream: TextIO, display: str, encoding: str, error: type[InputError], first_line: int
) -> Iterator[list[str]]:
    lineno = first_line - 1
    chunk: list[str] = []
    try:
        for line in stream:
            if line.endswith("\n"):
                line = line[:-1]
            if lineno == 0 and line.startswith("\ufeff"):
                line = line[1:]
            if "\r" in line:
                pieces = split_lines(line)
                if line.endswith("\r"):
                    pieces.pop()
            else:
                pieces = [line]
            lineno += len(pieces)
            chunk.extend(pieces)
            if len(chunk) >= CHUNK_LINES:
                yield chunk
                chunk = []
    except UnicodeDecodeError as decode_error:
        encoding = getattr(stream, "encoding", None) or encoding
        if chunk:
            yield chunk
        message = f"{display}:{lineno + 1}: not valid {encoding} text ({decode_error.reason})"
        raise error(message) from None
    if chunk:
        yield chunk


def _decoded_chunks(
    binary: BinaryIO, encoding: str, errors: str, display: str, error: type[InputError],
    first_line: int,
) -> Iterator[list[str]]:
    """Decode a binary stream in chunks cut at line ends; exact line numbers on bad bytes."""
    decoder = _Decoder(encoding, errors, display, error)
    first = first_line == 1
    if "\n".encode(encoding) != b"\n" or "\r".encode(encoding) != b"\r":
        # Line ends are not single bytes (UTF-16, UTF-32): the input is decoded at once.
        yield from decoder.lines(binary.read(), first_line - 1, first, complete=False,
                                 byte_lines=False)
        return
    read = getattr(binary, "read1", binary.read)
    pending = b""
    lines_before = first_line - 1
    while True:
        chunk = read(CHUNK_BYTES)
        if not chunk:
            break
        data = pending + chunk
        # A "\r" at the very end may be the first half of a "\r\n": it waits for the next read.
        limit = len(data) - 1 if data.endswith(b"\r") else len(data)
        cut = max(data.rfind(b"\n", 0, limit), data.rfind(b"\r", 0, limit)) + 1
        if cut == 0:
            pending = data
            continue
        pending = data[cut:]
        for lines in decoder.lines(data[:cut], lines_before, first, complete=True):
            yield lines
            lines_before += len(lines)
        first = False
    if pending:
        yield from decoder.lines(pending, lines_before, first, complete=False)


class _Decoder:
    """Bytes of one input to lines of text, in its encoding, with errors "strict" (a byte that
    is not valid raises error naming its line) or "replace" (it becomes U+FFFD, and the first
    one is told in one InputWarning naming its line)."""

    def __init__(self, encoding: str, errors: str, display: str,
                 error: type[InputError]) -> None:
        self.encoding = encoding
        self.errors = errors
        self.display = display
        self.error = error
        self.warned = False

    def lines(self, data: bytes, lines_before: int, first: bool, complete: bool,
              byte_lines: bool = True) -> Iterator[list[str]]:
        """The lines of data (complete: it ends with a line end), lines_before lines coming
        before it. With strict errors, a byte that is not valid text gives the lines before
        its line, then raises the error naming that line."""
        try:
            lines = split_lines(data.decode(self.encoding))
        except UnicodeDecodeError as decode_error:
            before, problem = self._bad_bytes(data, decode_error, byte_lines)
            where = f"{self.display}:{lines_before + len(before) + 1}"
            if self.errors == "strict":
                if before:
                    yield _without_mark(before, first)
                raise self.error(f"{where}: {problem}") from None
            if not self.warned:
                self.warned = True
                warnings.warn(f"{where}: {problem}, read as U+FFFD (and any later ones)",
                              InputWarning, stacklevel=2)
            lines = split_lines(data.decode(self.encoding, "replace"))
        if complete or lines[-1] == "":
            lines.pop()
        if lines:
            yield _without_mark(lines, first)

    def _bad_bytes(self, data: bytes, decode_error: UnicodeDecodeError, byte_lines: bool
                   ) -> tuple[list[str], str]:
        """The complete lines before the bad bytes, and the problem in words."""
        start = decode_error.start
        bad = data[start : decode_error.end].hex(" ")
        if byte_lines:
            line_start = max(data.rfind(b"\n", 0, start), data.rfind(b"\r", 0, start)) + 1
            where = f"byte {bad} at byte column {start - line_start + 1}"
            before = split_lines(data[:line_start].decode(self.encoding))
        else:
            before = split_lines(data[:start].decode(self.encoding, "replace"))
            where = f"bytes {bad}"
        before.pop()
        return before, f"not valid {self.encoding} text ({where}: {decode_error.reason})"


def _without_mark(lines: list[str], first: bool) -> list[str]:
    if first and lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines
