"""SVM-light-TK files: `label |BT| tree |BT| tree ... |ET| id:1 id:1 ... [# comment]`.

The format of Moschitti's SVM-light-TK 1.5 (`-t 5`): after the label, a forest of Penn-bracket
trees, each opened by `|BT|`, closed after the last one by `|ET|`, then an optional svmlight
feature vector. A tree may be empty (`|BT| |ET|`). Several vectors (`|BV|`, `|EV|`) are not
supported and rejected. A `#` after `|ET|` starts a comment; inside trees it is a word.

Reading gives the labels, one TreeForest of all trees (instance k owns the trees
instance_ptr[k] .. instance_ptr[k+1]-1) and a BinaryMatrix of the vectors with the ids as
written (validated like features.svmlight: ascending ids, values 1, value 0 dropped). Bad input
raises one `SvmlightTkFormatError` naming `file:line` and the problem.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import nltk
import numpy as np

from features.binary_matrix import BinaryMatrix
from features.errors import InputError
from features.interning import StringInterner
from features.output_files import output_stream
from features.svmlight import SvmlightFormatError, parse_line, parse_svmlight
from features.trees import TreeForest, TreeSyntaxError, parse_tree

BEGIN_TREE = "|BT|"
END_TREES = "|ET|"


class SvmlightTkFormatError(InputError):
    """A malformed SVM-light-TK file: `file:line: problem`."""


@dataclass
class TreeInstances:
    """The examples of an SVM-light-TK file."""

    labels: np.ndarray
    forest: TreeForest
    instance_ptr: np.ndarray
    vectors: BinaryMatrix

    def __len__(self) -> int:
        return int(self.labels.size)

    def tree_of(self, k: int) -> int:
        """Index in `forest` of the first tree of instance k (the only one in most files)."""
        return int(self.instance_ptr[k])


def read_svmlight_tk(
    path: str | os.PathLike,
    labels: StringInterner | None = None,
    productions: StringInterner | None = None,
    n_features: int | None = None,
) -> TreeInstances:
    """Read an SVM-light-TK file; pass the interners of other forests to share ids with them."""
    text = Path(path).read_bytes()
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError as error:
        line = text.count(b"\n", 0, error.start) + 1
        raise SvmlightTkFormatError(f"{path}:{line}: not valid UTF-8") from None
    return parse_svmlight_tk(decoded, str(path), labels, productions, n_features)


def parse_svmlight_tk(
    text: str,
    name: str = "<svmlight-tk>",
    labels: StringInterner | None = None,
    productions: StringInterner | None = None,
    n_features: int | None = None,
) -> TreeInstances:
    """Parse the text of an SVM-light-TK file; `name` is used in error messages."""
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
    y = np.asarray(targets)
    if np.all(y == np.round(y)) and np.all(np.abs(y) < 2**53):
        y = y.astype(np.int64)
    forest = TreeForest(trees, labels, productions)
    return TreeInstances(y, forest, np.asarray(instance_ptr, dtype=np.int64), matrix)


def _split_line(line: str, where: str) -> tuple[float, list[nltk.Tree | None], str]:
    head, begin, rest = line.partition(BEGIN_TREE)
    if not begin:
        raise SvmlightTkFormatError(f"{where}: no {BEGIN_TREE} (expected 'label {BEGIN_TREE} "
                                    f"tree {END_TREES} features')")
    forest_text, end, vector = rest.partition(END_TREES)
    if not end:
        raise SvmlightTkFormatError(f"{where}: no {END_TREES} after the trees")
    label_text = head.strip()
    try:
        target = float(label_text)
    except ValueError:
        target = math.nan
    if not label_text or " " in label_text or not math.isfinite(target):
        raise SvmlightTkFormatError(f"{where}: label {label_text!r} is not a number")
    vector = vector.split("#", 1)[0]
    if "|BV|" in vector or "|EV|" in vector:
        raise SvmlightTkFormatError(f"{where}: several vectors (|BV| ... |EV|) are not supported")
    trees = []
    for k, tree_text in enumerate(forest_text.split(BEGIN_TREE), 1):
        try:
            trees.append(parse_tree(tree_text))
        except TreeSyntaxError as error:
            raise SvmlightTkFormatError(f"{where}: tree {k}: {error}") from None
    return target, trees, vector


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
