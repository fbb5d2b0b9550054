"""Lines of a text input (a path, "-" for standard input, or an open stream), shared by the readers.

Binary input is decoded in chunks of about ``CHUNK_BYTES`` cut at line ends, so a file of any size
is read in bounded memory and a byte that is not valid in the encoding is reported with its exact
line: ``path:LINE: not valid utf-8 text (byte ff at byte column 3: invalid start byte)``. Lines
come without their terminators (``"\\n"`` or ``"\\r\\n"``); a UTF-8 byte order mark at the start
of the input is dropped. Every problem is raised as the reader's own error class (a subclass of
``features.errors.InputError``), so its message stays one line. An input that is a later part
of a file (``first_line`` > 1) is numbered from ``first_line`` and keeps a byte order mark at its
start as text.
"""
from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from features.errors import InputError

__all__ = ["CHUNK_BYTES", "display_name", "line_chunks", "text_lines"]

CHUNK_BYTES = 1 << 20
# Lines per list when the input is a text stream without a binary buffer (io.StringIO).
CHUNK_LINES = 8192


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


def text_lines(
    path: str | os.PathLike | None, stream: TextIO | BinaryIO | None, encoding: str,
    display: str, error: type[InputError], first_line: int = 1,
) -> Iterator[str]:
    """Yield the lines of the input one by one (see line_chunks)."""
    for chunk in line_chunks(path, stream, encoding, display, error, first_line):
        yield from chunk


def line_chunks(
    path: str | os.PathLike | None, stream: TextIO | BinaryIO | None, encoding: str,
    display: str, error: type[InputError], first_line: int = 1,
) -> Iterator[list[str]]:
    """Yield the lines of the input in consecutive lists, each line without its terminator.

    ``stream`` wins over ``path``; with neither, or ``path="-"``, standard input is read. A text
    stream with a binary ``buffer`` (like ``sys.stdin``) is read through that buffer so that
    ``encoding`` applies. ``first_line`` is the line number of the input's first line in
    messages.
    """
    if stream is None and (path is None or os.fspath(path) == "-"):
        stream = sys.stdin
    if stream is None:
        with open(path, "rb") as binary:
            yield from _decoded_chunks(binary, encoding, display, error, first_line)
        return
    if isinstance(stream, io.TextIOBase) or hasattr(stream, "encoding"):
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            yield from _str_chunks(stream, display, encoding, error, first_line)
            return
        stream = buffer
    yield from _decoded_chunks(stream, encoding, display, error, first_line)


def _str_chunks(
    stream: TextIO, display: str, encoding: str, error: type[InputError], first_line: int
) -> Iterator[list[str]]:
    lineno = first_line - 1
    chunk: list[str] = []
    try:
        for line in stream:
            lineno += 1
            if line.endswith("\n"):
                line = line[:-2] if line.endswith("\r\n") else line[:-1]
            if lineno == 1 and line.startswith("\ufeff"):
                line = line[1:]
            chunk.append(line)
            if len(chunk) == CHUNK_LINES:
                yield chunk
                chunk = []
    except UnicodeDecodeError as decode_error:
        encoding = getattr(stream, "encoding", None) or encoding
        message = f"{display}:{lineno + 1}: not valid {encoding} text ({decode_error.reason})"
        raise error(message) from None
    if chunk:
        yield chunk


def _decoded_chunks(
    binary: BinaryIO, encoding: str, display: str, error: type[InputError], first_line: int
) -> Iterator[list[str]]:
    """Decode a binary stream in chunks cut at line ends; exact line numbers on bad bytes."""
    if "\n".encode(encoding) != b"\n":
        data = binary.read()
        yield _split_text(_decode(data, encoding, display, first_line - 1, error),
                          first=first_line == 1)
        return
    read = getattr(binary, "read1", binary.read)
    pending = b""
    lines_before = first_line - 1
    first = first_line == 1
    while True:
        chunk = read(CHUNK_BYTES)
        if not chunk:
            break
        data = pending + chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            pending = data
            continue
        pending = data[cut:]
        # Without its last "\n", and without the "\r" of a last "\r\n".
        complete = data[: cut - 2 if cut > 1 and data[cut - 2] == 13 else cut - 1]
        yield _split_text(_decode(complete, encoding, display, lines_before, error), first)
        lines_before += complete.count(b"\n") + 1
        first = False
    if pending:
        if pending.endswith(b"\r"):
            pending = pending[:-1]
        yield _split_text(_decode(pending, encoding, display, lines_before, error), first)


def _decode(
    data: bytes, encoding: str, display: str, lines_before: int, error: type[InputError]
) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as decode_error:
        line_start = data.rfind(b"\n", 0, decode_error.start) + 1
        line = lines_before + data.count(b"\n", 0, decode_error.start) + 1
        bad = data[decode_error.start : decode_error.end].hex(" ")
        column = decode_error.start - line_start + 1
        raise error(
            f"{display}:{line}: not valid {encoding} text "
            f"(byte {bad} at byte column {column}: {decode_error.reason})"
        ) from None


def _split_text(text: str, first: bool) -> list[str]:
    if first and text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text.split("\n")
