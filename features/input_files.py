"""Input paths checked before any work: a command that will fail on its input says so at once,
not after loading a model or reading its other files."""
from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from features.errors import InputError

STDIN = "-"


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
    """check_input_path for each path given (None: not given)."""
    for path in paths:
        if path is not None:
            check_input_path(path)
