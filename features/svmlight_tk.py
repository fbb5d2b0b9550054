"""SVM-light-TK files: `label |BT| tree |BT| tree ... |ET| id:1 id:1 ... [# comment]`.

The format of Moschitti's SVM-light-TK 1.5 (`-t 5`): after the label, a forest of Penn-bracket
trees, each opened by `|BT|`, closed after the last one by `|ET|`, then an optional svmlight
feature vector, which `|EV|` may close (`|ET| 1:1 3:1 |EV|`, as other tools write it). A tree
may be empty (`|BT| |ET|`). Several vectors (`v1 |BV| v2 |EV|`, where `|BV|` begins the second)
are not supported and rejected, and so is text after `|EV|`. A `#` after `|ET|` starts a
comment; inside trees it is a word. A label may be 0 (unlabelled, which svm_classify takes: it
predicts the example and scores none). Trees are read by features/penn_brackets.py (brackets as
words where the tree's shape says so).

Reading gives the labels, one TreeForest of all trees (instance k owns the trees
instance_ptr[k] .. instance_ptr[k+1]-1), a BinaryMatrix of the vectors with the ids as written
(validated like features.svmlight: ascending ids, values 1, value 0 dropped) and the line of
each example. Bad input raises one `SvmlightTkFormatError` naming `file:line` and the
problem.

Two readers give identical results: `fast` (features/bracket_scan.pyx fills the forest's arrays
in one pass over the bytes; a line it cannot read is handed to the reference for the message)
and `nltk`, the reference (nltk.Tree.fromstring per tree). Text holding white space other than
space, tab, carriage return and newline (vertical tab, form feed, U+0085, U+00A0, ...) always
takes the reference path.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.bracket_scan import scan_svmlight_tk
from polyparse.features.errors import InputError
from polyparse.features.interning import StringInterner
from polyparse.features.output_files import output_stream
from polyparse.features.penn_brackets import TreeSyntaxError, parse_tree
from polyparse.features.svmlight import SvmlightFormatError, parse_line, parse_svmlight
from polyparse.features.trees import TreeForest

if TYPE_CHECKING:
    import nltk

BEGIN_TREE = "|BT|"
END_TREES = "|ET|"
BEGIN_VECTOR = "|BV|"
END_VECTOR = "|EV|"
READERS = ("fast", "nltk")
# What str.strip() and nltk's \s treat as white space besides " \t\r\n".
_OTHER_SPACE = re.compile("[\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029"
                          "\u202f\u205f\u3000]")
_OTHER_SPACE_BYTES = np.zeros(256, dtype=bool)
_OTHER_SPACE_BYTES[[0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F]] = True


class SvmlightTkFormatError(InputError):
    """A malformed SVM-light-TK file: `file:line: problem`."""


@dataclass
class TreeInstances:
    """The examples of an SVM-light-TK file."""

    labels: np.ndarray
    forest: TreeForest
    instance_ptr: np.ndarray
    vectors: BinaryMatrix
    # The 1-based line of each example in its file (None: not read from a file).
    line_numbers: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.labels.size)

    def where(self, name: str, k: int) -> str:
        """`name:line` of example k for messages (`name: example k+1` without line numbers)."""
        if self.line_numbers is None:
            return f"{name}: example {k + 1}"
        return f"{name}:{int(self.line_numbers[k])}"

    def tree_of(self, k: int) -> int:
        """Index in `forest` of the first tree of instance k (the only one in most files)."""
        return int(self.instance_ptr[k])


def _check_reader(reader: str) -> None:
    if reader not in READERS:
        raise ValueError(f"reader must be one of {READERS}, not {reader!r}")


def read_svmlight_tk(
    path: str | os.PathLike,
    labels: StringInterner | None = None,
    productions: StringInterner | None = None,
    n_features: int | None = None,
    reader: str = "fast",
) -> TreeInstances:
    """Read an SVM-light-TK file; pass the interners of other forests to share ids with them."""
    data = Path(path).read_bytes()
    return parse_svmlight_tk_bytes(data, str(path), labels, productions, n_features, reader)


def parse_svmlight_tk_bytes(
    data: bytes,
    name: str = "<svmlight-tk>",
    labels: StringInterner | None = None,
    productions: StringInterner | None = None,
    n_features: int | None = None,
    reader: str = "fast",
) -> TreeInstances:
    """Parse the bytes of an SVM-light-TK file (UTF-8); `name` is used in error messages."""
    _check_reader(reader)
    codes = np.frombuffer(data, dtype=np.uint8)
    ascii_only = not codes.size or int(codes.max()) < 0x80
    text = None
    if not ascii_only:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise SvmlightTkFormatError(f"{name}:{line}: not valid UTF-8") from None
    other_space = bool(_OTHER_SPACE_BYTES[codes].any()) or (
        text is not None and _OTHER_SPACE.search(text) is not None)
    if reader == "nltk" or other_space:
        text = data.decode("utf-8") if text is None else text
        return parse_svmlight_tk(text, name, labels, productions, n_features, "nltk")
    return _parse_fast(data, name, labels, productions, n_features)


def parse_svmlight_tk(
    text: str,
    name: str = "<svmlight-tk>",
    labels: StringInterner | None = None,
    productions: StringInterner | None = None,
    n_features: int | None = None,
    reader: str = "fast",
) -> TreeInstances:
    """Parse the text of an SVM-light-TK file; `name` is used in error messages."""
    if reader == "fast":
        return parse_svmlight_tk_bytes(text.encode("utf-8"), name, labels, productions,
                                       n_features, reader)
    _check_reader(reader)
    targets: list[float] = []
    trees = []
    instance_ptr = [0]
    vectors: list[str] = []
    line_numbers: list[int] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{name}:{number}"
        target, line_trees, vector = _split_line(line, where)
        targets.append(target)
        trees.extend(line_trees)
        instance_ptr.append(len(trees))
        vectors.append(vector)
        line_numbers.append(number)
    if not targets:
        raise SvmlightTkFormatError(f"{name}: empty file (no examples)")
    matrix = _parse_vectors(vectors, line_numbers, name, n_features)
    forest = TreeForest(trees, labels, productions)
    return TreeInstances(_targets(targets), forest, np.asarray(instance_ptr, dtype=np.int64),
                         matrix, np.asarray(line_numbers, dtype=np.int64))


def _targets(values: list[float] | np.ndarray) -> np.ndarray:
    y = np.asarray(values, dtype=np.float64)
    if np.all(y == np.round(y)) and np.all(np.abs(y) < 2**53):
        y = y.astype(np.int64)
    return y


def _label_value(label_text: str) -> float | None:
    """The value of a stripped label text, None when it is not a number (see _split_line)."""
    try:
        target = float(label_text)
    except ValueError:
        return None
    if not label_text or " " in label_text or not math.isfinite(target):
        return None
    return target


def _parse_fast(
    data: bytes,
    name: str,
    labels: StringInterner | None,
    productions: StringInterner | None,
    n_features: int | None,
) -> TreeInstances:
    """The bracket scanner's reading of data; its errors are those of the nltk path."""
    scan = scan_svmlight_tk(data, lambda text: _label_value(text.decode("utf-8")))
    if isinstance(scan, int):
        line = data.split(b"\n")[scan - 1].decode("utf-8")
        _split_line(line, f"{name}:{scan}")
        return parse_svmlight_tk(data.decode("utf-8"), name, labels, productions, n_features,
                                 "nltk")
    if not scan["targets"].size:
        raise SvmlightTkFormatError(f"{name}: empty file (no examples)")
    try:
        matrix, _ = parse_svmlight(scan["vectors"], name, n_features=n_features)
    except SvmlightFormatError:
        text = data.decode("utf-8").split("\n")
        numbers = scan["line_numbers"].tolist()
        vectors = [_vector_text(text[k - 1].partition(BEGIN_TREE)[2].partition(END_TREES)[2],
                                f"{name}:{k}") for k in numbers]
        _parse_vectors(vectors, numbers, name, n_features)
        raise
    labels = labels if labels is not None else StringInterner()
    productions = productions if productions is not None else StringInterner()
    strings = [text.decode("utf-8") for text in scan["label_strings"]]
    label_ids = np.asarray([labels.add(text) for text in strings], dtype=np.int32)
    production_ids = np.zeros(len(scan["production_items"]) + 1, dtype=np.int32)
    for p, items in enumerate(scan["production_items"], 1):
        head, *kids = (strings[i] for i in items.tolist())
        production_ids[p] = productions.add(f"{head} -> {' '.join(kids)}")
    forest = TreeForest.from_arrays(
        labels, productions, scan["tree_ptr"], label_ids[scan["label"]],
        production_ids[scan["production"]], scan["child_ptr"], scan["children"],
        scan["subtree_end"], scan["is_word"])
    return TreeInstances(_targets(scan["targets"]), forest, scan["instance_ptr"], matrix,
                         scan["line_numbers"])


