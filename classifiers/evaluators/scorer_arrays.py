"""A compiled scorer's arrays as a model file holds them: reading the scorer's header back and
installing its arrays with one-sentence errors (from_arrays of PKI, PKE and split-svm), and the
bytes of each part of a scorer (memory_report)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from polyparse.classifiers.model_file import ModelFileError


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


# A float array is stored as its nonzero entries when fewer than this share of them are nonzero
# (12 bytes per entry instead of 8 per slot); loading rebuilds the very same array.
SPARSE_SHARE = 0.6


def stored_sparsely(name: str, array: np.ndarray) -> dict[str, np.ndarray]:
    """The model-file form of a float64 array: `name` itself, or, when mostly zero, its shape
    (`name_shape`), the flat positions of its nonzero entries (`name_nonzero`, int32 when they
    fit) and their values (`name_values`)."""
    flat = array.ravel()
    nonzero = np.flatnonzero(flat)
    if nonzero.size >= SPARSE_SHARE * max(1, flat.size):
        return {name: array}
    positions = nonzero.astype(np.int32 if flat.size <= np.iinfo(np.int32).max else np.int64)
    return {f"{name}_shape": np.asarray(array.shape, dtype=np.int64),
            f"{name}_nonzero": positions, f"{name}_values": flat[nonzero]}


def read_sparsely(name: str, arrays: dict[str, np.ndarray], source: str) -> dict[str, np.ndarray]:
    """arrays with `name` rebuilt from its sparse form when the file holds that form;
    ModelFileError when the parts do not fit together."""
    if name in arrays or f"{name}_shape" not in arrays:
        return arrays
    try:
        shape = tuple(int(n) for n in arrays[f"{name}_shape"])
        positions, values = arrays[f"{name}_nonzero"], arrays[f"{name}_values"]
        size = int(np.prod(shape))
        if (positions.ndim != 1 or positions.shape != values.shape or values.dtype != np.float64
                or (positions.size and (positions.min() < 0 or positions.max() >= size))):
            raise ValueError(f"{name}'s nonzero entries do not fit its shape {shape}")
        flat = np.zeros(size, dtype=np.float64)
        flat[positions] = values
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{source}: inconsistent model file ({error})") from None
    rebuilt = {key: value for key, value in arrays.items()
               if key not in (f"{name}_shape", f"{name}_nonzero", f"{name}_values")}
    rebuilt[name] = flat.reshape(shape)
    return rebuilt


def narrow_ranks(array: np.ndarray) -> np.ndarray:
    """An int32 array of small non-negative numbers as int16 when they all fit (split-svm keeps
    its rare support vectors' common ranks so, in memory and in model files)."""
    if array.size == 0 or (array.min() >= 0 and array.max() <= np.iinfo(np.int16).max):
        return array.astype(np.int16)
    return array

