"""A compiled scorer's arrays as a model file holds them: reading the scorer's header back and
installing its arrays with one-sentence errors (from_arrays of PKI, PKE and split-svm), and the
bytes of each part of a scorer (memory_report)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from classifiers.model_file import ModelFileError


def header_values(
    header: dict[str, Any],
    evaluator: str,
    title: str,
    fields: dict[str, Callable[[Any], Any] | None],
    source: str,
) -> dict[str, Any]:
    """The values of fields in a scorer's header, each through its conversion (int, float, ...;
    None keeps the value as stored), once the header names `evaluator`; otherwise ModelFileError
    `source: inconsistent <title> header (...)`."""
    try:
        if header["evaluator"] != evaluator:
            raise ValueError(f"evaluator {header['evaluator']!r} is not {evaluator}")
        return {name: header[name] if convert is None else convert(header[name])
                for name, convert in fields.items()}
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{source}: inconsistent {title} header ({error})") from None


@contextmanager
def arrays_checked(source: str, title: str) -> Iterator[None]:
    """Turns a ValueError raised inside (arrays that do not fit together) into ModelFileError
    `source: inconsistent <title> arrays (...)`."""
    try:
        yield
    except ValueError as error:
        raise ModelFileError(f"{source}: inconsistent {title} arrays ({error})") from None


def part_bytes(arrays: dict[str, np.ndarray], parts: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """Bytes of each part: the sum of the nbytes of the arrays it names."""
    return {part: int(sum(arrays[name].nbytes for name in names))
            for part, names in parts.items()}
