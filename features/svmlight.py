"""svmlight/libsvm text files of binary features: `label id:1 id:1 ...`, one example per line.

Conventions of this reader and writer:

- Feature ids are kept as written: the id on the line (minus `id_offset`, default 0) is the
  column in the BinaryMatrix. libsvm/liblinear files are 1-based, so their column 0 stays empty;
  pass `id_offset=1` to both functions to map them onto 0-based columns (and back).
- Ids must be strictly ascending within a line. Values must be 1 (any spelling of the number,
  "1", "1.0", "1e0"); value 0 means "absent" and the feature is dropped; any other value is an
  error, since most backends here work on binary features, unless the reader is asked for
  real values (`real_values=True`): then a file holding other finite values gives a
  RealMatrix (features/real_matrix.py), for kernel-svm, linear and poly2-linear; a file of
  ones still gives a BinaryMatrix.
- Labels are numbers; they are returned as int64 when all of them are integers, else float64.
- Blank lines and `# comments` (from `#` to the end of the line) are skipped. `qid:N` after the
  label (SVMrank's query ids) is skipped with one InputWarning, as SVMlight and scikit-learn's
  reader skip it for classification; a UTF-8 byte-order mark at the start is skipped.

Reading is vectorised with NumPy over the file's bytes, in chunks of about 2 MiB cut at line
ends (tokens, colons and id digits located with array operations; the chunks bound the memory
the temporaries take). When that fast path finds any problem, the file is re-read by the plain
per-line parser `parse_line`, which names the file, the first bad line and the problem in one
`SvmlightFormatError`.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from polyparse.features.binary_matrix import BinaryMatrix, BinaryMatrixLike, as_binary_matrix
from polyparse.features.errors import InputError, InputWarning
from polyparse.features.output_files import output_stream
from polyparse.features.real_matrix import FeatureMatrix, RealMatrix

MAX_ID = np.iinfo(np.int32).max
BOM = b"\xef\xbb\xbf"
# A query id after the label: `1 qid:3 4:1` (SVMrank); kept out of the features.
_QID = re.compile(rb"(?m)^([ \t]*[^ \t\r\n#]+)[ \t]+qid:[^ \t\r\n#]*")
CHUNK_BYTES = 1 << 21
_SEPARATOR = re.compile(rb"[ \t\r]+")
_NUMBER_BYTES = frozenset(b"0123456789+-.eE")
_ALLOWED = np.zeros(256, dtype=bool)
_ALLOWED[list(b"0123456789+-.eE: \t\r\n")] = True
_SEPARATOR_BYTE = np.zeros(256, dtype=bool)
_SEPARATOR_BYTE[list(b" \t\r\n")] = True


class SvmlightFormatError(InputError):
    """A malformed svmlight/libsvm file: `file:line: problem`."""


def read_svmlight(
    path: str | os.PathLike, n_features: int | None = None, id_offset: int = 0,
    real_values: bool = False,
) -> tuple[FeatureMatrix, np.ndarray]:
    """Examples of an svmlight file as (X, y); see the module notes for the conventions (X is
    a BinaryMatrix, or with real_values a RealMatrix when the file holds other values)."""
    data = Path(path).read_bytes()
    return parse_svmlight(data, str(path), n_features=n_features, id_offset=id_offset,
                          real_values=real_values)


def parse_svmlight(
    data: bytes, name: str = "<svmlight>", n_features: int | None = None, id_offset: int = 0,
    first_line: int = 1, allow_empty: bool = False, real_values: bool = False,
) -> tuple[FeatureMatrix, np.ndarray]:
    """Parse the bytes of an svmlight file; `name` is used in error messages, whose line
    numbers start at first_line (a later part of a file); no examples is an error unless
    allow_empty; real_values: values other than 0 and 1 give a RealMatrix (module notes)."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    if b"qid:" in data:
        data, queries = _QID.subn(rb"\1", data)
        if queries:
            import warnings

            warnings.warn(f"{name}: {queries} query ids (qid:) skipped; these learners do not "
                          "rank by query", InputWarning, stacklevel=2)
    if data and np.frombuffer(data, dtype=np.uint8).max() >= 0x80:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + first_line
            raise SvmlightFormatError(
                f"{name}:{line}: not valid UTF-8 (byte 0x{data[error.start]:02x})"
            ) from None
    pieces = []
    lines_before = first_line - 1
    for chunk in _chunks(data):
        if b"#" in chunk:
            chunk = b"\n".join(line.split(b"#", 1)[0] for line in chunk.split(b"\n"))
        if not chunk.endswith(b"\n"):
            chunk += b"\n"
        parsed = _parse_fast(chunk, n_features, id_offset, real_values)
        if parsed is None:
            _raise_first_error(chunk, name, lines_before, n_features, id_offset, real_values)
        pieces.append(parsed)
        lines_before += chunk.count(b"\n")
    indptr, indices, labels, values = _concatenate(pieces)
    if labels.size == 0 and not allow_empty:
        raise SvmlightFormatError(f"{name}: empty file (no examples)")
    if n_features is None:
        n_features = int(indices.max()) + 1 if indices.size else 0
    if values is not None:
        return RealMatrix(indptr, indices, values, n_features, validate=False), labels
    return BinaryMatrix(indptr, indices, n_features, validate=False), labels


