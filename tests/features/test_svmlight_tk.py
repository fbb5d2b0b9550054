"""The SVM-light-TK reader: trees, labels, vectors, errors naming file:line, round trip."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.features.svmlight import read_svmlight
from polyparse.features.svmlight_tk import (
    SvmlightTkFormatError,
    read_svmlight_tk,
    write_svmlight_tk,
)

GOOD = (
    "+1 |BT| (VP (VB-P join) (NP-B (DT the) (NN board))) |ET| 1:1 2:1 7:1\n"
    "\n"
    "-1 |BT| (S (NP (NN-B #)) (VP (VBZ-P has))) |ET| 3:1 5:0 # comment\n"
    "-1 |BT| (A x) |BT| |BT| (B y) |ET|\n"
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "data.tk"
    path.write_text(text)
    return path


def test_reads_labels_trees_and_vectors(tmp_path: Path) -> None:
    data = read_svmlight_tk(write(tmp_path, GOOD))
    assert data.labels.tolist() == [1, -1, -1]
    assert data.instance_ptr.tolist() == [0, 1, 2, 5]
    assert data.forest.to_brackets(1) == "(S (NP (NN-B #)) (VP (VBZ-P has)))"
    assert data.forest.tree_size(3) == 0
    assert [data.vectors.row(k).tolist() for k in range(3)] == [[1, 2, 7], [3], []]


def test_round_trip(tmp_path: Path) -> None:
    data = read_svmlight_tk(write(tmp_path, GOOD))
    out = tmp_path / "out.tk"
    write_svmlight_tk(out, data)
    again = read_svmlight_tk(out)
    assert again.labels.tolist() == data.labels.tolist()
    assert again.instance_ptr.tolist() == data.instance_ptr.tolist()
    assert again.vectors == data.vectors
    assert [again.forest.to_brackets(t) for t in range(5)] == [
        data.forest.to_brackets(t) for t in range(5)
    ]


@pytest.mark.parametrize(
    "line,problem",
    [
        ("+1 |BT| (VP (VB join) |ET| 1:1", "tree 1: unbalanced brackets"),
        ("+1 |BT| (VP (VB join))", "no |ET|"),
        ("+1 (VP (VB join)) |ET| 1:1", "no |BT|"),
        ("yes |BT| (VP (VB join)) |ET| 1:1", "label 'yes' is not a number"),
        ("+1 |BT| (VP (VB join)) |ET| 2:1 1:1", "ascending"),
        ("+1 |BT| (VP (VB join)) |ET| 1:2", "value"),
        ("+1 |BT| (VP (VB join)) |ET| x:1", "unexpected character"),
        ("+1 |BT| (A x) |ET| 1:1 |BV| 2:1 |EV|", "several vectors (|BV| begins a second one)"),
        ("+1 |BT| (A x) |ET| |BV| 2:1 |EV|", "several vectors"),
        ("+1 |BT| (A x) |ET| 1:1 |EV| 2:1", "'2:1' after |EV|, which closes the one vector"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path: Path, line: str, problem: str) -> None:
    path = write(tmp_path, GOOD + line + "\n")
    with pytest.raises(SvmlightTkFormatError) as error:
        read_svmlight_tk(path)
    message = str(error.value)
    assert message.startswith(f"{path}:5: ") and "\n" not in message
    assert problem in message


@pytest.mark.parametrize("reader", ["fast", "nltk"])
def test_one_vector_closed_by_ev(tmp_path: Path, reader: str) -> None:
    """`|ET| 1:1 3:1 |EV|` (one vector closed by |EV|, as other tools write it) is that vector;
    `|EV|` alone an empty one; line numbers are the examples' lines."""
    text = ("+1 |BT| (S (A x)) |ET| 1:1 3:1 |EV|\n# comment\n\n"
            "-1 |BT| (S (B y)) |ET| |EV| # note\n"
            "0 |BT| (S (A y)) |ET| 2:1|EV|  \n")
    data = read_svmlight_tk(write(tmp_path, text), reader=reader)
    assert [data.vectors.row(k).tolist() for k in range(3)] == [[1, 3], [], [2]]
    assert data.labels.tolist() == [1, -1, 0]
    assert data.line_numbers.tolist() == [1, 4, 5]
    assert data.where("data.tk", 2) == "data.tk:5"


def test_train_5k(srl_boundary, tmp_path: Path) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    assert len(data) == 5000 and int((data.labels == 1).sum()) == 258
    assert data.instance_ptr.tolist() == list(range(5001))
    vectors = tmp_path / "vectors.svm"
    lines = (srl_boundary / "train.5k.tk").read_text().splitlines()
    vectors.write_text("".join(f"{ln.split()[0]} {ln.split('|ET|')[1]}\n" for ln in lines))
    X, y = read_svmlight(vectors)
    assert np.array_equal(y, data.labels)
    assert np.array_equal(X.indptr, data.vectors.indptr)
    assert np.array_equal(X.indices, data.vectors.indices)