def _split_line(line: str, where: str) -> tuple[float, list[nltk.Tree | None], str]:
    head, begin, rest = line.partition(BEGIN_TREE)
    if not begin:
        raise SvmlightTkFormatError(f"{where}: no {BEGIN_TREE} (expected 'label {BEGIN_TREE} "
                                    f"tree {END_TREES} features')")
    forest_text, end, vector = rest.partition(END_TREES)
    if not end:
        raise SvmlightTkFormatError(f"{where}: no {END_TREES} after the trees")
    label_text = head.strip()
    target = _label_value(label_text)
    if target is None:
        raise SvmlightTkFormatError(f"{where}: label {label_text!r} is not a number")
    vector = _vector_text(vector, where)
    trees = []
    for k, tree_text in enumerate(forest_text.split(BEGIN_TREE), 1):
        try:
            trees.append(parse_tree(tree_text))
        except TreeSyntaxError as error:
            raise SvmlightTkFormatError(f"{where}: tree {k}: {error}") from None
    return target, trees, vector


def _vector_text(text: str, where: str) -> str:
    """The vector of the text after |ET| (up to a comment): all of it, or what an |EV| closes;
    one line for several vectors (|BV|) or text after |EV|."""
    text = text.split("#", 1)[0]
    if BEGIN_VECTOR in text:
        raise SvmlightTkFormatError(f"{where}: several vectors ({BEGIN_VECTOR} begins a second "
                                    f"one) are not supported; one vector follows {END_TREES}, "
                                    f"closed by {END_VECTOR} or the line's end")
    vector, end, rest = text.partition(END_VECTOR)
    if end and rest.strip():
        raise SvmlightTkFormatError(f"{where}: {rest.strip()!r} after {END_VECTOR}, which "
                                    "closes the one vector")
    return vector