def _chunks(data: bytes) -> Iterator[bytes]:
    """data cut after newlines into pieces of about CHUNK_BYTES (bounds the parser's memory)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + CHUNK_BYTES)
        end = len(data) if end < 0 else end + 1
        yield data[start:end]
        start = end


def _concatenate(
    pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    if not pieces:
        return _EMPTY
    indptr = [np.zeros(1, dtype=np.int64)]
    total = 0
    for piece_indptr, *_ in pieces:
        indptr.append(piece_indptr[1:] + total)
        total += int(piece_indptr[-1])
    labels = [piece[2] for piece in pieces]
    if any(label.dtype != np.int64 for label in labels):
        labels = [label.astype(np.float64) for label in labels]
    values = None
    if any(piece[3] is not None for piece in pieces):
        values = np.concatenate([np.ones(piece[1].size) if piece[3] is None else piece[3]
                                 for piece in pieces])
    return (
        np.concatenate(indptr),
        np.concatenate([piece[1] for piece in pieces]),
        np.concatenate(labels),
        values,
    )


def _parse_fast(
    data: bytes, n_features: int | None, id_offset: int, real_values: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None:
    """(indptr, indices, labels, values) of well-formed data (ending in a newline; values None
    when every kept value is 1); None at any problem."""
    a = np.frombuffer(data, dtype=np.uint8)
    if not _ALLOWED[a].all():
        return None
    separator = _SEPARATOR_BYTE[a]
    body = ~separator
    before = np.empty_like(separator)
    before[0] = True
    before[1:] = separator[:-1]
    starts = np.flatnonzero(body & before)
    if starts.size == 0:
        return _EMPTY
    after = np.empty_like(separator)
    after[-1] = True
    after[:-1] = separator[1:]
    ends = np.flatnonzero(body & after) + 1

    token_line = np.searchsorted(np.flatnonzero(a == 10), starts)
    is_label = np.ones(starts.size, dtype=bool)
    is_label[1:] = token_line[1:] != token_line[:-1]
    feature = ~is_label
    f_starts, f_ends = starts[feature], ends[feature]

    # The i-th colon must lie inside the i-th feature token and there must be no other colon:
    # then every feature token holds exactly one colon and no label holds any.
    colon = np.flatnonzero(a == 58)
    if colon.size != f_starts.size or np.any(colon <= f_starts) or np.any(colon >= f_ends - 1):
        return None
    row_of_feature = np.cumsum(is_label)[feature] - 1
    id_length = colon - f_starts
    bad = id_length > 10
    ids = np.zeros(colon.size, dtype=np.int64)
    power = 1
    for place in range(10):
        has = id_length > place
        digit = a[np.maximum(colon - 1 - place, 0)].astype(np.int64) - 48
        bad |= has & ((digit < 0) | (digit > 9))
        ids += np.where(has, digit, 0) * power
        power *= 10
    ids -= id_offset
    bad |= (ids < 0) | (ids > MAX_ID)
    if n_features is not None:
        bad |= ids >= n_features
    if ids.size > 1:
        bad[1:] |= (row_of_feature[1:] == row_of_feature[:-1]) & (ids[1:] <= ids[:-1])
    if bad.any():
        return None

    keep = np.ones(colon.size, dtype=bool)
    plain_one = (f_ends == colon + 2) & (a[np.minimum(colon + 1, a.size - 1)] == 49)
    values = None
    for k in np.flatnonzero(~plain_one):
        value = _number(data[colon[k] + 1 : f_ends[k]])
        if value == 0.0:
            keep[k] = False
        elif value != 1.0:
            if not real_values or value is None or not math.isfinite(value):
                return None
            if values is None:
                values = np.ones(colon.size)
            values[k] = value

    label_starts, label_ends = starts[is_label].tolist(), ends[is_label].tolist()
    try:
        labels = np.array([float(data[s:e]) for s, e in zip(label_starts, label_ends)])
    except ValueError:
        return None
    if not np.isfinite(labels).all():
        return None
    if np.all(labels == np.round(labels)) and np.all(np.abs(labels) < 2**53):
        labels = labels.astype(np.int64)
    indptr = np.zeros(labels.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of_feature[keep], minlength=labels.size), out=indptr[1:])
    return indptr, ids[keep].astype(np.int32), labels, None if values is None else values[keep]


_EMPTY = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64),
          None)


def _number(text: bytes) -> float | None:
    """The float spelled by text (digits, sign, point, exponent only), or None."""
    if not text or not _NUMBER_BYTES.issuperset(text):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def example_line(data: bytes, k: int, first_line: int = 1) -> int:
    """The line number of example k (0-based) of svmlight bytes, blank and comment lines
    counted as the reader counts them (line numbers start at first_line); for messages about an
    example found after reading."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    seen = 0
    for number, line in enumerate(data.split(b"\n"), first_line):
        if line.split(b"#", 1)[0].strip():
            if seen == k:
                return number
            seen += 1
    raise IndexError(f"the data holds {seen} examples, not {k + 1}")


def _raise_first_error(
    data: bytes, name: str, lines_before: int, n_features: int | None, id_offset: int,
    real_values: bool = False,
) -> None:
    """Re-read the lines with the plain parser and raise the error of the first bad one."""
    for number, line in enumerate(data.split(b"\n"), lines_before + 1):
        parse_line(line, f"{name}:{number}", n_features, id_offset, real_values)
    raise SvmlightFormatError(f"{name}: malformed file")


def parse_line(
    line: bytes, where: str, n_features: int | None = None, id_offset: int = 0,
    real_values: bool = False,
) -> tuple[float, list[int]] | None:
    """Reference parser of one line (comment removed): (label, ids), or None for a blank line;
    real_values: any finite value is taken (the ids of the values kept, 0 dropped)."""
    tokens = [token for token in _SEPARATOR.split(line) if token]
    if not tokens:
        return None
    for token in tokens:
        for byte in token:
            if not _ALLOWED[byte]:
                shown = token.decode("utf-8", "replace")
                raise SvmlightFormatError(
                    f"{where}: unexpected character {chr(byte)!r} in {shown!r}"
                )
    head = tokens[0].decode()
    if ":" in head:
        raise SvmlightFormatError(f"{where}: missing label (the line starts with {head!r})")
    label = _number(tokens[0])
    if label is None or not math.isfinite(label):
        raise SvmlightFormatError(f"{where}: label {head!r} is not a number")
    previous = -1
    ids: list[int] = []
    for raw in tokens[1:]:
        token = raw.decode()
        id_text, colon, value_text = token.partition(":")
        if not colon or ":" in value_text or not value_text:
            raise SvmlightFormatError(f"{where}: expected id:value, found {token!r}")
        if not id_text or not id_text.isdigit():
            raise SvmlightFormatError(
                f"{where}: feature id {id_text!r} is not a non-negative integer"
            )
        if len(id_text) > 10 or int(id_text) - id_offset > MAX_ID:
            raise SvmlightFormatError(
                f"{where}: feature id {id_text} is too large (at most {MAX_ID + id_offset})"
            )
        index = int(id_text) - id_offset
        if index < 0:
            raise SvmlightFormatError(
                f"{where}: feature id {id_text} is below the first id {id_offset}"
            )
        if n_features is not None and index >= n_features:
            raise SvmlightFormatError(
                f"{where}: feature id {id_text} is outside the {n_features} features of the model"
            )
        if index <= previous:
            raise SvmlightFormatError(
                f"{where}: feature ids must be strictly ascending "
                f"({previous + id_offset} then {id_text})"
            )
        previous = index
        value = _number(value_text.encode())
        if value is None:
            raise SvmlightFormatError(
                f"{where}: value {value_text!r} of feature {id_text} is not a number"
            )
        if real_values and not math.isfinite(value):
            raise SvmlightFormatError(
                f"{where}: value {value_text!r} of feature {id_text} is not finite"
            )
        if value == 1.0 or (real_values and value != 0.0):
            ids.append(index)
        elif value != 0.0:
            raise SvmlightFormatError(
                f"{where}: feature {id_text} has value {value_text}; "
                "only binary features (value 1) are supported"
            )
    return label, ids


def write_svmlight(
    path: str | os.PathLike, X: BinaryMatrixLike, y: np.ndarray, id_offset: int = 0
) -> None:
    """Write (X, y) as `label id:1 ...` lines, id = column + id_offset (1 for liblinear tools);
    X: a BinaryMatrix or what features.binary_matrix.as_binary_matrix takes."""
    X = as_binary_matrix(X)
    y = np.asarray(y)
    if y.shape != (len(X),):
        raise ValueError(f"{len(X)} rows but {y.shape} labels")
    labels = [_label_text(value) for value in y.tolist()]
    indptr = X.indptr
    ids = (X.indices.astype(np.int64) + id_offset).tolist()
    with output_stream(path, newline="\n") as out:
        for i, label in enumerate(labels):
            row = ids[indptr[i] : indptr[i + 1]]
            out.write(label + " %d:1" * len(row) % tuple(row) + "\n")


def _label_text(value: float | int) -> str:
    """Integers (also integral floats) without a decimal point, other numbers by repr."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"label {value} cannot be written to an svmlight file")
    if isinstance(value, float) and not value.is_integer():
        return repr(value)
    return str(int(value))