def _parse_vectors(
    vectors: list[str], line_numbers: list[int], name: str, n_features: int | None
) -> BinaryMatrix:
    """All vectors at once through the vectorised svmlight reader; per line on any problem."""
    blob = "\n".join("0 " + vector.strip() for vector in vectors).encode()
    try:
        matrix, _ = parse_svmlight(blob, name, n_features=n_features)
    except SvmlightFormatError:
        for vector, number in zip(vectors, line_numbers):
            try:
                parse_line(("0 " + vector.strip()).encode(), f"{name}:{number}", n_features)
            except SvmlightFormatError as error:
                raise SvmlightTkFormatError(str(error)) from None
        raise
    return matrix


def write_svmlight_tk(path: str | os.PathLike, instances: TreeInstances) -> None:
    """Write instances in the format read here (trees on one line, ids as stored)."""
    lines = []
    forest, ptr, matrix = instances.forest, instances.instance_ptr, instances.vectors
    for k, target in enumerate(instances.labels.tolist()):
        label = f"{target:+d}" if isinstance(target, int) else repr(float(target))
        trees = " ".join(
            f"{BEGIN_TREE} {forest.to_brackets(t)}" for t in range(ptr[k], ptr[k + 1])
        )
        features = " ".join(f"{i}:1" for i in matrix.row(k).tolist())
        lines.append(f"{label} {trees} {END_TREES} {features}".rstrip() + "\n")
    with output_stream(path, newline="\n") as out:
        out.write("".join(lines))
